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
- the groups, lexicographically: teammates (`teams`) never at one table, and in the last
  `band_rounds` rounds of a qualifier only players of one rank band (`bands`) at a table (both
  hard: weighted above anything else); as few repeated pairs within the day as possible (a pair's
  meetings beyond its first, counting the day's earlier rounds in `day_pairs`); then, in a
  schedule of several rounds, pairs that never meet having at least `common_target` common
  opponents (players who met both; the criterion of tournament seating programs); then as few
  meetings of pairs that met earlier in the season (`season_pairs`, weighted by how often);
- table numbers: a player comes back to a table number (a position, A卓, B卓, …) as seldom as
  possible, counting the day's earlier rounds (`table_history`);
- seat winds: each player's count of each wind (東 南 西 北, seat 0 = 東 = 起家) as even as it can
  be, with `wind_history` (the season's games and the day's earlier rounds) added in, so that
  over a day each count is within one of rounds/4 and over a season a regular's 起家 come round
  as often as anyone's.

The objectives are separable: which players share a table does not depend on the table's number
or the order of its seats, and the numbers and seat orders of different rounds meet only through
each player's counts. So the search runs in phases, each a local search with incremental
(per-move) cost updates:

1. groups: a greedy construction round by round, then simulated annealing over the whole schedule
   (swap two players of one round between tables; in the last round also a sitter-out with a
   seated player who has missed as many rounds, which keeps fairness), from a fixed seed, with an
   iteration budget (deterministic) and a wall-clock cap. The best schedule seen is kept;
2. common opponents: when the schedule can reach the target at all (each player's two-step
   reach covers the field), swaps aimed at the pairs below it, never worsening the levels above
   (teammates, bands, repeats), with the common-opponent counts of all pairs kept up to date per
   move (a meeting that appears or disappears changes the counts of its two players' other
   opponents only);
3. table numbers: swaps of two tables' numbers within a round;
4. winds: each table takes the seat order that suits its players' counts best (all orders of a
   table of four are tried), table after table until nothing improves.

Libraries considered: OR-Tools CP-SAT and PuLP (CBC) can model this (the social golfer problem)
as boolean assignment variables, but the lexicographic pair objective needs one variable per pair
per round and table (tens of thousands at 40 players × 8 rounds, millions at 800), solve times are
not bounded, and OR-Tools is a large binary wheel for one page of the app. Local search is the
method of choice for the social golfer problem in the literature, needs no dependency, and finds
the known optimum for 16 players over 5 rounds (the affine plane of order 4: no pair meets twice)
well within the budget (benchmarks/draw_bench.py prints that and the tournament sizes).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

Pair = tuple[int, int]

NOT_ENOUGH_PLAYERS = "not enough players for one table"
TOO_MANY_PLAYERS = "more players than one draw seats"
# The most players one day's draw seats (200 tables): an open tournament of 800. The cost stays
# bounded: n×n tables of pair counts (about 10 MB at 800) and a search of at most `time_cap`
# seconds; the benchmark prints the worst case, MAX_PLAYERS over the most rounds of a schedule.
MAX_PLAYERS = 800
BAD_TABLE_SIZE = "a table has 3 or 4 players"
LOCKED_NOT_PRESENT = "a locked table's player is not present"
CYCLES = 3
LOCKED_TABLE_SIZE = "a locked table must have exactly table_size players"
# Above this many players common opponents are not sought: the counts (an n×n table updated per
# move) cost more per move, the pairs short of one grow with n², and at 400 players × 12 rounds
# the search did not bring the last of them to 1 within 30 s (at 800 × 8, where each meets 24,
# no schedule can). 172 × 10 reaches 1 in about a second (benchmarks/draw_bench.py).
COMMON_MAX_PLAYERS = 256


class DrawError(ValueError):
    pass


@dataclass(frozen=True)
class Round:
    tables: tuple[tuple[int, ...], ...]  # by table number (A, B, …), each in seat order 東南西北
    sitting_out: tuple[int, ...]


@dataclass(frozen=True)
class Quality:
    day_repeats: int  # meetings of a pair beyond its first within the day (with day_pairs)
    season_meetings: int  # meetings of pairs that met earlier in the season, weighted


