"""JSON in and out, in the shapes of settlement.md's command-line contract."""

from __future__ import annotations

from typing import Any

from . import errors
from .day import DayResult, Shugi, settle_day
from .errors import Collector, InputError
from .game import Bust, ChipEvent, Game, GameResult, Seat, settle_game
from .json_fields import an_object as _object
from .json_fields import join as _join
from .json_fields import preset_or_fields
from .json_fields import unknown as _unknown
from .presets import PRESETS
from .rules import (
    CHOMBO_MODES,
    BustBonus,
    ChipKind,
    ChomboRule,
    FloatingUma,
    RateTier,
    Rules,
    Yakitori,
)
from .text import format_score

RULES_FIELDS = (
    "players",
    "start",
    "return",
    "rounding",
    "uma",
    "ties",
    "deposits",
    "below_zero",
    "chombo",
    "chips",
    "rates",
    "place_fees",
    "session_shugi",
    "yen_unit",
    "surcharge_percent",
    "prize_cap",
    # version 2
    "rounding_negative",
    "oka",
    "bust_bonus",
    "yakitori",
)
REQUIRED_RULES_FIELDS = RULES_FIELDS[:9]
GAME_FIELDS = ("players", "deposits", "chombo", "chips", "rate", "busts", "yakitori")
_MISSING = object()


def _list(c: Collector, value: object, path: str) -> list[Any] | None:
    if isinstance(value, list):
        return value
    c.add(path, errors.TYPE, "must be a list")
    return None


def _str(c: Collector, value: object, path: str) -> str | None:
    if isinstance(value, str) and value:
        return value
    c.add(path, errors.TYPE, "must be a non-empty string")
    return None


def _int(c: Collector, value: object, path: str, message: str = "must be an integer") -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    c.add(path, errors.TYPE, message)
    return None


# --- rules -----------------------------------------------------------------------------------


def rules_from_json(value: object, path: str = "rules") -> Rules:
    """A preset's name, `{"preset": name, ...overrides}`, or a full rules object."""
    c = Collector()
    preset, obj = preset_or_fields(c, value, path, PRESETS, name_in_detail=True)
    if preset is not None:
        return preset
    assert obj is not None
    _unknown(c, obj, RULES_FIELDS, path)
    for key in REQUIRED_RULES_FIELDS:
        if key not in obj:
            c.add(_join(path, key), errors.REQUIRED, "is required")
    c.raise_if_any()
    kwargs = _rules_kwargs(c, obj, path)
    c.raise_if_any()
    try:
        return Rules(**kwargs)
    except InputError as e:
        raise e.within(path) from None


def _rules_kwargs(c: Collector, obj: dict[str, Any], path: str) -> dict[str, Any]:
    uma, floating = _uma(c, obj["uma"], _join(path, "uma"), obj.get("return"))
    kwargs: dict[str, Any] = {
        "players": obj["players"],
        "start": obj["start"],
        "return_points": obj["return"],
        "rounding": obj["rounding"],
        "uma": uma,
        "floating": floating,
        "rounding_negative": obj.get("rounding_negative", "magnitude"),
        "oka": obj.get("oka", "top"),
        "bust_bonus": _bust_bonus(c, obj.get("bust_bonus"), _join(path, "bust_bonus")),
        "yakitori": _yakitori_rule(c, obj.get("yakitori"), _join(path, "yakitori")),
        "ties": obj["ties"],
        "deposits": obj["deposits"],
        "below_zero": obj["below_zero"],
        "chombo": _chombo(c, obj["chombo"], _join(path, "chombo")),
        "session_shugi": obj.get("session_shugi", 0),
        "yen_unit": obj.get("yen_unit", 1),
        "surcharge_percent": obj.get("surcharge_percent", 0),
        "prize_cap": obj.get("prize_cap"),
        "chips": {},
        "rates": {},
        "place_fees": {},
    }
    for name, spec in (_object(c, obj.get("chips", {}), _join(path, "chips")) or {}).items():
        p = f"{path}.chips.{name}"
        spec = _object(c, spec, p)
        if spec is not None:
            _unknown(c, spec, ("tsumo", "ron"), p)
            kwargs["chips"][name] = ChipKind(tsumo=spec.get("tsumo", 0), ron=spec.get("ron", 0))
    for name, spec in (_object(c, obj.get("rates", {}), _join(path, "rates")) or {}).items():
        p = f"{path}.rates.{name}"
        spec = _object(c, spec, p)
        if spec is not None:
            _unknown(c, spec, ("yen_per_1000", "chip_yen"), p)
            for key in ("yen_per_1000",):
                if key not in spec:
                    c.add(_join(p, key), errors.REQUIRED, "is required")
            kwargs["rates"][name] = RateTier(
                yen_per_1000=spec.get("yen_per_1000", 0), chip_yen=spec.get("chip_yen", 0)
            )
    fees = _object(c, obj.get("place_fees", {}), _join(path, "place_fees")) or {}
    for rank, fee in fees.items():
        if not (isinstance(rank, str) and rank.isascii() and rank.isdigit()):
            c.add(f"{path}.place_fees.{rank}", errors.TYPE, 'keys must be ranks such as "4"')
            continue
        kwargs["place_fees"][int(rank)] = fee
    return kwargs


