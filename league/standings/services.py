"""Keep the standings and chart series (league.models.totals) up to date at write time: the
projection "standings" of league.core.changes.

An action records what it changed (`ResultsChanged`: rows that stopped counting and rows that
count now; `SeasonSaved`; `CompetitionDaysChanged`; `MembersMerged`), and `changes_applied`
applies them once, as the action ends, in its transaction:

- `results_changed`: the rows' deltas, all of the action's at once (a re-settle's step or an
  import's day moves each total once, whatever the number of games);
- `season_rebuild(season=...)`: a season's rows, after the season is created or its dates change;
- `member_rebuild(member=...)`: one member's rows recomputed from the stored results (both
  records of a merge);
- `club_rebuild(club=...)`: everything of a club (restore; `manage.py rebuild_aggregates`).

Each of them also keeps the statistics of `league.models.stats` (head-to-head, seats, the rating
and the runs behind the records) through `league.standings.kept`, in the same transaction; a
rating replay over many later games is left to a worker (`league.standings.tasks`).

Race safety: a writer first inserts the missing rows with INSERT … ON CONFLICT DO NOTHING (in a
fixed order), then locks the all-time rows of its members (SELECT … FOR UPDATE, in member order)
so that two games recorded at once for the same member queue up on PostgreSQL, and moves every
counter with an `F()` expression. `best` (a maximum) cannot be un-added: when the removed score
was the best, it is recomputed from the stored results of that member and scope.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Count, F, IntegerField, Max, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce, Greatest

from league.core import changes
from league.core.locks import for_update
from league.models import Adjustment, Club, Member, Result, Season
from league.models.totals import MemberDay, MemberRateTotal, MemberTotal, list_adjusted
from league.standings import kept, tasks
from league.standings.competitions import Counting, in_season

TOTAL_FIELDS = (
    "games",
    "total",
    "rank_sum",
    "first",
    "second",
    "third",
    "fourth",
    "lasts",
    "busts",
    "chombo",
    "chips",
    "yen",
)
DAY_FIELDS = ("games", "score", "chips", "yen", "yen_games")
RANK_FIELDS = ("first", "second", "third", "fourth")

Scope = tuple[int, int | None]  # (member id, season id or None for all time)
RateScope = tuple[int, int | None, str]  # the same over one rate tier's games


@dataclass
class _Delta:
    counts: dict[str, int] = field(default_factory=dict)
    added_best: int | None = None
    removed_best: int | None = None

    def add(self, name: str, value: int) -> None:
        if value:
            self.counts[name] = self.counts.get(name, 0) + value


def _collect(
    removed: Iterable[Result], added: Iterable[Result], counting: Counting
) -> tuple[dict[Scope, _Delta], dict[RateScope, _Delta], dict[tuple[int, datetime.date], _Delta]]:
    totals: dict[Scope, _Delta] = {}
    rated: dict[RateScope, _Delta] = {}
    days: dict[tuple[int, datetime.date], _Delta] = {}
    for sign, rows in ((-1, removed), (1, added)):
        for r in rows:
            scopes = [None, *counting.holding(r.game_id, r.date)]
            deltas = [totals.setdefault((r.member_id, s), _Delta()) for s in scopes]
            if r.rate:
                deltas += [rated.setdefault((r.member_id, s, r.rate), _Delta()) for s in scopes]
            for d in deltas:
                d.add("games", sign)
                d.add("total", sign * r.score)
                d.add("rank_sum", sign * r.rank)
                d.add(RANK_FIELDS[r.rank - 1], sign)
                d.add("lasts", sign * int(r.last))
                d.add("busts", sign * int(r.points < 0))
                d.add("chombo", sign * r.chombo)
                d.add("chips", sign * r.chips)
                d.add("yen", sign * (r.yen or 0))
                if sign > 0:
                    d.added_best = r.score if d.added_best is None else max(d.added_best, r.score)
                else:
                    d.removed_best = (
                        r.score if d.removed_best is None else max(d.removed_best, r.score)
                    )
            day = days.setdefault((r.member_id, r.date), _Delta())
            day.add("games", sign)
            day.add("score", sign * r.score)
            day.add("chips", sign * r.chips)
            day.add("yen", sign * (r.yen or 0))
            day.add("yen_games", sign * int(r.yen is not None))
    return totals, rated, days


def _scope_filter(season_id: int | None) -> Q:
    return Q(season__isnull=True) if season_id is None else Q(season_id=season_id)


def _best_of(member_id: int, season: Season | None, rate: str | None = None) -> Subquery:
    rows = Result.objects.filter(member_id=member_id, counted=True)
    if rate is not None:
        rows = rows.filter(rate=rate)
    if season is not None:
        rows = rows.filter(in_season(season))
    return Subquery(rows.order_by().values("member").annotate(m=Max("score")).values("m")[:1])


def results_changed(*, club: Club | int, removed: Sequence[Any], added: Sequence[Any]) -> None:
    """Move the aggregates by `added` minus `removed` counted rows (call after writing them).

    Runs inside the caller's transaction. `removed` are rows that counted before and no longer
    do; `added` rows that count now. Edits pass both (the old revision's rows and the new ones).
    Rows are Results, or anything with a Result's column values as attributes (recording's
    ResultRow, written without a model instance).
    """
    if not removed and not added:
        return
    club_id = club if isinstance(club, int) else club.pk
    # A fill-in's (黒子) rows count for nobody: no totals, no day line, no head-to-head, seat or
    # rating (league.models.members.Member.fill_in). Their games still count for the others.
    removed, added = without_fill_ins(removed), without_fill_ins(added)
    if not removed and not added:
        return
    members = sorted({r.member_id for r in (*removed, *added)})
    # The all-time rows first (they are the per-member lock), in member order.
    MemberTotal.objects.bulk_create(
        [MemberTotal(club_id=club_id, member_id=m) for m in members], ignore_conflicts=True
    )
    list(
        for_update(MemberTotal.objects)
        .filter(member_id__in=members, season__isnull=True)
        .order_by("member_id")
        .values_list("pk", flat=True)
    )
    # The seasons are read once the members are locked: a season created meanwhile has either
    # committed (and is moved here) or waits for these locks before building its rows.
    seasons = list(Season.objects.filter(club_id=club_id))
    by_id = {s.pk: s for s in seasons}
    counting = Counting(seasons, (r.game_id for r in (*removed, *added)))
    totals, rated, days = _collect(removed, added, counting)
    season_rows = sorted((m, s) for m, s in totals if s is not None)
    if season_rows:
        MemberTotal.objects.bulk_create(
            [MemberTotal(club_id=club_id, member_id=m, season_id=s) for m, s in season_rows],
            ignore_conflicts=True,
        )
    _move_totals(MemberTotal.objects.all(), totals, by_id)
    by_rate: dict[str, dict[Scope, _Delta]] = {}
    for (member_id, season_id, rate), delta in sorted(
        rated.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1] or 0)
    ):
        by_rate.setdefault(rate, {})[(member_id, season_id)] = delta
    if rated:
        MemberRateTotal.objects.bulk_create(
            [
                MemberRateTotal(club_id=club_id, member_id=m, season_id=s, rate=rate)
                for m, s, rate in sorted(rated, key=lambda k: (k[0], k[2], k[1] or 0))
            ],
            ignore_conflicts=True,
        )
    for rate, rate_totals in by_rate.items():
        _move_totals(MemberRateTotal.objects.filter(rate=rate), rate_totals, by_id, rate)
    _move_days(club_id, days)
    # Head-to-head, seats, and the rating replayed from the earliest game changed (by a worker
    # when many games follow it).
    if kept.results_changed(club_id=club_id, removed=removed, added=added, counting=counting):
        tasks.enqueue_replay(club_id)


def without_fill_ins(rows: Sequence[Any]) -> list[Any]:
    """`rows` less those of fill-in members (one query when there are rows)."""
    if not rows:
        return []
    ids = {r.member_id for r in rows}
    fill_ins = set(Member.objects.filter(pk__in=ids, fill_in=True).values_list("pk", flat=True))
    return [r for r in rows if r.member_id not in fill_ins] if fill_ins else list(rows)


BULK_TOTALS = 8  # more seasons' or rates' rows than one game's: read and written back in bulk


def _move_totals(
    rows: QuerySet[Any],
    totals: dict[Scope, _Delta],
    by_id: dict[int, Season],
    rate: str | None = None,
) -> None:
    """Move the rows of `rows` (MemberTotal, or one rate's MemberRateTotal) by `totals`."""
    # The members' all-time MemberTotal rows are their locks (results_changed): moved in place.
    # The other rows (the seasons', a rate's), when there are more than one game's, are read,
    # added in Python and written back in a few statements (kept.rewrite): a re-settle's day
    # moved some sixty rows one UPDATE each.
    moved = {k: d for k, d in totals.items() if d.counts or d.added_best is not None}
    others = {k: d for k, d in moved.items() if rate is not None or k[1] is not None}
    if len(others) <= BULK_TOTALS:
        others = {}
    if others:
        written = [
            row
            for row in rows.filter(member_id__in=sorted({m for m, _s in others}))
            if (row.member_id, row.season_id) in others
        ]
        for row in written:
            delta = others[(row.member_id, row.season_id)]
            for name, value in delta.counts.items():
                setattr(row, name, getattr(row, name) + value)
            if delta.added_best is not None:
                row.best = delta.added_best if row.best is None else max(row.best, delta.added_best)
        kept.rewrite(rows.model, written)
    # One UPDATE per member and distinct change: a game moves a member's all-time row and the
    # rows of every season holding its date by the same amounts.
    same: dict[tuple[int, tuple[tuple[str, int], ...], int | None], list[int | None]] = {}
    for (member_id, season_id), delta in sorted(
        ((k, d) for k, d in totals.items() if k not in others),
        key=lambda kv: (kv[0][0], kv[0][1] or 0),
    ):
        if delta.counts or delta.added_best is not None:
            key = (member_id, tuple(sorted(delta.counts.items())), delta.added_best)
            same.setdefault(key, []).append(season_id)
    for (member_id, counts, added_best), scopes in same.items():
        changes: dict[str, object] = {k: F(k) + v for k, v in counts}
        if added_best is not None:
            best = Value(added_best, output_field=IntegerField())
            changes["best"] = Greatest(Coalesce(F("best"), best), best)
        where = Q(season_id__in=[s for s in scopes if s is not None])
        if None in scopes:
            where |= Q(season__isnull=True)
        rows.filter(where, member_id=member_id).update(**changes)
    # `best` cannot be un-added: where a removed score was above what is added, and the row's
    # best was that score, it is recomputed from the stored results. The rows' bests are read
    # first (one query), so that only those rows are (a re-settle's day removes the best of
    # dozens of rows, and one statement each with its subquery came to a third of its step).
    lost = {
        scope: delta.removed_best
        for scope, delta in totals.items()
        if delta.removed_best is not None
        and (delta.added_best is None or delta.added_best < delta.removed_best)
    }
    if lost:
        held = rows.filter(member_id__in=sorted({m for m, _s in lost})).values_list(
            "member_id", "season_id", "best"
        )
        stored = {(m, s): best for m, s, best in held if (m, s) in lost}
    else:
        stored = {}
    for (member_id, season_id), best in sorted(
        stored.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)
    ):
        if best is not None and best <= lost[(member_id, season_id)]:
            season = by_id.get(season_id) if season_id is not None else None
            rows.filter(_scope_filter(season_id), member_id=member_id).update(
                best=_best_of(member_id, season, rate)
            )


