"""Keeping a club's members and seasons tidy: editing a member, merging two records of one
player, editing, closing and reopening a season. Every write is audited (league.models.audit.audit)
and raises ServiceError (field → messages, nothing stored) on bad input.

Merging (`member_merge`) moves everything that names the record that disappears (`gone`) to the
one that stays (`keep`), in one transaction, with both member rows locked (SELECT … FOR UPDATE).
The game writers (league.recording.services._write_revision) lock the members they seat the same way and
refuse a merged record, so a game recorded while a merge runs is either seen and moved by the
merge (it committed first) or refused with a message naming the surviving record (the merge
committed first): no result and no money lands on the merged record.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import unicodedata
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db import models as django_models
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from league import limits
from league.core import changes, names
from league.core.actions import action, as_action
from league.core.errors import NON_FIELD, ServiceError
from league.core.locks import for_update, lock_club
from league.core.readings import reading_of
from league.models import (
    Adjustment,
    ChipEvent,
    Club,
    Day,
    DayShugi,
    HandStat,
    Invitation,
    LedgerEntry,
    Member,
    Result,
    Season,
    StageEntry,
    TeamMember,
    TeamSlot,
)
from league.models.audit import User, audit, save_audited
from league.models.draw import Attendance, DrawSeat
from league.models.members import MERGED_MEMBER
from league.standings import stats

# --- editing a member ------------------------------------------------------------------------


def member_snapshot(member: Member) -> dict[str, Any]:
    return {
        "name": member.name,
        "kana": member.kana,
        "is_active": member.is_active,
        "is_guest": member.is_guest,
    }


def member_edit(
    *,
    member: Member,
    user: User,
    name: str,
    kana: str = "",
    is_active: bool = True,
    is_guest: bool = False,
) -> Member:
    """Change a member's name, reading and flags; the name is checked as every name is
    (services.member_name_checked: one key per club). A merged record cannot be edited."""
    name = member_name_checked(club=member.club, name=name, exclude=member)
    kana = kana.strip()
    if errors := limits.column_problems(Member, name=name, kana=kana):
        raise ServiceError(errors)
    with action():
        member = for_update(Member.objects).select_related("club").get(pk=member.pk)
        if member.merged_into_id is not None:
            raise ServiceError.one(NON_FIELD, _("A merged record cannot be edited."))
        before = member_snapshot(member)
        member.name, member.kana = name, kana
        member.is_active, member.is_guest = is_active, is_guest
        after = member_snapshot(member)
        if before == after:
            return member
        try:
            with transaction.atomic():  # a savepoint inside this action, for the except below
                member.save()
        except IntegrityError:  # a concurrent edit took the name after the check above
            raise ServiceError.one("name", _("A member with this name already exists.")) from None
        audit(
            club=member.club,
            actor=user,
            action="member.edit",
            target=f"member:{member.pk}",
            before=before,
            after=after,
        )
    return member


# --- merging two records of one player -------------------------------------------------------


@dataclass(frozen=True)
class MergePreview:
    """What a merge of `gone` into `keep` moves: counts of the rows naming `gone`, and a key
    (a digest of the ids of those rows) the confirmation must send back unchanged."""

    keep: Member
    gone: Member
    games: int
    results: int
    chip_events: int
    ledger_entries: int
    debts: int
    attendances: int
    shugi: int
    draw_seats: int
    draw_attendance: int
    invitations: int
    merged_from: int
    hand_stats: int
    team_places: int
    user_link: bool
    key: str

    @property
    def rows(self) -> list[tuple[str, int]]:
        return [
            (_("Games"), self.games),
            (_("Result rows (every revision)"), self.results),
            (_("Chip events"), self.chip_events),
            (_("Ledger entries"), self.ledger_entries),
            (_("Debts"), self.debts),
            (_("Days attended"), self.attendances),
            (_("Shūgi"), self.shugi),
            (_("Draw seats"), self.draw_seats),
            (_("Draw check-ins"), self.draw_attendance),
            (_("Invitations"), self.invitations),
            (_("Records merged into it before"), self.merged_from),
            (_("Hand statistics (games recorded hand by hand)"), self.hand_stats),
            (_("Team places"), self.team_places),
        ]


def _ledger_touching(member: Member) -> Q:
    return Q(payer=member) | Q(payee=member) | Q(borrower=member)


def _ids(rows: QuerySet[Any]) -> list[int]:
    return list(rows.order_by("pk").values_list("pk", flat=True))


def _moved_ids(gone: Member) -> dict[str, list[int]]:
    """The ids of every row that names `gone`, by kind (a fixed number of queries)."""
    attend = Day.attendees.through.objects.filter(member_id=gone.pk)
    return {
        "results": _ids(Result.objects.filter(member=gone)),
        "chip_winner": _ids(ChipEvent.objects.filter(winner=gone)),
        "chip_discarder": _ids(ChipEvent.objects.filter(discarder=gone)),
        "ledger_payer": _ids(LedgerEntry.objects.filter(payer=gone)),
        "ledger_payee": _ids(LedgerEntry.objects.filter(payee=gone)),
        "ledger_borrower": _ids(LedgerEntry.objects.filter(borrower=gone)),
        "adjustments": _ids(Adjustment.objects.filter(member=gone)),
        "hand_stats": _ids(HandStat.objects.filter(member=gone)),
        "team_places": _ids(TeamMember.objects.filter(member=gone)),
        "team_slots": _ids(TeamSlot.objects.filter(member=gone)),
        "stage_entries": _ids(StageEntry.objects.filter(member=gone)),
        "days": list(attend.order_by("day_id").values_list("day_id", flat=True)),
        "shugi": _ids(DayShugi.objects.filter(winner=gone)),
        "draw_seats": _ids(DrawSeat.objects.filter(member=gone)),
        "draw_attendance": _ids(Attendance.objects.filter(member=gone)),
        "invitations": _ids(Invitation.objects.filter(member=gone)),
        "merged_from": _ids(Member.objects.filter(merged_into=gone)),
    }


def _merge_problem(keep: Member, gone: Member) -> str | None:
    """Why `gone` cannot be merged into `keep`, or None."""
    if keep.pk == gone.pk:
        return _("Choose two different records.")
    if keep.club_id != gone.club_id:
        return _("Both records must belong to this club.")
    for m in (keep, gone):
        if m.merged_into_id is not None:
            return _("%(name)s was already merged into another record.") % {"name": m.name}
    names = {"a": keep.name, "b": gone.name}
    together = (
        (
            Result,
            "game",
            _("%(a)s and %(b)s played in the same game: they are two different players."),
        ),
        (
            DrawSeat,
            "round",
            _("%(a)s and %(b)s were drawn in the same round: they are two different players."),
        ),
        (Attendance, "day", _("%(a)s and %(b)s were both checked in on the same day's draw.")),
        (
            TeamSlot,
            "match",
            _("%(a)s and %(b)s are named at the same team match table: name another player."),
        ),
        (
            StageEntry,
            "stage",
            _("%(a)s and %(b)s both went through to the same stage: they are two players."),
        ),
    )
    for model, field, message in together:
        kept_rows = model.objects.filter(member=keep).values(field)
        if model.objects.filter(member=gone, **{f"{field}__in": kept_rows}).exists():
            return message % names
    if LedgerEntry.objects.filter(_ledger_touching(keep)).filter(_ledger_touching(gone)).exists():
        return (
            _("A payment, loan or debt is between %(a)s and %(b)s: reverse it before merging.")
            % names
        )
    if keep.user_id is not None and gone.user_id is not None and keep.user_id != gone.user_id:
        return _("Both records are linked to a login: unlink one of them first.")
    kept_places = TeamMember.objects.filter(member=keep, removed_at__isnull=True)
    elsewhere = (  # a place in a season where the survivor plays for another team
        TeamMember.objects.filter(
            member=gone, removed_at__isnull=True, season__in=kept_places.values("season")
        )
        .exclude(team__in=kept_places.values("team"))
        .select_related("season")
        .first()
    )
    if elsewhere is not None:
        return _(
            "%(a)s and %(b)s are on different teams in %(season)s: take one of them off "
            "their team first."
        ) % {**names, "season": elsewhere.season.name}
    return None


def _places_ended(keep: Member, gone: Member) -> list[int]:
    """Where both records hold a place on the same team, one place stays (a captain's, else the
    survivor's) and the other ends (`removed_at`), as a roster edit ends a place: the ids ended.
    Places on different teams of one season were refused (_merge_problem)."""
    places: dict[int, list[TeamMember]] = {}
    for row in TeamMember.objects.filter(
        member_id__in=[keep.pk, gone.pk], removed_at__isnull=True
    ).order_by("pk"):
        places.setdefault(row.team_id, []).append(row)
    ended = [
        min(rows, key=lambda r: (r.is_captain, r.member_id == keep.pk)).pk
        for rows in places.values()
        if len(rows) == 2
    ]
    TeamMember.objects.filter(pk__in=ended).update(removed_at=timezone.now())
    return sorted(ended)


def _key(keep: Member, gone: Member, moved: dict[str, list[int]]) -> str:
    text = json.dumps([keep.pk, gone.pk, gone.user_id, moved], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def merge_preview(*, keep: Member, gone: Member) -> MergePreview:
    """What merging `gone` into `keep` would move (nothing is changed), or ServiceError."""
    problem = _merge_problem(keep, gone)
    if problem is not None:
        raise ServiceError.one("other", problem)
    moved = _moved_ids(gone)
    games = Result.objects.filter(member=gone).values("game").distinct().count()
    debts = (  # loans and deferrals it owes or is owed
        LedgerEntry.objects.filter(_ledger_touching(gone))
        .filter(kind__in=[LedgerEntry.LOAN, LedgerEntry.DEFERRAL])
        .count()
    )
    return MergePreview(
        keep=keep,
        gone=gone,
        games=games,
        results=len(moved["results"]),
        chip_events=len(set(moved["chip_winner"]) | set(moved["chip_discarder"])),
        ledger_entries=len(
            set(moved["ledger_payer"]) | set(moved["ledger_payee"]) | set(moved["ledger_borrower"])
        ),
        debts=debts,
        attendances=len(moved["days"]),
        shugi=len(moved["shugi"]),
        draw_seats=len(moved["draw_seats"]),
        draw_attendance=len(moved["draw_attendance"]),
        invitations=len(moved["invitations"]),
        merged_from=len(moved["merged_from"]),
        hand_stats=len(moved["hand_stats"]),
        team_places=len(moved["team_places"]),
        user_link=gone.user_id is not None,
        key=_key(keep, gone, moved),
    )


def _stale() -> ServiceError:
    return ServiceError.one(
        NON_FIELD,
        _("These records changed since the preview: nothing was merged. Check the preview again."),
    )


def _base_update(queryset: django_models.QuerySet[Any], **values: Any) -> int:
    """UPDATE bypassing a model's immutability guard (the ledger's): a merge renames a party,
    it changes no amount, and it is audited with the ids it moved."""
    return django_models.QuerySet.update(queryset, **values)


def member_merge(*, keep: Member, gone: Member, user: User, key: str | None = None) -> Member:
    """Merge `gone` into `keep`: every result (all revisions), chip event, ledger entry,
    adjustment, hand statistics row, team place, team match seat, stage entry, shūgi, attendance, draw seat, invitation and the
    login link move to `keep` (a place on a team both held: one stays, see _places_ended; places
    on two teams of one season: refused); `gone` stays,
    inactive, with `merged_into` set. `key` is the preview's: when the rows changed since, nothing
    is merged (ServiceError). The kept totals of both are rebuilt in the same transaction."""
    with action():
        # The club row first, as every writer of the club's games and money (lock_club): they
        # queue behind the merge, or it behind them, instead of deadlocking.
        lock_club(keep.club_id)
        locked = {
            m.pk: m
            for m in for_update(Member.objects).filter(pk__in=[keep.pk, gone.pk]).order_by("pk")
        }
        if len(locked) != len({keep.pk, gone.pk}):
            raise ServiceError.one("other", _("Choose a member of this club."))
        keep, gone = locked[keep.pk], locked[gone.pk]
        problem = _merge_problem(keep, gone)
        if problem is not None:
            raise ServiceError.one("other", problem)
        moved = _moved_ids(gone)
        if key is not None and key != _key(keep, gone, moved):
            raise _stale()
        before_gone = {**member_snapshot(gone), "merged_into": None, "user": gone.user_id}
        before_keep = {**member_snapshot(keep), "user": keep.user_id}

        Result.objects.filter(member=gone).update(member=keep)
        ChipEvent.objects.filter(winner=gone).update(winner=keep)
        ChipEvent.objects.filter(discarder=gone).update(discarder=keep)
        _base_update(LedgerEntry.objects.filter(payer=gone), payer=keep)
        _base_update(LedgerEntry.objects.filter(payee=gone), payee=keep)
        _base_update(LedgerEntry.objects.filter(borrower=gone), borrower=keep)
        _base_update(Adjustment.objects.filter(member=gone), member=keep)  # with their yen
        HandStat.objects.filter(member=gone).update(member=keep)  # its total: member_rebuild
        ended = _places_ended(keep, gone)
        TeamMember.objects.filter(member=gone).update(member=keep)
        TeamSlot.objects.filter(member=gone).update(member=keep)
        StageEntry.objects.filter(member=gone).update(member=keep)
        DayShugi.objects.filter(winner=gone).update(winner=keep)
        through = Day.attendees.through.objects
        both = set(through.filter(member_id=keep.pk).values_list("day_id", flat=True))
        # A day both records attended is one attendance of one player.
        through.filter(member_id=gone.pk, day_id__in=both).delete()
        through.filter(member_id=gone.pk).update(member_id=keep.pk)
        DrawSeat.objects.filter(member=gone).update(member=keep)
        Attendance.objects.filter(member=gone).update(member=keep)
        Invitation.objects.filter(member=gone).update(member=keep)
        Member.objects.filter(merged_into=gone).update(merged_into=keep)
        if gone.user_id is not None:
            user_id = gone.user_id
            gone.user = None
            gone.save(update_fields=["user"])
            keep.user_id = user_id
            keep.save(update_fields=["user"])
        if gone.is_active and not keep.is_active:  # the player plays on, under the survivor
            keep.is_active = True
            keep.save(update_fields=["is_active"])
        gone.merged_into = keep
        gone.is_active = False
        gone.save(update_fields=["merged_into", "is_active"])

        changes.record(changes.MembersMerged(keep.club_id, keep=keep, gone=gone))
        audit(
            club=keep.club,
            actor=user,
            action="member.merge",
            target=f"member:{gone.pk}",
            before={
                "gone": {"id": gone.pk, **before_gone},
                "keep": {"id": keep.pk, **before_keep},
                "rows_of": gone.pk,
                "moved": moved,
                "days_both_attended": sorted(both & set(moved["days"])),
                "team_places_ended": ended,
            },
            after={
                "gone": {
                    "id": gone.pk,
                    **member_snapshot(gone),
                    "merged_into": keep.pk,
                    "user": None,
                },
                "keep": {"id": keep.pk, **member_snapshot(keep), "user": keep.user_id},
                "rows_of": keep.pk,
                "moved": moved,
            },
        )
    return keep


def merge_candidates(member: Member) -> list[Member]:
    """The records `member` can be merged with: the club's others not merged away (one query)."""
    return list(
        Member.objects.filter(club_id=member.club_id, merged_into__isnull=True)
        .exclude(pk=member.pk)
        .order_by("kana", "name")
    )


