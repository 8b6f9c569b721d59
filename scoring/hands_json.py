"""hands.md's JSON contract: hand rules, a game of hands in, its hands and final points out.

Only the shapes are read here (objects, lists, names, which fields a result has); what the values
mean is checked by `HandRules` and `scoring.hands`, so the Python API refuses the same things.
"""

from __future__ import annotations

from typing import Any

from . import errors
from .errors import Collector, InputError, Problem
from .hand_presets import HAND_PRESETS
from .hand_rules import ChomboPayment, Extension, HandRules
from .hands import (
    Abortive,
    Chombo,
    Draw,
    Event,
    HandsGame,
    HandsResult,
    Pao,
    Ron,
    Tsumo,
    Win,
    play_game,
)
from .json_fields import an_object as _object
from .json_fields import join as _join
from .json_fields import preset_or_fields
from .json_fields import required as _required
from .json_fields import unknown as _unknown

HAND_RULES_FIELDS = tuple(HandRules.__dataclass_fields__)
GAME_FIELDS = ("rules", "players", "start", "hands")
WIN_FIELDS = ("han", "fu", "yakuman", "pao")
RESULT_FIELDS = {
    "ron": ("from", "winners", "riichi"),
    "tsumo": ("winner", *WIN_FIELDS, "riichi"),
    "draw": ("tenpai", "nagashi", "riichi"),
    "abortive": ("kind", "from", "riichi"),
    "chombo": ("player",),
}
REQUIRED = {
    "ron": ("from", "winners"),
    "tsumo": ("winner",),
    "abortive": ("kind",),
    "chombo": ("player",),
}