BULK_DAYS = 4  # more member-days than one game's: read, add and write them back in bulk


def _move_days(club_id: int, days: dict[tuple[int, datetime.date], _Delta]) -> None:
    """Add each (member, date) delta to its MemberDay row, made when missing. The members'
    all-time rows are locked (results_changed), so no other writer moves or makes these rows
    meanwhile: more than one game's (a day of an import, a re-settle's day) are read, added in
    Python and written back (kept.rewrite) in a few statements, instead of one UPDATE per row."""
    changed = {key: d for key, d in days.items() if d.counts}
    if len(changed) <= BULK_DAYS:
        MemberDay.objects.bulk_create(
            [MemberDay(club_id=club_id, member_id=m, date=d) for m, d in sorted(days)],
            ignore_conflicts=True,
        )
        for (member_id, date), delta in sorted(changed.items()):
            MemberDay.objects.filter(member_id=member_id, date=date).update(
                **{k: F(k) + v for k, v in delta.counts.items()}
            )
        return
    members = sorted({m for m, _d in days})
    dates = sorted({d for _m, d in days})
    stored = [
        row
        for row in MemberDay.objects.filter(member_id__in=members, date__in=dates)
        if (row.member_id, row.date) in days
    ]
    found = {(row.member_id, row.date) for row in stored}
    rows = [row for row in stored if (row.member_id, row.date) in changed]
    for row in rows:
        for name, value in changed[(row.member_id, row.date)].counts.items():
            setattr(row, name, getattr(row, name) + value)
    rows += [
        MemberDay(club_id=club_id, member_id=m, date=d, **days[(m, d)].counts)
        for m, d in sorted(days)
        if (m, d) not in found
    ]
    kept.rewrite(MemberDay, rows)


