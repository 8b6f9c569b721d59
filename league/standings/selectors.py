"""Reads of the kept aggregates: a few rows per page, whatever the length of the club's history.

Each returns the same rows (keys, values, order) as the live aggregate over `Result` that it
replaces (league.standings.stats.standings, the race's daily sums, selectors.day_ledger_rows), so a page
reads the same either way; `tests/league/standings/test_aggregates.py` holds them equal.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import (
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    Window,
)
from django.db.models.functions import Coalesce, NullIf, Rank
from django.db.models.query import ValuesIterable

from league.models import Adjustment, Club, HandStat, HandStatTotal, Member, Result, Season
from league.models.hands import HAND_SUMS
from league.models.stats import ClubChronicle, MemberGame, MemberRating, PairTotal, SeatTotal
from league.models.totals import MemberDay, MemberRateTotal, MemberTotal
from league.standings import competitions

_INT = IntegerField()


def _per_game(expression: Any, scale: int) -> ExpressionWrapper:
    """Per game; None for a row without games (a member listed for their adjustments)."""
    return ExpressionWrapper(expression * scale / NullIf(F("games"), 0), output_field=_INT)


def sort_term(field: str, descending: bool) -> Any:
    """The standings' first ORDER BY term: a hand column (`hand_sort`) puts the players without
    games recorded hand by hand last either way (NULL sorts first on one database, last on the
    other)."""
    nulls = {"nulls_last": True} if field == "hand_sort" else {}
    return F(field).desc(**nulls) if descending else F(field).asc(**nulls)


def scope_for(
    seasons: Sequence[Season],
    start: datetime.date | None,
    end: datetime.date | None,
    rate: str | None,
) -> tuple[bool, Season | None]:
    """Whether a period's statistics are kept (all time, or exactly one season's dates, every
    rate), and which season. The standings are kept for each rate too (`standings`)."""
    if rate:
        return False, None
    if start is None and end is None:
        return True, None
    # Of seasons with the same dates, an individual season's rows (a team league's or event's
    # may leave games out or in: league.standings.competitions), then the oldest.
    for season in sorted(seasons, key=lambda s: (s.kind != Season.INDIVIDUAL, s.pk)):
        if season.start == start and season.end == end:
            return True, season
    return False, None


class _AdjustedRows(ValuesIterable):
    """The rows with `total` the season total (games and adjustments, what ranks), `scores` the
    games' total alone, `adjust` the adjustments (0 for all time)."""

    def __iter__(self) -> Any:
        for row in super().__iter__():
            row["scores"] = row["total"]
            row["total"] = row.pop("season_total")
            yield row


def _adjustments(season: Season | None) -> Any:
    """A member's adjustments in the season (league.teams), as a subquery of the row's query: no
    query of its own, whatever the number of rows."""
    if season is None:
        return Value(0, output_field=_INT)
    booked = (
        Adjustment.objects.filter(season=season, member=OuterRef("member"))
        .order_by()
        .values("member")
        .annotate(s=Sum("points"))
        .values("s")
    )
    return Coalesce(Subquery(booked, output_field=_INT), Value(0), output_field=_INT)


def with_season_total(rows: QuerySet[MemberTotal], season: Season | None) -> QuerySet[Any]:
    """Kept rows annotated with `season_total`: their total plus the member's adjustments."""
    return rows.annotate(
        season_total=ExpressionWrapper(F("total") + _adjustments(season), output_field=_INT)
    )


def has_adjustments(season: Season | None) -> bool:
    """Whether any member of the season has adjustments (the standings then show them): read
    with the season where league.teams.selectors.with_teams annotated it, else one query."""
    if season is None:
        return False
    known = getattr(season, "has_adjustments", None)
    if known is not None:
        return bool(known)
    return Adjustment.objects.filter(season=season, member__isnull=False).exists()


