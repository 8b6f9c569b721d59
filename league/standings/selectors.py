"""Reads of the kept aggregates: a few rows per page, whatever the length of the club's history.

Each returns the same rows (keys, values, order) as the live aggregate over `Result` that it
replaces (league.standings.stats.standings, the race's daily sums, selectors.day_ledger_rows), so a page
reads the same either way; `tests/league/test_aggregates.py` holds them equal.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from django.db.models import (
    BooleanField,
    Count,
    ExpressionWrapper,
    F,
    IntegerField,
    Q,
    QuerySet,
    Sum,
    Window,
)
from django.db.models.functions import Rank

from league.models import Club, HandStat, Member, Season
from league.models.totals import MemberDay, MemberTotal

_INT = IntegerField()


def _per_game(expression: Any, scale: int) -> ExpressionWrapper:
    return ExpressionWrapper(expression * scale / F("games"), output_field=_INT)


def scope_for(
    seasons: Sequence[Season],
    start: datetime.date | None,
    end: datetime.date | None,
    rate: str | None,
) -> tuple[bool, Season | None]:
    """Whether a period is kept (all time, or exactly one season's dates, any rate), and which."""
    if rate:
        return False, None
    if start is None and end is None:
        return True, None
    for season in sorted(seasons, key=lambda s: s.pk):
        if season.start == start and season.end == end:
            return True, season
    return False, None


def standings(
    *,
    club: Club,
    season: Season | None,
    min_games: int = 0,
    field: str = "total",
    descending: bool = True,
) -> QuerySet[Any]:
    """league.standings.stats.standings' rows for all time (`season` None) or one season, from the kept
    totals: one indexed read of the scope's rows."""
    primary = F(field).desc() if descending else F(field).asc()
    rows = MemberTotal.objects.filter(club=club, games__gt=0)
    rows = rows.filter(season__isnull=True) if season is None else rows.filter(season=season)
    return (
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
        )
        .annotate(
            position=Window(Rank(), partition_by=[F("qualified")], order_by=F("total").desc()),
        )
        .order_by(F("qualified").desc(), primary, F("total").desc(), F("kana").asc(), "member")
    )


def season_totals(*, club: Club, seasons: Sequence[Season]) -> list[dict[str, Any]]:
    """Every season's rows: season, member, name, games, total (one query)."""
    return list(
        MemberTotal.objects.filter(club=club, season__in=[s.pk for s in seasons], games__gt=0)
        .values("season", "member", "games", "total")
        .annotate(name=F("member__name"))
        .order_by()
    )


def race_rows(*, club: Club, start: datetime.date, end: datetime.date) -> QuerySet[Any]:
    """Each (member, date)'s score and games in the dates, by date then member."""
    return (
        MemberDay.objects.filter(club=club, date__gte=start, date__lte=end, games__gt=0)
        .values("member", "date", "score", "games")
        .order_by("date", "member")
    )


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


def member_days(
    *, member: Member, start: datetime.date | None, end: datetime.date | None
) -> list[tuple[datetime.date, int, int]]:
    """A member's (date, games, score) per day played, oldest first."""
    rows = MemberDay.objects.filter(member=member, games__gt=0)
    if start is not None:
        rows = rows.filter(date__gte=start)
    if end is not None:
        rows = rows.filter(date__lte=end)
    return list(rows.order_by("date").values_list("date", "games", "score"))


# --- hand statistics (league.table's HandStat, kept at write time) ---------------------------

HAND_SUMS = (
    "hands",
    "wins",
    "called_wins",
    "deal_ins",
    "riichi",
    "win_points",
    "deal_in_points",
    "draws",
    "draw_tenpai",
    "ippatsu",
    "yakuman",
)


def hand_stats(
    *, member: Member, start: datetime.date | None = None, end: datetime.date | None = None
) -> dict[str, Any] | None:
    """A player's hand statistics over the games recorded hand by hand in the period (counted
    only), or None without any: sums and rates in hundredths of a percent (as standings), and the
    averages in points. One query, and one more for the yaku of the games that have any."""
    rows = HandStat.objects.filter(member=member, counted=True)
    if start is not None:
        rows = rows.filter(date__gte=start)
    if end is not None:
        rows = rows.filter(date__lte=end)
    sums = rows.aggregate(games=Count("id"), **{f: Sum(f) for f in HAND_SUMS})
    if not sums["games"]:
        return None

    def rate(part: int, whole: int) -> int | None:
        return part * 10_000 // whole if whole else None

    hands, wins = sums["hands"], sums["wins"]
    yaku: dict[str, int] = {}
    for listed in rows.exclude(yaku={}).values_list("yaku", flat=True):
        for name, count in listed.items():
            yaku[name] = yaku.get(name, 0) + count
    return {
        **sums,
        "win_rate": rate(wins, hands),
        "deal_in_rate": rate(sums["deal_ins"], hands),
        "riichi_rate": rate(sums["riichi"], hands),
        "called_rate": rate(sums["called_wins"], wins),
        "draw_tenpai_rate": rate(sums["draw_tenpai"], sums["draws"]),
        "avg_win": sums["win_points"] // wins if wins else None,
        "avg_deal_in": sums["deal_in_points"] // sums["deal_ins"] if sums["deal_ins"] else None,
        "yaku": sorted(yaku.items(), key=lambda item: (-item[1], item[0])),
    }
