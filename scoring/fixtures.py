"""Team fixtures: which teams meet at which table, in which seats, round after round.

Pure integers, no Django. A team league's day is rounds of tables of `table_size` teams (one
slot per team); `fixtures(n, table_size)` gives one cycle of rounds in which

- every team plays every round (the number of teams is a multiple of the table size), or, when
  it is not, the same number of teams sits out each round and every team sits out equally
  often, in every stretch of `n` rounds (byes: Pantheon #453's 9 teams of 4);
- every two teams meet an even number of times, at least twice;
- every team starts in every seat (東, 南, 西, 北) equally often.

How: a base set of rounds in which every pair of teams meets (a resolvable design where one is
known, so that every pair meets equally often: one table for as many teams as seats, the affine
space AG(3, 2) for 8 teams of 4 (7 rounds, each pair 3 times), the affine plane AG(2, 4) for 16
teams of 4 (5 rounds, each pair once), AG(2, 3) for 9 teams of 3; otherwise the circle method's
pairings, two pairs to a table of 4, so that every pair meets at least once), then each base
round is played once per seat rotation: every team sits in every seat once per base round, and
every count of meetings is multiplied by the number of rotations (an even number: the table
size, or twice it when odd). An 8-team league of 4 therefore has 28 rounds a cycle: each team
plays 28 games, meets each other team 12 times and sits 7 times in each seat; M.League's 90-odd
games a team are three cycles and a bit, which the league keeps track of by the round number.

Byes: with `n` teams and `b = n mod table_size` left over, there are `n` blocks; block `j` sits
out teams j, j+1, …, j+b−1 (mod n) and the others play the whole fixture of `n − b` teams
among themselves. The blocks take turns, one round each: round r is block r mod n's next round.
So every team sits out b rounds in every n, every pair plays together in some block (n > 2b)
and meets an even number of times in each, and every team sits in every seat equally often
over the cycle. 9 teams of 4: 9 blocks of the 8-team fixture, 252 rounds a cycle; every pair
meets 84 times, every team sits out 28 rounds and sits 56 times in each seat.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

Table = tuple[int, ...]  # team indices 0…n-1, in seat order
Round = tuple[Table, ...]

NOT_A_MULTIPLE = "the number of teams must be a multiple of the table size"
TOO_FEW = "a fixture needs at least one table of teams"
UNSUPPORTED = "teams of three-player tables: 3 or 9 teams"


def _ag32() -> list[list[Table]]:
    """AG(3, 2): the 14 planes of the cube {0,1}^3, in 7 parallel classes of 2 planes."""
    rounds = []
    for normal in range(1, 8):  # a nonzero vector: the planes x·normal = 0 and = 1
        sides: list[list[int]] = [[], []]
        for x in range(8):
            sides[bin(x & normal).count("1") % 2].append(x)
        rounds.append([tuple(sides[0]), tuple(sides[1])])
    return rounds


def _affine_plane(q: int) -> list[list[Table]]:
    """AG(2, q) for a prime power q in {3, 4}: q + 1 parallel classes of q lines of q points."""
    if q == 4:  # GF(4) = {0, 1, a, a+1} as 0..3: addition is xor, multiplication by table
        mul = [[0, 0, 0, 0], [0, 1, 2, 3], [0, 2, 3, 1], [0, 3, 1, 2]]

        def add(x: int, y: int) -> int:
            return x ^ y
    else:
        mul = [[(x * y) % q for y in range(q)] for x in range(q)]

        def add(x: int, y: int) -> int:
            return (x + y) % q

    def point(x: int, y: int) -> int:
        return x * q + y

    rounds = [[tuple(point(c, y) for y in range(q)) for c in range(q)]]  # x = c
    for m in range(q):  # y = m·x + c
        rounds.append([tuple(point(x, add(mul[m][x], c)) for x in range(q)) for c in range(q)])
    return rounds


def _circle(n: int, table_size: int) -> list[list[Table]]:
    """The circle method's n-1 rounds of pairs, `table_size // 2` pairs to a table: every pair
    of teams meets at least once (in its pairing's round), not equally often."""
    teams = list(range(n))
    rounds = []
    for _r in range(n - 1):
        pairs = [(teams[i], teams[n - 1 - i]) for i in range(n // 2)]
        flat = [t for p in pairs for t in p]
        rounds.append([tuple(flat[i : i + table_size]) for i in range(0, n, table_size)])
        teams = [teams[0], teams[-1], *teams[1:-1]]
    return rounds


def base_rounds(n: int, table_size: int) -> list[list[Table]]:
    if table_size < 2 or n < table_size:
        raise ValueError(TOO_FEW)
    if n % table_size:
        raise ValueError(NOT_A_MULTIPLE)
    if n == table_size:
        return [[tuple(range(n))]]
    if table_size == 4 and n == 8:
        return _ag32()
    if table_size == 4 and n == 16:
        return _affine_plane(4)
    if table_size == 3 and n == 9:
        return _affine_plane(3)
    if table_size % 2:  # the circle method seats whole pairs
        raise ValueError(UNSUPPORTED)
    return _circle(n, table_size)


def fixtures(n: int, table_size: int = 4) -> list[Round]:
    """One cycle of rounds for `n` teams (see the module's note), deterministic."""
    if table_size >= 2 and n > table_size and n % table_size:
        return _with_byes(n, table_size)
    base = base_rounds(n, table_size)
    rotations = table_size if table_size % 2 == 0 else 2 * table_size
    out: list[Round] = []
    for shift in range(rotations):
        s = shift % table_size
        for tables in base:
            out.append(tuple(t[s:] + t[:s] for t in tables))
    return out


def _with_byes(n: int, table_size: int) -> list[Round]:
    """The cycle of `n` teams when some sit out each round (the module's note: byes)."""
    b = n % table_size
    inner = fixtures(n - b, table_size)  # a multiple of the table size: no byes inside
    blocks = []
    for j in range(n):
        out = {(j + i) % n for i in range(b)}
        playing = [t for t in range(n) if t not in out]
        blocks.append([tuple(tuple(playing[x] for x in t) for t in r) for r in inner])
    return [blocks[j][i] for i in range(len(inner)) for j in range(n)]


def sit_outs(rounds: list[Round], n: int) -> Counter[int]:
    """How often each of the `n` teams sat a round out."""
    count: Counter[int] = Counter(dict.fromkeys(range(n), 0))
    for tables in rounds:
        seated = {t for table in tables for t in table}
        for t in range(n):
            if t not in seated:
                count[t] += 1
    return count


def meetings(rounds: list[Round]) -> Counter[tuple[int, int]]:
    """How often each pair of teams met (a < b)."""
    count: Counter[tuple[int, int]] = Counter()
    for tables in rounds:
        for table in tables:
            for a, b in combinations(sorted(table), 2):
                count[(a, b)] += 1
    return count


def seat_counts(rounds: list[Round]) -> Counter[tuple[int, int]]:
    """How often each team sat in each seat: (team, seat) → games."""
    count: Counter[tuple[int, int]] = Counter()
    for tables in rounds:
        for table in tables:
            for seat, team in enumerate(table):
                count[(team, seat)] += 1
    return count