# --- seasons ---------------------------------------------------------------------------------


def season_snapshot(season: Season) -> dict[str, Any]:
    return {
        "name": season.name,
        "start": season.start.isoformat(),
        "end": season.end.isoformat(),
        "min_games": season.min_games,
        "kind": season.kind,
        "in_club_season": season.in_club_season,
    }


def season_overlap_check(
    *,
    club_id: int,
    kind: str,
    start: datetime.date,
    end: datetime.date,
    exclude: int | None = None,
    confirmed: bool = False,
) -> None:
    """Two seasons of one kind over the same dates count the same games twice: refused with a
    message naming the other (ServiceError on `confirm_overlap`) unless `confirmed`. A team
    league or an event beside an individual season is how a club runs them. One query."""
    if confirmed:
        return
    other = (
        Season.objects.filter(club_id=club_id, kind=kind, start__lte=end, end__gte=start)
        .exclude(pk=exclude)
        .order_by("start", "pk")
        .first()
    )
    if other is not None:
        raise ServiceError.one(
            "confirm_overlap",
            _(
                "Its dates overlap %(name)s (%(start)s–%(end)s), a season of the same kind: the "
                "games between count in both. Tick the box to save it anyway."
            )
            % {
                "name": other.name,
                "start": f"{other.start:%Y/%m/%d}",
                "end": f"{other.end:%Y/%m/%d}",
            },
        )


