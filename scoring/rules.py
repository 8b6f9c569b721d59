"""A club's settlement rules as one immutable value, checked when it is made.

Units: `start`, `return_points` in points; `uma`, chombo `points`/`top_points` in units of 1,000
points (so `uma=(10, 5, -5, -10)` is "5-10"); yen everywhere else.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from . import errors
from .errors import Collector

ROUNDINGS = ("none", "gosha-rokunyu", "shisha-gonyu", "kirisute", "kiriage", "toward-return")
ROUNDING_NEGATIVE = ("magnitude", "number-line")
OKA = ("top", "house")
BUST_TO = ("buster", "top")
YAKITORI_MODES = ("penalty", "pay_each", "pay_top")
TIES = ("seat", "split")
DEPOSITS = ("top", "house")
BELOW_ZERO = ("settle", "floor")
CHOMBO_MODES = ("none", "penalty", "pay_top", "pay_each")
PLAYER_COUNTS = (3, 4)

MAX_POINTS = 10_000_000  # no real game comes near; keeps every stored number far inside 32 bits
MAX_YEN = 100_000_000
# A rate's yen per 1,000 points and per chip: 10,000 is far beyond any club, and keeps the yen of
# the largest legal game (±10,000,000 points) inside a 32-bit yen column; 100,000,000 overflowed it.
MAX_RATE_YEN = 10_000
MAX_UNITS = 1_000  # uma and chombo, in thousands of points


@dataclass(frozen=True, slots=True)
class ChomboRule:
    """How a chombo is settled after the game (settlement.md, step 6)."""

    mode: str = "none"
    points: int = 0  # P (penalty, pay_top) or X (pay_each), in thousands of points
    top_points: int = 0  # Q (pay_top only)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode}
        if self.mode != "none":
            out["points"] = self.points
        if self.mode == "pay_top":
            out["top_points"] = self.top_points
        return out


@dataclass(frozen=True, slots=True)
class FloatingUma:
    """浮きウマ (日本プロ麻雀連盟): the uma list is chosen by how many players finished at or above
    `line` (浮き). A count missing from `by_floating` uses the rules' `uma` (the default), and with
    no default (`uma` empty) that game cannot be settled."""

    line: int  # points
    by_floating: Mapping[int, tuple[int, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        frozen = {k: tuple(v) for k, v in dict(self.by_floating).items()}
        object.__setattr__(self, "by_floating", MappingProxyType(frozen))

    def __hash__(self) -> int:
        return hash((self.line, tuple(sorted(self.by_floating.items()))))


@dataclass(frozen=True, slots=True)
class BustBonus:
    """飛び賞: each busted player pays `points` (thousands) to their buster or to the top."""

    points: int
    to: str = "buster"
    at_zero: bool = False  # exactly 0 points counts as busted too

    def to_json(self) -> dict[str, Any]:
        return {"points": self.points, "to": self.to, "at_zero": self.at_zero}


@dataclass(frozen=True, slots=True)
class Yakitori:
    """焼き鳥 (won no hand all game): a penalty, or `points` paid to each other or to the top."""

    mode: str
    points: int

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "points": self.points}


@dataclass(frozen=True, slots=True)
class ChipKind:
    tsumo: int  # chips from each other player on a tsumo
    ron: int  # chips from the discarder on a ron


@dataclass(frozen=True, slots=True)
class RateTier:
    yen_per_1000: int  # yen per 1,000 points ("0.3" = 30)
    chip_yen: int  # yen per chip


def _frozen(mapping: Mapping[Any, Any] | None) -> Mapping[Any, Any]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class Rules:
    players: int
    start: int
    return_points: int
    rounding: str
    uma: tuple[int, ...]
    ties: str = "seat"
    deposits: str = "top"
    below_zero: str = "settle"
    chombo: ChomboRule = ChomboRule()
    chips: Mapping[str, ChipKind] = field(default_factory=dict)
    rates: Mapping[str, RateTier] = field(default_factory=dict)
    place_fees: Mapping[int, int] = field(default_factory=dict)  # rank -> yen paid to the club
    session_shugi: int = 0  # yen each other attendee pays a yakuman winner, per multiplier
    yen_unit: int = 1
    surcharge_percent: int = 0
    prize_cap: int | None = None
    # Version 2 (settlement.md, "Rule variants that clubs and peers use"); the defaults are the
    # rules as they were before.
    floating: FloatingUma | None = None  # with it, `uma` is the default list (may be empty)
    rounding_negative: str = "magnitude"
    oka: str = "top"
    bust_bonus: BustBonus | None = None
    yakitori: Yakitori | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "uma", tuple(self.uma))
        for name in ("chips", "rates", "place_fees"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        problems = Collector()
        _check(self, problems)
        problems.raise_if_any()

    def __hash__(self) -> int:
        return hash(repr(self.to_json()))

    @property
    def oka_tenths(self) -> int:
        return (self.return_points - self.start) * self.players // 100

    def uma_for(self, floating_count: int) -> tuple[int, ...] | None:
        """The uma list of a game in which `floating_count` players ended at or above the
        floating line (the fixed list without floating uma); None: the rules have none."""
        if self.floating is None:
            return self.uma
        return self.floating.by_floating.get(floating_count) or self.uma or None

    @property
    def has_money(self) -> bool:
        return bool(self.rates or self.place_fees or self.session_shugi)

    def to_json(self) -> dict[str, Any]:
        """The full rules object of settlement.md's contract; `parse.rules_from_json` reads it back."""
        return {
            "players": self.players,
            "start": self.start,
            "return": self.return_points,
            "rounding": self.rounding,
            "uma": self._uma_json(),
            "ties": self.ties,
            "deposits": self.deposits,
            "below_zero": self.below_zero,
            "chombo": self.chombo.to_json(),
            "chips": {k: {"tsumo": v.tsumo, "ron": v.ron} for k, v in self.chips.items()},
            "rates": {
                k: {"yen_per_1000": v.yen_per_1000, "chip_yen": v.chip_yen}
                for k, v in self.rates.items()
            },
            "place_fees": {str(k): v for k, v in sorted(self.place_fees.items())},
            "session_shugi": self.session_shugi,
            "yen_unit": self.yen_unit,
            "surcharge_percent": self.surcharge_percent,
            "prize_cap": self.prize_cap,
            **self._v2_json(),
        }

    def _uma_json(self) -> list[int] | dict[str, Any]:
        if self.floating is None:
            return list(self.uma)
        table: dict[str, Any] = {
            "floating_line": self.floating.line,
            "by_floating": {str(k): list(v) for k, v in sorted(self.floating.by_floating.items())},
        }
        if self.uma:
            table["default"] = list(self.uma)
        return table

    def _v2_json(self) -> dict[str, Any]:
        """The version-2 fields, each only when it is not its default: a rules object without
        them means what it meant before they existed."""
        out: dict[str, Any] = {}
        if self.rounding_negative != "magnitude":
            out["rounding_negative"] = self.rounding_negative
        if self.oka != "top":
            out["oka"] = self.oka
        if self.bust_bonus is not None:
            out["bust_bonus"] = self.bust_bonus.to_json()
        if self.yakitori is not None:
            out["yakitori"] = self.yakitori.to_json()
        return out


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_in(c: Collector, path: str, value: object, low: int, high: int) -> bool:
    if not _is_int(value):
        c.add(path, errors.TYPE, "must be an integer")
        return False
    if not low <= value <= high:  # type: ignore[operator]
        c.add(path, errors.RANGE, f"must be from {low} to {high}", low=low, high=high)
        return False
    return True


