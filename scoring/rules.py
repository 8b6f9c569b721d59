"""A club's settlement rules as one immutable value, checked when it is made.

Units: `start`, `return_points` in points; `uma`, chombo `points`/`top_points` in units of 1,000
points (so `uma=(10, 5, -5, -10)` is "5-10"); yen everywhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from . import errors
from .errors import Collector

ROUNDINGS = ("none", "gosha-rokunyu", "shisha-gonyu", "kirisute", "kiriage")
TIES = ("seat", "split")
DEPOSITS = ("top", "house")
BELOW_ZERO = ("settle", "floor")
CHOMBO_MODES = ("none", "penalty", "pay_top", "pay_each")
PLAYER_COUNTS = (3, 4)

MAX_POINTS = 10_000_000  # no real game comes near; keeps every stored number far inside 32 bits
MAX_YEN = 100_000_000
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
            "uma": list(self.uma),
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
        }


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
    if all(_int_in(c, f"uma[{i}]", u, -MAX_UNITS, MAX_UNITS) for i, u in enumerate(r.uma)):
        if players_ok and len(r.uma) != r.players:
            c.add(
                "uma",
                errors.UMA_LENGTH,
                f"needs {r.players} values, one per rank (got {len(r.uma)})",
                expected=r.players,
                got=len(r.uma),
            )
        elif sum(r.uma):
            c.add("uma", errors.UMA_SUM, f"must sum to 0 (sums to {sum(r.uma)})", got=sum(r.uma))
        elif any(a < b for a, b in zip(r.uma, r.uma[1:], strict=False)):
            c.add("uma", errors.UMA_ORDER, "must not rise from one rank to the next")
    _check_chombo(r, c, players_ok)
    for name, kind in r.chips.items():
        if not isinstance(name, str) or not name:
            c.add("chips", errors.TYPE, "chip kind names must be non-empty strings")
        _int_in(c, f"chips.{name}.tsumo", kind.tsumo, 0, MAX_UNITS)
        _int_in(c, f"chips.{name}.ron", kind.ron, 0, MAX_UNITS)
    for name, tier in r.rates.items():
        if not isinstance(name, str) or not name:
            c.add("rates", errors.TYPE, "rate names must be non-empty strings")
        _int_in(c, f"rates.{name}.yen_per_1000", tier.yen_per_1000, 0, MAX_YEN)
        _int_in(c, f"rates.{name}.chip_yen", tier.chip_yen, 0, MAX_YEN)
    for rank, fee in r.place_fees.items():
        if players_ok and _int_in(c, "place_fees", rank, 1, r.players):
            _int_in(c, f"place_fees.{rank}", fee, 0, MAX_YEN)
    _int_in(c, "session_shugi", r.session_shugi, 0, MAX_YEN)
    _int_in(c, "yen_unit", r.yen_unit, 1, 10_000)
    _int_in(c, "surcharge_percent", r.surcharge_percent, 0, 1_000)
    if r.prize_cap is not None:
        _int_in(c, "prize_cap", r.prize_cap, 0, MAX_YEN)


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