def season_edit(
    *,
    season: Season,
    user: User,
    name: str,
    start: datetime.date,
    end: datetime.date,
    min_games: int = 0,
    kind: str | None = None,
    in_club_season: bool | None = None,
    confirm_overlap: bool = False,
) -> Season:
    """Change a season's name, dates, minimum games, kind, or whether a team league's or event's
    games count in the individual seasons too (None: as it is). Its kept totals follow its dates
    (SeasonSaved: league.standings rebuilds them as the action ends), and so do the individual
    seasons' when the games it keeps apart change. Overlapping another season of its kind asks for confirmation
    (season_overlap_check). A closed season's frozen standings stay as they were: reopen it and
    close it again to freeze new ones."""
    kind = season.kind if kind is None else kind
    in_club_season = season.in_club_season if in_club_season is None else in_club_season
    name = season_checked(name=name, start=start, end=end, min_games=min_games, kind=kind)
    with action():
        season = for_update(Season.objects).select_related("club").get(pk=season.pk)
        before = season_snapshot(season)
        was_apart, old_start, old_end = season.keeps_apart, season.start, season.end
        season.name, season.start, season.end, season.min_games = name, start, end, min_games
        season.kind = kind
        season.in_club_season = in_club_season and kind != Season.INDIVIDUAL
        after = season_snapshot(season)
        if before == after:
            return season
        if (kind, start, end) != (before["kind"], old_start, old_end):
            season_overlap_check(
                club_id=season.club_id,
                kind=kind,
                start=start,
                end=end,
                exclude=season.pk,
                confirmed=confirm_overlap,
            )
        season.save()
        changes.record(changes.SeasonSaved(season))
        if was_apart != season.keeps_apart:
            start_, end_ = min(start, old_start), max(end, old_end)
            changes.record(changes.CompetitionDaysChanged(season.club_id, start_, end_))
        audit(
            club=season.club,
            actor=user,
            action="season.edit",
            target=f"season:{season.pk}",
            before=before,
            after=after,
        )
    return season


