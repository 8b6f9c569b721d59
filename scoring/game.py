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
class Bust:
    player: str  # ended below zero (or at zero, when the rules count that)
    by: str | None = None  # who busted them (needed when 飛び賞 goes to the buster)


@dataclass(frozen=True, slots=True)
class Game:
    seats: tuple[Seat, ...]  # seat order from 起家
    deposits: int = 0  # 供託 left on the table, in points
    chombo: tuple[str, ...] = ()  # one name per chombo
    chips: tuple[ChipEvent, ...] = ()
    rate: str | None = None  # a key of rules.rates, or None for no money
    busts: tuple[Bust, ...] | None = None  # None: not given (飛び賞 to the top finds them)
    yakitori: tuple[str, ...] = ()  # players who won no hand all game


@dataclass(frozen=True, slots=True)
class ScoreParts:
    """How one player's score came about, step by step, so that a person can check it by hand.

    Every part is in tenths of 1,000 points and the parts add up to the score:
    rounded + returned + uma + oka + deposits + adjustment + chombo + bust_bonus + yakitori.
    `settled_points` is what the rounding started from: the final points, or 0 for a player
    below zero when the rules settle 箱下 as 0.
    """

    settled_points: int  # points
    rounded: int  # R(settled points)
    returned: int  # minus the return points
    uma: int
    oka: int  # the top's oka (0 for the others, and for everyone when it goes to the house)
    deposits: int  # deposits left on the table, when they go to the top
    adjustment: int  # what the top absorbs so the table adds up (rounding, 箱下 not paid)
    chombo: int
    bust_bonus: int  # 飛び賞 received (+) or paid (−)
    yakitori: int  # 焼き鳥 received (+) or paid (−)

    @property
    def score(self) -> int:
        return (
            self.rounded
            + self.returned
            + self.uma
            + self.oka
            + self.deposits
            + self.adjustment
            + self.chombo
            + self.bust_bonus
            + self.yakitori
        )


@dataclass(frozen=True, slots=True)
class PlayerResult:
    name: str
    points: int
    rank: int
    score: int  # tenths of 1,000 points
    chips: int
    yen: int | None  # None when the game is not played at a rate
    chombo: int  # how many chombo this player committed
    parts: ScoreParts | None = None  # how the score came about (None for a stored result)
    busted_by: str | None = None  # 飛び: who busted this player, when given
    yakitori: bool = False


@dataclass(frozen=True, slots=True)
class GameResult:
    """A settled game. It refuses to exist if its numbers do not add up."""

    players: tuple[PlayerResult, ...]
    total_score: int  # what the scores must sum to: T minus penalty chombo
    deposits: int
    rate: str | None

    def __post_init__(self) -> None:
        total = chips = 0
        yen_given = 0
        for p in self.players:
            total += p.score
            chips += p.chips
            yen_given += p.yen is not None
            if p.parts is not None and p.parts.score != p.score:
                raise ValueError("a player's score parts do not add up to the score")
        if total != self.total_score:
            raise ValueError("scores do not sum to the game's total")
        if chips != 0:
            raise ValueError("chips do not sum to zero")
        if yen_given != (0 if self.rate is None else len(self.players)):
            raise ValueError("yen must be given for every player or for none")
        # Ranks follow points: whoever has more points has a better (smaller) rank. Going down
        # by points, each player's rank must be worse than every rank of higher points.
        by_points = sorted(self.players, key=lambda p: -p.points)
        worst_above = 0  # the worst rank among strictly higher points
        group_points, group_worst = None, 0
        for p in by_points:
            if p.points != group_points:
                worst_above = max(worst_above, group_worst)
                group_points, group_worst = p.points, 0
            if p.rank <= worst_above:
                raise ValueError("ranks do not follow points")
            group_worst = max(group_worst, p.rank)

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