def _uma(
    c: Collector, value: object, path: str, return_points: object
) -> tuple[tuple[int, ...], FloatingUma | None]:
    """`uma` is a list, or a floating table {"floating_line", "by_floating", "default"}."""
    if isinstance(value, list):
        return tuple(value), None
    obj = _object(c, value, path)
    if obj is None:
        return (), None
    _unknown(c, obj, ("floating_line", "by_floating", "default"), path)
    line = obj.get("floating_line", return_points)
    default = _list(c, obj.get("default", []), _join(path, "default")) or []
    table: dict[int, tuple[int, ...]] = {}
    by = _object(c, obj.get("by_floating", {}), _join(path, "by_floating")) or {}
    for count, uma in by.items():
        p = f"{path}.by_floating.{count}"
        if not (isinstance(count, str) and count.isascii() and count.isdigit() and len(count) < 3):
            c.add(p, errors.TYPE, 'keys must be counts of floating players such as "1"')
            continue
        listed = _list(c, uma, p)
        if listed is not None:
            table[int(count)] = tuple(listed)
    if not table and not default:
        c.add(path, errors.REQUIRED, "a floating uma needs by_floating lists or a default")
    return tuple(default), FloatingUma(line=line, by_floating=table)  # type: ignore[arg-type]


def _bust_bonus(c: Collector, value: object, path: str) -> BustBonus | None:
    if value is None:
        return None
    obj = _object(c, value, path)
    if obj is None:
        return None
    _unknown(c, obj, ("points", "to", "at_zero"), path)
    if "points" not in obj:
        c.add(_join(path, "points"), errors.REQUIRED, "is required")
    return BustBonus(obj.get("points", 0), obj.get("to", "buster"), obj.get("at_zero", False))


def _yakitori_rule(c: Collector, value: object, path: str) -> Yakitori | None:
    if value is None:
        return None
    obj = _object(c, value, path)
    if obj is None:
        return None
    _unknown(c, obj, ("mode", "points"), path)
    for key in ("mode", "points"):
        if key not in obj:
            c.add(_join(path, key), errors.REQUIRED, "is required")
    return Yakitori(obj.get("mode", "penalty"), obj.get("points", 0))


def _chombo(c: Collector, value: object, path: str) -> ChomboRule:
    obj = _object(c, value, path)
    if obj is None:
        return ChomboRule()
    mode = obj.get("mode", _MISSING)
    if mode is _MISSING:
        c.add(_join(path, "mode"), errors.REQUIRED, "is required")
        return ChomboRule()
    if not isinstance(mode, str) or mode not in CHOMBO_MODES:
        shown = ", ".join(CHOMBO_MODES)
        c.add(_join(path, "mode"), errors.CHOICE, f"must be one of {shown}", allowed=CHOMBO_MODES)
        return ChomboRule()
    fields = {"none": (), "penalty": ("points",), "pay_each": ("points",)}.get(
        mode, ("points", "top_points")
    )
    _unknown(c, obj, ("mode", *fields), path)
    for key in fields:
        if key not in obj:
            c.add(_join(path, key), errors.REQUIRED, "is required")
    return ChomboRule(mode, obj.get("points", 0), obj.get("top_points", 0))


# --- games -----------------------------------------------------------------------------------


