"""The table draw's quality and speed: repeated pairs and time for a whole day's schedule.

    python benchmarks/draw_bench.py [--short] [--seed N]

For each player count (8 to 40) and number of rounds (1 to 8) it draws the day in one go
(league.draw.algorithm.draw, the club's default budget) and prints the pairs meeting more than
once within the day ("repeats") and the time. It also checks sit-out fairness on every schedule
and prints the round-by-round draw of 16 players over 5 rounds (0 repeats exist: the affine plane
of order 4). Last, the worst case the app allows: the most players a day may check in
(league.draw.algorithm.MAX_PLAYERS) over the most rounds of a schedule (MAX_ROUNDS), with its time
and peak memory, and that one player more is refused at once. `--short` runs a few sizes only
(for CI); the worst case is printed in both.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from league.draw.algorithm import MAX_PLAYERS, DrawError, draw, is_fair, quality

MAX_ROUNDS = 12  # league.draw.services.MAX_ROUNDS (not imported: that module needs Django)


def fair(rounds, players) -> bool:
    missed = dict.fromkeys(players, 0)
    for rnd in rounds:
        seated = [p for t in rnd.tables for p in t]
        if not is_fair(missed, seated, rnd.sitting_out):
            return False
        if sorted(seated + list(rnd.sitting_out)) != sorted(players):
            return False
        for p in rnd.sitting_out:
            missed[p] += 1
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="a few sizes only (CI)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    counts = (8, 10, 16, 21, 40) if args.short else tuple(range(8, 41))
    max_rounds = (1, 3, 5, 8) if args.short else tuple(range(1, 9))
    print("repeated pairs within the day / milliseconds, whole schedule drawn in one call")
    print("players | " + " | ".join(f"R={r:<9}" for r in max_rounds))
    slowest = 0.0
    unfair = 0
    for n in counts:
        players = list(range(1, n + 1))
        cells = []
        for r in max_rounds:
            start = time.perf_counter()
            rounds = draw(players=players, rounds=r, seed=args.seed + n * 10 + r)
            elapsed = time.perf_counter() - start
            slowest = max(slowest, elapsed)
            unfair += not fair(rounds, players)
            cells.append(f"{quality(rounds).day_repeats:>3} {elapsed * 1000:>5.0f}ms")
        print(f"{n:>7} | " + " | ".join(cells))
    print(f"slowest draw: {slowest * 1000:.0f} ms; schedules breaking sit-out fairness: {unfair}")
    sixteen = draw(players=list(range(1, 17)), rounds=5, seed=args.seed)
    print(f"16 players, 5 rounds: {quality(sixteen).day_repeats} repeated pairs")
    for i, rnd in enumerate(sixteen, 1):
        print(f"  round {i}: " + "  ".join("-".join(f"{p:02d}" for p in t) for t in rnd.tables))
    worst_case(args.seed)


def worst_case(seed: int) -> None:
    """The largest draw the app lets anyone start: MAX_PLAYERS over MAX_ROUNDS rounds."""
    players = list(range(1, MAX_PLAYERS + 1))
    start = time.perf_counter()
    rounds = draw(players=players, rounds=MAX_ROUNDS, seed=seed)
    elapsed = time.perf_counter() - start
    tracemalloc.start()
    draw(players=players, rounds=MAX_ROUNDS, seed=seed)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(
        f"worst case at the cap: {MAX_PLAYERS} players, {MAX_ROUNDS} rounds: "
        f"{elapsed * 1000:.0f} ms, peak {peak / 1e6:.1f} MB, "
        f"{quality(rounds).day_repeats} repeated pairs, fair: {fair(rounds, players)}"
    )
    start = time.perf_counter()
    try:
        draw(players=range(1, 5001), rounds=1, seed=seed)
    except DrawError as e:
        print(f"5,000 players: refused in {(time.perf_counter() - start) * 1000:.1f} ms ({e})")
    else:
        raise SystemExit("5,000 players were drawn: the cap does not hold")


if __name__ == "__main__":
    main()