# --- rebuilding from the stored results -------------------------------------------------------


def _total_aggregates() -> dict[str, object]:
    return {
        "games_": Count("id"),
        "total_": Sum("score"),
        "rank_sum_": Sum("rank"),
        "first_": Count("id", filter=Q(rank=1)),
        "second_": Count("id", filter=Q(rank=2)),
        "third_": Count("id", filter=Q(rank=3)),
        "fourth_": Count("id", filter=Q(rank=4)),
        "lasts_": Count("id", filter=Q(last=True)),
        "best_": Max("score"),
        "busts_": Count("id", filter=Q(points__lt=0)),
        "chombo_": Sum("chombo"),
        "chips_": Sum("chips"),
        "yen_": Coalesce(Sum("yen"), 0),
    }


def _insert_totals(club_id: int, season: Season | None, member_id: int | None = None) -> None:
    rows = Result.objects.filter(club_id=club_id, counted=True, member__fill_in=False)
    if season is not None:
        rows = rows.filter(in_season(season))
    if member_id is not None:
        rows = rows.filter(member_id=member_id)
    _insert_rate_totals(club_id, season, rows)
    grouped = rows.order_by().values("member").annotate(**_total_aggregates())
    MemberTotal.objects.bulk_create(
        (
            MemberTotal(
                club_id=club_id,
                member_id=g["member"],
                season=season,
                best=g["best_"],
                **{name: g[name + "_"] for name in TOTAL_FIELDS},
            )
            for g in grouped.iterator()
        ),
        batch_size=1000,
    )
    if season is not None:  # a member with adjustments is listed, with 0 games if none
        booked = Adjustment.objects.filter(season=season, member__isnull=False)
        if member_id is not None:
            booked = booked.filter(member_id=member_id)
        list_adjusted(
            club_id, season.pk, booked.order_by().values_list("member", flat=True).distinct()
        )


