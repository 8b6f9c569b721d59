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

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from openskill.models import PlackettLuce

MICRO = 1_000_000
Z = 3  # the ordinal's μ − zσ
MODEL = PlackettLuce()
_cdf = NormalDist().cdf  # openskill's phi_major
_TWO_BETA_SQUARED = 2 * MODEL.beta**2
_BETA_SQUARED = MODEL.beta**2
_TAU_SQUARED = MODEL.tau * MODEL.tau
_KAPPA = MODEL.kappa


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
    """One game: the players' states before it (in seat order) and their ranks (ties shared).

    The arithmetic of openskill's `PlackettLuce.rate` and `predict_win` for one-player teams with
    the defaults above, written out: the same floating-point operations in the same order, so
    that the results are the library's to the last bit (tests/league/standings/test_rating_direct.py checks
    it against the library on random games). The library's `rate` deep-copies its input and
    makes a rating object (with a fresh uuid) per player and per copy: a game took three times
    as long through it. The `* 1.0` are the library's player weights, kept for the same rounding.
    """
    n = len(before)
    mus = [s.mu / MICRO for s in before]
    sigmas = [s.sigma / MICRO for s in before]
    # predict_win([other, me])[0] for each opponent: the chance that the opponent finishes above.
    expected = []
    for i in range(n):
        chances = 0  # as sum() starts
        for j in range(n):
            if j != i:
                spread = math.sqrt(_TWO_BETA_SQUARED + sigmas[j] ** 2 + sigmas[i] ** 2)
                chances += _cdf((mus[j] - mus[i]) / spread)
        expected.append(round((1 + chances) * 100))
    # rate(): τ added to σ, the teams sorted by rank (stably), Algorithm 4 of Weng and Lin.
    order = sorted(range(n), key=lambda k: float(ranks[k]))
    rank = [int(float(ranks[k])) for k in order]
    mu = [mus[k] for k in order]
    sigma = [math.sqrt(sigmas[k] * sigmas[k] + _TAU_SQUARED) for k in order]
    squared = [s**2 for s in sigma]
    collective = 0.0
    for q in range(n):
        collective += squared[q] + _BETA_SQUARED
    c = math.sqrt(collective)
    strength = [math.exp(m / c) for m in mu]
    sum_q = [0.0] * n
    for i in range(n):
        for q in range(n):
            if rank[i] >= rank[q]:
                sum_q[q] += strength[i]
    tied = [rank.count(r) for r in rank]
    after: list[tuple[float, float]] = [(0.0, 0.0)] * n
    for i in range(n):
        omega = 0.0
        delta = 0.0
        for q in range(n):
            if rank[q] <= rank[i]:
                share = strength[i] / sum_q[q]
                delta += share * (1 - share) / tied[q]
                if q == i:
                    omega += (1 - share) / tied[q]
                else:
                    omega -= share / tied[q]
        omega *= squared[i] / c
        delta *= squared[i] / c**2
        delta *= math.sqrt(squared[i]) / c
        ratio = sigma[i] ** 2 / squared[i]
        after[order[i]] = (
            mu[i] + ratio * omega * 1.0,
            sigma[i] * math.sqrt(max(1 - ratio * delta * 1.0, _KAPPA)),
        )
    return [
        Outcome(State(round(m * MICRO), round(s * MICRO), b.games + 1), expected[k])
        for k, ((m, s), b) in enumerate(zip(after, before, strict=True))
    ]


def tenths(millionths: int) -> int:
    """A rating in tenths (one decimal, as charts and pages write it), rounded half up."""
    return (millionths * 10 + MICRO // 2) // MICRO