def standings(
    *,
    club: Club,
    season: Season | None,
    rate: str | None = None,
    min_games: int = 0,
    field: str = "total",
    descending: bool = True,
    hand_sort: Any = None,
) -> QuerySet[Any]:
    """league.standings.stats.standings' rows for all time (`season` None) or one season, of
    every game or of one rate's (`rate`), from the kept totals: one indexed read of the scope's
    rows.

    A season's rows count the members' adjustments (league.teams' `Adjustment`, booked outside
    any game: M.League's chombo): `total` is the games' total (`scores`) plus `adjust`, and ranks;
    the averages and rates are the games' alone. Read by a subquery in the same query. A member
    with adjustments in the season is listed with 0 games where they played none (in the scope's
    rate too: their zero kept row, MemberRateTotal.ADJUSTED). `hand_sort` (hand_sort_key) is
    annotated as `hand_sort` for `field` to sort by."""
    if field == "total":
        field = "season_total"
    primary = sort_term(field, descending)
    if rate and season is not None:  # and members with adjustments, 0 games at the rate if none
        played = MemberRateTotal.objects.filter(
            season=season, rate=rate, games__gt=0, member=OuterRef("member")
        )
        booked = Adjustment.objects.filter(season=season, member=OuterRef("member"))
        adjusted = Q(Exists(booked), ~Exists(played), rate=MemberRateTotal.ADJUSTED)
        rows = MemberRateTotal.objects.filter(Q(rate=rate, games__gt=0) | adjusted, club=club)
    elif rate:
        rows = MemberRateTotal.objects.filter(club=club, rate=rate, games__gt=0)
    elif season is not None:  # and members with adjustments, listed with 0 games if none
        booked = Adjustment.objects.filter(season=season, member=OuterRef("member"))
        rows = MemberTotal.objects.filter(Q(games__gt=0) | Exists(booked), club=club)
    else:
        rows = MemberTotal.objects.filter(club=club, games__gt=0)
    rows = rows.filter(season__isnull=True) if season is None else rows.filter(season=season)
    sort = {} if hand_sort is None else {"hand_sort": hand_sort}
    out = (
        rows.values(
            "member",
            "games",
            "total",
            "first",
            "second",
            "third",
            "fourth",
            "best",
            "busts",
            "chombo",
            "chips",
            "yen",
        )
        .annotate(
            name=F("member__name"),
            kana=F("member__kana"),
            is_guest=F("member__is_guest"),
            average=_per_game(F("total"), 10),
            avg_rank=_per_game(F("rank_sum"), 100),
            first_rate=_per_game(F("first"), 10_000),
            second_rate=_per_game(F("second"), 10_000),
            third_rate=_per_game(F("third"), 10_000),
            fourth_rate=_per_game(F("fourth"), 10_000),
            top_two_rate=_per_game(F("first") + F("second"), 10_000),
            avoid_last_rate=_per_game(F("games") - F("lasts"), 10_000),
            qualified=ExpressionWrapper(Q(games__gte=min_games), output_field=BooleanField()),
            adjust=_adjustments(season),
            **sort,
        )
        .annotate(
            season_total=ExpressionWrapper(F("total") + F("adjust"), output_field=_INT),
        )
        .annotate(
            position=Window(
                Rank(), partition_by=[F("qualified")], order_by=F("season_total").desc()
            ),
        )
        .order_by(
            F("qualified").desc(), primary, F("season_total").desc(), F("kana").asc(), "member"
        )
    )
    out._iterable_class = _AdjustedRows
    return out


def season_totals(*, club: Club, seasons: Sequence[Season]) -> list[dict[str, Any]]:
    """Every season's rows: season, member, name, games, total (one query). The total counts
    the member's adjustments in the season, as the season's standings do."""
    booked = (
        Adjustment.objects.filter(season=OuterRef("season"), member=OuterRef("member"))
        .order_by()
        .values("member")
        .annotate(s=Sum("points"))
        .values("s")
    )
    adjust = Coalesce(Subquery(booked, output_field=_INT), Value(0), output_field=_INT)
    rows = list(
        MemberTotal.objects.filter(club=club, season__in=[s.pk for s in seasons], games__gt=0)
        .values("season", "member", "games")
        .annotate(
            name=F("member__name"),
            season_total=ExpressionWrapper(F("total") + adjust, output_field=_INT),
        )
        .order_by()
    )
    for row in rows:
        row["total"] = row.pop("season_total")
    return rows