@dataclass(frozen=True)
class Report:
    """What a schedule achieves on every objective (the benchmark's and the page's figures)."""

    players: int
    repeats: int  # meetings of a pair beyond its first
    teammate_meetings: int  # teammates at one table (pairs × rounds)
    band_breaks: int  # pairs of different rank bands at one table in a banded round
    wind_low: int  # the smallest count of one wind of one player (seated every round)
    wind_high: int  # the largest
    wind_off: int  # players with a wind count more than one away from rounds/4 (±1 rule)
    table_returns: int  # a player back at a table number they had (beyond the first time)
    min_common: int | None  # fewest common opponents of a pair that never meets (None: all meet)
    low_common: int  # pairs that never meet with fewer common opponents than floor(√P)

    @property
    def common_floor(self) -> int:
        return math.isqrt(self.players)


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


def report(
    rounds: Sequence[Round],
    *,
    teams: Mapping[int, Hashable] | None = None,
    bands: Mapping[int, int] | None = None,
    band_rounds: int = 0,
    common: bool = True,
) -> Report:
    """Every objective's figure for a schedule, recounted from its tables (not from the search's
    bookkeeping, so the benchmark and the tests check the search). Without `common` the common
    opponents (every pair of the field) are not counted: min_common is None, low_common 0."""
    teams = teams or {}
    bands = bands or {}
    players = sorted(
        {p for r in rounds for t in r.tables for p in t}
        | {p for r in rounds for p in r.sitting_out}
    )
    met: dict[int, set[int]] = {p: set() for p in players}
    counts: dict[Pair, int] = {}
    repeats = mates = breaks = returns = 0
    size = max((len(t) for r in rounds for t in r.tables), default=4)
    winds = {p: [0] * size for p in players}
    numbers: dict[int, set[int]] = {p: set() for p in players}
    seated = dict.fromkeys(players, 0)
    first_banded = len(rounds) - band_rounds
    for r, rnd in enumerate(rounds):
        for number, table in enumerate(rnd.tables):
            for seat, a in enumerate(table):
                winds[a][seat] += 1
                seated[a] += 1
                returns += number in numbers[a]
                numbers[a].add(number)
                for b in table[seat + 1 :]:
                    key = pair(a, b)
                    repeats += counts.get(key, 0) >= 1
                    counts[key] = counts.get(key, 0) + 1
                    met[a].add(b)
                    met[b].add(a)
                    if a in teams and teams.get(b) == teams[a]:
                        mates += 1
                    if r >= first_banded and bands.get(a) != bands.get(b):
                        breaks += 1
    full = [p for p in players if seated[p] == len(rounds)]
    lows = [min(winds[p]) for p in full] or [0]
    highs = [max(winds[p]) for p in full] or [0]
    # ±1 of rounds/4: |count - seated/size| <= 1, in integers.
    off = sum(any(abs(c * size - seated[p]) > size for c in winds[p]) for p in players)
    floor = math.isqrt(len(players))
    least: int | None = None
    low = 0
    for i, a in enumerate(players if common else ()):
        near = met[a]
        for b in players[i + 1 :]:
            if b in near:
                continue
            common = len(near & met[b])
            low += common < floor
            if least is None or common < least:
                least = common
    return Report(
        players=len(players),
        repeats=repeats,
        teammate_meetings=mates,
        band_breaks=breaks,
        wind_low=min(lows),
        wind_high=max(highs),
        wind_off=off,
        table_returns=returns,
        min_common=least,
        low_common=low,
    )


@dataclass(frozen=True)
class Unkept:
    """What a day's rounds did not keep, by whom (from `unkept`): each pair seated together more
    than once (the rounds, by index), each player whose count of some wind is off by more than
    one from rounds played / table size (their counts, 東 first, and the rounds they were seated
    in with the seats drawn), each player seated again at a table number (the number, the
    rounds). Every list in the order of the players' ids."""

    repeats: list[tuple[Pair, list[int]]]
    winds: list[tuple[int, list[int], int]]  # player, counts by seat, rounds counted
    returns: list[tuple[int, int, list[int]]]  # player, table number, rounds


