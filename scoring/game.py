"""Settling one game (settlement.md, "Settling one game"), in integers only.

Scores are in tenths of 1,000 points (+45.3 is 453). Players are always in seat order from 起家.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from . import errors
from .errors import Collector, InputError
from .rules import MAX_POINTS, Rules


@dataclass(frozen=True, slots=True)
class Seat:
    name: str
    points: int  # final points (素点)


@dataclass(frozen=True, slots=True)
class ChipEvent:
    kind: str
    winner: str
    discarder: str | None = None  # None: tsumo
    multiplier: int = 1


@dataclass(frozen=True, slots=True)
class Game:
    seats: tuple[Seat, ...]  # seat order from 起家
    deposits: int = 0  # 供託 left on the table, in points
    chombo: tuple[str, ...] = ()  # one name per chombo
    chips: tuple[ChipEvent, ...] = ()
    rate: str | None = None  # a key of rules.rates, or None for no money


@dataclass(frozen=True, slots=True)
class PlayerResult:
    name: str
    points: int
    rank: int
    score: int  # tenths of 1,000 points
    chips: int
    yen: int | None  # None when the game is not played at a rate
    chombo: int  # how many chombo this player committed


@dataclass(frozen=True, slots=True)
class GameResult:
    """A settled game. It refuses to exist if its numbers do not add up."""

    players: tuple[PlayerResult, ...]
    total_score: int  # what the scores must sum to: T minus penalty chombo
    deposits: int
    rate: str | None

    def __post_init__(self) -> None:
        if sum(p.score for p in self.players) != self.total_score:
            raise ValueError("scores do not sum to the game's total")
        if sum(p.chips for p in self.players) != 0:
            raise ValueError("chips do not sum to zero")
        if (self.rate is None) != all(p.yen is None for p in self.players):
            raise ValueError("yen must be given for every player or for none")
        for a in self.players:
            for b in self.players:
                if a.points > b.points and a.rank >= b.rank:
                    raise ValueError("ranks do not follow points")

    @property
    def house_yen(self) -> int:
        """What the club takes from this game: the money side of house deposits and penalties."""
        return -sum(p.yen or 0 for p in self.players)


def divide(total: int, parts: int) -> list[int]:
    """Split `total` into `parts` integers that differ by at most one, the larger ones first.

    Used for everything shared in seat order ("indivisible tenths go one each to the earlier
    seats"): the earlier seats get the larger share, for negative totals too (上家取り).
    """
    q, r = divmod(total, parts)
    return [q + 1] * r + [q] * (parts - r)


def round_half_away(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded to an integer, halves away from zero."""
    q, r = divmod(abs(numerator), denominator)
    if 2 * r >= denominator:
        q += 1
    return q if numerator >= 0 else -q


def rounded_tenths(points: int, rounding: str) -> int:
    """R(points) of settlement.md step 4, in tenths of 1,000 points.

    The rounding applies to the magnitude; the sign is restored after.
    """
    magnitude = -points if points < 0 else points
    if rounding == "none":
        value = magnitude // 100
    else:
        thousands, rest = divmod(magnitude, 1000)
        hundreds = rest // 100
        if rounding == "gosha-rokunyu":
            thousands += hundreds >= 6
        elif rounding == "shisha-gonyu":
            thousands += hundreds >= 5
        elif rounding == "kiriage":
            thousands += hundreds >= 1
        elif rounding != "kirisute":
            raise ValueError(f"unknown rounding {rounding!r}")
        value = thousands * 10
    return -value if points < 0 else value


def check_game(rules: Rules, game: Game) -> list[errors.Problem]:
    """Every reason `game` cannot be settled under `rules` (empty when it can)."""
    c = Collector()
    seats = game.seats
    n = len(seats)
    if n != rules.players:
        c.add(
            "players",
            errors.PLAYER_COUNT,
            f"player count is {n}, the rules need {rules.players}",
            expected=rules.players,
            got=n,
        )
    names: set[str] = set()
    points_ok = True
    for i, seat in enumerate(seats):
        if not isinstance(seat.name, str) or not seat.name.strip():
            c.add(f"players[{i}].name", errors.REQUIRED, "a name is required")
        elif seat.name in names:
            c.add(f"players[{i}].name", errors.DUPLICATE_NAME, f"{seat.name} is at the table twice")
        names.add(seat.name)
        points_ok &= _check_points(c, f"players[{i}].points", seat.points, allow_negative=True)
    deposits_ok = _check_points(c, "deposits", game.deposits, allow_negative=False)
    if points_ok and deposits_ok and n == rules.players:
        total = sum(s.points for s in seats) + game.deposits
        expected = rules.players * rules.start
        if total != expected:
            off = expected - total
            how = f"{off} short" if off > 0 else f"{-off} over"
            c.add(
                "points",
                errors.SUM,
                f"sum of final points + deposits is {total}, must be {expected} "
                f"({rules.players} × {rules.start}); {how}",
                total=total,
                expected=expected,
                difference=off,
            )
    for i, name in enumerate(game.chombo):
        if name not in names:
            c.add(f"chombo[{i}]", errors.NOT_AT_TABLE, f"{name!r} is not at the table", name=name)
    for i, ev in enumerate(game.chips):
        _check_chip(c, f"chips[{i}]", rules, ev, names)
    if game.rate is not None and game.rate not in rules.rates:
        known = ", ".join(rules.rates) or "none"
        c.add(
            "rate",
            errors.UNKNOWN_RATE,
            f"the rules have no rate {game.rate!r} (they have: {known})",
            rate=game.rate,
        )
    return c.problems


def _check_points(c: Collector, path: str, value: object, *, allow_negative: bool) -> bool:
    if not isinstance(value, int) or isinstance(value, bool):
        c.add(path, errors.TYPE, "points must be integers in 100s")
        return False
    low = -MAX_POINTS if allow_negative else 0
    if not low <= value <= MAX_POINTS:
        c.add(path, errors.RANGE, f"must be from {low} to {MAX_POINTS}", low=low, high=MAX_POINTS)
        return False
    if value % 100:
        c.add(path, errors.MULTIPLE_OF_100, f"points must be integers in 100s (got {value})")
        return False
    return True


def _check_chip(c: Collector, path: str, rules: Rules, ev: ChipEvent, names: set[str]) -> None:
    if ev.kind not in rules.chips:
        known = ", ".join(rules.chips) or "none"
        c.add(
            f"{path}.kind",
            errors.UNKNOWN_CHIP,
            f"the rules have no chip kind {ev.kind!r} (they have: {known})",
            kind=ev.kind,
        )
    if ev.winner not in names:
        c.add(f"{path}.winner", errors.NOT_AT_TABLE, f"{ev.winner!r} is not at the table")
    if ev.discarder is not None:
        if ev.discarder not in names:
            c.add(f"{path}.from", errors.NOT_AT_TABLE, f"{ev.discarder!r} is not at the table")
        elif ev.discarder == ev.winner:
            c.add(f"{path}.from", errors.SELF_DEAL_IN, "the winner cannot pay themself")
    m = ev.multiplier
    if not isinstance(m, int) or isinstance(m, bool) or not 1 <= m <= 100:
        c.add(
            f"{path}.multiplier", errors.RANGE, "must be an integer from 1 to 100", low=1, high=100
        )


def settle_game(rules: Rules, game: Game) -> GameResult:
    """Settle one game; raises InputError naming every bad field, and settles nothing then."""
    problems = check_game(rules, game)
    if problems:
        raise InputError(problems)
    seats = game.seats
    n = len(seats)
    points = [s.points for s in seats]
    ranks = _ranks(points, rules.ties)
    order = sorted(range(n), key=lambda i: (-points[i], i))
    tops = [i for i in range(n) if ranks[i] == 1]

    uma = _uma_shares(rules, points, order)
    ret = rules.return_points // 100
    floor = rules.below_zero == "floor"
    scores = [0] * n
    for i in range(n):
        if ranks[i] != 1:
            p = points[i]
            scores[i] = rounded_tenths(0 if floor and p < 0 else p, rules.rounding) - ret + uma[i]
    # T of step 5: the top absorbs oka and every rounding remainder.
    table_total = 0 if rules.deposits == "top" else -(game.deposits // 100)
    top_total = table_total - sum(scores)
    for i, share in zip(tops, divide(top_total, len(tops)), strict=True):
        scores[i] = share

    chombo_counts = Counter(game.chombo)
    total = table_total - _apply_chombo(rules, seats, chombo_counts, tops, scores)
    chips = _chips(rules, game)

    tier = rules.rates[game.rate] if game.rate is not None else None
    players = tuple(
        PlayerResult(
            name=seats[i].name,
            points=points[i],
            rank=ranks[i],
            score=scores[i],
            chips=chips[i],
            yen=None
            if tier is None
            else round_half_away(scores[i] * tier.yen_per_1000, 10) + chips[i] * tier.chip_yen,
            chombo=chombo_counts.get(seats[i].name, 0),
        )
        for i in range(n)
    )
    return GameResult(players=players, total_score=total, deposits=game.deposits, rate=game.rate)


def _ranks(points: Sequence[int], ties: str) -> list[int]:
    n = len(points)
    ranks = [0] * n
    order = sorted(range(n), key=lambda i: (-points[i], i))
    for position, i in enumerate(order):
        if ties == "split" and position and points[order[position - 1]] == points[i]:
            ranks[i] = ranks[order[position - 1]]
        else:
            ranks[i] = position + 1
    return ranks


def _uma_shares(rules: Rules, points: Sequence[int], order: Sequence[int]) -> list[int]:
    """Each player's uma in tenths; tied players under `split` share the uma of the ranks they span."""
    shares = [0] * len(points)
    if rules.ties == "seat":
        for position, i in enumerate(order):
            shares[i] = rules.uma[position] * 10
        return shares
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and points[order[end + 1]] == points[order[start]]:
            end += 1
        group = order[start : end + 1]  # already in seat order: the sort key breaks ties by seat
        pooled = sum(rules.uma[start : end + 1]) * 10
        for i, share in zip(group, divide(pooled, len(group)), strict=True):
            shares[i] = share
        start = end + 1
    return shares


def _apply_chombo(
    rules: Rules,
    seats: Sequence[Seat],
    counts: Counter[str],
    tops: Sequence[int],
    scores: list[int],
) -> int:
    """Adjust `scores` for chombo after the game; returns what left the table (penalties)."""
    rule = rules.chombo
    if rule.mode == "none" or not counts:
        return 0
    n = len(seats)
    removed = 0
    for i, seat in enumerate(seats):
        for _ in range(counts.get(seat.name, 0)):
            others = [j for j in range(n) if j != i]
            if rule.mode == "penalty":
                scores[i] -= rule.points * 10
                removed += rule.points * 10
            elif rule.mode == "pay_each":
                scores[i] -= rule.points * 10 * len(others)
                for j in others:
                    scores[j] += rule.points * 10
            elif i in tops:  # pay_top, the top's own chombo: Q split among the others
                scores[i] -= rule.top_points * 10
                for j, share in zip(others, divide(rule.top_points * 10, len(others)), strict=True):
                    scores[j] += share
            else:  # pay_top: P to the top (shared when tops are tied under `split`)
                scores[i] -= rule.points * 10
                for j, share in zip(tops, divide(rule.points * 10, len(tops)), strict=True):
                    scores[j] += share
    return removed


def _chips(rules: Rules, game: Game) -> list[int]:
    index = {s.name: i for i, s in enumerate(game.seats)}
    n = len(game.seats)
    net = [0] * n
    for ev in game.chips:
        kind = rules.chips[ev.kind]
        w = index[ev.winner]
        if ev.discarder is None:
            each = kind.tsumo * ev.multiplier
            for j in range(n):
                if j != w:
                    net[j] -= each
                    net[w] += each
        else:
            net[index[ev.discarder]] -= kind.ron * ev.multiplier
            net[w] += kind.ron * ev.multiplier
    return net