FINAL_FIELDS = (
    "position",
    "member",
    "name",
    "games",
    "total",
    "average",
    "avg_rank",
    "first",
    "second",
    "third",
    "fourth",
    "best",
    "chips",
    "yen",
    "qualified",
)


def final_rows(season: Season) -> list[dict[str, Any]]:
    """The season's standings as its page shows them now, as plain JSON (integers only)."""
    rows = stats.standings(
        club=season.club,
        start=season.start,
        end=season.end,
        min_games=season.min_games,
        seasons=[season],
    )
    out = []
    for row in rows:
        item = {f: row.get(f) for f in FINAL_FIELDS}
        item["qualified"] = bool(item["qualified"])
        out.append(item)
    return out


def season_close(*, season: Season, user: User) -> Season:
    """Freeze the standings as the record of who won: `final_standings`, `closed_at/by`."""
    with action():
        season = for_update(Season.objects).select_related("club").get(pk=season.pk)
        if season.closed_at is not None:
            raise ServiceError.one(NON_FIELD, _("This season is already closed."))
        rows = final_rows(season)
        season.closed_at = timezone.now()
        season.closed_by = user if getattr(user, "is_authenticated", False) else None
        season.final_standings = rows
        Season.objects.filter(pk=season.pk).update(
            closed_at=season.closed_at, closed_by=season.closed_by, final_standings=rows
        )
        audit(
            club=season.club,
            actor=user,
            action="season.close",
            target=f"season:{season.pk}",
            before={"closed_at": None},
            after={"closed_at": season.closed_at.isoformat(), "final_standings": rows},
        )
    return season


