"""The table draw's quality and speed: a club evening, a tournament day, and a season.

    python benchmarks/draw_bench.py [--short] [--seed N]

1. A club evening: for each player count (8 to 40) and number of rounds (1 to 8) it draws the day
   in one go (league.draw.algorithm.draw, the club's default budget) and prints the pairs meeting
   more than once within the day ("repeats") and the time. It also checks sit-out fairness on
   every schedule and prints the round-by-round draw of 16 players over 5 rounds (0 repeats
   exist: the affine plane of order 4).
2. A tournament day (issue 42), each drawn in one call with the app's default budget and time
   cap, every figure recounted from the schedule (league.draw.algorithm.report): 172 players ×
   10 rounds; 36 players in 9 teams of 4 × 8 rounds; 800 players × 8 rounds. For each: repeated
   pairs, the range of each player's count of each wind, returns to a table number, teammates
   together, the fewest common opponents of a pair that never meets, and the time.
3. A season (20 evenings, 12 to 28 players, 4 rounds drawn one by one as the app does, with the
   season's seats and the day's so far): the spread of 起家 (東, seat 0) counts among the
   regulars (the 12 who come every evening), with the winds balanced, against the draw as it was
   before (its seat order left to chance, as the draw before issue 42 did: the same search for
   the groups, then each table shuffled) in the same run on the same evenings. The groups'
   search gets 4,000 iterations a round here (the app's budget is larger) to keep the run short.
4. The worst case the app allows: the most players a day may check in (MAX_PLAYERS) over the
   most rounds of a schedule (MAX_ROUNDS), with its time, and that more are refused at once.

`--short` (CI) runs a few sizes of 1 and 2 and a smaller 3 and 4.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from league.draw.algorithm import (
    MAX_PLAYERS,
    DrawError,
    Round,
    draw,
    is_fair,
    pair,
    quality,
    report,
)

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
    club_evening(args.short, args.seed)
    tournament(args.short, args.seed)
    season(args.short, args.seed)
    worst_case(args.short, args.seed)


def club_evening(short: bool, seed: int) -> None:
    counts = (8, 10, 16, 21, 40) if short else tuple(range(8, 41))
    max_rounds = (1, 3, 5, 8) if short else tuple(range(1, 9))
    print("1. repeated pairs within the day / milliseconds, whole schedule drawn in one call")
    print("players | " + " | ".join(f"R={r:<9}" for r in max_rounds))
    slowest = 0.0
    unfair = 0
    for n in counts:
        players = list(range(1, n + 1))
        cells = []
        for r in max_rounds:
            start = time.perf_counter()
            rounds = draw(players=players, rounds=r, seed=seed + n * 10 + r)
            elapsed = time.perf_counter() - start
            slowest = max(slowest, elapsed)
            unfair += not fair(rounds, players)
            cells.append(f"{quality(rounds).day_repeats:>3} {elapsed * 1000:>5.0f}ms")
        print(f"{n:>7} | " + " | ".join(cells))
    print(f"slowest draw: {slowest * 1000:.0f} ms; schedules breaking sit-out fairness: {unfair}")
    sixteen = draw(players=list(range(1, 17)), rounds=5, seed=seed)
    print(f"16 players, 5 rounds: {quality(sixteen).day_repeats} repeated pairs")
    for i, rnd in enumerate(sixteen, 1):
        print(f"  round {i}: " + "  ".join("-".join(f"{p:02d}" for p in t) for t in rnd.tables))


def tournament(short: bool, seed: int) -> None:
    print()
    print("2. tournament days, each drawn in one call (default budget and time cap)")
    cases: list[tuple[str, int, int, dict[int, int] | None]] = (
        [("40 × 6", 40, 6, None), ("16 in 4 teams of 4 × 4", 16, 4, {p: p // 4 for p in range(16)})]
        if short
        else [
            ("172 × 10", 172, 10, None),
            ("36 in 9 teams of 4 × 8", 36, 8, {p: p // 4 for p in range(36)}),
            ("800 × 8", 800, 8, None),
        ]
    )
    for name, n, rounds, teams in cases:
        players = list(range(n))
        start = time.perf_counter()
        schedule = draw(players=players, rounds=rounds, teams=teams, seed=seed)
        elapsed = time.perf_counter() - start
        got = report(schedule, teams=teams)
        common = "all pairs meet" if got.min_common is None else f"{got.min_common}"
        print(f"{name}: {elapsed:.1f} s")
        print(f"  repeated pairs: {got.repeats}")
        print(
            f"  each player's count of each wind: {got.wind_low} to {got.wind_high} "
            f"(rounds/4 = {rounds / 4:g}; players more than 1 away: {got.wind_off})"
        )
        print(f"  returns to a table number already had: {got.table_returns}")
        if teams:
            print(f"  teammates at one table: {got.teammate_meetings}")
        warning = " (the page warns)" if got.low_common else ""
        print(
            f"  fewest common opponents of a pair that never meets: {common}; "
            f"pairs below floor(√P) = {got.common_floor}: {got.low_common}{warning}"
        )
        print(f"  sit-out fairness kept: {fair(schedule, players)}")


def season(short: bool, seed: int) -> None:
    """Evenings drawn round by round, as the app draws them (services.round_plan): the day's
    pairs, missed rounds and table numbers so far, and the season's pairs and seats."""
    print()
    evenings = 6 if short else 20
    print(f"3. a season of {evenings} evenings, 12 to 28 players, 4 rounds each")
    rng = random.Random(seed)
    regulars = list(range(1, 13))
    others = list(range(13, 41))
    nights = [regulars + rng.sample(others, rng.randint(0, 16)) for _ in range(evenings)]
    for label, balance in (("before (seat order by chance)", False), ("winds balanced", True)):
        start = time.perf_counter()
        seats, games = play_season(nights, balance, seed)
        elapsed = time.perf_counter() - start
        east = [seats[p][0] for p in regulars]
        played = [games[p] for p in regulars]
        print(
            f"  {label}: 起家 counts of the 12 regulars {min(east)} to {max(east)}, "
            f"spread {max(east) - min(east)} (their games {min(played)} to {max(played)}); "
            f"{elapsed:.1f} s"
        )


