"""rating.play writes out openskill's arithmetic; it must give the library's numbers exactly."""

from __future__ import annotations

import random

import pytest
from openskill.models import PlackettLuce

from league.standings import rating

MODEL = PlackettLuce()


def through_openskill(before, ranks):
    """What rating.play returned when it called the library (its code before it was written out)."""
    teams = [[MODEL.rating(mu=s.mu / rating.MICRO, sigma=s.sigma / rating.MICRO)] for s in before]
    expected = []
    for i, me in enumerate(teams):
        chances = sum(MODEL.predict_win([other, me])[0] for j, other in enumerate(teams) if j != i)
        expected.append(round((1 + chances) * 100))
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [
        rating.Outcome(
            rating.State(
                round(team[0].mu * rating.MICRO), round(team[0].sigma * rating.MICRO), s.games + 1
            ),
            expected[i],
        )
        for i, (team, s) in enumerate(zip(rated, before, strict=True))
    ]


def _ranks(rng: random.Random, players: int) -> list[int]:
    """Places 1..n, with a shared place now and then (a split tie), as kept.py passes them."""
    points = [rng.choice([rng.randrange(-50, 80), 25]) for _ in range(players)]
    return [1 + sum(other > mine for other in points) for mine in points]


@pytest.mark.parametrize("seed", range(4))
def test_play_gives_openskills_numbers_exactly(seed):
    rng = random.Random(seed)
    for _ in range(1500):
        players = rng.choice([4, 4, 4, 3])
        before = [
            rating.START
            if rng.random() < 0.2
            else rating.State(
                rng.randrange(-20_000_000, 70_000_000),
                rng.randrange(1, 9_000_000),
                rng.randrange(0, 5000),
            )
            for _ in range(players)
        ]
        ranks = _ranks(rng, players)
        assert rating.play(before, ranks) == through_openskill(before, ranks), (before, ranks)


def test_a_replayed_history_is_the_librarys():
    """A chain of games, each starting from the last one's stored integers, as a replay runs."""
    rng = random.Random(99)
    direct = dict.fromkeys(range(8), rating.START)
    library = dict(direct)
    for _ in range(3000):
        seats = rng.sample(range(8), 4)
        ranks = _ranks(rng, 4)
        for state, outcome in zip(
            [direct, library],
            [
                rating.play([direct[i] for i in seats], ranks),
                through_openskill([library[i] for i in seats], ranks),
            ],
            strict=True,
        ):
            for i, o in zip(seats, outcome, strict=True):
                state[i] = o.after
        assert direct == library