def season_reopen(*, season: Season, user: User) -> Season:
    """Reopen a closed season: its page shows live numbers again and the frozen standings are
    cleared (they stay in the audit log's season.close and season.reopen entries)."""
    with action():
        season = for_update(Season.objects).select_related("club").get(pk=season.pk)
        if season.closed_at is None:
            raise ServiceError.one(NON_FIELD, _("This season is not closed."))
        before = {
            "closed_at": season.closed_at.isoformat(),
            "closed_by": season.closed_by_id,
            "final_standings": season.final_standings,
        }
        season.closed_at = season.closed_by = season.final_standings = None
        Season.objects.filter(pk=season.pk).update(
            closed_at=None, closed_by=None, final_standings=None
        )
        audit(
            club=season.club,
            actor=user,
            action="season.reopen",
            target=f"season:{season.pk}",
            before=before,
            after={"closed_at": None},
        )
    return season


def closed_seasons_on(*, club: Club | int, date: datetime.date | None) -> list[Season]:
    """The closed seasons whose dates hold `date` (one query; none without a date)."""
    if date is None:
        return []
    club_id = club if isinstance(club, int) else club.pk
    return list(
        Season.objects.filter(
            club_id=club_id, closed_at__isnull=False, start__lte=date, end__gte=date
        ).order_by("start", "pk")
    )


