"""The kept statistics of a club, as one comparable snapshot."""

from __future__ import annotations

from typing import Any

from league.models import (
    MemberGame,
    MemberRating,
    PairTotal,
    SeatTotal,
)

PAIR_FIELDS = ("games", "rank_sum", "opponent_rank_sum", "above", "net")


SEAT_FIELDS = ("games", "rank_sum", "total", "first")


GAME_FIELDS = (
    "date",
    "number",
    "n",
    "rank",
    "score",
    "yakuman",
    "mu_before",
    "sigma_before",
    "mu",
    "sigma",
    "expected",
    "tops_before",
    "tops",
    "clean_before",
    "clean",
)


RATING_FIELDS = ("games", "mu", "sigma", "ordinal", "tops", "clean")


def stats_snapshot() -> dict[str, Any]:
    """Every kept statistics row with games, keyed; rows without games must be all zero."""
    pairs, seats = {}, {}
    for row in PairTotal.objects.values("member", "opponent", "season", *PAIR_FIELDS):
        key = (row.pop("member"), row.pop("opponent"), row.pop("season"))
        if row["games"]:
            pairs[key] = row
        else:
            assert row == dict.fromkeys(PAIR_FIELDS, 0), (key, row)
    for row in SeatTotal.objects.values("member", "season", "seat", *SEAT_FIELDS):
        key = (row.pop("member"), row.pop("season"), row.pop("seat"))
        if row["games"]:
            seats[key] = row
        else:
            assert row == dict.fromkeys(SEAT_FIELDS, 0), (key, row)
    games = {
        (r.pop("game"), r.pop("member")): r
        for r in MemberGame.objects.values("game", "member", *GAME_FIELDS)
    }
    ratings = {r.pop("member"): r for r in MemberRating.objects.values("member", *RATING_FIELDS)}
    return {"pairs": pairs, "seats": seats, "games": games, "ratings": ratings}
