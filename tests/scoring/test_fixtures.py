"""Team fixtures (scoring.fixtures): every team plays every round, every two teams meet an even
number of times (at least twice), every team starts in every seat equally often; with a count of
teams off the table size, the same number sits out each round and every team equally often, in
every stretch of n rounds (Pantheon #453: 9 teams of 4)."""

from __future__ import annotations

import pytest

from scoring.fixtures import fixtures, meetings, seat_counts, sit_outs


def _check(n, size):
    rounds = fixtures(n, size)
    for tables in rounds:
        seated = sorted(t for table in tables for t in table)
        assert seated == list(range(n))  # every team once a round
        assert all(len(table) == size for table in tables)
    return (rounds, *_met_and_seated_evenly(rounds, n, size))


def _met_and_seated_evenly(rounds, n, size):
    """Every pair met an even number of times (twice at least), every team in every seat
    equally often: the meetings and the seat counts."""
    met = meetings(rounds)
    assert len(met) == n * (n - 1) // 2  # every pair met
    assert all(c >= 2 and c % 2 == 0 for c in met.values())
    seats = seat_counts(rounds)
    assert len(set(seats.values())) == 1 and len(seats) == n * size
    return met, seats


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


def _check_byes(n, size):
    rounds = fixtures(n, size)
    out = n % size
    for tables in rounds:
        seated = [t for table in tables for t in table]
        assert len(seated) == len(set(seated)) == n - out  # the same number sits out each round
        assert all(len(table) == size for table in tables)
    assert len(rounds) % n == 0
    for start in range(0, len(rounds), n):  # every team sits out `out` rounds in every n
        assert set(sit_outs(rounds[start : start + n], n).values()) == {out}
    return (rounds, *_met_and_seated_evenly(rounds, n, size))


def test_nine_teams_of_four_sit_out_in_turn_and_meet_equally():
    rounds, met, seats = _check_byes(9, 4)
    assert len(rounds) == 252
    assert set(met.values()) == {84} and set(seats.values()) == {56}
    assert set(sit_outs(rounds, 9).values()) == {28}
    assert [set(range(9)) - {t for table in r for t in table} for r in rounds[:9]] == [
        {t} for t in range(9)
    ]  # the first nine rounds: each team sits out once, in turn


@pytest.mark.parametrize(("n", "size"), [(5, 4), (6, 4), (7, 4), (10, 4), (4, 3), (10, 3)])
def test_other_counts_off_the_table_size_sit_out_evenly(n, size):
    _check_byes(n, size)


def test_too_few_teams_or_an_unsupported_size_is_refused():
    with pytest.raises(ValueError):
        fixtures(2, 4)
    with pytest.raises(ValueError):
        fixtures(7, 3)  # 6 teams of three-player tables: no design


def test_deterministic():
    assert fixtures(8) == fixtures(8)
