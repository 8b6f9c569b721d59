"""Writing teams and adjustments: every writer takes the club lock first and writes the audit log.

Teams: `team_create` and `team_edit` (name, short name, colour, roster, captains). A member is
on at most one team per season; a roster change leaves the old row with `removed_at` set.

Adjustments: `adjustment_book` (a penalty, bonus or chombo to a member or a team, with its points
and, where the season's rules keep money, its yen at a chosen rate) and `adjustment_reverse`
(a new entry with the opposite amounts). Nothing is updated or deleted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from league.core.errors import NON_FIELD, ServiceError
from league.models import Adjustment, Member, RulesVersion, Season, Team, TeamMember
from league.models.audit import User, audit
from league.models.clubs import lock_club
from league.models.teams import TEAM_NAME_LENGTH, TEAM_SHORT_LENGTH

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
    with transaction.atomic():
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
            with transaction.atomic():
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
    with transaction.atomic():
        lock_club(team.club_id)
        team = Team.objects.select_for_update().get(pk=team.pk)
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
            with transaction.atomic():
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
    if rate:
        rates = season_rates(season)
        if rate not in rates:
            errors["rate"] = [_("Choose one of the rates of the season's rules.")]
        elif "points" not in errors:
            yen = yen_at(points, rates[rate])
    if errors:
        raise ServiceError(errors)
    with transaction.atomic():
        lock_club(season.club_id)
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
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
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
    }


def adjustment_reverse(*, entry: Adjustment, user: User, reason: str = "") -> Adjustment:
    """Undo an adjustment by a new entry with the opposite points and yen."""
    reason = " ".join(reason.split()) or _("Undone")
    with transaction.atomic():
        lock_club(entry.club_id)
        entry = Adjustment.objects.select_for_update().get(pk=entry.pk)
        if entry.kind == Adjustment.REVERSAL:
            raise ServiceError.one(NON_FIELD, _("A reversal cannot be undone: book it again."))
        if Adjustment.objects.filter(reverses=entry).exists():
            raise ServiceError.one(NON_FIELD, _("This adjustment was already undone."))
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
