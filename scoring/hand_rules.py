"""The per-hand rules of a table (docs/hands.md): one immutable value, checked when it is made.

These are the rules the hand-by-hand engine (`scoring.hands`) plays by: payments, honba, riichi
sticks, who deals next and when the game ends. They are separate from settlement's `Rules`, which
start where these end (final points, deposits, chombo).

Units: points everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from . import errors
from .errors import Collector
from .rules import MAX_POINTS, PLAYER_COUNTS

LENGTHS = ("hanchan", "tonpuu")
DRAW_RENCHAN = ("tenpai", "tenpai-from-south", "never")
KAZOE = ("yakuman", "sanbaiman")
MULTI_RON = ("atamahane", "double", "triple")
MULTI_RON_HONBA = ("first", "each")
MULTI_RON_RENCHAN = ("any", "first")
NAGASHI = ("none", "draw", "win")
ABORTIVE_KINDS = ("kyuushu", "suufon", "suucha", "suukan", "sanchahou")
ABORTIVE_DEALER = ("renchan", "rotate", "none", "dealer-claimed")
NOT_WITH_THREE = ("suufon", "suucha", "sanchahou")  # abortive draws that need four players
BUST = ("below-zero", "at-zero", "none")
HAND_CHOMBO_MODES = ("record", "mangan", "each")
PAO_YAKU = ("daisangen", "daisuushii", "suukantsu")
PAO_RON_HONBA = ("discarder", "pao", "split")
PAO_SCOPE = ("hand", "yakuman")
SANMA_TSUMO = ("loss", "split")
WINDS = 4  # 東南西北: a game never goes past the North round
MAX_YAKUMAN = 100  # far beyond any real hand; keeps every payment inside 32 bits


@dataclass(frozen=True, slots=True)
class Extension:
    """西入 (延長): play goes on past the last hand until someone has `target` points."""

    target: int
    winds: int = 1  # how many more winds may be played
    sudden_death: bool = True  # the game ends as soon as someone reaches the target

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "winds": self.winds, "sudden_death": self.sudden_death}


@dataclass(frozen=True, slots=True)
class ChomboPayment:
    """What a chombo costs at the table: nothing (`record`: settlement's chombo rule applies
    after the game), a reverse mangan (`mangan`), or `points` to each other player (`each`)."""

    mode: str = "record"
    points: int = 0  # `each` only

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode}
        if self.mode == "each":
            out["points"] = self.points
        return out


@dataclass(frozen=True)
class HandRules:
    players: int
    length: str
    start: int
    honba_ron: int
    honba_tsumo: int
    draw_pot: int
    draw_renchan: str
    kiriage: bool
    kazoe: str
    yakuman_max: int
    multi_ron: str
    multi_ron_honba: str
    multi_ron_renchan: str
    riichi_min: int | None
    nagashi: str
    abortive: Mapping[str, str]
    bust: str
    agari_yame: bool
    tenpai_yame: bool
    extension: Extension | None
    chombo: ChomboPayment
    pao: tuple[str, ...]
    pao_ron_honba: str
    pao_scope: str
    sanma_tsumo: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "abortive", MappingProxyType(dict(self.abortive)))
        object.__setattr__(self, "pao", tuple(self.pao))
        problems = Collector()
        _check(self, problems)
        problems.raise_if_any()

    def __hash__(self) -> int:
        return hash(repr(self.to_json()))

    @property
    def last_hand(self) -> int:
        """L: the index of the regular game's last hand (東4 or 南4; 東3 or 南3 for 3 players)."""
        winds = 1 if self.length == "tonpuu" else 2
        return winds * self.players - 1

    @property
    def very_last_hand(self) -> int:
        """The last hand that can ever be played: L, or the last hand of the extension."""
        if self.extension is None:
            return self.last_hand
        return self.last_hand + self.extension.winds * self.players

    def to_json(self) -> dict[str, Any]:
        """The full rules object of hands.md; `hand_rules_from_json` reads it back."""
        return {
            "players": self.players,
            "length": self.length,
            "start": self.start,
            "honba_ron": self.honba_ron,
            "honba_tsumo": self.honba_tsumo,
            "draw_pot": self.draw_pot,
            "draw_renchan": self.draw_renchan,
            "kiriage": self.kiriage,
            "kazoe": self.kazoe,
            "yakuman_max": self.yakuman_max,
            "multi_ron": self.multi_ron,
            "multi_ron_honba": self.multi_ron_honba,
            "multi_ron_renchan": self.multi_ron_renchan,
            "riichi_min": self.riichi_min,
            "nagashi": self.nagashi,
            "abortive": {kind: self.abortive[kind] for kind in ABORTIVE_KINDS},
            "bust": self.bust,
            "agari_yame": self.agari_yame,
            "tenpai_yame": self.tenpai_yame,
            "extension": None if self.extension is None else self.extension.to_json(),
            "chombo": self.chombo.to_json(),
            "pao": list(self.pao),
            "pao_ron_honba": self.pao_ron_honba,
            "pao_scope": self.pao_scope,
            "sanma_tsumo": self.sanma_tsumo,
        }


HAND_RULES_FIELDS = tuple(HandRules.__dataclass_fields__)


# --- checks ----------------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _points(c: Collector, path: str, value: object, low: int) -> bool:
    """An integer number of points from `low`, in hundreds."""
    if not _is_int(value):
        c.add(path, errors.TYPE, "must be an integer")
        return False
    if not low <= value <= MAX_POINTS:  # type: ignore[operator]
        c.add(path, errors.RANGE, f"must be from {low} to {MAX_POINTS}", low=low, high=MAX_POINTS)
        return False
    if value % 100:  # type: ignore[operator]
        c.add(path, errors.MULTIPLE_OF_100, "must be a multiple of 100")
        return False
    return True


