"""Writing teams and adjustments: every writer takes the club lock first and writes the audit log.

Teams: `team_create` and `team_edit` (name, short name, colour, roster, captains). A member is
on at most one team per season; a roster change leaves the old row with `removed_at` set.

Adjustments: `adjustment_book` (a penalty, bonus or chombo to a member or a team, with its points
and, where the season's rules keep money, a member's yen at a chosen rate) and
`adjustment_reverse` (a new entry with the opposite amounts). Nothing is updated or deleted.
A member's yen reaches the books in the same transaction: a ledger entry of kind adjustment
(a penalty: the member owes the club; a bonus: the club owes the member, a debt until paid),
undone by its reversal, both written by league.models.money's `ledger_record` (the writer of
every ledger entry), which records them as changed (league.core.changes: league.books posts
them as the action ends).
"""

from __future__ import annotations

import datetime
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from league.core import changes
from league.core.actions import action
from league.core.errors import NON_FIELD, ServiceError
from league.core.locks import for_update, lock_club
from league.models import (
    Adjustment,
    Club,
    FinalSeat,
    Game,
    Member,
    Result,
    RulesVersion,
    Season,
    Stage,
    StageEntry,
    Team,
    TeamMatch,
    TeamMember,
    TeamSlot,
)
from league.models.audit import User, audit
from league.models.draw import table_label
from league.models.money import LedgerEntry, ledger_record
from league.models.rules import rules_in_force
from league.models.teams import TEAM_NAME_LENGTH, TEAM_SHORT_LENGTH
from league.models.totals import list_adjusted
from league.teams.selectors import stage_cut, stage_standings
from scoring.fixtures import fixtures
from scoring.stages import CARRY_MODES, carried

_COLOUR = re.compile(r"#[0-9a-f]{6}")
MAX_POINTS = 10_000_000  # tenths: ±1,000,000.0, far beyond any real penalty


@dataclass(frozen=True)
class TeamInput:
    name: str
    short_name: str
    colour: str
    members: Sequence[Member]
    captains: Sequence[Member]


def _checked(season: Season, data: TeamInput, team: Team | None) -> TeamInput:
    errors: dict[str, list[str]] = {}
    name = " ".join(data.name.split())
    short = " ".join(data.short_name.split())
    colour = data.colour.strip().lower()
    if not name:
        errors["name"] = [_("Enter a name.")]
    elif len(name) > TEAM_NAME_LENGTH:
        errors["name"] = [_("Use at most %(n)d characters.") % {"n": TEAM_NAME_LENGTH}]
    if not short:
        errors["short_name"] = [_("Enter a short name.")]
    elif len(short) > TEAM_SHORT_LENGTH:
        errors["short_name"] = [_("Use at most %(n)d characters.") % {"n": TEAM_SHORT_LENGTH}]
    if not _COLOUR.fullmatch(colour):
        errors["colour"] = [_("Enter a colour as #rrggbb.")]
    if any(m.club_id != season.club_id or m.merged_into_id is not None for m in data.members):
        errors["members"] = [_("Choose members of this club.")]
    member_ids = {m.pk for m in data.members}
    if any(c.pk not in member_ids for c in data.captains):
        errors["captains"] = [_("A captain must be on the team's roster.")]
    if name and "name" not in errors:
        same = Team.objects.filter(season=season, name=name)
        if team is not None:
            same = same.exclude(pk=team.pk)
        if same.exists():
            errors["name"] = [_("A team with this name is already in the season.")]
    if member_ids and "members" not in errors:
        elsewhere = TeamMember.objects.filter(
            season=season, member_id__in=member_ids, removed_at__isnull=True
        )
        if team is not None:
            elsewhere = elsewhere.exclude(team=team)
        taken = sorted(elsewhere.values_list("member__name", "team__name"))
        if taken:
            names = "、".join(f"{m}（{t}）" for m, t in taken)
            errors["members"] = [
                _("Already on another team in this season: %(names)s") % {"names": names}
            ]
    if errors:
        raise ServiceError(errors)
    return TeamInput(name, short, colour, data.members, data.captains)


def team_snapshot(team: Team, roster: Sequence[TeamMember]) -> dict[str, object]:
    return {
        "name": team.name,
        "short_name": team.short_name,
        "colour": team.colour,
        "members": sorted(r.member_id for r in roster),
        "captains": sorted(r.member_id for r in roster if r.is_captain),
    }


def _active_roster(team: Team) -> list[TeamMember]:
    return list(TeamMember.objects.filter(team=team, removed_at__isnull=True).order_by("pk"))