__all__ = [
    "MergePreview",
    "closed_seasons_on",
    "member_edit",
    "member_merge",
    "merge_candidates",
    "merge_preview",
    "season_close",
    "season_edit",
    "season_reopen",
]


# --- the club itself -------------------------------------------------------------------------


def club_rename(*, club: Club, user: User, name: str) -> Club:
    """A club's name as its pages, sheets and share link show it (its address stays: links in
    people's phones keep working). Audited: club.rename."""
    name = " ".join(unicodedata.normalize("NFKC", name).split())
    if not name:
        raise ServiceError.one("name", _("Enter the club's name."))
    if errors := limits.column_problems(Club, name=name):
        raise ServiceError(errors)
    with action():
        locked = for_update(Club.objects).get(pk=club.pk)
        if locked.name == name:
            return locked
        before = {"name": locked.name}
        save_audited(
            locked,
            {"name": name},
            club=locked,
            actor=user,
            action="club.rename",
            target=f"club:{locked.pk}",
            before=before,
            after={"name": name},
        )
    return locked


RATING_MIN_GAMES_MAX = 1000


def club_set_rating_min_games(*, club: Club, user: User, games: int) -> Club:
    """How many counted games a player needs to be ranked by rating (league.standings).
    Audited: club.rating_min_games."""
    if not 0 <= games <= RATING_MIN_GAMES_MAX:
        raise ServiceError.one(
            "games",
            _("Enter a number of games from 0 to %(most)d.") % {"most": RATING_MIN_GAMES_MAX},
        )
    with action():
        locked = for_update(Club.objects).get(pk=club.pk)
        if locked.rating_min_games == games:
            return locked
        save_audited(
            locked,
            {"rating_min_games": games},
            club=locked,
            actor=user,
            action="club.rating_min_games",
            target=f"club:{locked.pk}",
            before={"rating_min_games": locked.rating_min_games},
            after={"rating_min_games": games},
        )
    return locked


