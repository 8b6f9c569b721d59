"""Property tests of the pure draw (no database): seating, table size and sit-out fairness."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.draw.algorithm import DrawError, draw, fair_sitters, is_fair, quality

FAST = 300  # iterations: the invariants do not depend on how long the search runs


def check_round(rnd, present, size) -> None:
    seated = [p for t in rnd.tables for p in t]
    assert sorted(seated + list(rnd.sitting_out)) == sorted(present)  # each exactly once
    assert all(len(t) == size for t in rnd.tables)
    assert len(rnd.sitting_out) == len(present) % size


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=4, max_value=30),
    rounds=st.integers(min_value=1, max_value=6),
    size=st.sampled_from([3, 4]),
    seed=st.integers(0, 10_000),
)
def test_schedule_seats_everyone_once_and_is_fair(n, rounds, size, seed) -> None:
    players = list(range(100, 100 + n))
    schedule = draw(players=players, rounds=rounds, table_size=size, seed=seed, iterations=FAST)
    assert len(schedule) == rounds
    missed = dict.fromkeys(players, 0)
    for rnd in schedule:
        check_round(rnd, players, size)
        seated = [p for t in rnd.tables for p in t]
        assert is_fair(missed, seated, rnd.sitting_out)
        for p in rnd.sitting_out:
            missed[p] += 1
    # Nobody sits out twice before everyone has sat out once: counts differ by at most one.
    assert max(missed.values()) - min(missed.values()) <= 1


@settings(max_examples=40, deadline=None)
@given(
    events=st.lists(
        st.tuples(st.sampled_from(["arrive", "leave", "stay"]), st.integers(0, 19)),
        min_size=1,
        max_size=12,
    ),
    seed=st.integers(0, 1000),
)
def test_fairness_over_arrivals_and_departures(events, seed) -> None:
    """A day drawn round by round while people come and go: each round's sit-outs never have
    missed more rounds (sat out or absent) than anyone seated."""
    everyone = list(range(20))
    present = set(range(9))
    missed = dict.fromkeys(everyone, 0)
    day_pairs: dict[tuple[int, int], int] = {}
    for number, (event, who) in enumerate(events):
        if event == "arrive":
            present.add(who)
        elif event == "leave" and len(present) > 4:
            present.discard(who)
        players = sorted(present)
        (rnd,) = draw(
            players=players, missed=missed, day_pairs=day_pairs, seed=seed + number, iterations=FAST
        )
        check_round(rnd, players, 4)
        seated = [p for t in rnd.tables for p in t]
        assert is_fair(missed, seated, rnd.sitting_out)
        for p in everyone:
            missed[p] += p not in seated
        for t in rnd.tables:
            for i, a in enumerate(t):
                for b in t[i + 1 :]:
                    key = (min(a, b), max(a, b))
                    day_pairs[key] = day_pairs.get(key, 0) + 1


@settings(max_examples=40, deadline=None)
@given(n=st.integers(8, 21), seed=st.integers(0, 1000))
def test_locked_tables_are_kept(n, seed) -> None:
    players = list(range(n))
    locked = [(3, 1, 2, 0)]
    (rnd,) = draw(players=players, locked=locked, seed=seed, iterations=FAST)
    check_round(rnd, players, 4)
    assert rnd.tables[0] == (3, 1, 2, 0)


def test_sixteen_players_five_rounds_without_a_repeat() -> None:
    schedule = draw(players=list(range(1, 17)), rounds=5, seed=2026)
    assert quality(schedule).day_repeats == 0


def test_avoids_the_days_earlier_pairs() -> None:
    players = list(range(8))
    (first,) = draw(players=players, seed=1)
    pairs = {}
    for t in first.tables:
        for i, a in enumerate(t):
            for b in t[i + 1 :]:
                pairs[(min(a, b), max(a, b))] = 1
    (second,) = draw(players=players, day_pairs=pairs, seed=2)
    # Two tables of four again: the best is two from each earlier table at each new one, which
    # repeats one pair per pair of them: 4.
    assert quality([second], day_pairs=pairs).day_repeats == 4


def test_fair_sitters_takes_the_fewest_missed() -> None:
    missed = {1: 0, 2: 1, 3: 0, 4: 2, 5: 1}
    must, may = fair_sitters(missed, [1, 2, 3, 4, 5], 3)
    assert sorted(must) == [1, 3] and sorted(may) == [2, 5]


def test_too_few_players() -> None:
    with pytest.raises(DrawError):
        draw(players=[1, 2, 3], table_size=4)
