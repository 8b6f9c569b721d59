"""The rating: openskill's Plackett–Luce model with its default parameters, one game at a time.

The model is Weng and Lin's Bayesian approximation for multiplayer rankings ("A Bayesian
Approximation Method for Online Ranking", JMLR 12, 2011), as implemented by openskill
(https://openskill.me, `openskill.models.PlackettLuce`) with the library's defaults: μ₀ = 25,
σ₀ = 25/3, β = 25/6, κ = 0.0001, τ = 25/300 (added to σ before each game), no σ limit, no
balance. A game is a match of four (or three) one-player teams ranked by their places; players
sharing a place (a split tie) share a rank. The conservative ordinal is openskill's default,
μ − 3σ. The expected place before a game is 1 plus, for each opponent, the chance that the
opponent finishes above (openskill's `predict_win` for the two of them).

Ratings are integers in millionths between games (`State`): each game starts from the stored
integers and its results are rounded to millionths, so that a replay from any game gives exactly
the numbers of a replay from the first one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MICRO = 1_000_000
Z = 3  # the ordinal's μ − zσ
MODEL = PlackettLuce()


@dataclass(frozen=True)
class State:
    """A player's rating in millionths, with the number of games behind it."""

    mu: int = round(MODEL.mu * MICRO)
    sigma: int = round(MODEL.sigma * MICRO)
    games: int = 0

    @property
    def ordinal(self) -> int:
        return self.mu - Z * self.sigma


START = State()


@dataclass(frozen=True)
class Outcome:
    after: State
    expected: int  # the expected place before the game, hundredths


def play(before: Sequence[State], ranks: Sequence[int]) -> list[Outcome]:
    """One game: the players' states before it (in seat order) and their ranks (ties shared)."""
    teams = [[MODEL.rating(mu=s.mu / MICRO, sigma=s.sigma / MICRO)] for s in before]
    expected = []
    for i, me in enumerate(teams):
        chances = sum(MODEL.predict_win([other, me])[0] for j, other in enumerate(teams) if j != i)
        expected.append(round((1 + chances) * 100))
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [
        Outcome(
            State(round(team[0].mu * MICRO), round(team[0].sigma * MICRO), s.games + 1),
            expected[i],
        )
        for i, (team, s) in enumerate(zip(rated, before, strict=True))
    ]


def tenths(millionths: int) -> int:
    """A rating in tenths (one decimal, as charts and pages write it), rounded half up."""
    return (millionths * 10 + MICRO // 2) // MICRO