def _names(c: Collector, value: object, path: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        c.add(path, errors.TYPE, "must be a list of names")
        return ()
    for i, name in enumerate(value):
        if not isinstance(name, str) or not name:
            c.add(f"{path}[{i}]", errors.TYPE, "must be a player's name")
    return tuple(name for name in value if isinstance(name, str) and name)


# --- rules -----------------------------------------------------------------------------------


def _with_abortive(full: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A preset's fields with the changes; `abortive` may list only the kinds that differ."""
    if isinstance(changes.get("abortive"), dict):
        changes = {**changes, "abortive": {**full["abortive"], **changes["abortive"]}}
    return {**full, **changes}


def hand_rules_from_json(value: object, path: str = "rules") -> HandRules:
    """A preset's name, `{"preset": name, ...fields that differ}`, or a full rules object.

    With a preset, `abortive` may list only the kinds that differ; every other field replaces the
    preset's value whole."""
    c = Collector()
    preset, obj = preset_or_fields(c, value, path, HAND_PRESETS, merge=_with_abortive)
    if preset is not None:
        return preset
    assert obj is not None
    _unknown(c, obj, HAND_RULES_FIELDS, path)
    _required(c, obj, HAND_RULES_FIELDS, path)
    c.raise_if_any()
    kwargs = {key: obj[key] for key in HAND_RULES_FIELDS}
    kwargs["abortive"] = _object(c, obj["abortive"], _join(path, "abortive")) or {}
    kwargs["extension"] = _extension(c, obj["extension"], _join(path, "extension"))
    kwargs["chombo"] = _chombo(c, obj["chombo"], _join(path, "chombo"))
    if not isinstance(obj["pao"], list):
        c.add(_join(path, "pao"), errors.TYPE, "must be a list")
        kwargs["pao"] = ()
    else:
        kwargs["pao"] = tuple(obj["pao"])
        if not all(isinstance(yaku, str) for yaku in obj["pao"]):
            c.add(_join(path, "pao"), errors.TYPE, "must be a list of yaku names")
    c.raise_if_any()
    try:
        return HandRules(**kwargs)
    except InputError as e:
        raise e.within(path) from None


def _extension(c: Collector, value: object, path: str) -> Extension | None:
    if value is None:
        return None
    obj = _object(c, value, path)
    if obj is None:
        return None
    fields = ("target", "winds", "sudden_death")
    _unknown(c, obj, fields, path)
    _required(c, obj, fields, path)
    return Extension(obj.get("target", 0), obj.get("winds", 1), obj.get("sudden_death", True))


def _chombo(c: Collector, value: object, path: str) -> ChomboPayment:
    obj = _object(c, value, path)
    if obj is None:
        return ChomboPayment()
    if "mode" not in obj:
        c.add(_join(path, "mode"), errors.REQUIRED, "is required")
        return ChomboPayment()
    mode = obj["mode"]
    fields = ("mode", "points") if mode == "each" else ("mode",)
    _unknown(c, obj, fields, path)
    _required(c, obj, fields, path)
    return ChomboPayment(mode, obj.get("points", 0))


# --- games -----------------------------------------------------------------------------------


def hands_game_from_json(obj: dict[str, Any]) -> HandsGame:
    """A game object of the contract (its `rules` are read by the caller)."""
    c = Collector()
    _unknown(c, obj, GAME_FIELDS, "")
    _required(c, obj, ("players", "hands"), "")
    players = _names(c, obj.get("players", []), "players")
    hands = obj.get("hands", [])
    events: list[Event] = []
    if not isinstance(hands, list):
        c.add("hands", errors.TYPE, "must be a list")
        hands = []
    c.raise_if_any()
    for i, hand in enumerate(hands):
        event = _event(c, hand, f"hands[{i}]")
        c.raise_if_any()  # a later hand is only checked once the ones before it are read
        events.append(event)  # type: ignore[arg-type]
    return HandsGame(players=players, hands=tuple(events), start=obj.get("start"))


def _event(c: Collector, value: object, path: str) -> Event | None:
    obj = _object(c, value, path)
    if obj is None:
        return None
    result = obj.get("result")
    if not isinstance(result, str) or result not in RESULT_FIELDS:  # a list or object: unhashable
        shown = ", ".join(RESULT_FIELDS)
        c.add(_join(path, "result"), errors.CHOICE, f"must be one of {shown}")
        return None
    _unknown(c, obj, ("result", *RESULT_FIELDS[result]), path)
    _required(c, obj, REQUIRED.get(result, ()), path)
    if c:
        return None
    riichi = _names(c, obj.get("riichi", []), _join(path, "riichi"))
    if result == "ron":
        winners = []
        listed = obj["winners"]
        if not isinstance(listed, list):
            c.add(_join(path, "winners"), errors.TYPE, "must be a list of winners")
            listed = []
        for i, w in enumerate(listed):
            at = f"{path}.winners[{i}]"
            w = _object(c, w, at)
            if w is not None:
                _unknown(c, w, ("player", *WIN_FIELDS), at)
                _required(c, w, ("player",), at)
                winners.append(_win(c, w, w.get("player"), at))
        return Ron(obj["from"], tuple(winners), riichi)
    if result == "tsumo":
        return Tsumo(_win(c, obj, obj["winner"], path), riichi)
    if result == "draw":
        tenpai = _names(c, obj.get("tenpai", []), _join(path, "tenpai"))
        nagashi = _names(c, obj.get("nagashi", []), _join(path, "nagashi"))
        return Draw(tenpai, nagashi, riichi)
    if result == "abortive":
        return Abortive(obj["kind"], obj.get("from"), riichi)
    return Chombo(obj["player"])


def _win(c: Collector, obj: dict[str, Any], player: object, path: str) -> Win:
    pao = None
    if "pao" in obj:
        at = _join(path, "pao")
        spec = _object(c, obj["pao"], at)
        if spec is not None:
            _unknown(c, spec, ("player", "yaku"), at)
            _required(c, spec, ("player", "yaku"), at)
            pao = Pao(spec.get("player"), spec.get("yaku"))  # type: ignore[arg-type]
    return Win(player, obj.get("han"), obj.get("fu"), obj.get("yakuman"), pao)  # type: ignore[arg-type]


# --- the command ----------------------------------------------------------------------------


def hands_json(obj: object) -> dict[str, Any]:
    """One game object of the contract to its hands and final points."""
    c = Collector()
    game = _object(c, obj, "")
    c.raise_if_any()
    assert game is not None
    if "rules" not in game:
        raise InputError([Problem("rules", errors.REQUIRED, "is required")])
    rules = hand_rules_from_json(game["rules"])
    return hands_result_to_json(play_game(rules, hands_game_from_json(game)))


def hands_result_to_json(result: HandsResult) -> dict[str, Any]:
    names = result.players

    def by_name(values: tuple[int, ...]) -> dict[str, int]:
        return dict(zip(names, values, strict=True))

    final: dict[str, Any] = {
        "players": [{"name": s.name, "points": s.points} for s in result.seats],
        "deposits": result.deposits,
        "ended": result.ended,
    }
    if result.chombo:
        final["chombo"] = list(result.chombo)
    return {
        "hands": [
            {
                "round": h.round,
                "honba": h.honba,
                "sticks": h.sticks,
                "dealer": names[h.dealer],
                "deltas": by_name(h.deltas),
                "scores": by_name(h.scores),
            }
            for h in result.hands
        ],
        "final": final,
    }
