"""The table draw (卓組), pure Python: no Django, integers only, deterministic for a seed.

Given the players present, it makes the tables of one or more rounds:

- every present player sits at exactly one table of a round or sits out (抜け番);
- a table has exactly `table_size` players; the players left over (fewer than the number
  needed for another table) sit out;
- sit-out fairness, a hard constraint: each player carries `missed`, the rounds of the day they
  did not play (sat out, or were not there yet / any more). The players who sit out a round are
  always among those with the fewest missed rounds: nobody sits out (or misses) a second round
  while a present player has missed none, and so on. A latecomer's missed rounds count as sat out,
  so they are not made to sit out as soon as they arrive. Locked tables (an organiser's choice)
  are kept as they are and their players are outside the choice;
- then, lexicographically: as few repeated pairs within the day as possible (a pair's meetings
  beyond its first, counting the day's earlier rounds in `day_pairs`), then as few meetings of
  pairs that met earlier in the season (`season_pairs`, each meeting weighted by how often).

The search: a greedy construction round by round, then simulated annealing over the whole
schedule (swap two players of one round between tables; in the last round also a sitter-out
with a seated player who has missed as many rounds, which keeps fairness), from a fixed seed,
with an iteration budget (deterministic) and a wall-clock cap. The best schedule seen is kept.

Libraries considered: OR-Tools CP-SAT and PuLP (CBC) can model this (the social golfer problem)
as boolean assignment variables, but the lexicographic pair objective needs one variable per pair
per round and table (tens of thousands at 40 players × 8 rounds), solve times are not bounded to
under a second, and OR-Tools is a large binary wheel for one page of the app. Local search is the
method of choice for the social golfer problem in the literature, is a few dozen lines, needs no
dependency, and finds the known optimum for 16 players over 5 rounds (the affine plane of order
4: no pair meets twice) well within the budget (benchmarks/draw_bench.py).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Pair = tuple[int, int]

NOT_ENOUGH_PLAYERS = "not enough players for one table"
TOO_MANY_PLAYERS = "more players than one draw seats"
# The most players one day's draw seats (30 tables): more than any club evening, and the cost stays
# bounded (two n×n tables of pair counts, a search of at most `time_cap` seconds; the benchmark
# prints the worst case, MAX_PLAYERS over the most rounds a schedule has).
MAX_PLAYERS = 120
BAD_TABLE_SIZE = "a table has 3 or 4 players"
LOCKED_NOT_PRESENT = "a locked table's player is not present"
CYCLES = 3
LOCKED_TABLE_SIZE = "a locked table must have exactly table_size players"


class DrawError(ValueError):
    pass


@dataclass(frozen=True)
class Round:
    tables: tuple[tuple[int, ...], ...]  # each in seat order (東南西北 when seats are drawn)
    sitting_out: tuple[int, ...]


@dataclass(frozen=True)
class Quality:
    day_repeats: int  # meetings of a pair beyond its first within the day (with day_pairs)
    season_meetings: int  # meetings of pairs that met earlier in the season, weighted


def pair(a: int, b: int) -> Pair:
    return (a, b) if a < b else (b, a)


def sit_out_count(players: int, table_size: int) -> int:
    return players % table_size


def fair_sitters(
    missed: Mapping[int, int], candidates: Sequence[int], count: int
) -> tuple[list[int], list[int]]:
    """Who must sit out (fewer missed than the cut) and who may (at the cut), for `count` seats
    out among `candidates`: the sit-outs are `must` plus any `count - len(must)` of `may`."""
    if count == 0:
        return [], []
    ordered = sorted(missed.get(p, 0) for p in candidates)
    cut = ordered[count - 1]
    must = [p for p in candidates if missed.get(p, 0) < cut]
    may = [p for p in candidates if missed.get(p, 0) == cut]
    return must, may


def is_fair(missed: Mapping[int, int], seated: Sequence[int], sitting_out: Sequence[int]) -> bool:
    """The invariant: nobody sits out who has missed more rounds than someone seated."""
    if not sitting_out or not seated:
        return True
    return max(missed.get(p, 0) for p in sitting_out) <= min(missed.get(p, 0) for p in seated)


def quality(
    rounds: Sequence[Round],
    *,
    day_pairs: Mapping[Pair, int] | None = None,
    season_pairs: Mapping[Pair, int] | None = None,
) -> Quality:
    counts = dict(day_pairs or {})
    season = season_pairs or {}
    repeats = weighted = 0
    for rnd in rounds:
        for table in rnd.tables:
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    key = pair(a, b)
                    c = counts.get(key, 0)
                    repeats += c >= 1
                    counts[key] = c + 1
                    weighted += season.get(key, 0)
    return Quality(repeats, weighted)


def draw(
    *,
    players: Sequence[int],
    rounds: int = 1,
    table_size: int = 4,
    missed: Mapping[int, int] | None = None,
    day_pairs: Mapping[Pair, int] | None = None,
    season_pairs: Mapping[Pair, int] | None = None,
    locked: Sequence[Sequence[int]] = (),
    seed: int = 0,
    iterations: int | None = None,
    time_cap: float = 0.8,
) -> list[Round]:
    """`rounds` rounds for `players` (present in all of them). `locked` tables are kept as they
    are in the first round (a redraw around them). See the module docstring."""
    if table_size not in (3, 4):
        raise DrawError(BAD_TABLE_SIZE)
    present = list(dict.fromkeys(players))
    if len(present) > MAX_PLAYERS:
        raise DrawError(TOO_MANY_PLAYERS)
    locked_players = [p for t in locked for p in t]
    if any(len(t) != table_size for t in locked):
        raise DrawError(LOCKED_TABLE_SIZE)
    if not set(locked_players) <= set(present):
        raise DrawError(LOCKED_NOT_PRESENT)
    free = [p for p in present if p not in set(locked_players)]
    if len(present) < table_size:
        raise DrawError(NOT_ENOUGH_PLAYERS)
    search = _Search(
        present=present,
        free=free,
        locked=[list(t) for t in locked],
        rounds=rounds,
        size=table_size,
        missed=dict(missed or {}),
        day_pairs=day_pairs or {},
        season_pairs=season_pairs or {},
        rng=random.Random(seed),
    )
    search.construct()
    budget = iterations if iterations is not None else _default_iterations(len(present), rounds)
    search.anneal(budget, time.perf_counter() + time_cap)
    return search.result()


def _default_iterations(players: int, rounds: int) -> int:
    return 8000 + 2500 * rounds * max(1, players // 4)


class _Search:
    def __init__(
        self,
        *,
        present: list[int],
        free: list[int],
        locked: list[list[int]],
        rounds: int,
        size: int,
        missed: dict[int, int],
        day_pairs: Mapping[Pair, int],
        season_pairs: Mapping[Pair, int],
        rng: random.Random,
    ) -> None:
        self.ids = present
        self.index = {p: i for i, p in enumerate(present)}
        n = len(present)
        self.n = n
        self.size = size
        self.rounds = rounds
        self.rng = rng
        self.free = [self.index[p] for p in free]
        self.locked = [[self.index[p] for p in t] for t in locked]
        self.missed = [missed.get(p, 0) for p in present]
        self.count = [[0] * n for _ in range(n)]  # meetings today, history included
        self.season = [[0] * n for _ in range(n)]
        for (a, b), c in day_pairs.items():
            if a in self.index and b in self.index:
                i, j = self.index[a], self.index[b]
                self.count[i][j] = self.count[j][i] = c
        for (a, b), c in season_pairs.items():
            if a in self.index and b in self.index:
                i, j = self.index[a], self.index[b]
                self.season[i][j] = self.season[j][i] = c
        top = max((max(row) for row in self.season), default=0)
        # A repeat within the day outweighs any season cost a swap can change.
        self.weight = 1 + 2 * (size - 1) * top
        # Per round: tables (lists of player indices), sitting out (a list), fixed table count.
        self.tables: list[list[list[int]]] = []
        self.out: list[list[int]] = []
        self.may_swap_out: set[int] = set()  # last round: sitters-out at the fairness cut
        self.fixed = len(self.locked)

    # --- construction ------------------------------------------------------------------------

    def construct(self) -> None:
        missed = list(self.missed)
        for r in range(self.rounds):
            pool = self.free if r == 0 else list(range(self.n))
            locked = self.locked if r == 0 else []
            n_tables = len(pool) // self.size
            out_n = len(pool) - n_tables * self.size
            must, may = fair_sitters(dict(enumerate(missed)), pool, out_n)
            self.rng.shuffle(may)
            out = must + may[: out_n - len(must)]
            if r == self.rounds - 1:
                self.may_swap_out = set(may) if len(must) < out_n else set()
            seated = [p for p in pool if p not in set(out)]
            self.rng.shuffle(seated)
            tables = [list(t) for t in locked] + self._greedy(seated, n_tables)
            for table in tables:
                self._meet(table, +1)
            self.tables.append(tables)
            self.out.append(out)
            for p in out:
                missed[p] += 1
        self.fixed_counts = [len(self.locked) if r == 0 else 0 for r in range(self.rounds)]

    def _greedy(self, seated: list[int], n_tables: int) -> list[list[int]]:
        tables: list[list[int]] = [[] for _ in range(n_tables)]
        for p in seated:
            best, best_cost = 0, None
            for t, table in enumerate(tables):
                if len(table) >= self.size:
                    continue
                cost = sum(self._pair_cost(p, q) for q in table)
                if best_cost is None or cost < best_cost:
                    best, best_cost = t, cost
            tables[best].append(p)
        return tables

    def _pair_cost(self, a: int, b: int) -> int:
        return (self.count[a][b] >= 1) * self.weight + self.season[a][b]

    def _meet(self, table: list[int], step: int) -> None:
        count = self.count
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                count[a][b] += step
                count[b][a] += step

    # --- cost --------------------------------------------------------------------------------

    def _cost(self) -> tuple[int, int]:
        """(day repeats, season meetings) of the schedule as it stands."""
        repeats = season = 0
        seen = [[0] * self.n for _ in range(self.n)]
        # Recount from the tables: count[] includes history, so subtract this schedule's own.
        for tables in self.tables:
            for table in tables:
                for i, a in enumerate(table):
                    for b in table[i + 1 :]:
                        seen[a][b] += 1
                        seen[b][a] += 1
                        season += self.season[a][b]
        for a in range(self.n):
            for b in range(a + 1, self.n):
                history = self.count[a][b] - seen[a][b]
                total = self.count[a][b]
                repeats += max(0, total - 1) - max(0, history - 1)
        return repeats, season

    def _leave(self, p: int, table: list[int], skip: int) -> int:
        """What `p` leaving `table` saves (the seat `skip` is p's own)."""
        count, season, w = self.count, self.season, self.weight
        saved = 0
        for k, q in enumerate(table):
            if k != skip:
                saved += (count[p][q] >= 2) * w + season[p][q]
        return saved

    def _join(self, p: int, table: list[int], skip: int) -> int:
        """What `p` joining `table` in place of the seat `skip` costs."""
        count, season, w = self.count, self.season, self.weight
        cost = 0
        for k, q in enumerate(table):
            if k != skip:
                cost += (count[p][q] >= 1) * w + season[p][q]
        return cost

    # --- annealing ---------------------------------------------------------------------------

    def anneal(self, iterations: int, deadline: float) -> None:
        rng = self.rng
        movable = [r for r in range(self.rounds) if len(self.tables[r]) - self.fixed_counts[r] >= 2]
        last = self.rounds - 1
        swap_out = bool(self.may_swap_out) and len(self.tables[last]) > self.fixed_counts[last]
        if not movable and not swap_out:
            return
        best = self._cost()
        best_state = self._snapshot()
        current = lowest = best[0] * self.weight + best[1]
        # Three cooling cycles, each from the best so far: a reheat leaves a local minimum.
        cycle = max(1, iterations // CYCLES)
        cooling = math.exp(math.log(0.01) / cycle)
        temperature = 0.0
        for step in range(iterations):
            if best == (0, 0):
                break
            if step & 255 == 0 and time.perf_counter() > deadline:
                break
            if step % cycle == 0:
                if step:
                    self._restore(best_state)
                    current = lowest = best[0] * self.weight + best[1]
                temperature = 0.6 * self.weight
            temperature *= cooling
            if swap_out and (not movable or rng.random() < 0.15):
                delta = self._try_swap_out(last, temperature)
            else:
                delta = self._try_swap(rng.choice(movable), temperature)
            if delta is None:
                continue
            current += delta
            if current < lowest:
                lowest = current
                cost = self._cost()
                if cost < best:
                    best = cost
                    best_state = self._snapshot()
        self._restore(best_state)

    def _accept(self, delta: int, temperature: float) -> bool:
        if delta <= 0:
            return True
        return self.rng.random() < math.exp(-delta / max(temperature, 1e-9))

    def _try_swap(self, r: int, temperature: float) -> int | None:
        rng = self.rng
        tables = self.tables[r]
        lo = self.fixed_counts[r]
        ta = rng.randrange(lo, len(tables))
        tb = rng.randrange(lo, len(tables) - 1)
        if tb >= ta:
            tb += 1
        A, B = tables[ta], tables[tb]
        i, j = rng.randrange(len(A)), rng.randrange(len(B))
        x, y = A[i], B[j]
        delta = (
            self._join(y, A, i) + self._join(x, B, j) - self._leave(x, A, i) - self._leave(y, B, j)
        )
        if not self._accept(delta, temperature):
            return None
        self._move(A, i, y)
        self._move(B, j, x)
        return delta

    def _try_swap_out(self, r: int, temperature: float) -> int | None:
        """A sitter-out at the fairness cut changes place with a seated player at the cut."""
        rng = self.rng
        out = self.out[r]
        choices = [k for k, p in enumerate(out) if p in self.may_swap_out]
        if not choices:
            return None
        k = rng.choice(choices)
        s = out[k]
        lo = self.fixed_counts[r]
        ta = rng.randrange(lo, len(self.tables[r]))
        A = self.tables[r][ta]
        i = rng.randrange(len(A))
        x = A[i]
        if x not in self.may_swap_out:
            return None
        delta = self._join(s, A, i) - self._leave(x, A, i)
        if not self._accept(delta, temperature):
            return None
        self._move(A, i, s)
        out[k] = x
        return delta

    def _move(self, table: list[int], seat: int, newcomer: int) -> None:
        old = table[seat]
        for k, q in enumerate(table):
            if k != seat:
                self.count[old][q] -= 1
                self.count[q][old] -= 1
                self.count[newcomer][q] += 1
                self.count[q][newcomer] += 1
        table[seat] = newcomer

    def _snapshot(self) -> tuple[list[list[list[int]]], list[list[int]]]:
        return [[t[:] for t in ts] for ts in self.tables], [o[:] for o in self.out]

    def _restore(self, state: tuple[list[list[list[int]]], list[list[int]]]) -> None:
        for tables in self.tables:
            for table in tables:
                self._meet(table, -1)
        self.tables, self.out = state
        for tables in self.tables:
            for table in tables:
                self._meet(table, +1)

    def result(self) -> list[Round]:
        ids = self.ids
        rounds = []
        for tables, out in zip(self.tables, self.out, strict=True):
            seated = []
            for t, table in enumerate(tables):
                if t >= self.fixed_counts[len(rounds)]:
                    table = table[:]
                    self.rng.shuffle(table)  # the seat order is part of the draw
                seated.append(tuple(ids[p] for p in table))
            rounds.append(Round(tuple(seated), tuple(sorted(ids[p] for p in out))))
        return rounds