def race_rows(*, club: Club, season: Season) -> list[dict[str, Any]]:
    """Each (member, date)'s score and games in the season, by date then member: the kept daily
    rows, less the games of a team league or event kept apart from an individual season
    (league.standings.competitions), when one overlaps it (one query to know, one to subtract)."""
    rows = list(
        MemberDay.objects.filter(
            club=club, date__gte=season.start, date__lte=season.end, games__gt=0
        )
        .values("member", "date", "score", "games")
        .order_by("date", "member")
    )
    if not competitions.apart_over(season):
        return rows
    apart = (
        Result.objects.filter(
            club=club,
            counted=True,
            member__fill_in=False,
            date__gte=season.start,
            date__lte=season.end,
        )
        .exclude(competitions.in_season(season))
        .order_by()
        .values("member", "date")
        .annotate(n=Count("id"), points=Sum("score"))
    )
    less = {(a["member"], a["date"]): a for a in apart}
    out = []
    for row in rows:
        gone = less.get((row["member"], row["date"]))
        if gone is not None:
            row = {**row, "games": row["games"] - gone["n"], "score": row["score"] - gone["points"]}
        if row["games"]:
            out.append(row)
    return out


def day_totals(*, club_id: int, date: datetime.date) -> list[dict[str, Any]]:
    """selectors.day_ledger_rows' rows for one date, from the kept daily totals."""
    rows = (
        MemberDay.objects.filter(club_id=club_id, date=date, games__gt=0)
        .values("member", "games", "score", "chips", "yen", "yen_games")
        .annotate(name=F("member__name"))
        .order_by("-score", "member__kana", "member__name")
    )
    return [
        {
            "member": r["member"],
            "name": r["name"],
            "games": r["games"],
            "score": r["score"],
            "chips": r["chips"],
            "yen": r["yen"] if r["yen_games"] else None,
        }
        for r in rows
    ]


def day_totals_without(
    *, club_id: int, date: datetime.date, games: Iterable[int]
) -> list[dict[str, Any]]:
    """day_totals' rows from the stored results, less `games` (results held back: issue 42),
    and less the fill-ins (黒子), as the kept rows have them. One query."""
    rows = (
        Result.objects.filter(club_id=club_id, date=date, counted=True, member__fill_in=False)
        .exclude(game_id__in=list(games))
        .values("member")
        .annotate(
            name=F("member__name"),
            games_=Count("pk"),
            score_=Sum("score"),
            chips_=Sum("chips"),
            yen_=Sum("yen"),
            yen_games_=Count("yen"),
        )
        .order_by("-score_", "member__kana", "member__name")
    )
    return [
        {
            "member": r["member"],
            "name": r["name"],
            "games": r["games_"],
            "score": r["score_"],
            "chips": r["chips_"],
            "yen": r["yen_"] if r["yen_games_"] else None,
        }
        for r in rows
    ]


