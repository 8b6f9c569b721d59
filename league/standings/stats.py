"""Rankings as database aggregates over the stored settlements (`Result` rows that count).

Every statistic is computed by the database, in integers: averages and rates are scaled
(`average` and `avg_rank` in hundredths, rates in hundredths of a percent) and truncated by
integer division, so that they sort in the database and never become floats.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from django.db.models import (
    BooleanField,
    Count,
    ExpressionWrapper,
    F,
    IntegerField,
    Max,
    Q,
    QuerySet,
    Sum,
    Value,
    Window,
)
from django.db.models.functions import Cast, Coalesce, Rank

import scoring
from league.models import Club, Member, Result, RulesVersion, Season
from league.standings import selectors as aggregate_selectors

_INT = IntegerField()


def _per_game(expression: Any, scale: int) -> ExpressionWrapper:
    return ExpressionWrapper(expression * scale / F("games"), output_field=_INT)


def _rate(condition: Q) -> ExpressionWrapper:
    return _per_game(Count("id", filter=condition), 10_000)


# Sortable columns (django-tables2's names) → the annotation the database sorts by.
SORTS: Mapping[str, str] = {
    name: name
    for name in (
        "games",
        "total",
        "average",
        "avg_rank",
        "first",
        "second",
        "third",
        "fourth",
        "first_rate",
        "second_rate",
        "third_rate",
        "fourth_rate",
        "top_two_rate",
        "avoid_last_rate",
        "best",
        "busts",
        "chombo",
        "chips",
        "yen",
    )
} | {"position": "position", "name": "kana"}
# The hand columns (league.standings.tables, shown on request): sorted by the database on
# `hand_sort`, an expression of the row's member (selectors.hand_sort_key), players without games
# recorded hand by hand last either way. Not with a rate: hand statistics have none.
HAND_SORTS: frozenset[str] = frozenset(
    {*aggregate_selectors.HAND_FIGURES, *aggregate_selectors.HAND_SORT_SUMS}
) - {"draw_tenpai_rate"}


def counted_results(
    *,
    club: Club,
    start: datetime.date | None = None,
    end: datetime.date | None = None,
    rate: str | None = None,
    fill_ins: bool = False,
) -> QuerySet[Result]:
    # A fill-in's (黒子) rows count for nobody: every standings, statistics and export reader
    # of a period starts here (league.models.members.Member.fill_in). `fill_ins`: theirs too
    # (what picks whole games, not players).
    rows = Result.objects.filter(club=club, counted=True)
    if not fill_ins:
        rows = rows.filter(member__fill_in=False)
    if start is not None:
        rows = rows.filter(date__gte=start)
    if end is not None:
        rows = rows.filter(date__lte=end)
    if rate:
        rows = rows.filter(rate=rate)
    return rows


def standings(
    *,
    club: Club,
    start: datetime.date | None = None,
    end: datetime.date | None = None,
    rate: str | None = None,
    min_games: int = 0,
    order: str = "position",
    seasons: Sequence[Season] = (),
) -> QuerySet[Any]:
    """One row per player: every statistic of the standings page, in one query.

    Qualified players (at least `min_games`) come first; `position` ranks by total score within
    each group. `order` is a key of SORTS, ascending, or descending with "-" in front (as
    django-tables2 writes it); ties fall back to the total, then the kana.

    All time, and the dates of one of `seasons` (the caller's, already fetched), with or without
    a rate, read the totals kept at write time (league.standings.services): the same rows from a
    few rows. Any other period is aggregated from the results. A season's rows count the members'
    adjustments in `total` (selectors.standings), with a rate too (an adjustment has no rate);
    other periods have none (`adjust` 0).
    """
    descending = order.startswith("-")
    name = order.lstrip("-")
    hand_sort = None
    if name in HAND_SORTS and not rate:
        field = "hand_sort"
        hand_sort = aggregate_selectors.hand_sort_key(start=start, end=end, field=name)
    else:
        field = SORTS.get(name, "position")
    if field == "position":  # position 1 is the highest total
        field, descending = "total", not descending
    kept, season = aggregate_selectors.scope_for(seasons, start, end, None)
    if kept:  # any rate: a rate tier's totals are kept too
        return aggregate_selectors.standings(
            club=club,
            season=season,
            rate=rate,
            min_games=min_games,
            field=field,
            descending=descending,
            hand_sort=hand_sort,
        )
    primary = aggregate_selectors.sort_term(field, descending)
    # After the aggregates: the member's hand figure once per member, not in the GROUP BY (where
    # it would be computed for every result row).
    sort = {} if hand_sort is None else {"hand_sort": hand_sort}

    return (
        counted_results(club=club, start=start, end=end, rate=rate)
        .values("member")
        .annotate(
            # As aggregates (one value per member anyway), so that the GROUP BY is the member
            # alone and streams in the covering index's order instead of sorting every row.
            name=Max("member__name"),
            kana=Max("member__kana"),
            is_guest=ExpressionWrapper(
                Max(Cast("member__is_guest", IntegerField())), output_field=BooleanField()
            ),
            games=Count("id"),
            total=Sum("score"),
            average=_per_game(Sum("score"), 10),  # hundredths of 1,000 points
            avg_rank=_per_game(Sum("rank"), 100),  # hundredths of a rank
            first=Count("id", filter=Q(rank=1)),
            second=Count("id", filter=Q(rank=2)),
            third=Count("id", filter=Q(rank=3)),
            fourth=Count("id", filter=Q(rank=4)),
            first_rate=_rate(Q(rank=1)),
            second_rate=_rate(Q(rank=2)),
            third_rate=_rate(Q(rank=3)),
            fourth_rate=_rate(Q(rank=4)),
            top_two_rate=_rate(Q(rank__lte=2)),
            avoid_last_rate=_rate(Q(last=False)),
            best=Max("score"),
            busts=Count("id", filter=Q(points__lt=0)),
            chombo=Sum("chombo"),
            chips=Sum("chips"),
            yen=Coalesce(Sum("yen"), 0),
            scores=Sum("score"),
            adjust=Value(0, output_field=_INT),  # adjustments are a season's (the kept rows)
            qualified=ExpressionWrapper(Q(games__gte=min_games), output_field=BooleanField()),
        )
        .annotate(
            position=Window(Rank(), partition_by=[F("qualified")], order_by=F("total").desc()),
            **sort,
        )
        .order_by(F("qualified").desc(), primary, F("total").desc(), F("kana").asc(), "member")
    )


def season_champion(season: Season) -> Member | None:
    """Position 1 of the season's standings: once it is closed, of its final standings (the
    record of who won, which a later correction of a game does not change)."""
    if season.closed_at is not None and season.final_standings is not None:
        first = season.final_standings[0] if season.final_standings else None
    else:
        rows = standings(  # the season's kept totals (seasons=[season]), not its results
            club=season.club,
            start=season.start,
            end=season.end,
            min_games=season.min_games,
            seasons=[season],  # the kept rows, with the members' adjustments
        )
        first = rows.first()
    if first is None or not first["qualified"]:
        return None
    return Member.objects.get(pk=first["member"])


def bust_counts(
    *,
    club: Club,
    members: Sequence[Member],
    start: datetime.date | None = None,
    end: datetime.date | None = None,
) -> dict[int, dict[str, int]]:
    """For clubs with 飛び賞 or 焼き鳥: how many players each member busted (飛ばした回数) and how
    many games they ended as 焼き鳥, over the counted games of the period. One query."""
    out = {m.pk: {"busts_caused": 0, "yakitori": 0} for m in members}
    rows = (
        counted_results(club=club, start=start, end=end)
        .filter(member__in=list(out))
        .values("member")
        .annotate(
            caused=Coalesce(Sum("busts_caused"), 0), grilled=Count("id", filter=Q(yakitori=True))
        )
    )
    for row in rows:
        out[row["member"]] = {"busts_caused": row["caused"], "yakitori": row["grilled"]}
    return out


# --- which rules a period is settled under ---------------------------------------------------


def rules_versions(*, club: Club) -> list[RulesVersion]:
    """The club's rules versions, oldest first (one query)."""
    return list(RulesVersion.objects.filter(club=club).order_by("effective_from"))


def rules_between(
    versions: Sequence[RulesVersion], start: datetime.date | None, end: datetime.date | None
) -> list[scoring.Rules]:
    """The rules in force on some day from `start` to `end` (None: no limit), oldest first."""
    in_range = [v for v in versions if end is None or v.effective_from <= end]
    if start is not None:
        before = [v for v in in_range if v.effective_from <= start]
        in_range = before[-1:] + [v for v in in_range if v.effective_from > start]
    return [v.rules for v in in_range]


def rate_names(rules: Sequence[scoring.Rules]) -> list[str]:
    """Every rate tier of these rules, each once, in order."""
    return list(dict.fromkeys(name for r in rules for name in r.rates))