def unkept(rounds: Sequence[Round], *, seats_drawn: Sequence[bool] | None = None) -> Unkept:
    """Who the balance missed, recounted from the tables as `report` counts its figures: pairs
    met more than once, winds outside ±1 of rounds played / table size (rounds whose seats were
    left to the table, `seats_drawn` False, count for no wind), returns to a table number."""
    drawn = list(seats_drawn) if seats_drawn is not None else [True] * len(rounds)
    met: dict[Pair, list[int]] = {}
    winds: dict[int, list[int]] = {}
    numbers: dict[tuple[int, int], list[int]] = {}
    for r, rnd in enumerate(rounds):
        for number, table in enumerate(rnd.tables):
            for seat, a in enumerate(table):
                numbers.setdefault((a, number), []).append(r)
                if drawn[r]:
                    winds.setdefault(a, [0] * max(len(table), 4))[seat] += 1
                for b in table[seat + 1 :]:
                    met.setdefault(pair(a, b), []).append(r)
    size = max((len(t) for rnd in rounds for t in rnd.tables), default=4)
    off = []
    for p in sorted(winds):
        counts = winds[p][:size]
        played = sum(counts)
        if any(abs(c * size - played) > size for c in counts):
            off.append((p, counts, played))
    return Unkept(
        repeats=sorted((k, v) for k, v in met.items() if len(v) > 1),
        winds=off,
        returns=sorted((p, n, v) for (p, n), v in numbers.items() if len(v) > 1),
    )


def draw(
    *,
    players: Sequence[int],
    rounds: int = 1,
    table_size: int = 4,
    missed: Mapping[int, int] | None = None,
    day_pairs: Mapping[Pair, int] | None = None,
    season_pairs: Mapping[Pair, int] | None = None,
    locked: Sequence[Sequence[int]] = (),
    teams: Mapping[int, Hashable] | None = None,
    bands: Mapping[int, int] | None = None,
    band_rounds: int = 0,
    wind_history: Mapping[int, Sequence[int]] | None = None,
    table_history: Mapping[int, Sequence[int]] | None = None,
    balance_winds: bool = True,
    common_target: int | None = None,
    seed: int = 0,
    iterations: int | None = None,
    time_cap: float | None = None,
) -> list[Round]:
    """`rounds` rounds for `players` (present in all of them). `locked` tables are kept as they
    are in the first round (a redraw around them). `teams` maps a player to their team (players
    of one team never share a table); `bands` a player to their rank band, kept apart in the last
    `band_rounds` rounds. `wind_history` is each player's earlier games per seat (東 first),
    `table_history` the table numbers (0 = A) they sat at earlier in the day. Without
    `balance_winds` the seat order is left to chance (as the draw did before). `common_target`:
    the fewest common opponents wanted for pairs that never meet (None: 1 in a schedule of
    several rounds when the field allows it, else not sought). See the module docstring."""
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
    cap = time_cap if time_cap is not None else default_time_cap(len(present), rounds)
    deadline = time.perf_counter() + cap
    search = _Search(
        present=present,
        free=free,
        locked=[list(t) for t in locked],
        rounds=rounds,
        size=table_size,
        missed=dict(missed or {}),
        day_pairs=day_pairs or {},
        season_pairs=season_pairs or {},
        teams=teams or {},
        bands=bands or {},
        band_rounds=max(0, min(band_rounds, rounds)),
        rng=random.Random(seed),
    )
    search.construct()
    budget = iterations if iterations is not None else _default_iterations(len(present), rounds)
    target = common_target if common_target is not None else search.default_common_target()
    seek = target > 0 and search.n <= COMMON_MAX_PLAYERS
    # The groups get most of the time; what they leave goes to common opponents. (Within the
    # budget the draw depends on the seed only: the proposal a page shows is the draw stored.)
    search.anneal(budget, time.perf_counter() + (cap * 0.6 if seek else cap))
    if seek:
        search.seek_common(target, budget, deadline)
    search.number_tables(table_history or {}, budget)
    search.seat(wind_history or {}, balance_winds)
    return search.result()


