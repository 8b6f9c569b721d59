"""Team fixtures (scoring.fixtures): every team plays every round, every two teams meet an even
number of times (at least twice), every team starts in every seat equally often."""

from __future__ import annotations

import pytest

from scoring.fixtures import NOT_A_MULTIPLE, fixtures, meetings, seat_counts


def _check(n, size):
    rounds = fixtures(n, size)
    for tables in rounds:
        seated = sorted(t for table in tables for t in table)
        assert seated == list(range(n))  # every team once a round
        assert all(len(table) == size for table in tables)
    met = meetings(rounds)
    assert len(met) == n * (n - 1) // 2  # every pair met
    assert all(c >= 2 and c % 2 == 0 for c in met.values())
    seats = seat_counts(rounds)
    assert len(set(seats.values())) == 1 and len(seats) == n * size
    return rounds, met, seats


def test_eight_teams_of_four_meet_equally_and_sit_equally():
    rounds, met, seats = _check(8, 4)
    assert len(rounds) == 28
    assert set(met.values()) == {12}  # each pair 12 times a cycle
    assert set(seats.values()) == {7}  # each team 7 times in each seat


def test_four_teams_play_one_table_in_four_seat_orders():
    rounds, met, seats = _check(4, 4)
    assert rounds == [((0, 1, 2, 3),), ((1, 2, 3, 0),), ((2, 3, 0, 1),), ((3, 0, 1, 2),)]
    assert set(met.values()) == {4} and set(seats.values()) == {1}


def test_sixteen_teams_and_three_player_tables():
    _rounds, met, _seats = _check(16, 4)
    assert set(met.values()) == {4}
    _rounds, met, seats = _check(9, 3)
    assert set(met.values()) == {6} and set(seats.values()) == {8}
    _check(3, 3)


@pytest.mark.parametrize("n", [12, 20, 24])
def test_other_league_sizes_are_even_if_not_equal(n):
    _check(n, 4)


def test_a_team_count_off_the_table_size_is_refused():
    with pytest.raises(ValueError, match=NOT_A_MULTIPLE):
        fixtures(9, 4)
    with pytest.raises(ValueError):
        fixtures(2, 4)


def test_deterministic():
    assert fixtures(8) == fixtures(8)