def game_from_json(obj: dict[str, Any], *, allowed: tuple[str, ...] = GAME_FIELDS) -> Game:
    """A game object of the contract (without `rules`, which the caller reads)."""
    c = Collector()
    _unknown(c, obj, allowed, "")
    seats: list[Seat] = []
    players = _list(c, obj.get("players", _MISSING), "players") if "players" in obj else None
    if "players" not in obj:
        c.add("players", errors.REQUIRED, "is required")
    for i, p in enumerate(players or []):
        p = _object(c, p, f"players[{i}]")
        if p is None:
            continue
        _unknown(c, p, ("name", "points"), f"players[{i}]")
        name = _str(c, p.get("name"), f"players[{i}].name")
        points = _int(c, p.get("points"), f"players[{i}].points", "points must be integers in 100s")
        if name is not None and points is not None:
            seats.append(Seat(name, points))
    deposits = _int(c, obj.get("deposits", 0), "deposits", "deposits must be integers in 100s")
    chombo = []
    for i, name in enumerate(_list(c, obj.get("chombo", []), "chombo") or []):
        chombo.append(_str(c, name, f"chombo[{i}]"))
    chips = []
    for i, ev in enumerate(_list(c, obj.get("chips", []), "chips") or []):
        p = f"chips[{i}]"
        ev = _object(c, ev, p)
        if ev is None:
            continue
        _unknown(c, ev, ("kind", "winner", "from", "multiplier"), p)
        kind = _str(c, ev.get("kind"), f"{p}.kind")
        winner = _str(c, ev.get("winner"), f"{p}.winner")
        discarder = _str(c, ev["from"], f"{p}.from") if ev.get("from") is not None else None
        multiplier = _int(c, ev.get("multiplier", 1), f"{p}.multiplier")
        chips.append(
            ChipEvent(kind or "", winner or "", discarder, 1 if multiplier is None else multiplier)
        )
    rate = obj.get("rate")
    if rate is not None:
        rate = _str(c, rate, "rate")
    busts = None
    if "busts" in obj:
        busts = []
        for i, bust in enumerate(_list(c, obj["busts"], "busts") or []):
            p = f"busts[{i}]"
            bust = _object(c, bust, p)
            if bust is None:
                continue
            _unknown(c, bust, ("player", "by"), p)
            player = _str(c, bust.get("player"), f"{p}.player")
            by = _str(c, bust["by"], f"{p}.by") if bust.get("by") is not None else None
            busts.append(Bust(player or "", by))
    yakitori = [
        _str(c, name, f"yakitori[{i}]")
        for i, name in enumerate(_list(c, obj.get("yakitori", []), "yakitori") or [])
    ]
    c.raise_if_any()
    return Game(
        seats=tuple(seats),
        deposits=deposits,
        chombo=tuple(name for name in chombo if name is not None),
        chips=tuple(chips),
        rate=rate,
        busts=None if busts is None else tuple(busts),
        yakitori=tuple(name for name in yakitori if name is not None),
    )


def _settle_one(rules: Rules, obj: dict[str, Any], allowed: tuple[str, ...]) -> GameResult:
    return settle_game(rules, game_from_json(obj, allowed=allowed))


def game_result_to_json(result: GameResult) -> dict[str, Any]:
    players = []
    for p in result.players:
        out: dict[str, Any] = {
            "name": p.name,
            "rank": p.rank,
            "score": format_score(p.score),
            "chips": p.chips,
        }
        if p.yen is not None:
            out["yen"] = p.yen
        players.append(out)
    return {"players": players}


def settle_json(obj: object) -> dict[str, Any]:
    """One game object of the contract, with `rules` and an optional `rate`, to its output."""
    c = Collector()
    game = _object(c, obj, "")
    c.raise_if_any()
    assert game is not None
    if "rules" not in game:
        raise InputError([errors.Problem("rules", errors.REQUIRED, "is required")])
    rules = rules_from_json(game["rules"])
    return game_result_to_json(_settle_one(rules, game, ("rules", *GAME_FIELDS)))


# --- days ------------------------------------------------------------------------------------

DAY_FIELDS = ("rules", "rate", "games", "attendees", "shugi")


def ledger_json(obj: object) -> dict[str, Any]:
    """One day of the contract to its ledger. A game may carry its own `rate` (several tiers)."""
    c = Collector()
    day = _object(c, obj, "")
    c.raise_if_any()
    assert day is not None
    _unknown(c, day, DAY_FIELDS, "")
    if "rules" not in day:
        c.add("rules", errors.REQUIRED, "is required")
    if "games" not in day:
        c.add("games", errors.REQUIRED, "is required")
    c.raise_if_any()
    rules = rules_from_json(day["rules"])
    day_rate = day.get("rate")
    results = []
    for i, g in enumerate(_list(c, day["games"], "games") or []):
        g = _object(c, g, f"games[{i}]")
        if g is None:
            continue
        try:
            results.append(_settle_one(rules, {"rate": day_rate, **g}, GAME_FIELDS))
        except InputError as e:
            c.extend(e, f"games[{i}]")
    attendees = [
        _str(c, a, f"attendees[{i}]")
        for i, a in enumerate(_list(c, day.get("attendees", []), "attendees") or [])
    ]
    shugi = []
    for i, ev in enumerate(_list(c, day.get("shugi", []), "shugi") or []):
        ev = _object(c, ev, f"shugi[{i}]")
        if ev is not None:
            _unknown(c, ev, ("winner", "multiplier"), f"shugi[{i}]")
            winner = _str(c, ev.get("winner"), f"shugi[{i}].winner")
            multiplier = _int(c, ev.get("multiplier", 1), f"shugi[{i}].multiplier")
            shugi.append(Shugi(winner or "", multiplier if multiplier is not None else 1))
    c.raise_if_any()
    result = settle_day(
        rules, results, attendees=[a for a in attendees if a is not None], shugi=shugi
    )
    return day_result_to_json(result)


def day_result_to_json(result: DayResult) -> dict[str, Any]:
    return {
        "players": [
            {
                "name": p.name,
                "games": p.games,
                "score": format_score(p.score),
                "chips": p.chips,
                "yen": p.yen,
            }
            for p in result.players
        ],
        "house": result.house,
        "transfers": [{"from": t.payer, "to": t.payee, "yen": t.yen} for t in result.transfers],
    }