def _taken_error() -> ServiceError:
    return ServiceError.one("members", _("A member was just put on another team: try again."))


def team_create(*, season: Season, user: User, data: TeamInput) -> Team:
    with action():
        lock_club(season.club_id)
        data = _checked(season, data, None)
        team = Team.objects.create(
            club_id=season.club_id,
            season=season,
            name=data.name,
            short_name=data.short_name,
            colour=data.colour,
        )
        captains = {c.pk for c in data.captains}
        try:
            with transaction.atomic():  # a savepoint: a roster clash is said, not raised
                roster = TeamMember.objects.bulk_create(
                    [
                        TeamMember(team=team, season=season, member=m, is_captain=m.pk in captains)
                        for m in data.members
                    ]
                )
        except IntegrityError:
            raise _taken_error() from None
        audit(
            club=season.club,
            actor=user,
            action="team.create",
            target=f"team:{team.pk}",
            after=team_snapshot(team, roster),
        )
    return team


def team_edit(*, team: Team, user: User, data: TeamInput) -> Team:
    with action():
        lock_club(team.club_id)
        team = for_update(Team.objects).get(pk=team.pk)
        season = team.season
        data = _checked(season, data, team)
        old = _active_roster(team)
        before = team_snapshot(team, old)
        team.name, team.short_name, team.colour = data.name, data.short_name, data.colour
        team.save(update_fields=["name", "short_name", "colour"])
        wanted = {m.pk: m for m in data.members}
        captains = {c.pk for c in data.captains}
        now = timezone.now()
        kept: list[TeamMember] = []
        for row in old:  # a left member, or a captain's mark changed: the old row ends
            if row.member_id in wanted and row.is_captain == (row.member_id in captains):
                kept.append(row)
            else:
                row.removed_at = now
                row.save(update_fields=["removed_at"])
        kept_ids = {r.member_id for r in kept}
        try:
            with transaction.atomic():  # a savepoint: a roster clash is said, not raised
                added = TeamMember.objects.bulk_create(
                    [
                        TeamMember(team=team, season=season, member=m, is_captain=pk in captains)
                        for pk, m in wanted.items()
                        if pk not in kept_ids
                    ]
                )
        except IntegrityError:
            raise _taken_error() from None
        after = team_snapshot(team, [*kept, *added])
        if after != before:
            audit(
                club=season.club,
                actor=user,
                action="team.edit",
                target=f"team:{team.pk}",
                before=before,
                after=after,
            )
    return team


# --- adjustments -----------------------------------------------------------------------------


def season_rates(season: Season) -> dict[str, int]:
    """The rates (name → yen per 1,000 points) of the rules in force at the season's end."""
    version = RulesVersion.in_force(season.club, season.end)
    if version is None:
        return {}
    return {name: tier.yen_per_1000 for name, tier in version.rules.rates.items()}


def yen_at(points: int, yen_per_1000: int) -> int:
    """Points (tenths of 1,000) in yen at a rate, rounded half away from zero."""
    tenths_of_yen = abs(points) * yen_per_1000
    amount = (tenths_of_yen + 5) // 10
    return -amount if points < 0 else amount