def play_season(
    nights: list[list[int]], balance: bool, seed: int
) -> tuple[dict[int, list[int]], dict[int, int]]:
    seats: dict[int, list[int]] = {}
    games: dict[int, int] = {}
    season_pairs: dict[tuple[int, int], int] = {}
    for night, present in enumerate(nights):
        day_pairs: dict[tuple[int, int], int] = {}
        day_seats: dict[int, list[int]] = {}
        numbers: dict[int, list[int]] = {}
        missed = dict.fromkeys(present, 0)
        for number in range(4):
            winds = {
                p: [
                    a + b
                    for a, b in zip(seats.get(p, [0] * 4), day_seats.get(p, [0] * 4), strict=True)
                ]
                for p in present
            }
            (rnd,) = draw(
                players=present,
                missed=missed,
                day_pairs=day_pairs,
                season_pairs=season_pairs,
                wind_history=winds,
                table_history=numbers,
                balance_winds=balance,
                seed=seed + night * 10 + number,
                iterations=4000,  # the groups matter less here than the seats; it runs faster
            )
            seated(rnd, day_pairs, day_seats, numbers, missed)
        for p, row in day_seats.items():
            total = seats.setdefault(p, [0] * 4)
            for w, c in enumerate(row):
                total[w] += c
            games[p] = games.get(p, 0) + sum(row)
        for key, c in day_pairs.items():
            season_pairs[key] = season_pairs.get(key, 0) + c
    return seats, games


def seated(
    rnd: Round,
    day_pairs: dict[tuple[int, int], int],
    day_seats: dict[int, list[int]],
    numbers: dict[int, list[int]],
    missed: dict[int, int],
) -> None:
    for k, table in enumerate(rnd.tables):
        for w, p in enumerate(table):
            day_seats.setdefault(p, [0] * 4)[w] += 1
            numbers.setdefault(p, []).append(k)
            for q in table[w + 1 :]:
                day_pairs[pair(p, q)] = day_pairs.get(pair(p, q), 0) + 1
    for p in rnd.sitting_out:
        missed[p] += 1


def worst_case(short: bool, seed: int) -> None:
    """The largest draw the app lets anyone start: MAX_PLAYERS over MAX_ROUNDS rounds."""
    print()
    if not short:
        players = list(range(1, MAX_PLAYERS + 1))
        start = time.perf_counter()
        rounds = draw(players=players, rounds=MAX_ROUNDS, seed=seed)
        elapsed = time.perf_counter() - start
        print(
            f"4. worst case at the cap: {MAX_PLAYERS} players, {MAX_ROUNDS} rounds: "
            f"{elapsed:.1f} s, {quality(rounds).day_repeats} repeated pairs, "
            f"fair: {fair(rounds, players)}"
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
