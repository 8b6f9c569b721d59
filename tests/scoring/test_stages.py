"""Cuts and carried points (scoring.stages): the M.League-like season of the issue, worked by hand."""

from __future__ import annotations

import pytest

from scoring.stages import Entrant, advance, carried, ranked, share_count

# Eight teams after a regular stage (tenths): two tie on 4th/5th.
REGULAR = [
    Entrant(1, 4567, order=1),
    Entrant(2, 2011, order=2),
    Entrant(3, -305, order=3),
    Entrant(4, 1000, order=4),
    Entrant(5, 1000, order=5),
    Entrant(6, -1234, order=6),
    Entrant(7, -2000, order=7),
    Entrant(8, -3039, order=8),
]


def test_ranked_shares_positions_on_a_tie():
    assert [(p, e.key) for p, e in ranked(REGULAR)] == [
        (1, 1),
        (2, 2),
        (3, 4),
        (3, 5),
        (5, 3),
        (6, 6),
        (7, 7),
        (8, 8),
    ]


def test_a_top_four_final_with_points_halved():
    # "seat": exactly four, the tie on 1,000 broken by the order (team 4 entered first).
    through = advance(REGULAR, 4, "seat")
    assert [e.key for e in through] == [1, 2, 4, 5]
    # Halved: 456.7 → 228.35 → 228.4 under 四捨五入, 228.3 under 切り捨て; 201.1 → 100.55.
    final = {e.key: carried(e.total, "half", rounding="shisha-gonyu") for e in through}
    assert final == {1: 2284, 2: 1006, 4: 500, 5: 500}
    cut = {e.key: carried(e.total, "half", rounding="kirisute") for e in through}
    assert cut == {1: 2283, 2: 1005, 4: 500, 5: 500}


def test_split_ties_take_everyone_tied_at_the_cut():
    assert [e.key for e in advance(REGULAR, 3, "split")] == [1, 2, 4, 5]
    assert [e.key for e in advance(REGULAR, 3, "seat")] == [1, 2, 4]
    assert [e.key for e in advance(REGULAR, 20, "seat")] == [1, 2, 4, 5, 3, 6, 7, 8]
    assert advance(REGULAR, 0) == []


@pytest.mark.parametrize(
    ("total", "rounding", "negative", "half"),
    [
        (-3039, "shisha-gonyu", "magnitude", -1520),  # ▲151.95 → ▲152.0 (the magnitude up)
        (-3039, "shisha-gonyu", "number-line", -1519),  # up the number line: ▲151.9
        (-3039, "kirisute", "magnitude", -1519),
        (-3039, "kirisute", "number-line", -1520),  # floor
        (-3039, "gosha-rokunyu", "magnitude", -1519),  # a 5 is dropped
        (-3039, "none", "magnitude", -1520),  # half away from zero
        (3039, "kiriage", "magnitude", 1520),
        (-3038, "kiriage", "magnitude", -1519),  # even: exact
    ],
)
def test_half_rounds_as_the_rules_round(total, rounding, negative, half):
    assert carried(total, "half", rounding=rounding, negative=negative) == half


def test_all_none_and_a_fixed_bonus_by_place():
    assert carried(4567, "all") == 4567
    assert carried(4567, "none") == 0
    bonus = [300, 200, 100]
    assert [carried(0, "bonus", place=p, bonus=bonus) for p in (1, 2, 3, 4)] == [300, 200, 100, 0]
    with pytest.raises(ValueError):
        carried(1, "bonus")
    with pytest.raises(ValueError):
        carried(1, "double")
    with pytest.raises(ValueError):
        advance(REGULAR, 2, "coin")


@pytest.mark.parametrize(
    ("entries", "percent", "count"),
    [(21, 25, 6), (20, 25, 5), (10, 25, 3), (3, 10, 1), (0, 25, 1), (100, 99, 99), (7, 1, 1)],
)
def test_a_share_of_the_entries_is_rounded_up_and_at_least_one(entries, percent, count):
    assert share_count(entries, percent) == count


@pytest.mark.parametrize(("entries", "percent"), [(10, 0), (10, 100), (-1, 25)])
def test_a_share_is_a_whole_percent_of_a_count(entries, percent):
    with pytest.raises(ValueError):
        share_count(entries, percent)