def member_day_points(
    *, member: Member, start: datetime.date | None, end: datetime.date | None, points: int
) -> list[tuple[datetime.date, int, int]]:
    """A member's running totals at the end of days played, oldest first, thinned to at most
    `points` days evenly (every ⌈days / points⌉-th day, and the last day always): (date, games
    so far, score so far). The running sums and the thinning are done by the database (window
    functions over the kept MemberDay rows), so only the kept points come back, however long
    the history."""
    table = MemberDay._meta.db_table
    field = MemberDay._meta.get_field("date")
    where, params = ["member_id = %s", "games > 0"], [member.pk]
    if start is not None:
        where.append("date >= %s")
        params.append(field.get_db_prep_value(start, connection))
    if end is not None:
        where.append("date <= %s")
        params.append(field.get_db_prep_value(end, connection))
    sql = f"""
        SELECT date, so_far_games, so_far_score FROM (
            SELECT date,
                SUM(games) OVER (ORDER BY date ROWS UNBOUNDED PRECEDING) AS so_far_games,
                SUM(score) OVER (ORDER BY date ROWS UNBOUNDED PRECEDING) AS so_far_score,
                ROW_NUMBER() OVER (ORDER BY date) AS n,
                COUNT(*) OVER () AS days
            FROM {table} WHERE {" AND ".join(where)}
        ) AS running
        WHERE n = days OR n %% ((days + %s - 1) / %s) = 0
        ORDER BY date
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, points, points])
        return [
            (field.to_python(date), int(games), int(score))
            for date, games, score in cursor.fetchall()
        ]


# --- hand statistics (league.table's HandStat, kept at write time) ---------------------------


def hand_stats(
    *, member: Member, start: datetime.date | None = None, end: datetime.date | None = None
) -> dict[str, Any] | None:
    """A player's hand statistics over the games recorded hand by hand in the period (counted
    only), or None without any: sums and rates in hundredths of a percent (as standings), and the
    averages in points. For all time, the kept total (HandStatTotal): one query however long the
    history; for a period, its rows summed: one query, and one more for the yaku."""
    if start is None and end is None:
        return _hand_stats_all_time(member)
    rows = _hand_rows(HandStat.objects.filter(member=member, counted=True), start, end)
    sums = rows.aggregate(games=Count("id"), **{f: Sum(f) for f in HAND_SUMS})
    if not sums["games"]:
        return None
    yaku: dict[str, int] = {}
    for listed in rows.exclude(yaku={}).values_list("yaku", flat=True):
        for name, count in listed.items():
            yaku[name] = yaku.get(name, 0) + count
    return _hand_rates(sums, yaku)


def _hand_stats_all_time(member: Member) -> dict[str, Any] | None:
    total = HandStatTotal.objects.filter(member=member).first()
    if total is None or not total.games:
        return None
    sums = {"games": total.games, **{f: getattr(total, f) for f in HAND_SUMS}}
    return _hand_rates(sums, total.yaku or {})


# Each figure of the hand statistics: (numerator, denominator, scale), the sums' numerator ×
# scale // denominator (None where the denominator is 0). Rates in hundredths of a percent, the
# averages in points. The one definition of these figures: the player page (`_hand_rates`), the
# standings' hand columns (`hand_table`) and their sort in the database (`hand_sort_key`).
HAND_FIGURES: dict[str, tuple[str, str, int]] = {
    "win_rate": ("wins", "hands", 10_000),
    "deal_in_rate": ("deal_ins", "hands", 10_000),
    "riichi_rate": ("riichi", "hands", 10_000),
    "called_rate": ("called_wins", "wins", 10_000),  # of wins: the winner's 副露 toggle
    "draw_tenpai_rate": ("draw_tenpai", "draws", 10_000),
    "avg_win": ("win_points", "wins", 1),
    "avg_deal_in": ("deal_in_points", "deal_ins", 1),
}


def _hand_rates(sums: dict[str, Any], yaku: dict[str, int]) -> dict[str, Any]:
    figures = {
        name: sums[part] * scale // sums[whole] if sums[whole] else None
        for name, (part, whole, scale) in HAND_FIGURES.items()
    }
    return {
        **sums,
        **figures,
        "yaku": sorted(yaku.items(), key=lambda item: (-item[1], item[0])),
    }


def hand_table(
    *, club: Club, start: datetime.date | None, end: datetime.date | None
) -> dict[int, dict[str, Any]]:
    """Every member's hand statistics in the period (`hand_stats`' figures without the yaku),
    by member id: only members with games recorded hand by hand. One query: for all time the
    kept totals (HandStatTotal, a row per member); for a period its counted HandStat rows summed
    per member (the index on club, counted, date reads the period's rows only)."""
    if start is None and end is None:
        totals = HandStatTotal.objects.filter(club=club, games__gt=0).values(
            "member_id", "games", *HAND_SUMS
        )
        return {t["member_id"]: _hand_rates(t, {}) for t in totals}
    rows = _hand_rows(
        HandStat.objects.filter(club=club, counted=True, member__fill_in=False), start, end
    )
    sums = (
        rows.values("member_id")
        .annotate(games=Count("id"), **{f: Sum(f) for f in HAND_SUMS})
        .order_by()
    )
    return {s["member_id"]: _hand_rates(s, {}) for s in sums}


def _hand_rows(
    rows: QuerySet[HandStat], start: datetime.date | None, end: datetime.date | None
) -> QuerySet[HandStat]:
    if start is not None:
        rows = rows.filter(date__gte=start)
    if end is not None:
        rows = rows.filter(date__lte=end)
    return rows


# The standings' hand columns that sort (league.standings.tables): "hand_games" is `games` above.
HAND_SORT_SUMS = {"hand_games": "games", "hands": "hands"}


def hand_sort_key(*, start: datetime.date | None, end: datetime.date | None, field: str) -> Any:
    """The hand column `field` (a key of HAND_FIGURES or HAND_SORT_SUMS) of the standings row's
    member, as an expression of the standings query (the row's `member`), so that the database
    sorts by it: NULL without games recorded hand by hand. For all time, the member's kept total
    (its primary key); for a period, the member's rows of the period (the index on member,
    counted, date): per row, whatever the length of the history."""
    if start is None and end is None:
        total = HandStatTotal.objects.filter(member=OuterRef("member"), games__gt=0)
        value = _hand_expression(field, lambda name: F(name))
        return Subquery(total.annotate(v=value).values("v")[:1], output_field=_INT)
    rows = _hand_rows(HandStat.objects.filter(member=OuterRef("member"), counted=True), start, end)
    value = _hand_expression(field, lambda name: Count("id") if name == "games" else Sum(name))
    summed = rows.order_by().values("member").annotate(v=value).values("v")
    return Subquery(summed, output_field=_INT)


def _hand_expression(field: str, column: Any) -> Any:
    if field in HAND_SORT_SUMS:
        return ExpressionWrapper(column(HAND_SORT_SUMS[field]), output_field=_INT)
    part, whole, scale = HAND_FIGURES[field]
    # Integer division of non-negative sums: the same truncation as `_hand_rates`' //.
    return ExpressionWrapper(column(part) * scale / NullIf(column(whole), 0), output_field=_INT)


# --- head-to-head, seats, the rating and the records (league.models.stats) -----------------


def per_game(value: int, scale: int, games: int) -> int | None:
    """value × scale / games truncated towards zero, as the database's integer division (and the
    standings' averages and rates) do; None without games."""
    if not games:
        return None
    quotient = abs(value) * scale // games
    return -quotient if value < 0 else quotient


def _pair_scope(season: Season | None) -> Q:
    return Q(season__isnull=True) if season is None else Q(season=season)


def head_to_head(*, member: Member, season: Season | None) -> list[dict[str, Any]]:
    """Every opponent the member met in the scope: games together, both average ranks
    (hundredths), how often the member finished above (count and rate in hundredths of a
    percent) and the member's net score against them (tenths). Most games first. One query."""
    rows = (
        PairTotal.objects.filter(_pair_scope(season), member=member, games__gt=0)
        .select_related("opponent")
        .order_by("-games", "opponent__kana", "opponent__name", "opponent_id")
    )
    return [
        {
            "opponent": r.opponent,
            "games": r.games,
            "avg_rank": per_game(r.rank_sum, 100, r.games),
            "opponent_avg_rank": per_game(r.opponent_rank_sum, 100, r.games),
            "above": r.above,
            "above_rate": per_game(r.above, 10_000, r.games),
            "net": r.net,
        }
        for r in rows
    ]


@dataclass(frozen=True)
class MatrixCell:
    """One ordered pair's head-to-head in a season (the row player against the column player)."""

    games: int
    net: int
    above: int


def season_matrix(*, club: Club, season: Season) -> tuple[list[Member], dict[tuple[int, int], Any]]:
    """The season's regulars (its minimum games reached; everyone who played while nobody has)
    by total, and the head-to-head cell of each ordered pair of them. Two queries."""
    totals = list(
        MemberTotal.objects.filter(club=club, season=season, games__gt=0)
        .select_related("member")
        .order_by("-total", "member__kana", "member__name", "member_id")
    )
    regulars = [t.member for t in totals if t.games >= season.min_games] or [
        t.member for t in totals
    ]
    ids = [m.pk for m in regulars]
    rows = PairTotal.objects.filter(
        club=club, season=season, member_id__in=ids, opponent_id__in=ids, games__gt=0
    ).values_list("member_id", "opponent_id", "games", "net", "above")
    cells = {(m, o): MatrixCell(games, net, above) for m, o, games, net, above in rows}
    return regulars, cells


def pair_rows(*, club: Club, season: Season | None) -> QuerySet[PairTotal]:
    """Every pair's head-to-head row in the scope, by player then opponent (the spreadsheet)."""
    return (
        PairTotal.objects.filter(_pair_scope(season), club=club, games__gt=0)
        .select_related("member", "opponent")
        .order_by(
            "member__kana", "member__name", "member_id", "-games", "opponent__kana", "opponent_id"
        )
    )


SEAT_COUNT = 4


def seat_rows(
    *, club: Club, season: Season | None, member: Member | None = None
) -> list[dict[str, Any]]:
    """Games, average rank (hundredths), average score (hundredths of 1,000 points) and top rate
    (hundredths of a percent) by starting seat (0 = 起家), for a member or the whole club (the
    sums of its members' rows: one row per member and seat, whatever the history)."""
    rows = SeatTotal.objects.filter(_pair_scope(season), club=club)
    if member is not None:
        rows = rows.filter(member=member)
    sums = {
        r["seat"]: r
        for r in rows.values("seat")
        .annotate(g=Sum("games"), ranks=Sum("rank_sum"), t=Sum("total"), tops=Sum("first"))
        .order_by("seat")
    }
    out = []
    for seat in range(SEAT_COUNT):
        r = sums.get(seat, {"g": 0, "ranks": 0, "t": 0, "tops": 0})
        games = r["g"] or 0
        out.append(
            {
                "seat": seat,
                "games": games,
                "avg_rank": per_game(r["ranks"] or 0, 100, games),
                "average": per_game(r["t"] or 0, 10, games),
                "top_rate": per_game(r["tops"] or 0, 10_000, games),
            }
        )
    return out


RATING_CHART_GAMES = 300  # the rating chart's points: a player's latest games


def rating_pending(*, club: Club) -> bool:
    """A replay left to a worker has not run yet: the kept ratings are those before a correction
    (league.standings.tasks)."""
    return ClubChronicle.objects.filter(club=club, pending_date__isnull=False).exists()


def member_rating(*, member: Member) -> MemberRating | None:
    return MemberRating.objects.filter(member=member).first()


def rating_history(*, member: Member, last: int = RATING_CHART_GAMES) -> list[MemberGame]:
    """The member's latest `last` games with their rating, oldest first (one indexed query)."""
    rows = list(MemberGame.objects.filter(member=member).order_by("-date", "-number")[:last])
    rows.reverse()
    return rows


def rating_ranking(*, club: Club) -> tuple[list[MemberRating], list[MemberRating]]:
    """Members with the club's minimum games by ordinal (μ − 3σ), highest first; and the others
    with games, by games. One query of one row per member."""
    rows = list(
        MemberRating.objects.filter(club=club, games__gt=0)
        .select_related("member")
        .order_by("-ordinal", "member__kana", "member__name", "member_id")
    )
    ranked = [r for r in rows if r.games >= club.rating_min_games]
    others = sorted(
        (r for r in rows if r.games < club.rating_min_games),
        key=lambda r: (-r.games, r.member.kana, r.member.name, r.member_id),
    )
    return ranked, others


def rating_rank_of(*, club: Club, rated: MemberGame) -> int | None:
    """The place in the rating ranking of the member whose latest game is `rated` (None below the
    club's minimum games): one count of the members ranked above."""
    ordinal = rated.mu - 3 * rated.sigma
    # Counted below the minimum too, so that the page's queries stay the same as a player plays.
    higher = MemberRating.objects.filter(
        club=club, games__gte=club.rating_min_games, ordinal__gt=ordinal
    ).count()
    return higher + 1 if rated.n >= club.rating_min_games else None


RECORDS_SHOWN = 5
YAKUMAN_SHOWN = 50


def _holders(rows: QuerySet[MemberGame], field: str) -> tuple[int, list[MemberGame]]:
    best = rows.order_by(f"-{field}").values_list(field, flat=True).first()
    if not best:
        return 0, []
    # The index (club, field, date, number) finds the holders in date order.
    holders = (
        rows.filter(**{field: best})
        .select_related("member")
        .order_by(f"-{field}", "date", "number")
    )
    return best, list(holders[:RECORDS_SHOWN])


def _first(rows: QuerySet[Any], field: str, *ties: str) -> list[Any]:
    """The RECORDS_SHOWN rows with the highest `field`, ties ordered by the columns `ties`, in
    one query: the index on (club, -field) is walked from the top and only the ties at the cut
    are sorted, however many rows share the highest values (a threshold read then every row at
    or above it grew with history where many games share a score)."""
    return list(rows.order_by(f"-{field}", *ties)[:RECORDS_SHOWN])


def _top(rows: QuerySet[Any], field: str, key: Any) -> list[Any]:
    """The RECORDS_SHOWN rows with the highest `field`, ties ordered by `key` (in Python): the
    index on `field` finds the threshold, then only the rows at or above it are read. For rows
    whose tie order needs text (a member's reading) sorted as Python sorts it, and whose count
    does not grow with history."""
    values = list(rows.order_by(f"-{field}").values_list(field, flat=True)[:RECORDS_SHOWN])
    if not values:
        return []
    top = rows.filter(**{f"{field}__gte": values[-1]})
    return sorted(top, key=lambda r: (-getattr(r, field), *key(r)))[:RECORDS_SHOWN]


def records(*, club: Club, seasons: Sequence[Season]) -> dict[str, Any]:
    """The club's records, each with its game or day (a fixed number of indexed queries); the
    most games in a season among `seasons` (the latest few: one row per member and season)."""
    games = MemberGame.objects.filter(club=club)
    tops, tops_holders = _holders(games, "tops")
    clean, clean_holders = _holders(games, "clean")
    yakuman = games.filter(yakuman__gt=0)
    return {
        "high_scores": _first(
            games.select_related("member"), "score", "date", "number", "member_id"
        ),
        "tops": tops,
        "tops_holders": tops_holders,
        "clean": clean,
        "clean_holders": clean_holders,
        "season_games": _top(
            MemberTotal.objects.filter(
                club=club, season_id__in=[s.pk for s in seasons], games__gt=0
            ).select_related("member", "season"),
            "games",
            lambda t: (t.season.start, t.member.kana, t.member_id),
        ),
        "yakuman": list(
            yakuman.select_related("member").order_by("-date", "-number")[:YAKUMAN_SHOWN]
        ),
        "yakuman_count": yakuman.count(),
        "big_days": _first(
            MemberDay.objects.filter(club=club, yen_games__gt=0, yen__gt=0).select_related(
                "member"
            ),
            "yen",
            "date",
            "member_id",
        ),
    }