def rounded_tenths(
    points: int, rounding: str, *, negative: str = "magnitude", return_points: int = 0
) -> int:
    """R(points) of settlement.md step 4, in tenths of 1,000 points.

    `negative="magnitude"` rounds the magnitude and restores the sign; "number-line" rounds the
    signed value (切り捨て = floor, 切り上げ = ceiling, 四捨五入 = floor(v + 0.5), 五捨六入 =
    floor(v + 0.4), v in thousands). "toward-return" (原点基準) is return + (points − return)
    rounded toward zero to whole thousands, whatever `negative` says.
    """
    if rounding == "none":
        return points // 100 if points >= 0 else -(-points // 100)
    if rounding == "toward-return":
        off = points - return_points
        thousands = off // 1000 if off >= 0 else -(-off // 1000)
        return return_points // 100 + thousands * 10
    if negative == "number-line":
        up = NUMBER_LINE_UP.get(rounding)
        if up is None:
            raise ValueError(f"unknown rounding {rounding!r}")
        return ((points + up) // 1000) * 10
    magnitude = -points if points < 0 else points
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


# Number-line rounding of points p to thousands: floor((p + up) / 1000). Points are whole
# hundreds, so 切り上げ (ceiling) is floor((p + 900) / 1000).
NUMBER_LINE_UP = {"kirisute": 0, "kiriage": 900, "shisha-gonyu": 500, "gosha-rokunyu": 400}


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
    if points_ok and n == rules.players:
        if rules.floating is not None:
            floating = sum(s.points >= rules.floating.line for s in seats)
            if rules.uma_for(floating) is None:
                c.add(
                    "uma",
                    errors.NO_UMA,
                    f"the rules have no uma for {floating} floating players and no default",
                    floating=floating,
                )
        _check_busts(c, rules, game, names)
    _check_yakitori(c, rules, game, names)
    return c.problems


def busted(rules: Rules, points: int) -> bool:
    """Does a player with these final points pay 飛び賞 (below zero; at zero when the rules say)?"""
    bust = rules.bust_bonus
    return points < 0 or (points == 0 and bust is not None and bust.at_zero)


def _check_busts(c: Collector, rules: Rules, game: Game, names: set[str]) -> None:
    bust = rules.bust_bonus
    if game.busts is None:
        if bust is not None and bust.to == "buster":
            out = [s.name for s in game.seats if busted(rules, s.points)]
            if out:
                c.add(
                    "busts",
                    errors.BUSTS,
                    f"busts missing: who busted {', '.join(out)}? (飛び賞 goes to the buster)",
                    players=out,
                )
        return
    if bust is None:
        c.add("busts", errors.NOT_IN_RULES, "busts without rule: these rules have no 飛び賞")
        return
    points = {s.name: s.points for s in game.seats}
    listed: set[str] = set()
    for i, b in enumerate(game.busts):
        path = f"busts[{i}]"
        if b.player not in points:
            c.add(f"{path}.player", errors.NOT_AT_TABLE, f"{b.player!r} is not at the table")
            continue
        if b.player in listed:
            c.add(f"{path}.player", errors.DUPLICATE_NAME, f"{b.player} is listed twice")
        listed.add(b.player)
        if not busted(rules, points[b.player]):
            c.add(f"{path}.player", errors.BUSTS, f"{b.player} is not busted (points above zero)")
        if b.by is None:
            if bust.to == "buster":
                c.add(f"{path}.by", errors.REQUIRED, f"who busted {b.player} is required")
        elif b.by not in names:
            c.add(f"{path}.by", errors.NOT_AT_TABLE, f"{b.by!r} is not at the table")
        elif b.by == b.player:
            c.add(f"{path}.by", errors.SELF_DEAL_IN, "a player cannot bust themself")
    missing = [s.name for s in game.seats if busted(rules, s.points) and s.name not in listed]
    if missing:
        c.add(
            "busts",
            errors.BUSTS,
            f"busts missing: {', '.join(missing)} ended below zero but is not listed",
            players=missing,
        )


def _check_yakitori(c: Collector, rules: Rules, game: Game, names: set[str]) -> None:
    if not game.yakitori:
        return
    if rules.yakitori is None:
        c.add("yakitori", errors.NOT_IN_RULES, "yakitori without rule: these rules have no 焼き鳥")
        return
    seen: set[str] = set()
    for i, name in enumerate(game.yakitori):
        if name not in names:
            c.add(f"yakitori[{i}]", errors.NOT_AT_TABLE, f"{name!r} is not at the table")
        elif name in seen:
            c.add(f"yakitori[{i}]", errors.DUPLICATE_NAME, f"{name} is listed twice")
        seen.add(name)


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


def _plainly_valid(rules: Rules, game: Game) -> bool:
    """True only for a game that check_game would find nothing wrong with, decided cheaply: the
    usual game (distinct names, whole-hundred points in range that add up, no chombo, chips,
    busts or 焼き鳥, a known rate) under rules without floating uma or 飛び賞. False means "look
    closely", not "invalid"."""
    if game.chombo or game.chips or game.busts is not None or game.yakitori:
        return False
    if rules.floating is not None or rules.bust_bonus is not None:
        return False
    seats = game.seats
    if len(seats) != rules.players or (game.rate is not None and game.rate not in rules.rates):
        return False
    deposits = game.deposits
    if type(deposits) is not int or not 0 <= deposits <= MAX_POINTS or deposits % 100:
        return False
    total = deposits
    names = set()
    for seat in seats:
        p, name = seat.points, seat.name
        if type(p) is not int or not -MAX_POINTS <= p <= MAX_POINTS or p % 100:
            return False
        if type(name) is not str or not name.strip():
            return False
        names.add(name)
        total += p
    return len(names) == len(seats) and total == rules.players * rules.start


def settle_game(rules: Rules, game: Game) -> GameResult:
    """Settle one game; raises InputError naming every bad field, and settles nothing then."""
    if not _plainly_valid(rules, game):
        problems = check_game(rules, game)
        if problems:
            raise InputError(problems)
    seats = game.seats
    n = len(seats)
    points = [s.points for s in seats]
    ranks = _ranks(points, rules.ties)
    order = sorted(range(n), key=lambda i: (-points[i], i))
    tops = [i for i in range(n) if ranks[i] == 1]

    floating = 0 if rules.floating is None else sum(p >= rules.floating.line for p in points)
    uma_list = rules.uma_for(floating)
    assert uma_list is not None  # check_game refuses a game without one
    uma = _uma_shares(uma_list, rules.ties, points, order)
    ret = rules.return_points // 100
    floor = rules.below_zero == "floor"
    settled = [0 if floor and p < 0 else p for p in points]
    if rules.rounding == "none":  # exact to the hundred: rounded_tenths' first case, inline
        rounded = [p // 100 if p >= 0 else -(-p // 100) for p in settled]
    else:
        rounded = [
            rounded_tenths(
                p,
                rules.rounding,
                negative=rules.rounding_negative,
                return_points=rules.return_points,
            )
            for p in settled
        ]
    scores = [0] * n
    for i in range(n):
        if ranks[i] != 1:
            scores[i] = rounded[i] - ret + uma[i]
    # T of step 5: the top absorbs oka and every rounding remainder. With the oka to the house,
    # T is lowered by it and the top scores like everyone else.
    deposits_to_table = 0 if rules.deposits == "top" else -(game.deposits // 100)
    table_total = deposits_to_table - (rules.oka_tenths if rules.oka == "house" else 0)
    top_total = table_total - sum(scores)
    for i, share in zip(tops, divide(top_total, len(tops)), strict=True):
        scores[i] = share
    base = list(scores)

    chombo_counts = Counter(game.chombo) if game.chombo else Counter()
    removed = _apply_chombo(rules, seats, chombo_counts, tops, scores)
    after_chombo = list(scores)
    busted_by = _apply_bust_bonus(rules, game, tops, scores)
    after_busts = list(scores)
    removed += _apply_yakitori(rules, game, tops, scores)
    total = table_total - removed
    chips = _chips(rules, game)
    parts = _parts(
        rules, game, settled, rounded, uma, tops, base, after_chombo, after_busts, scores
    )

    tier = rules.rates[game.rate] if game.rate is not None else None
    yakitori = set(game.yakitori)
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
            parts=parts[i],
            busted_by=busted_by.get(seats[i].name),
            yakitori=seats[i].name in yakitori,
        )
        for i in range(n)
    )
    return GameResult(players=players, total_score=total, deposits=game.deposits, rate=game.rate)


def _parts(
    rules: Rules,
    game: Game,
    settled: Sequence[int],
    rounded: Sequence[int],
    uma: Sequence[int],
    tops: Sequence[int],
    base: Sequence[int],
    after_chombo: Sequence[int],
    after_busts: Sequence[int],
    final: Sequence[int],
) -> list[ScoreParts]:
    """Each player's score as its steps; the top's oka and deposits are shared like its score."""
    n = len(settled)
    ret = rules.return_points // 100
    oka = [0] * n
    deposits = [0] * n
    if rules.oka == "top":
        for i, share in zip(tops, divide(rules.oka_tenths, len(tops)), strict=True):
            oka[i] = share
    if rules.deposits == "top":
        for i, share in zip(tops, divide(game.deposits // 100, len(tops)), strict=True):
            deposits[i] = share
    parts = []
    for i in range(n):
        steps = rounded[i] - ret + uma[i] + oka[i] + deposits[i]
        parts.append(
            ScoreParts(
                settled_points=settled[i],
                rounded=rounded[i],
                returned=-ret,
                uma=uma[i],
                oka=oka[i],
                deposits=deposits[i],
                adjustment=base[i] - steps,
                chombo=after_chombo[i] - base[i],
                bust_bonus=after_busts[i] - after_chombo[i],
                yakitori=final[i] - after_busts[i],
            )
        )
    return parts


def _apply_bust_bonus(
    rules: Rules, game: Game, tops: Sequence[int], scores: list[int]
) -> dict[str, str]:
    """飛び賞: each busted player pays P to their buster, or to the top (tied tops share it).
    Returns who busted whom, as given."""
    bust = rules.bust_bonus
    given = {b.player: b.by for b in game.busts or () if b.by is not None}
    if bust is None:
        return given
    index = {s.name: i for i, s in enumerate(game.seats)}
    amount = bust.points * 10
    for i, seat in enumerate(game.seats):
        if not busted(rules, seat.points):
            continue
        scores[i] -= amount
        if bust.to == "buster":
            scores[index[given[seat.name]]] += amount
        else:
            for j, share in zip(tops, divide(amount, len(tops)), strict=True):
                scores[j] += share
    return given


def _apply_yakitori(rules: Rules, game: Game, tops: Sequence[int], scores: list[int]) -> int:
    """焼き鳥; returns what left the table (the penalty mode's points, received by nobody)."""
    rule = rules.yakitori
    if rule is None or not game.yakitori:
        return 0
    index = {s.name: i for i, s in enumerate(game.seats)}
    birds = {index[name] for name in game.yakitori}
    amount = rule.points * 10
    removed = 0
    for i in sorted(birds):
        if rule.mode == "penalty":
            scores[i] -= amount
            removed += amount
        elif rule.mode == "pay_each":
            for j in range(len(scores)):
                if j not in birds:
                    scores[i] -= amount
                    scores[j] += amount
        elif i not in tops:  # pay_top; a yakitori top pays nothing
            scores[i] -= amount
            for j, share in zip(tops, divide(amount, len(tops)), strict=True):
                scores[j] += share
    return removed


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


def _uma_shares(
    uma: Sequence[int], ties: str, points: Sequence[int], order: Sequence[int]
) -> list[int]:
    """Each player's uma in tenths; tied players under `split` share the uma of the ranks they span."""
    shares = [0] * len(points)
    if ties == "seat":
        for position, i in enumerate(order):
            shares[i] = uma[position] * 10
        return shares
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and points[order[end + 1]] == points[order[start]]:
            end += 1
        group = order[start : end + 1]  # already in seat order: the sort key breaks ties by seat
        pooled = sum(uma[start : end + 1]) * 10
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