def _insert_rate_totals(club_id: int, season: Season | None, rows: QuerySet[Result]) -> None:
    grouped = (
        rows.exclude(rate="").order_by().values("member", "rate").annotate(**_total_aggregates())
    )
    MemberRateTotal.objects.bulk_create(
        (
            MemberRateTotal(
                club_id=club_id,
                member_id=g["member"],
                season=season,
                rate=g["rate"],
                best=g["best_"],
                **{name: g[name + "_"] for name in TOTAL_FIELDS},
            )
            for g in grouped.iterator()
        ),
        batch_size=1000,
    )


def _insert_days(club_id: int, member_id: int | None = None) -> None:
    rows = Result.objects.filter(club_id=club_id, counted=True, member__fill_in=False)
    if member_id is not None:
        rows = rows.filter(member_id=member_id)
    grouped = (
        rows.order_by()
        .values("member", "date")
        .annotate(
            games_=Count("id"),
            score_=Sum("score"),
            chips_=Sum("chips"),
            yen_=Coalesce(Sum("yen"), 0),
            yen_games_=Count("yen"),
        )
    )
    MemberDay.objects.bulk_create(
        (
            MemberDay(
                club_id=club_id,
                member_id=g["member"],
                date=g["date"],
                **{name: g[name + "_"] for name in DAY_FIELDS},
            )
            for g in grouped.iterator()
        ),
        batch_size=1000,
    )