NAME_INVISIBLE = gettext_lazy("A name cannot hold invisible or control characters (%(chars)s).")


NAME_TAKEN = gettext_lazy(
    "%(name)s is already a member (names are compared without spaces or widths)."
)


NAME_TOO_LONG = gettext_lazy("A name can be at most %(n)s characters.")


def member_name_checked(*, club: Club, name: str, exclude: Member | None = None) -> str:
    """`name` as it is stored (league.core.names.clean_name), or ServiceError on "name": empty,
    holding an invisible character, too long, or the same name as another member of the club
    (ｱｵｷ and アオキ, 阿部誠 and 阿部 誠 are one name). Every path that names a member uses it."""
    invisible = names.invisible_characters(name)
    if invisible:
        raise ServiceError.one("name", NAME_INVISIBLE % {"chars": ", ".join(invisible)})
    name = names.clean_name(name)
    if not name:
        raise ServiceError.one("name", _("Enter a name."))
    limit = Member._meta.get_field("name").max_length
    if len(name) > limit:
        raise ServiceError.one("name", NAME_TOO_LONG % {"n": limit})
    twins = Member.objects.filter(club=club, name_key=names.name_key(name))
    if exclude is not None:
        twins = twins.exclude(pk=exclude.pk)
    existing = twins.select_related("merged_into").first()
    if existing is not None and existing.merged_into is not None:
        merged = MERGED_MEMBER % {"name": existing.name, "into": existing.merged_into.name}
        raise ServiceError.one("name", str(merged))
    if existing is not None:
        raise ServiceError.one("name", NAME_TAKEN % {"name": existing.name})
    return name


def member_create(
    *, club: Club, user: User, name: str, kana: str = "", is_guest: bool = False
) -> Member:
    """A new member, inside the action of its caller (members_create, club creation, an
    invitation, a guest checked in or added on the record form, an import, loaddemo)."""
    name = member_name_checked(club=club, name=name)
    if errors := limits.column_problems(Member, name=name, kana=kana.strip()):
        raise ServiceError(errors)
    kana = kana.strip()
    if not kana:  # created without a reading (club creation, an invitation, a guest...)
        suggested = reading_of(name)
        kana = "" if limits.column_problems(Member, kana=suggested) else suggested
    try:
        with transaction.atomic():  # a savepoint inside the caller's action, for the except
            member = Member.objects.create(club=club, name=name, kana=kana, is_guest=is_guest)
            audit(
                club=club,
                actor=user,
                action="member.create",
                target=f"member:{member.pk}",
                after={"name": member.name, "kana": member.kana, "is_guest": is_guest},
            )
    except IntegrityError:  # a concurrent request added the same name after the check above
        raise ServiceError.one("name", _("A member with this name already exists.")) from None
    return member


