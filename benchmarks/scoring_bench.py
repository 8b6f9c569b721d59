"""Settle 100,000 random valid games and 1,000 days through scoring's Python API.

    python benchmarks/scoring_bench.py [--games N] [--days N] [--seed N]

Prints games per second and days per second. Inputs are generated before the clock starts, so
the figures measure settlement only (what re-settling a club's history after a rule change costs).

It also times a yardstick over the same games: a minimal sort-and-uma loop (rank by points with
the seat as tie-break, points less the return plus the uma in tenths, the top takes the rest),
which checks nothing and knows no variant. The engine's time over the yardstick's, measured in the
same run, is the ratio printed last (issue 13 aims within 5×). The yardstick is not the product.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring import PRESETS, ChipEvent, Game, Rules, Seat, Shugi, settle_day, settle_game

NAMES = [f"P{i:02d}" for i in range(24)]


def random_game(rng: random.Random, rules: Rules) -> Game:
    n = rules.players
    deposits = rng.choice((0, 0, 0, 1000, 2000))
    left = n * rules.start - deposits
    points = []
    for _ in range(n - 1):
        p = rng.randrange(-100, 600) * 100
        points.append(p)
        left -= p
    points.append(left)
    rng.shuffle(points)
    names = rng.sample(NAMES, n)
    chips = ()
    if rules.chips and rng.random() < 0.3:
        kind = rng.choice(list(rules.chips))
        winner, loser = rng.sample(names, 2)
        chips = (ChipEvent(kind, winner, rng.choice((None, loser))),)
    chombo = (rng.choice(names),) if rng.random() < 0.05 else ()
    rate = rng.choice(list(rules.rates)) if rules.rates else None
    return Game(
        seats=tuple(Seat(nm, p) for nm, p in zip(names, points, strict=True)),
        deposits=deposits,
        chombo=chombo,
        chips=chips,
        rate=rate,
    )


def yardstick(work: list[tuple[Rules, Game]]) -> list[list[tuple[str, int, int]]]:
    """The minimal settlement the ratio is measured against: integers, no checks, no variants,
    and for each game what a caller needs back, (name, rank, score) per seat."""
    out = []
    for rules, game in work:
        seats = game.seats
        order = sorted(range(len(seats)), key=lambda i: (-seats[i].points, i))
        uma = rules.uma or (0,) * len(seats)
        back = rules.return_points // 100
        scores = [0] * len(seats)
        ranks = [0] * len(seats)
        for rank, i in enumerate(order):
            ranks[i] = rank + 1
            if rank:
                scores[i] = seats[i].points // 100 - back + uma[rank] * 10
        scores[order[0]] = -sum(scores)
        out.append([(s.name, r, x) for s, r, x in zip(seats, ranks, scores, strict=True)])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=1_000)
    parser.add_argument("--games-per-day", type=int, default=12)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    presets = [p.rules for p in PRESETS.values()]

    work = [(r, random_game(rng, r)) for r in (rng.choice(presets) for _ in range(args.games))]
    start = time.perf_counter()
    for rules, game in work:
        settle_game(rules, game)
    games_s = time.perf_counter() - start
    start = time.perf_counter()
    yardstick(work)
    yard_s = time.perf_counter() - start

    days = []
    for _ in range(args.days):
        rules = rng.choice(presets)
        results = [settle_game(rules, random_game(rng, rules)) for _ in range(args.games_per_day)]
        shugi = [Shugi(results[0].players[0].name, 2)] if rules.session_shugi else []
        days.append((rules, results, rng.sample(NAMES, 2), shugi))
    start = time.perf_counter()
    for rules, results, attendees, shugi in days:
        settle_day(rules, results, attendees=attendees, shugi=shugi)
    days_s = time.perf_counter() - start

    print(f"python {sys.version.split()[0]}, presets mixed: {', '.join(PRESETS)}")
    print(
        f"settle_game: {args.games:,} games in {games_s:.3f} s = {args.games / games_s:,.0f} games/s"
    )
    print(
        f"yardstick:   {args.games:,} games in {yard_s:.3f} s = {args.games / yard_s:,.0f} games/s"
        f" (minimal sort-and-uma loop, same games)"
    )
    print(f"engine / yardstick: {games_s / yard_s:.1f}x (aim: within 5x)")
    print(
        f"settle_day:  {args.days:,} days of {args.games_per_day} games in {days_s:.3f} s "
        f"= {args.days / days_s:,.0f} days/s"
    )


if __name__ == "__main__":
    main()