def _choice(c: Collector, path: str, value: object, allowed: tuple[Any, ...]) -> bool:
    if isinstance(value, bool) or value not in allowed:
        shown = ", ".join(str(a) for a in allowed)
        c.add(path, errors.CHOICE, f"must be one of {shown}", allowed=list(allowed))
        return False
    return True


def _bool(c: Collector, path: str, value: object) -> None:
    if not isinstance(value, bool):
        c.add(path, errors.TYPE, "must be true or false")


def _check(r: HandRules, c: Collector) -> None:
    players_ok = _is_int(r.players) and _choice(c, "players", r.players, PLAYER_COUNTS)
    if not _is_int(r.players):
        c.add("players", errors.TYPE, "must be an integer")
    length_ok = _choice(c, "length", r.length, LENGTHS)
    _points(c, "start", r.start, 100)
    _points(c, "honba_ron", r.honba_ron, 0)
    _points(c, "honba_tsumo", r.honba_tsumo, 0)
    if _points(c, "draw_pot", r.draw_pot, 0) and players_ok:
        step = 600 if r.players == 4 else 200  # every split (pot ÷ t, pot ÷ (n − t)) in hundreds
        if r.draw_pot % step:
            c.add(
                "draw_pot",
                errors.INDIVISIBLE,
                f"must be a multiple of {step} with {r.players} players, so that every tenpai "
                "split is in hundreds",
                step=step,
            )
    _choice(c, "draw_renchan", r.draw_renchan, DRAW_RENCHAN)
    _bool(c, "kiriage", r.kiriage)
    _choice(c, "kazoe", r.kazoe, KAZOE)
    if not _is_int(r.yakuman_max):
        c.add("yakuman_max", errors.TYPE, "must be an integer")
    elif not 1 <= r.yakuman_max <= MAX_YAKUMAN:
        c.add("yakuman_max", errors.RANGE, f"must be from 1 to {MAX_YAKUMAN}", low=1)
    _choice(c, "multi_ron", r.multi_ron, MULTI_RON)
    _choice(c, "multi_ron_honba", r.multi_ron_honba, MULTI_RON_HONBA)
    _choice(c, "multi_ron_renchan", r.multi_ron_renchan, MULTI_RON_RENCHAN)
    if r.riichi_min is not None:
        if not _is_int(r.riichi_min):
            c.add("riichi_min", errors.TYPE, "must be an integer or null")
        elif not 0 <= r.riichi_min <= MAX_POINTS:
            c.add("riichi_min", errors.RANGE, f"must be from 0 to {MAX_POINTS}", low=0)
    _choice(c, "nagashi", r.nagashi, NAGASHI)
    _check_abortive(c, r.abortive)
    _choice(c, "bust", r.bust, BUST)
    _bool(c, "agari_yame", r.agari_yame)
    _bool(c, "tenpai_yame", r.tenpai_yame)
    _check_extension(c, r.extension, r.length if length_ok else None)
    _check_chombo(c, r.chombo)
    for i, yaku in enumerate(r.pao):
        _choice(c, f"pao[{i}]", yaku, PAO_YAKU)
    if len(set(r.pao)) != len(r.pao):
        c.add("pao", errors.DUPLICATE_NAME, "lists a yaku twice")
    _choice(c, "pao_ron_honba", r.pao_ron_honba, PAO_RON_HONBA)
    _choice(c, "pao_scope", r.pao_scope, PAO_SCOPE)
    _choice(c, "sanma_tsumo", r.sanma_tsumo, SANMA_TSUMO)


def _check_abortive(c: Collector, abortive: Mapping[str, str]) -> None:
    for kind in abortive:
        if kind not in ABORTIVE_KINDS:
            c.add(f"abortive.{kind}", errors.UNKNOWN_FIELD, "unknown abortive draw")
    for kind in ABORTIVE_KINDS:
        path = f"abortive.{kind}"
        if kind not in abortive:
            c.add(path, errors.REQUIRED, "is required")
            continue
        value = abortive[kind]
        if not _choice(c, path, value, ABORTIVE_DEALER):
            continue
        if value == "dealer-claimed" and kind != "sanchahou":
            c.add(path, errors.CHOICE, "dealer-claimed is only for sanchahou (三家和)")


def _check_extension(c: Collector, ext: Extension | None, length: str | None) -> None:
    if ext is None:
        return
    if not isinstance(ext, Extension):
        c.add("extension", errors.TYPE, "must be an extension or null")
        return
    _points(c, "extension.target", ext.target, 100)
    regular = 1 if length == "tonpuu" else 2
    most = WINDS - regular
    if not _is_int(ext.winds):
        c.add("extension.winds", errors.TYPE, "must be an integer")
    elif not 1 <= ext.winds <= most:
        c.add(
            "extension.winds",
            errors.RANGE,
            f"must be from 1 to {most} (a game ends with the North round at the latest)",
            low=1,
            high=most,
        )
    _bool(c, "extension.sudden_death", ext.sudden_death)


def _check_chombo(c: Collector, chombo: ChomboPayment) -> None:
    if not isinstance(chombo, ChomboPayment):
        c.add("chombo", errors.TYPE, "must be a chombo payment")
        return
    if _choice(c, "chombo.mode", chombo.mode, HAND_CHOMBO_MODES) and chombo.mode == "each":
        _points(c, "chombo.points", chombo.points, 100)