def default_time_cap(players: int, rounds: int) -> float:
    """The wall-clock cap of a draw: about a second for a club evening, 4.8 s for a cup day of
    40 over 8 rounds, 22 s for 172 over 10, 30 s at most (the searches stop as soon as
    everything is met, often well before; on this shared 2-core machine 172 × 10 needed 5 to 7 s
    of its groups' 60% share to reach no repeat, and 9.4 s of cap was not enough once)."""
    return min(30.0, 0.8 + players * rounds / 80)


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
        teams: Mapping[int, Hashable],
        bands: Mapping[int, int],
        band_rounds: int,
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
        # A player without a team is a team of their own (-1 - index: no id of a real team).
        team_ids = {
            t: k for k, t in enumerate(dict.fromkeys(teams[p] for p in present if p in teams))
        }
        self.team = [team_ids[teams[p]] if p in teams else -1 - i for i, p in enumerate(present)]
        by_team: dict[int, list[int]] = {}
        for i, t in enumerate(self.team):
            by_team.setdefault(t, []).append(i)
        self.mates = [[q for q in by_team[self.team[i]] if q != i] for i in range(n)]
        self.has_mates = any(self.mates)
        self.band = [bands.get(p, 0) for p in present]
        self.banded = [r >= rounds - band_rounds for r in range(rounds)]
        top = max((max(row) for row in self.season), default=0)
        # A repeat within the day outweighs any season cost a swap can change; a teammate or a
        # band broken outweighs any number of repeats.
        self.weight = 1 + 2 * (size - 1) * top
        self.hard = self.weight * (n * rounds * size + 1)
        # Per round: tables (lists of player indices), sitting out (a list), fixed table count.
        self.tables: list[list[list[int]]] = []
        self.out: list[list[int]] = []
        self.may_swap_out: set[int] = set()  # last round: sitters-out at the fairness cut
        self.fixed = len(self.locked)
        self.co: list[list[int]] | None = None  # common opponents, while they are sought

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
            tables = [list(t) for t in locked] + self._greedy(seated, n_tables, r)
            for table in tables:
                self._meet(table, +1)
            self.tables.append(tables)
            self.out.append(out)
            for p in out:
                missed[p] += 1
        self.fixed_counts = [len(self.locked) if r == 0 else 0 for r in range(self.rounds)]
        self._locate()

    def _locate(self) -> None:
        """table[r][p]: the table of player p in round r (-1: sitting out)."""
        self.table_of = []
        for tables in self.tables:
            row = [-1] * self.n
            for t, table in enumerate(tables):
                for p in table:
                    row[p] = t
            self.table_of.append(row)

    def _greedy(self, seated: list[int], n_tables: int, r: int) -> list[list[int]]:
        tables: list[list[int]] = [[] for _ in range(n_tables)]
        for p in seated:
            best, best_cost = 0, None
            for t, table in enumerate(tables):
                if len(table) >= self.size:
                    continue
                cost = self._join(p, table, -1, r)
                if best_cost is None or cost < best_cost:
                    best, best_cost = t, cost
                    if cost == 0 and not table:
                        break  # an empty table: no later one is cheaper
            tables[best].append(p)
        return tables

    def _meet(self, table: list[int], step: int) -> None:
        count = self.count
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                count[a][b] += step
                count[b][a] += step

    # --- cost --------------------------------------------------------------------------------

    def _cost(self) -> tuple[int, int, int]:
        """(teammates and bands broken, day repeats, season meetings) of the schedule as it
        stands."""
        repeats = season = hard = 0
        seen: dict[Pair, int] = {}
        team, band = self.team, self.band
        # Recount from the tables: count[] includes history, so subtract this schedule's own.
        for r, tables in enumerate(self.tables):
            banded = self.banded[r]
            for table in tables:
                for i, a in enumerate(table):
                    for b in table[i + 1 :]:
                        key = (a, b) if a < b else (b, a)
                        seen[key] = seen.get(key, 0) + 1
                        season += self.season[a][b]
                        hard += (team[a] == team[b]) + (banded and band[a] != band[b])
        for (a, b), own in seen.items():
            total = self.count[a][b]
            repeats += max(0, total - 1) - max(0, total - own - 1)
        return hard, repeats, season

    def _scalar(self, cost: tuple[int, int, int]) -> int:
        return cost[0] * self.hard + cost[1] * self.weight + cost[2]

    def _leave(self, p: int, table: list[int], skip: int, r: int) -> int:
        """What `p` leaving `table` of round `r` saves (the seat `skip` is p's own)."""
        count, season, w = self.count, self.season, self.weight
        team, tp = self.team, self.team[p]
        saved = 0
        for k, q in enumerate(table):
            if k != skip:
                saved += (count[p][q] >= 2) * w + season[p][q] + (team[q] == tp) * self.hard
        if self.banded[r]:
            bp, band = self.band[p], self.band
            saved += sum(band[q] != bp for k, q in enumerate(table) if k != skip) * self.hard
        return saved

    def _join(self, p: int, table: list[int], skip: int, r: int) -> int:
        """What `p` joining `table` of round `r` in place of the seat `skip` costs."""
        count, season, w = self.count, self.season, self.weight
        team, tp = self.team, self.team[p]
        cost = 0
        for k, q in enumerate(table):
            if k != skip:
                cost += (count[p][q] >= 1) * w + season[p][q] + (team[q] == tp) * self.hard
        if self.banded[r]:
            bp, band = self.band[p], self.band
            cost += sum(band[q] != bp for k, q in enumerate(table) if k != skip) * self.hard
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
        current = lowest = self._scalar(best)
        # Three cooling cycles, each from the best so far: a reheat leaves a local minimum.
        cycle = max(1, iterations // CYCLES)
        cooling = math.exp(math.log(0.01) / cycle)
        temperature = 0.0
        clashes: list[tuple[int, int]] = []
        for step in range(iterations):
            if best == (0, 0, 0):
                break
            if step & 255 == 0 and time.perf_counter() > deadline:
                break
            if step % cycle == 0:
                if step:
                    self._restore(best_state)
                    current = lowest = self._scalar(best)
                temperature = 0.6 * self.weight
            temperature *= cooling
            if step & 1023 == 0:
                clashes = self._clashes()
            if swap_out and (not movable or rng.random() < 0.15):
                delta = self._try_swap_out(last, temperature)
            elif clashes and rng.random() < 0.3:
                # A table that had a repeat, a teammate or a band broken when last looked at:
                # in a large field a random table seldom is one.
                r, t = rng.choice(clashes)
                delta = self._try_swap(r, temperature, t)
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

    def _clashes(self) -> list[tuple[int, int]]:
        """(round, table) of each movable table with a repeated pair, teammates or two bands."""
        count, team, band = self.count, self.team, self.band
        found = []
        for r, tables in enumerate(self.tables):
            if len(tables) - self.fixed_counts[r] < 2:
                continue
            banded = self.banded[r]
            for t in range(self.fixed_counts[r], len(tables)):
                table = tables[t]
                if any(
                    count[a][b] >= 2 or team[a] == team[b] or (banded and band[a] != band[b])
                    for i, a in enumerate(table)
                    for b in table[i + 1 :]
                ):
                    found.append((r, t))
        return found

    def _try_swap(self, r: int, temperature: float, ta: int | None = None) -> int | None:
        rng = self.rng
        tables = self.tables[r]
        lo = self.fixed_counts[r]
        if ta is None:
            ta = rng.randrange(lo, len(tables))
        A = tables[ta]
        i = rng.randrange(len(A))
        if rng.random() < 0.5:
            # Conflict-directed: the seat of the table's player with the most repeated pairs.
            count = self.count
            clash = [sum(count[p][q] >= 2 for q in A) for p in A]
            top = max(clash)
            if top:
                i = rng.choice([k for k, c in enumerate(clash) if c == top])
        x = A[i]
        if self.has_mates and self.mates[x] and rng.random() < 0.7:
            # x and a teammate change tables: neither table gets two of one team.
            y = rng.choice(self.mates[x])
            tb = self.table_of[r][y]
            if tb < lo:
                return None
            B = tables[tb]
            j = B.index(y)
        else:
            tb = rng.randrange(lo, len(tables) - 1)
            if tb >= ta:
                tb += 1
            B = tables[tb]
            j = rng.randrange(len(B))
            y = B[j]
        delta = (
            self._join(y, A, i, r)
            + self._join(x, B, j, r)
            - self._leave(x, A, i, r)
            - self._leave(y, B, j, r)
        )
        if not self._accept(delta, temperature):
            return None
        self._move(A, i, y)
        self._move(B, j, x)
        self.table_of[r][x], self.table_of[r][y] = tb, ta
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
        delta = self._join(s, A, i, r) - self._leave(x, A, i, r)
        if not self._accept(delta, temperature):
            return None
        self._move(A, i, s)
        out[k] = x
        self.table_of[r][s], self.table_of[r][x] = ta, -1
        return delta

    def _move(self, table: list[int], seat: int, newcomer: int) -> None:
        old = table[seat]
        count = self.count
        co = self.co is not None
        for k, q in enumerate(table):
            if k != seat:
                count[old][q] -= 1
                count[q][old] -= 1
                if co and count[old][q] == 0:
                    self._link(old, q, -1)
                count[newcomer][q] += 1
                count[q][newcomer] += 1
                if co and count[newcomer][q] == 1:
                    self._link(newcomer, q, +1)
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
        self._locate()

    # --- common opponents --------------------------------------------------------------------

    def default_common_target(self) -> int:
        """1 when a schedule of several rounds can give every pair that never meets a common
        opponent (each player's opponents, and theirs, reach the whole field), else 0."""
        if self.rounds < 2:
            return 0
        opponents = self.rounds * (self.size - 1)
        reach = opponents + opponents * (opponents - self.size + 1)
        return 1 if reach >= self.n - 1 else 0

    def seek_common(self, target: int, iterations: int, deadline: float) -> None:
        """Swaps aimed at pairs that never meet with fewer than `target` common opponents, each
        kept when it lowers their shortfall without breaking a teammate or band rule or adding
        a repeat (and without adding season meetings when the shortfall stays)."""
        n, count = self.n, self.count
        self.near = [{b for b in range(n) if count[a][b] > 0 and b != a} for a in range(n)]
        self.co = co = [[0] * n for _ in range(n)]
        for c in range(n):
            around = self.near[c]
            for a in around:
                row = co[a]
                for b in around:
                    row[b] += 1
        self.target = target
        self.short = 0
        self.low: set[Pair] = set()
        for a in range(n):
            near, row = self.near[a], co[a]
            for b in range(a + 1, n):
                if b not in near and row[b] < target:
                    self.short += target - row[b]
                    self.low.add((a, b))
        rng = self.rng
        where = self._where()
        step = 0
        pool: list[Pair] = []
        least, since = self.short, 0
        patience = max(2000, 40 * n)  # steps without a lower shortfall before giving up
        while self.low and step < iterations:
            step += 1
            if step & 63 == 0 and time.perf_counter() > deadline:
                break
            if self.short < least:
                least, since = self.short, step
            elif step - since > patience:
                break
            if step & 255 == 1 or not pool:
                pool = list(self.low)
            a, b = rng.choice(pool) if step & 1 or len(self.low) < 64 else (None, None)
            if a is not None and (a, b) not in self.low:
                continue
            if a is None:  # now and then any swap, to move along a plateau
                r = rng.randrange(self.rounds)
                x = rng.randrange(n)
                y = rng.randrange(n)
            else:
                if rng.random() < 0.5:
                    a, b = b, a
                r = rng.randrange(self.rounds)
                # Someone who met b comes to a's table in round r (in place of one of a's).
                if not self.near[b]:
                    continue
                y = rng.choice(tuple(self.near[b]))
                x = a
                while x == a:
                    spot = where[r].get(a)
                    if spot is None:
                        break
                    table = self.tables[r][spot[0]]
                    x = table[rng.randrange(len(table))]
                if x == a:
                    continue
            sx, sy = where[r].get(x), where[r].get(y)
            if sx is None or sy is None or sx[0] == sy[0]:
                continue
            lo = self.fixed_counts[r]
            if sx[0] < lo or sy[0] < lo:
                continue
            A, B = self.tables[r][sx[0]], self.tables[r][sy[0]]
            i, j = sx[1], sy[1]
            season = self.season
            season_delta = sum(season[y][q] - season[x][q] for k, q in enumerate(A) if k != i)
            season_delta += sum(season[x][q] - season[y][q] for k, q in enumerate(B) if k != j)
            delta = (
                self._join(y, A, i, r)
                + self._join(x, B, j, r)
                - self._leave(x, A, i, r)
                - self._leave(y, B, j, r)
            )
            upper = delta - season_delta  # teammates, bands, repeats
            before = self.short
            self._move(A, i, y)
            self._move(B, j, x)
            change = self.short - before
            keep = upper < 0 or (upper == 0 and (change < 0 or (change == 0 and season_delta <= 0)))
            if keep:
                where[r][x], where[r][y] = (sy[0], j), (sx[0], i)
            else:
                self._move(A, i, x)
                self._move(B, j, y)
        self.co = None

    def _where(self) -> list[dict[int, tuple[int, int]]]:
        return [
            {p: (t, s) for t, table in enumerate(tables) for s, p in enumerate(table)}
            for tables in self.tables
        ]

    def _link(self, a: int, b: int, step: int) -> None:
        """a and b start (+1) or stop (-1) having met: the common-opponent counts of a with b's
        other opponents and of b with a's change by one, and so do the pairs' shortfalls."""
        co, near, target = self.co, self.near, self.target
        assert co is not None
        if step < 0:
            near[a].discard(b)
            near[b].discard(a)
        for u, others in ((a, near[b]), (b, near[a])):
            row, mine = co[u], near[u]
            for c in others:
                old = row[c]
                new = old + step
                row[c] = new
                co[c][u] = new
                if c in mine or c == u:
                    continue
                if old < target or new < target:
                    self.short += max(0, target - new) - max(0, target - old)
                    key = (u, c) if u < c else (c, u)
                    if new < target:
                        self.low.add(key)
                    else:
                        self.low.discard(key)
        key = (a, b) if a < b else (b, a)
        have = co[a][b]
        if step > 0:
            near[a].add(b)
            near[b].add(a)
            if have < target:  # they meet now: their shortfall no longer counts
                self.short -= target - have
                self.low.discard(key)
        elif have < target:
            self.short += target - have
            self.low.add(key)

    # --- table numbers -----------------------------------------------------------------------

    def number_tables(self, history: Mapping[int, Sequence[int]], iterations: int) -> None:
        """Swap two tables' numbers within a round when it brings fewer players back to a number
        they had (`history`: numbers of the day's earlier rounds)."""
        width = max((len(ts) for ts in self.tables), default=0)
        for numbers in history.values():
            width = max(width, *(k + 1 for k in numbers), 0)
        used = [[0] * width for _ in range(self.n)]
        for p, numbers in history.items():
            if p in self.index:
                for k in numbers:
                    used[self.index[p]][k] += 1
        for tables in self.tables:
            for k, table in enumerate(tables):
                for p in table:
                    used[p][k] += 1
        returns = sum(max(0, u - 1) for row in used for u in row)
        rounds = [r for r in range(self.rounds) if len(self.tables[r]) - self.fixed_counts[r] >= 2]
        rng = self.rng
        best, best_order = returns, [ts[:] for ts in self.tables]
        steps = min(iterations, 20000 + 60 * sum(len(ts) for ts in self.tables))
        temperature, cooling = 0.5, math.exp(math.log(0.04) / max(1, steps))
        for _step in range(steps if rounds else 0):
            if not returns:
                break
            temperature *= cooling
            r = rng.choice(rounds)
            tables, lo = self.tables[r], self.fixed_counts[r]
            k1 = rng.randrange(lo, len(tables))
            k2 = rng.randrange(lo, len(tables) - 1)
            if k2 >= k1:
                k2 += 1
            change = 0
            for p in tables[k1]:
                change += (used[p][k2] >= 1) - (used[p][k1] >= 2)
            for p in tables[k2]:
                change += (used[p][k1] >= 1) - (used[p][k2] >= 2)
            if change > 0 and rng.random() >= math.exp(-change / temperature):
                continue
            for p in tables[k1]:
                used[p][k1] -= 1
                used[p][k2] += 1
            for p in tables[k2]:
                used[p][k2] -= 1
                used[p][k1] += 1
            tables[k1], tables[k2] = tables[k2], tables[k1]
            returns += change
            if returns < best:
                best, best_order = returns, [ts[:] for ts in self.tables]
        self.tables = best_order

    # --- seat winds --------------------------------------------------------------------------

    def seat(self, history: Mapping[int, Sequence[int]], balance: bool) -> None:
        """Each table's seat order (東 first): the one giving its players their least-held winds,
        counting `history`, table after table until no table improves (a descent on the sum of
        squares of every player's count of each wind, lowest when the counts are even)."""
        size = self.size
        for r, tables in enumerate(self.tables):
            for t in range(self.fixed_counts[r], len(tables)):
                self.rng.shuffle(tables[t])  # the seat order is part of the draw
        if not balance:
            return
        held = [[0] * size for _ in range(self.n)]
        for p, counts in history.items():
            if p in self.index:
                row = held[self.index[p]]
                for w, c in enumerate(list(counts)[:size]):
                    row[w] += c
        spots = [
            (r, t)
            for r, tables in enumerate(self.tables)
            for t in range(len(tables))
            if t >= self.fixed_counts[r]
        ]
        for tables in self.tables:
            for table in tables:
                for w, p in enumerate(table):
                    held[p][w] += 1
        orders = list(itertools.permutations(range(size)))
        rng = self.rng
        self._descend(spots, held, orders)
        # The descent can stop with a player short of one wind and long of another while no
        # single table can help: a short annealing of seat swaps within tables (each move
        # changes two players' counts), then the descent again.
        if not self._winds_off():
            return
        steps = 20 * len(spots) * size
        temperature, cooling = 2.0, math.exp(math.log(0.05) / max(1, steps))
        for _step in range(steps if spots else 0):
            temperature *= cooling
            r, t = spots[rng.randrange(len(spots))]
            table = self.tables[r][t]
            w1 = rng.randrange(size)
            w2 = rng.randrange(size - 1)
            if w2 >= w1:
                w2 += 1
            p, q = table[w1], table[w2]
            hp, hq = held[p], held[q]
            change = 2 * (hp[w2] - hp[w1] + 1) + 2 * (hq[w1] - hq[w2] + 1)
            if change > 0 and rng.random() >= math.exp(-change / temperature):
                continue
            hp[w1] -= 1
            hp[w2] += 1
            hq[w2] -= 1
            hq[w1] += 1
            table[w1], table[w2] = q, p
        self._descend(spots, held, orders)

    def _winds_off(self) -> bool:
        """Whether a player's count of a wind in this schedule is more than one away from their
        rounds/size (the rule of a tournament day)."""
        size = self.size
        own = [[0] * size for _ in range(self.n)]
        for tables in self.tables:
            for table in tables:
                for w, p in enumerate(table):
                    own[p][w] += 1
        return any(abs(c * size - sum(row)) > size for row in own for c in row)

    def _descend(
        self, spots: list[tuple[int, int]], held: list[list[int]], orders: list[tuple[int, ...]]
    ) -> None:
        rng = self.rng
        for _sweep in range(50):
            rng.shuffle(spots)
            improved = False
            for r, t in spots:
                table = self.tables[r][t]
                for w, p in enumerate(table):
                    held[p][w] -= 1
                now = sum(held[p][w] for w, p in enumerate(table))
                best, best_cost = None, now
                for order in orders:
                    cost = sum(held[table[k]][w] for w, k in enumerate(order))
                    if cost < best_cost or (cost == best_cost and rng.random() < 0.3):
                        best, best_cost = order, cost
                if best is not None:
                    improved |= best_cost < now
                    table[:] = [table[k] for k in best]
                for w, p in enumerate(table):
                    held[p][w] += 1
            if not improved:
                break

    def result(self) -> list[Round]:
        ids = self.ids
        return [
            Round(
                tuple(tuple(ids[p] for p in table) for table in tables),
                tuple(sorted(ids[p] for p in out)),
            )
            for tables, out in zip(self.tables, self.out, strict=True)
        ]