def season_rebuild(*, season: Season) -> None:
    """Recompute one season's rows (after it is created, or its dates change)."""
    with transaction.atomic():  # a savepoint inside the caller's action, or alone
        # Wait for the games being written (they hold their members' all-time rows), as they do.
        list(
            for_update(MemberTotal.objects)
            .filter(club_id=season.club_id, season__isnull=True)
            .order_by("member_id")
            .values_list("pk", flat=True)
        )
        MemberTotal.objects.filter(season=season).delete()
        MemberRateTotal.objects.filter(season=season).delete()
        _insert_totals(season.club_id, season)
        kept.season_rebuilt(season=season)


def individual_seasons_rebuild(change: changes.CompetitionDaysChanged) -> None:
    """Recompute the rows of the club's individual seasons over the change's days, after a team
    league or event there changed which games it keeps apart (league.standings.competitions):
    it was made apart or not (league.club.services.season_edit), or a stage of one apart was
    added (league.teams.services.stage_create)."""
    for season in Season.objects.filter(
        club_id=change.club_id, kind=Season.INDIVIDUAL, start__lte=change.end, end__gte=change.start
    ).order_by("pk"):
        season_rebuild(season=season)


def member_rebuild(*, member: Member) -> None:
    """Recompute one member's rows from the stored results (e.g. both members of a merge)."""
    with transaction.atomic():  # a savepoint inside the caller's action, or alone
        # Lock as a writer does, so that a concurrent game waits for the rebuilt rows.
        list(
            for_update(MemberTotal.objects)
            .filter(member=member, season__isnull=True)
            .values_list("pk", flat=True)
        )
        MemberTotal.objects.filter(member=member).delete()
        MemberRateTotal.objects.filter(member=member).delete()
        MemberDay.objects.filter(member=member).delete()
        _insert_totals(member.club_id, None, member.pk)
        for season in Season.objects.filter(club_id=member.club_id):
            _insert_totals(member.club_id, season, member.pk)
        _insert_days(member.club_id, member.pk)
        if kept.member_rebuilt(member=member):
            tasks.enqueue_replay(member.club_id)


def club_rebuild(*, club: Club) -> None:
    """Recompute every aggregate of a club from its stored results, in one transaction (the
    statistics' replay locks the club's chronicle row)."""
    with transaction.atomic():  # a savepoint inside the caller's action, or alone
        MemberTotal.objects.filter(club=club).delete()
        MemberRateTotal.objects.filter(club=club).delete()
        MemberDay.objects.filter(club=club).delete()
        _insert_totals(club.pk, None)
        for season in Season.objects.filter(club=club):
            _insert_totals(club.pk, season)
        _insert_days(club.pk)
        kept.club_rebuilt(club_id=club.pk)


# --- the projection (league.core.changes) --------------------------------------------------------


@changes.projection(
    "standings",
    order=1,
    follows=(
        changes.ResultsChanged,
        changes.SeasonSaved,
        changes.CompetitionDaysChanged,
        changes.MembersMerged,
    ),
    sources=(Result._meta.db_table,),
    rebuild=lambda club_id: club_rebuild(club=Club.objects.get(pk=club_id)),
)
def changes_applied(changed: list[Any]) -> None:
    """An action's changes: the results' deltas first, once a club, then what is rebuilt from
    the rows as the action left them (a season, the individual seasons over some days, the two
    records of a merge)."""
    by_club: dict[int, tuple[list[Any], list[Any]]] = {}
    for change in changed:
        if isinstance(change, changes.ResultsChanged):
            removed, added = by_club.setdefault(change.club_id, ([], []))
            removed += change.removed
            added += change.added
    for club_id, (removed, added) in by_club.items():
        results_changed(club=club_id, removed=removed, added=added)
    for change in changed:
        if isinstance(change, changes.SeasonSaved):
            season_rebuild(season=change.season)
        elif isinstance(change, changes.CompetitionDaysChanged):
            individual_seasons_rebuild(change)
        elif isinstance(change, changes.MembersMerged):
            member_rebuild(member=change.keep)
            member_rebuild(member=change.gone)


__all__ = [
    "club_rebuild",
    "individual_seasons_rebuild",
    "member_rebuild",
    "results_changed",
    "season_rebuild",
]