def adjustment_book(
    *,
    season: Season,
    user: User,
    kind: str,
    points: int,
    reason: str,
    member: Member | None = None,
    team: Team | None = None,
    rate: str = "",
) -> Adjustment:
    errors: dict[str, list[str]] = {}
    reason = " ".join(reason.split())
    if kind not in (Adjustment.PENALTY, Adjustment.BONUS, Adjustment.CHOMBO):
        errors["kind"] = [_("Choose a penalty, a bonus or a chombo.")]
    if (member is None) == (team is None):
        errors["target"] = [_("Choose one member or one team.")]
    elif member is not None and (
        member.club_id != season.club_id or member.merged_into_id is not None
    ):
        errors["target"] = [_("Choose a member of this club.")]
    elif team is not None and team.season_id != season.pk:
        errors["target"] = [_("Choose a team of this season.")]
    if points == 0:
        errors["points"] = [_("Enter points other than zero.")]
    elif abs(points) > MAX_POINTS:
        errors["points"] = [_("Enter at most 1,000,000 points.")]
    elif kind in (Adjustment.PENALTY, Adjustment.CHOMBO) and points > 0:
        errors["points"] = [_("A penalty takes points away: enter them with ▲ or −.")]
    elif kind == Adjustment.BONUS and points < 0:
        errors["points"] = [_("A bonus adds points: enter them without a minus.")]
    if not reason:
        errors["reason"] = [_("Enter a reason.")]
    elif len(reason) > 200:
        errors["reason"] = [_("Use at most %(n)d characters.") % {"n": 200}]
    yen = None
    if rate and team is not None:
        errors["rate"] = [_("Yen is booked to a member: leave the rate empty for a team.")]
    elif rate:
        rates = season_rates(season)
        if rate not in rates:
            errors["rate"] = [_("Choose one of the rates of the season's rules.")]
        elif "points" not in errors:
            yen = yen_at(points, rates[rate])
    if errors:
        raise ServiceError(errors)
    with action():
        lock_club(season.club_id)
        ledger = None
        if yen and member is not None:  # the books' rows, in this transaction
            ledger = ledger_record(
                club_id=season.club_id,
                user=user,
                kind=LedgerEntry.ADJUSTMENT,
                borrower=member if yen < 0 else None,  # owes the club a penalty
                payee=member if yen > 0 else None,  # is owed a bonus by the club
                amount=abs(yen),
                note=reason,
            )
        entry = Adjustment.objects.create(
            club_id=season.club_id,
            season=season,
            member=member,
            team=team,
            kind=kind,
            points=points,
            rate=rate,
            yen=yen,
            reason=reason,
            entry=ledger,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        if member is not None:  # listed in the season's standings, with 0 games if none
            list_adjusted(season.club_id, season.pk, [member.pk])
        audit(
            club=season.club,
            actor=user,
            action="adjustment.create",
            target=f"adjustment:{entry.pk}",
            after=_snapshot(entry),
            reason=reason,
        )
    return entry


def _snapshot(entry: Adjustment) -> dict[str, object]:
    return {
        "season": entry.season_id,
        "member": entry.member_id,
        "team": entry.team_id,
        "kind": entry.kind,
        "points": entry.points,
        "rate": entry.rate,
        "yen": entry.yen,
        "reverses": entry.reverses_id,
        "ledger": entry.entry_id,
    }


def adjustment_reverse(*, entry: Adjustment, user: User, reason: str = "") -> Adjustment:
    """Undo an adjustment by a new entry with the opposite points and yen."""
    reason = " ".join(reason.split()) or _("Undone")
    with action():
        lock_club(entry.club_id)
        entry = for_update(Adjustment.objects).get(pk=entry.pk)
        if entry.kind == Adjustment.REVERSAL:
            raise ServiceError.one(NON_FIELD, _("A reversal cannot be undone: book it again."))
        if Adjustment.objects.filter(reverses=entry).exists():
            raise ServiceError.one(NON_FIELD, _("This adjustment was already undone."))
        ledger = None
        if entry.entry_id is not None:
            original = LedgerEntry.objects.get(pk=entry.entry_id)
            if LedgerEntry.objects.live_repayments(original).exists():
                raise ServiceError.one(
                    NON_FIELD,
                    _("Its yen was paid in part or in full: correct the payments first."),
                )
            ledger = ledger_record(
                club_id=entry.club_id,
                user=user,
                kind=LedgerEntry.REVERSAL,
                borrower_id=original.borrower_id,
                payee_id=original.payee_id,
                amount=original.amount,
                reverses=original,
                note=reason[:200],
            )
        reversal = Adjustment.objects.create(
            club_id=entry.club_id,
            season_id=entry.season_id,
            member_id=entry.member_id,
            team_id=entry.team_id,
            kind=Adjustment.REVERSAL,
            points=-entry.points,
            rate=entry.rate,
            yen=None if entry.yen is None else -entry.yen,
            reason=reason[:200],
            reverses=entry,
            entry=ledger,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        audit(
            club=entry.club,
            actor=user,
            action="adjustment.reverse",
            target=f"adjustment:{entry.pk}",
            before=_snapshot(entry),
            after=_snapshot(reversal),
            reason=reason[:200],
        )
    return reversal


# --- team match days -----------------------------------------------------------------------------

MAX_DAY_GAMES = 8  # games (rounds) one match day schedules at most


def _matches_snapshot(matches: Sequence[TeamMatch], slots: Sequence[TeamSlot]) -> list[object]:
    by_match: dict[int, list[int]] = {}
    for s in sorted(slots, key=lambda s: (s.match_id, s.seat)):
        by_match.setdefault(s.match_id, []).append(s.team_id)
    return [
        {"round": m.round, "table": table_label(m.position), "teams": by_match.get(m.pk, [])}
        for m in matches
    ]


def _day_teams(season: Season, date: datetime.date) -> tuple[list[Team], int]:
    """The teams that play on `date` and the rounds they played before it: the season's teams
    over the season, or, in a later stage of teams (a final), those who went through, over the
    stage's dates."""
    stage = Stage.objects.filter(
        season=season, entrants=Stage.TEAMS, first_day__lte=date, last_day__gte=date
    ).first()
    matches = TeamMatch.objects.filter(season=season)
    if stage is None or stage.number == 1:
        teams = list(Team.objects.filter(season=season).order_by("pk"))
        if stage is not None:
            matches = matches.filter(date__range=(stage.first_day, stage.last_day))
    else:
        entries = StageEntry.objects.filter(stage=stage).select_related("team")
        teams = [e.team for e in entries.order_by("place", "pk") if e.team is not None]
        matches = matches.filter(date__range=(stage.first_day, stage.last_day))
    return teams, matches.values("round").distinct().count()


def match_day_schedule(
    *, season: Season, user: User, date: datetime.date, games: int
) -> list[TeamMatch]:
    """The next `games` rounds of the season's fixture (scoring.fixtures over its teams, in the
    order they were made, at tables of the rules' players) on `date`: a table per round and
    group of teams, a slot per team in its seat. The season's rounds go on from the last one
    scheduled, so that the fixture's evenness holds over the season's whole cycles. In a later
    stage of teams (a final), only those who went through play, from its own first round.
    Teams off a multiple of the table size sit out in turn (scoring.fixtures' byes): the teams
    sitting a round out have no table in it."""
    errors: dict[str, list[str]] = {}
    if not (season.start <= date <= season.end):
        errors["date"] = [_("Choose a date within the season.")]
    if not (1 <= games <= MAX_DAY_GAMES):
        errors["games"] = [_("Choose 1 to %(n)d games.") % {"n": MAX_DAY_GAMES}]
    if errors:
        raise ServiceError(errors)
    version = rules_in_force(season.club, date)
    size = version.rules.players
    with action():
        lock_club(season.club_id)
        teams, done = _day_teams(season, date)
        try:
            cycle = fixtures(len(teams), size)
        except ValueError:
            if len(teams) < size:
                message = _("A team match day needs at least %(n)d teams (%(count)d now).")
            else:
                message = _("No fixture is known for %(count)d teams at tables of %(n)d.")
            raise ServiceError.one(NON_FIELD, message % {"n": size, "count": len(teams)}) from None
        last = TeamMatch.objects.filter(season=season).aggregate(n=Max("round"))["n"] or 0
        matches: list[TeamMatch] = []
        slots: list[TeamSlot] = []
        stored_by = user if getattr(user, "is_authenticated", False) else None
        for k, number in enumerate(range(last + 1, last + 1 + games)):
            for position, table in enumerate(cycle[(done + k) % len(cycle)]):
                match = TeamMatch(
                    club_id=season.club_id,
                    season=season,
                    date=date,
                    round=number,
                    position=position,
                    created_by=stored_by,
                )
                matches.append(match)
                slots += [
                    TeamSlot(match=match, team=teams[i], seat=seat) for seat, i in enumerate(table)
                ]
        TeamMatch.objects.bulk_create(matches)
        for s in slots:
            s.match_id = s.match.pk
        TeamSlot.objects.bulk_create(slots)
        audit(
            club=season.club,
            actor=user,
            action="team_day.schedule",
            target=f"season:{season.pk}",
            after={"date": date.isoformat(), "matches": _matches_snapshot(matches, slots)},
        )
    return matches


def is_captain(*, team_id: int, user: User) -> bool:
    """Whether the user is linked to a captain on the team's roster now."""
    if not getattr(user, "is_authenticated", False):
        return False
    return TeamMember.objects.filter(
        team_id=team_id, removed_at__isnull=True, is_captain=True, member__user=user
    ).exists()


def slot_name(*, slot: TeamSlot, user: User, member: Member, organiser: bool) -> TeamSlot:
    """The captain of the slot's team (or an organiser) names who plays it: a member of the
    team's roster, or a substitute (a member of the club on no team of the season). Named again
    before the game is recorded, the slot changes, audited with before and after."""
    with action():
        lock_club(slot.match.club_id)
        slot = for_update(TeamSlot.objects).select_related("match", "team").get(pk=slot.pk)
        if not organiser and not is_captain(team_id=slot.team_id, user=user):
            raise PermissionDenied
        if slot.match.game_id is not None:
            raise ServiceError.one(NON_FIELD, _("This table's game is recorded already."))
        if member.club_id != slot.match.club_id or member.merged_into_id is not None:
            raise ServiceError.one("member", _("Choose a member of this club."))
        place = (
            TeamMember.objects.filter(
                season_id=slot.match.season_id, member=member, removed_at__isnull=True
            )
            .values_list("team_id", flat=True)
            .first()
        )
        if place is not None and place != slot.team_id:
            raise ServiceError.one("member", _("This member plays for another team."))
        if TeamSlot.objects.filter(match=slot.match, member=member).exclude(pk=slot.pk).exists():
            raise ServiceError.one("member", _("This member already plays at this table."))
        before = {"member": slot.member_id, "substitute": slot.substitute}
        slot.member = member
        slot.substitute = place is None
        slot.named_by = user if getattr(user, "is_authenticated", False) else None
        slot.named_at = timezone.now()
        slot.save(update_fields=["member", "substitute", "named_by", "named_at"])
        audit(
            club=slot.match.season.club,
            actor=user,
            action="team_slot.name",
            target=f"team_slot:{slot.pk}",
            before=before,
            after={"member": member.pk, "substitute": slot.substitute, "team": slot.team_id},
        )
    return slot


def match_link_game(
    *, club: Club, user: User, match_id: int, game: Game, players: Sequence[int]
) -> TeamMatch | None:
    """Mark a match table as played by `game` (recorded from it, in the game's transaction,
    before its results count: the game is then the team league's own, and the kept totals of
    the individual seasons leave it out unless the league counts there too,
    league.standings.competitions): only when the table is the club's, of the game's date, not
    yet recorded, and its named players are the game's (`players`, member ids by seat)."""
    match = (
        for_update(TeamMatch.objects)
        .filter(pk=match_id, club=club, date=game.date, game=None)
        .first()
    )
    if match is None:
        return None
    named = list(
        TeamSlot.objects.filter(match=match).order_by("seat").values_list("member_id", flat=True)
    )
    if None in named or named != list(players):
        return None
    match.game = game
    match.save(update_fields=["game"])
    audit(
        club=club,
        actor=user,
        action="team_match.recorded",
        target=f"team_match:{match.pk}",
        game=game,
        after={"round": match.round, "table": table_label(match.position), "game": game.pk},
    )
    return match


# --- events in stages ----------------------------------------------------------------------------

MAX_STAGES = 10


@dataclass(frozen=True)
class StageInput:
    name: str
    first_day: datetime.date
    last_day: datetime.date
    entrants: str = Stage.MEMBERS
    advance: int | None = None  # None: the last stage (or a share)
    advance_share: int | None = None  # the top N% of the stage's entries, rounded up
    carry: str = "all"
    bonus: Sequence[int] = ()
    ties: str = "seat"
    fixed_table: bool = False
    seating: str = "order"  # a fixed table of members: seats by place, or "draw"


def stage_snapshot(stage: Stage) -> dict[str, object]:
    return {
        "number": stage.number,
        "name": stage.name,
        "first_day": stage.first_day.isoformat(),
        "last_day": stage.last_day.isoformat(),
        "entrants": stage.entrants,
        "advance": stage.advance,
        "advance_share": stage.advance_share,
        "carry": stage.carry,
        "bonus": list(stage.bonus),
        "ties": stage.ties,
        "fixed_table": stage.fixed_table,
        "seating": stage.seating,
    }


def stage_create(*, season: Season, user: User, data: StageInput) -> Stage:
    """A season's next stage, after the ones it has: its dates inside the season's and after
    the stage before, members or teams as the stage before."""
    errors: dict[str, list[str]] = {}
    name = " ".join(data.name.split())
    if not name or len(name) > 50:
        errors["name"] = [_("Enter a name of at most %(n)d characters.") % {"n": 50}]
    if data.entrants not in (Stage.MEMBERS, Stage.TEAMS):
        errors["entrants"] = [_("Choose members or teams.")]
    if data.carry not in CARRY_MODES:
        errors["carry"] = [_("Choose what those going through carry.")]
    elif data.carry == "bonus" and not data.bonus:
        errors["bonus"] = [_("Enter the bonus for each place, best first.")]
    if data.ties not in ("seat", "split"):
        errors["ties"] = [_("Choose how ties at the cut go.")]
    if data.advance is not None and not (1 <= data.advance <= 1000):
        errors["advance"] = [_("Enter how many go through (1 or more), or leave it empty.")]
    if data.advance_share is not None:
        if not (1 <= data.advance_share <= 99):
            errors["advance_share"] = [_("Enter a whole percent from 1 to 99, or leave it empty.")]
        elif data.advance is not None:
            errors["advance_share"] = [
                _("Enter how many go through or a share of the entries, not both.")
            ]
    if data.seating not in ("order", "draw"):
        errors["seating"] = [_("Choose how the seats at a fixed table go.")]
    if data.last_day < data.first_day:
        errors["last_day"] = [_("The last day comes on or after the first.")]
    elif not (season.start <= data.first_day and data.last_day <= season.end):
        errors["first_day"] = [_("Choose dates within the season.")]
    with action():
        lock_club(season.club_id)
        before = Stage.objects.filter(season=season).order_by("-number").first()
        if before is not None:
            if not before.sends_on:
                errors["advance"] = [_("The stage before is the last one: it sends nobody on.")]
            if data.first_day <= before.last_day:
                errors["first_day"] = [_("A stage starts after the stage before ends.")]
            if data.entrants != before.entrants:
                errors["entrants"] = [_("Every stage of an event has members or every one teams.")]
            if before.number >= MAX_STAGES:
                errors["name"] = [_("An event has at most %(n)d stages.") % {"n": MAX_STAGES}]
        if data.fixed_table and data.entrants == Stage.MEMBERS and "first_day" not in errors:
            problem = _fixed_table_problem(season, before, data.first_day)
            if problem:
                errors["fixed_table"] = [problem]
        if errors:
            raise ServiceError(errors)
        stage = Stage.objects.create(
            club_id=season.club_id,
            season=season,
            number=1 if before is None else before.number + 1,
            name=name,
            first_day=data.first_day,
            last_day=data.last_day,
            entrants=data.entrants,
            advance=data.advance,
            advance_share=data.advance_share,
            carry=data.carry,
            bonus=list(data.bonus),
            ties=data.ties,
            fixed_table=data.fixed_table,
            seating=data.seating,
        )
        audit(
            club=season.club,
            actor=user,
            action="stage.create",
            target=f"stage:{stage.pk}",
            after=stage_snapshot(stage),
        )
        if season.keeps_apart:  # the games of its days leave the individual seasons
            changes.record(
                changes.CompetitionDaysChanged(season.club_id, stage.first_day, stage.last_day)
            )
    return stage


def stage_close(*, stage: Stage, user: User) -> list[StageEntry]:
    """Close a stage: the top `advance` by total, or the top `advance_share` percent of its
    entries (rounded up, at least 1: selectors.stage_cut), the tie order at the cut (the place in
    the stage before, then the order they were made in), go into the next stage with what they carry
    (scoring.stages.carried, half rounded as the rules in force on the stage's last day round),
    written once as the next stage's entries."""
    with action():
        lock_club(stage.club_id)
        stage = for_update(Stage.objects).select_related("season").get(pk=stage.pk)
        if stage.closed_at is not None:
            raise ServiceError.one(NON_FIELD, _("This stage is closed already."))
        if not stage.sends_on:
            raise ServiceError.one(NON_FIELD, _("The last stage sends nobody on."))
        after = Stage.objects.filter(season=stage.season, number=stage.number + 1).first()
        if after is None:
            raise ServiceError.one(NON_FIELD, _("Add the next stage first."))
        rules = rules_in_force(stage.season.club, stage.last_day).rules
        rows = stage_standings(stage=stage)
        through = [r for r in rows if r["through"]]
        cut = stage_cut(stage=stage, rows=rows)
        member = stage.entrants == Stage.MEMBERS
        entries = [
            StageEntry(
                stage=after,
                member_id=r["key"] if member else None,
                team_id=None if member else r["key"],
                place=r["position"],
                total_before=r["total"],
                carried=carried(
                    r["total"],
                    stage.carry,
                    place=r["position"],
                    rounding=rules.rounding,
                    negative=rules.rounding_negative,
                    bonus=stage.bonus,
                ),
            )
            for r in through
        ]
        StageEntry.objects.bulk_create(entries)
        if after.fixed_table and after.entrants == Stage.MEMBERS:
            after.season = stage.season
            _seat_final(after, user)  # in the same transaction: seated, or not closed
        stage.closed_at = timezone.now()
        stage.closed_by = user if getattr(user, "is_authenticated", False) else None
        stage.save(update_fields=["closed_at", "closed_by"])
        audit(
            club=stage.season.club,
            actor=user,
            action="stage.close",
            target=f"stage:{stage.pk}",
            after={
                "next": after.pk,
                "cut": {
                    "advance": stage.advance,
                    "share": stage.advance_share,
                    "entries": cut["entries"],
                    "count": cut["count"],
                },
                "through": [
                    {"key": e.member_id or e.team_id, "place": e.place, "carried": e.carried}
                    for e in entries
                ],
            },
        )
    return entries


# --- fixed-table finals of members ------------------------------------------------------------


def _table_size(season: Season, day: datetime.date) -> int:
    version = RulesVersion.in_force(season.club, day)
    return version.rules.players if version is not None else 4


def _fixed_table_problem(season: Season, before: Stage | None, first_day: datetime.date) -> str:
    """Why a members' stage cannot be a fixed table after `before`, or "": it seats exactly
    those through from the stage before, a whole number of tables of the rules' players."""
    if before is None:
        return _("A fixed table seats those through from the stage before: add it after one.")
    if not before.sends_on:
        return ""  # said on `advance`
    if before.advance is None:
        return _(
            "A fixed table seats exactly the top N: the stage before sends a share of its entries"
            " on, which cannot promise a multiple of %(size)d. Give it a number going through."
        ) % {"size": _table_size(season, first_day)}
    if before.ties != "seat":
        return _(
            "A fixed table seats exactly the top N: set the stage before's ties at the cut to"
            " the tie order."
        )
    size = _table_size(season, first_day)
    if before.advance % size:
        return _(
            "A fixed table seats %(size)d players: the stage before sends %(n)d on, make it a"
            " multiple of %(size)d."
        ) % {"size": size, "n": before.advance}
    return ""


def _seats_snapshot(seats: Iterable[FinalSeat]) -> list[dict[str, object]]:
    tables: dict[int, list[int]] = {}
    for s in sorted(seats, key=lambda s: (s.table, s.seat)):
        tables.setdefault(s.table, []).append(s.member_id)
    return [{"table": table_label(t), "members": m} for t, m in tables.items()]


def _seat_final(stage: Stage, user: User) -> list[FinalSeat]:
    """Seat those through at the stage's final tables (the club locked, the stage's row too):
    in the order they went through (place, then the cut's tie order: StageEntry's order), a
    table of the rules' players at a time, the top ones at table A; at each table the seats
    (東 = 起家 of the first hanchan) by place, or drawn when the stage says so. A stage seated
    before is seated again as a new revision, only while none of its games is recorded."""
    if not stage.fixed_table or stage.entrants != Stage.MEMBERS:
        raise ServiceError.one(NON_FIELD, _("This stage is not a fixed table of members."))
    through = [
        e
        for e in StageEntry.objects.filter(stage=stage).order_by("place", "pk")
        if e.member_id is not None
    ]
    if not through:
        raise ServiceError.one(
            NON_FIELD, _("Nobody has gone through to this stage yet: close the stage before it.")
        )
    size = rules_in_force(stage.season.club, stage.first_day).rules.players
    if len(through) % size:
        raise ServiceError.one(
            NON_FIELD,
            _(
                "%(n)d went through: a fixed table seats %(size)d players, so the final needs a"
                " multiple of %(size)d."
            )
            % {"n": len(through), "size": size},
        )
    old = list(FinalSeat.objects.filter(stage=stage, current=True))
    if (
        old
        and Result.objects.filter(
            counted=True,
            club_id=stage.club_id,
            member_id__in=[s.member_id for s in old],
            date__range=(stage.first_day, stage.last_day),
        ).exists()
    ):
        raise ServiceError.one(
            NON_FIELD,
            _("The final's games have begun: its seats stand. Void its games to seat it again."),
        )
    revision = 1
    if old:  # seated again: the rows before stay, no longer current
        revision = (FinalSeat.objects.filter(stage=stage).aggregate(n=Max("revision"))["n"]) + 1
        FinalSeat.objects.filter(stage=stage, current=True).update(current=False)
    order = {e.pk: n for n, e in enumerate(through, start=1)}
    drawn = stage.seating == "draw"
    stored_by = user if getattr(user, "is_authenticated", False) else None
    seats: list[FinalSeat] = []
    for t in range(len(through) // size):
        block = through[t * size : (t + 1) * size]
        if drawn:
            random.SystemRandom().shuffle(block)
        seats += [
            FinalSeat(
                stage=stage,
                revision=revision,
                table=t,
                seat=i,
                member_id=e.member_id,
                place=order[e.pk],
                drawn=drawn,
                created_by=stored_by,
            )
            for i, e in enumerate(block)
        ]
    FinalSeat.objects.bulk_create(seats)
    audit(
        club=stage.season.club,
        actor=user,
        action="stage.seat",
        target=f"stage:{stage.pk}",
        before={"tables": _seats_snapshot(old)} if old else None,
        after={"revision": revision, "drawn": drawn, "tables": _seats_snapshot(seats)},
    )
    return seats


def final_seat(*, stage: Stage, user: User) -> list[FinalSeat]:
    """The organiser's 決勝卓を組む: seat those through at the stage's final tables, or seat
    them again (a new draw) before its first game. Audited."""
    with action():
        lock_club(stage.club_id)
        stage = for_update(Stage.objects).select_related("season__club").get(pk=stage.pk)
        return _seat_final(stage, user)


@dataclass(frozen=True)
class FinalTable:
    """A final table as a game's check reads it: its stage, dates, label and players."""

    stage: str
    first_day: datetime.date
    last_day: datetime.date
    label: str
    members: tuple[int, ...]  # seat order
    names: tuple[str, ...]


def final_tables(*, club_id: int, dates: Iterable[datetime.date]) -> list[FinalTable]:
    """The seated final tables of the club's fixed-table stages over any of `dates`. One query."""
    dates = set(dates)
    if not dates:
        return []
    rows = (
        FinalSeat.objects.filter(
            current=True,
            stage__club_id=club_id,
            stage__first_day__lte=max(dates),
            stage__last_day__gte=min(dates),
        )
        .order_by("stage__season", "stage__number", "table", "seat")
        .values_list(
            "stage_id",
            "stage__name",
            "stage__first_day",
            "stage__last_day",
            "table",
            "member_id",
            "member__name",
        )
    )
    tables: dict[tuple[int, int], list[tuple[str, datetime.date, datetime.date, int, str]]] = {}
    for stage_id, name, first, last, table, member, member_name in rows:
        tables.setdefault((stage_id, table), []).append((name, first, last, member, member_name))
    return [
        FinalTable(
            stage=seats[0][0],
            first_day=seats[0][1],
            last_day=seats[0][2],
            label=table_label(table),
            members=tuple(s[3] for s in seats),
            names=tuple(s[4] for s in seats),
        )
        for (_stage, table), seats in tables.items()
    ]


def final_table_errors(
    tables: Sequence[FinalTable], date: datetime.date, members: Sequence[Member]
) -> dict[str, list[str]]:
    """Why a game of `members` (seat order) on `date` cannot be recorded, by the game input's
    path (players[2].name): on the
    dates of a seated final, a game with any of its finalists is one final table's game, its
    players exactly that table's (in any seats: later hanchan may sit otherwise). Games of
    players none of whom is a finalist are not the final's, and are not held up."""
    on_day = [t for t in tables if t.first_day <= date <= t.last_day]
    ids = [m.pk for m in members]
    if not any(pk in t.members for t in on_day for pk in ids):
        return {}
    if any(set(t.members) == set(ids) and len(t.members) == len(ids) for t in on_day):
        return {}
    table = max(on_day, key=lambda t: sum(pk in t.members for pk in ids))  # the first of the best
    players = "、".join(table.names)
    errors: dict[str, list[str]] = {}
    for i, m in enumerate(members):
        if m.pk is None or m.pk not in table.members:
            errors[f"players[{i}].name"] = [
                _("%(name)s is not seated at final table %(table)s of %(stage)s (%(players)s).")
                % {"name": m.name, "table": table.label, "stage": table.stage, "players": players}
            ]
    if not errors:
        errors[NON_FIELD] = [
            _("A game of final table %(table)s of %(stage)s is played by its %(n)d: %(players)s.")
            % {
                "table": table.label,
                "stage": table.stage,
                "n": len(table.members),
                "players": players,
            }
        ]
    return errors


def final_table_check(*, club_id: int, date: datetime.date, members: Sequence[Member]) -> None:
    """final_table_errors over the final tables of the game's date: a ServiceError, if any."""
    errors = final_table_errors(final_tables(club_id=club_id, dates=[date]), date, members)
    if errors:
        raise ServiceError(errors)


def team_points_set(*, season: Season, user: User, points: Sequence[int]) -> Season:
    """Rank the season's teams by match points by place at team match tables (`points`, best
    first, one per seat of the rules' tables), or, empty, by the members' scores. Audited."""
    points = [int(p) for p in points]
    if points:
        size = rules_in_force(season.club, season.end).rules.players
        if len(points) != size:
            raise ServiceError.one(
                "points", _("Enter %(n)d match points, one for each place.") % {"n": size}
            )
        if any(not (-1000 <= p <= 1000) for p in points):
            raise ServiceError.one("points", _("Enter match points from −1000 to 1000."))
    with action():
        lock_club(season.club_id)
        season = for_update(Season.objects).get(pk=season.pk)
        before = list(season.team_match_points or [])
        if before != points:
            season.team_match_points = points
            season.save(update_fields=["team_match_points"])
            audit(
                club=season.club,
                actor=user,
                action="season.team_points",
                target=f"season:{season.pk}",
                before={"team_match_points": before},
                after={"team_match_points": points},
            )
    return season