def _choice(c: Collector, path: str, value: object, allowed: tuple[Any, ...]) -> bool:
    if value not in allowed:
        shown = ", ".join(str(a) for a in allowed)
        c.add(path, errors.CHOICE, f"must be one of {shown}", allowed=list(allowed))
        return False
    return True


def _check(r: Rules, c: Collector) -> None:
    players_ok = _is_int(r.players) and _choice(c, "players", r.players, PLAYER_COUNTS)
    if not _is_int(r.players):
        c.add("players", errors.TYPE, "must be an integer")
    if _int_in(c, "start", r.start, 100, MAX_POINTS) and r.start % 100:
        c.add("start", errors.MULTIPLE_OF_100, "must be a multiple of 100")
    if _int_in(c, "return", r.return_points, 0, MAX_POINTS) and r.return_points % 100:
        c.add("return", errors.MULTIPLE_OF_100, "must be a multiple of 100")
    _choice(c, "rounding", r.rounding, ROUNDINGS)
    _choice(c, "ties", r.ties, TIES)
    _choice(c, "deposits", r.deposits, DEPOSITS)
    _choice(c, "below_zero", r.below_zero, BELOW_ZERO)
    if r.floating is None or r.uma:
        path = "uma" if r.floating is None else "uma.default"
        _check_uma_list(c, path, r.uma, r.players if players_ok else None)
    if r.floating is not None:
        _check_floating(c, r, players_ok)
    _choice(c, "rounding_negative", r.rounding_negative, ROUNDING_NEGATIVE)
    _choice(c, "oka", r.oka, OKA)
    _check_bust_bonus(c, r.bust_bonus)
    _check_yakitori(c, r.yakitori)
    _check_chombo(r, c, players_ok)
    for name, kind in r.chips.items():
        if not isinstance(name, str) or not name:
            c.add("chips", errors.TYPE, "chip kind names must be non-empty strings")
        _int_in(c, f"chips.{name}.tsumo", kind.tsumo, 0, MAX_UNITS)
        _int_in(c, f"chips.{name}.ron", kind.ron, 0, MAX_UNITS)
    for name, tier in r.rates.items():
        if not isinstance(name, str) or not name:
            c.add("rates", errors.TYPE, "rate names must be non-empty strings")
        _int_in(c, f"rates.{name}.yen_per_1000", tier.yen_per_1000, 0, MAX_RATE_YEN)
        _int_in(c, f"rates.{name}.chip_yen", tier.chip_yen, 0, MAX_RATE_YEN)
    for rank, fee in r.place_fees.items():
        if players_ok and _int_in(c, "place_fees", rank, 1, r.players):
            _int_in(c, f"place_fees.{rank}", fee, 0, MAX_YEN)
    _int_in(c, "session_shugi", r.session_shugi, 0, MAX_YEN)
    _int_in(c, "yen_unit", r.yen_unit, 1, 10_000)
    _int_in(c, "surcharge_percent", r.surcharge_percent, 0, 1_000)
    if r.prize_cap is not None:
        _int_in(c, "prize_cap", r.prize_cap, 0, MAX_YEN)