def members_create(
    *, club: Club, user: User, people: dict[int, tuple[str, str, bool]]
) -> list[Member]:
    """Several members at once, {row: (name, reading, guest)}, in one transaction: all of them,
    or none and a ServiceError naming each refused row's fields (name_0, kana_2...), so that a
    form of rows shows every problem at once."""
    errors: dict[str, list[str]] = {}
    created: list[Member] = []
    with action():
        lock_club(club.pk)
        for row, (name, kana, is_guest) in people.items():
            try:
                with transaction.atomic():  # a savepoint inside this action: one row each
                    member = member_create(
                        club=club, user=user, name=name, kana=kana, is_guest=is_guest
                    )
            except ServiceError as e:
                for field, field_messages in e.errors.items():
                    errors.setdefault(f"{field}_{row}", []).extend(field_messages)
            else:
                created.append(member)
        if errors:
            transaction.set_rollback(True)
    if errors:
        raise ServiceError(errors)
    return created


def season_checked(
    *,
    name: str,
    start: datetime.date,
    end: datetime.date,
    min_games: int,
    kind: str = Season.INDIVIDUAL,
) -> str:
    """A season's name as stored, or ServiceError naming the field: creating and editing one."""
    if kind not in dict(Season.KINDS):
        raise ServiceError.one("kind", _("Choose the kind of season."))
    name = " ".join(name.split())
    if not name:
        raise ServiceError.one("name", _("Enter a name."))
    errors = limits.column_problems(Season, name=name)
    for key, value in (("start", start), ("end", end)):
        if (problem := limits.date_problem(value, season_end=key == "end")) is not None:
            errors[key] = [problem]
    if errors:
        raise ServiceError(errors)
    if end < start:
        raise ServiceError.one("end", _("The last day cannot be before the first day."))
    if min_games < 0:
        raise ServiceError.one("min_games", _("Enter zero or more games."))
    return name


def season_create_in(
    *,
    club: Club,
    user: User,
    name: str,
    start: datetime.date,
    end: datetime.date,
    min_games: int = 0,
    kind: str = Season.INDIVIDUAL,
    in_club_season: bool = False,
    confirm_overlap: bool = False,
) -> Season:
    """A new season, inside the caller's action (season_create's, loaddemo's): an individual
    season, a team league or an event in stages (`kind`). A team league's or event's own games
    count in the individual seasons too only if `in_club_season` (league.standings.competitions).
    Overlapping a season of its kind asks for confirmation (season_overlap_check)."""
    name = season_checked(name=name, start=start, end=end, min_games=min_games, kind=kind)
    season_overlap_check(
        club_id=club.pk, kind=kind, start=start, end=end, confirmed=confirm_overlap
    )
    season = Season.objects.create(
        club=club,
        name=name,
        start=start,
        end=end,
        min_games=min_games,
        kind=kind,
        in_club_season=in_club_season and kind != Season.INDIVIDUAL,
    )
    changes.record(changes.SeasonSaved(season))
    audit(
        club=club,
        actor=user,
        action="season.create",
        target=f"season:{season.pk}",
        after=season_snapshot(season),
    )
    return season


season_create = as_action(season_create_in)


MERGED_INACTIVE = gettext_lazy("A record merged into another cannot be made active again.")


def member_set_active(*, member: Member, user: User, active: bool) -> Member:
    """An inactive member stays in every result and ranking; only the pickers leave them out."""
    with action():
        return member_set_active_in(member=member, user=user, active=active)


def member_set_active_in(*, member: Member, user: User, active: bool) -> Member:
    """member_set_active inside the caller's action (the record form bringing a member back
    with its game, loaddemo)."""
    member = for_update(Member.objects).get(pk=member.pk)
    if member.is_active == active:
        return member
    if active and member.merged_into_id is not None:  # it lives on as the survivor
        raise ServiceError.one(NON_FIELD, str(MERGED_INACTIVE))
    save_audited(
        member,
        {"is_active": active},
        club=member.club,
        actor=user,
        action="member.activate" if active else "member.deactivate",
        target=f"member:{member.pk}",
        before={"is_active": not active},
        after={"is_active": active},
    )
    return member