def _check_uma_list(c: Collector, path: str, uma: tuple[int, ...], players: int | None) -> None:
    if not all(_int_in(c, f"{path}[{i}]", u, -MAX_UNITS, MAX_UNITS) for i, u in enumerate(uma)):
        return
    if players is not None and len(uma) != players:
        c.add(
            path,
            errors.UMA_LENGTH,
            f"needs {players} values, one per rank (got {len(uma)})",
            expected=players,
            got=len(uma),
        )
    elif sum(uma):
        c.add(path, errors.UMA_SUM, f"must sum to 0 (sums to {sum(uma)})", got=sum(uma))
    elif any(a < b for a, b in itertools.pairwise(uma)):
        c.add(path, errors.UMA_ORDER, "must not rise from one rank to the next")


def _check_floating(c: Collector, r: Rules, players_ok: bool) -> None:
    fl = r.floating
    assert fl is not None
    if _int_in(c, "uma.floating_line", fl.line, 0, MAX_POINTS) and fl.line % 100:
        c.add("uma.floating_line", errors.MULTIPLE_OF_100, "must be a multiple of 100")
    for count, uma in fl.by_floating.items():
        top = r.players if players_ok else max(PLAYER_COUNTS)
        if _int_in(c, "uma.by_floating", count, 0, top):
            _check_uma_list(c, f"uma.by_floating.{count}", uma, r.players if players_ok else None)


def _check_bust_bonus(c: Collector, bust: BustBonus | None) -> None:
    if bust is None:
        return
    if not isinstance(bust, BustBonus):
        c.add("bust_bonus", errors.TYPE, "must be a bust bonus")
        return
    _int_in(c, "bust_bonus.points", bust.points, 1, MAX_UNITS)
    _choice(c, "bust_bonus.to", bust.to, BUST_TO)
    if not isinstance(bust.at_zero, bool):
        c.add("bust_bonus.at_zero", errors.TYPE, "must be true or false")


def _check_yakitori(c: Collector, yakitori: Yakitori | None) -> None:
    if yakitori is None:
        return
    if not isinstance(yakitori, Yakitori):
        c.add("yakitori", errors.TYPE, "must be a yakitori rule")
        return
    _choice(c, "yakitori.mode", yakitori.mode, YAKITORI_MODES)
    _int_in(c, "yakitori.points", yakitori.points, 1, MAX_UNITS)


def _check_chombo(r: Rules, c: Collector, players_ok: bool) -> None:
    ch = r.chombo
    if not isinstance(ch, ChomboRule):
        c.add("chombo", errors.TYPE, "must be a chombo rule")
        return
    if not _choice(c, "chombo.mode", ch.mode, CHOMBO_MODES):
        return
    if ch.mode == "none":
        return
    _int_in(c, "chombo.points", ch.points, 1, MAX_UNITS)
    if ch.mode == "pay_top" and _int_in(c, "chombo.top_points", ch.top_points, 1, MAX_UNITS):
        others = r.players - 1 if players_ok else 0
        if others and (ch.top_points * 10) % others:
            c.add(
                "chombo.top_points",
                errors.INDIVISIBLE,
                f"{ch.top_points} cannot be split equally in tenths among the {others} others",
                others=others,
            )
