"""A club's hand options (issue 23): 喰いタン, 後付け, 赤ドラ, 切り上げ満貫, 数え役満 and 人和.

They are kept with a club's rules version (as JSON, `to_json` / `hand_options_from_json`) and
default to the club's hand preset: `kiriage` and `kazoe` are the hand rules' own fields (the
engine pays by them), `kuitan`, `aka` and `atozuke` are the point calculator's (`ClubOptions`).
The presets do not state 喰いタン or 後付け: both default to allowed, as on Tenhou; 赤ドラ
defaults to on except where a preset's source says the rule set has none.

Pure Python, no Django.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from . import errors
from .errors import InputError, Problem
from .hand_presets import HAND_PRESETS, HandPreset
from .hand_rules import (
    BUST,
    DRAW_RENCHAN,
    KAZOE,
    LENGTHS,
    MAX_YAKUMAN,
    MULTI_RON,
    MULTI_RON_HONBA,
    MULTI_RON_RENCHAN,
    NAGASHI,
    NOT_WITH_THREE,
    PAO_RON_HONBA,
    PAO_SCOPE,
    SANMA_TSUMO,
    ChomboPayment,
    Extension,
    HandRules,
)
from .rules import MAX_POINTS

# The hand rules' own fields a club may set over its hand preset (None: the preset's), and the
# values each takes (a bool where the tuple is empty).
RULE_FIELDS: dict[str, tuple[str, ...]] = {
    "bust": BUST,  # 飛び: below zero, at zero too, or never
    "agari_yame": (),  # あがりやめ: the last dealer, first, may stop after a win
    "tenpai_yame": (),  # テンパイ止め: … or after a tenpai draw
    "draw_renchan": DRAW_RENCHAN,  # 流局時の連荘: the dealer keeps the deal when tenpai …
    "pao_scope": PAO_SCOPE,  # 包の範囲: the liable player pays the yakuman, or the whole hand
    "sanma_tsumo": SANMA_TSUMO,  # 三麻のツモ損: the absent North's share lost, or split
    "length": LENGTHS,  # 東風 or 東南
    "multi_ron": MULTI_RON,  # 頭ハネ, ダブロン, トリロン
    "multi_ron_honba": MULTI_RON_HONBA,  # in a double ron: honba to the first winner, or each
    "multi_ron_renchan": MULTI_RON_RENCHAN,  # … the dealer keeps the deal if any winner, or first
    "nagashi": NAGASHI,  # 流し満貫: none, paid as a draw, or as a win
    "pao_ron_honba": PAO_RON_HONBA,  # 包 on a ron: who pays the honba
}
# The hand rules' numbers a club may set (None: the preset's): (lowest, highest, step).
NUMBER_FIELDS: dict[str, tuple[int, int, int]] = {
    "honba_ron": (0, 10_000, 100),  # 積み棒 on a ron, per honba
    "honba_tsumo": (0, 10_000, 100),  # … from each payer on a tsumo
    "draw_pot": (0, 100_000, 100),  # ノーテン罰符 in all (split by the rules' steps)
    "riichi_min": (0, MAX_POINTS, 100),  # 立直 needs at least these points
    "yakuman_max": (1, MAX_YAKUMAN, 1),  # ダブル役満 and more: at most this many yakuman
}
CHOMBO = ("record", "mangan", "each")  # チョンボ at the table: after the game, 満貫払い, or each
# 包 (pao): for which yakuman a feeding player is liable.
PAO = {
    "none": (),
    "two": ("daisangen", "daisuushii"),
    "three": ("daisangen", "daisuushii", "suukantsu"),
}
# Two more, each a plain choice over a structured field of the hand rules:
# 途中流局 (`abortive`): every kind of abortive draw with the dealer keeping the deal, the deal
# passing, or none at all (a kind that needs four players stays none with three);
# 延長 (`extension`, 西入 or 南入 for east-only): none, until someone reaches the target (the game
# ends the moment someone does), or the whole extra wind; `extension_target` in points.
ABORTIVE = ("renchan", "rotate", "none")
EXTENSION = ("none", "sudden-death", "wind")
MORE_RULE_FIELDS = (
    "abortive",
    "extension",
    "extension_target",
    *NUMBER_FIELDS,
    "chombo",
    "chombo_points",
    "pao",
)
FIELDS = (
    "preset",
    "kuitan",
    "aka",
    "atozuke",
    "kiriage",
    "kazoe",
    "renhou",
    *RULE_FIELDS,
    *MORE_RULE_FIELDS,
)
RENHOU = ("none", "mangan", "yakuman")  # 人和: not a yaku (Tenhou, the pro leagues), or its value
# Presets whose source says there are no red fives: RMU's A rules (M rules "add 赤ドラ to A").
NO_AKA = frozenset({"rmu-a"})


@dataclass(frozen=True, slots=True)
class HandOptions:
    kuitan: bool = True  # 喰いタン: tanyao counts in an open hand
    aka: bool = True  # 赤ドラ: a red five is a dora
    atozuke: bool = True  # 後付け: an open hand may get its yaku on the winning tile
    kiriage: bool = False  # 切り上げ満貫: 4 han 30 fu and 3 han 60 fu are paid as a mangan
    kazoe: str = "yakuman"  # 数え役満: 13 han or more is a yakuman, else a sanbaiman
    renhou: str = "none"  # 人和 (a non-dealer's ron before their first draw): none, mangan, yakuman
    # The hand rules' fields set over the preset (None: the preset's own), RULE_FIELDS.
    bust: str | None = None
    agari_yame: bool | None = None
    tenpai_yame: bool | None = None
    draw_renchan: str | None = None
    pao_scope: str | None = None
    sanma_tsumo: str | None = None
    abortive: str | None = None  # ABORTIVE
    extension: str | None = None  # EXTENSION
    extension_target: int | None = None  # points; None: the preset's target, else `target`
    length: str | None = None
    multi_ron: str | None = None
    multi_ron_honba: str | None = None
    multi_ron_renchan: str | None = None
    nagashi: str | None = None
    pao_ron_honba: str | None = None
    honba_ron: int | None = None
    honba_tsumo: int | None = None
    draw_pot: int | None = None
    riichi_min: int | None = None
    yakuman_max: int | None = None
    chombo: str | None = None  # CHOMBO
    chombo_points: int | None = None  # `each`: points to each other player
    pao: str | None = None  # PAO
    # The hand preset the club plays (a name of HAND_PRESETS); None: its settlement preset's
    # family (`hand_preset_for`).
    preset: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in FIELDS}
        optional = {*RULE_FIELDS, *MORE_RULE_FIELDS, "preset"}
        return {k: v for k, v in out.items() if not (k in optional and v is None)}

    def hand_preset(self, settlement_preset: str, players: int) -> HandPreset:
        """The hand preset the club plays: the one it picked, else its settlement preset's."""
        found = HAND_PRESETS.get(self.preset or "")
        if found is not None and found.rules.players == players:
            return found
        return hand_preset_for(settlement_preset, players)

    def applied(self, rules: HandRules, *, target: int | None = None) -> HandRules:
        """The hand rules with this club's 切り上げ満貫 and 数え役満 and every hand-rule field it
        set over the preset. `target`: the points an extension plays to when neither the club nor
        the preset says (the settlement's return points)."""
        chosen: dict[str, Any] = {
            k: getattr(self, k) for k in RULE_FIELDS if getattr(self, k) is not None
        }
        chosen |= {k: getattr(self, k) for k in NUMBER_FIELDS if getattr(self, k) is not None}
        if self.chombo is not None:
            points = (self.chombo_points or 0) if self.chombo == "each" else 0
            chosen["chombo"] = ChomboPayment(self.chombo, points)
        if self.pao is not None:
            chosen["pao"] = PAO[self.pao]
        if self.abortive is not None:
            chosen["abortive"] = {
                kind: "none" if rules.players == 3 and kind in NOT_WITH_THREE else self.abortive
                for kind in rules.abortive
            }
        if self.extension == "none":
            chosen["extension"] = None
        elif self.extension is not None or (
            self.extension_target is not None and rules.extension is not None
        ):
            base = rules.extension
            points = self.extension_target or (base.target if base else None) or target
            chosen["extension"] = Extension(
                target=points or rules.start + 5_000,
                winds=base.winds if base else 1,
                sudden_death=(
                    self.extension == "sudden-death"
                    if self.extension is not None
                    else bool(base and base.sudden_death)
                ),
            )
        return replace(rules, kiriage=self.kiriage, kazoe=self.kazoe, **chosen)


# Settlement presets whose hand preset has another name: the same rule family (EMA to EMA).
FAMILY = {"ema-2016": "ema"}


def hand_preset_for(preset: str, players: int) -> HandPreset:
    """The hand preset of a club whose settlement preset is `preset`: the one of its family (the
    same name, docs/hands.md: the club presets share their names; `ema-2016` plays `ema`), else
    Tenhou's (3 players: `tenhou-3p`)."""
    found = HAND_PRESETS.get(FAMILY.get(preset, preset))
    if found is None or found.rules.players != players:
        found = HAND_PRESETS["tenhou" if players == 4 else "tenhou-3p"]
    return found


def default_hand_options(preset: str, players: int) -> HandOptions:
    """The options a club has until it chooses: its hand preset's."""
    found = hand_preset_for(preset, players)
    return HandOptions(
        aka=found.name not in NO_AKA, kiriage=found.rules.kiriage, kazoe=found.rules.kazoe
    )


def hand_options_from_json(
    obj: object, defaults: HandOptions, players: int | None = None
) -> HandOptions:
    """Options as kept (a JSON object; a field left out takes its default). Raises InputError
    naming each bad field (`hand_options.kuitan` …). With `players`, a picked hand preset must be
    one for that many players."""
    if obj is None:
        return defaults
    if not isinstance(obj, dict):
        raise InputError([Problem("hand_options", errors.TYPE, "must be an object")])
    problems = []
    for name in obj:
        if name not in FIELDS:
            problems.append(Problem(f"hand_options.{name}", errors.UNKNOWN_FIELD, "unknown field"))
    values: dict[str, Any] = {}
    for name in FIELDS:
        if name not in obj:
            continue
        value = obj[name]
        if name in RULE_FIELDS:
            allowed = RULE_FIELDS[name]
            ok = value is None or (value in allowed if allowed else isinstance(value, bool))
            if not ok:
                problems.append(
                    Problem(
                        f"hand_options.{name}",
                        errors.CHOICE if allowed else errors.TYPE,
                        f"must be one of {', '.join(allowed)}"
                        if allowed
                        else "must be true or false",
                        {"choices": allowed} if allowed else {},
                    )
                )
                continue
        elif name == "preset":
            if value is not None and value not in HAND_PRESETS:
                problems.append(
                    Problem(
                        "hand_options.preset",
                        errors.CHOICE,
                        f"must be one of {', '.join(HAND_PRESETS)}",
                        {"choices": tuple(HAND_PRESETS)},
                    )
                )
                continue
            if value is not None and players and HAND_PRESETS[value].rules.players != players:
                problems.append(
                    Problem(
                        "hand_options.preset",
                        errors.CHOICE,
                        f"is a {HAND_PRESETS[value].rules.players}-player preset",
                        {
                            "choices": tuple(
                                n for n, p in HAND_PRESETS.items() if p.rules.players == players
                            )
                        },
                    )
                )
                continue
        elif name in ("abortive", "extension", "chombo", "pao"):
            allowed = {"abortive": ABORTIVE, "extension": EXTENSION, "chombo": CHOMBO}.get(
                name, tuple(PAO)
            )
            if value is not None and value not in allowed:
                problems.append(
                    Problem(
                        f"hand_options.{name}",
                        errors.CHOICE,
                        f"must be one of {', '.join(allowed)}",
                        {"choices": allowed},
                    )
                )
                continue
        elif name in ("extension_target", "chombo_points", *NUMBER_FIELDS):
            low, high, step = NUMBER_FIELDS.get(name, (100, MAX_POINTS, 100))
            ok = value is None or (
                isinstance(value, int)
                and not isinstance(value, bool)
                and low <= value <= high
                and value % step == 0
            )
            if not ok:
                problems.append(
                    Problem(
                        f"hand_options.{name}",
                        errors.RANGE,
                        f"must be a multiple of {step} from {low} to {high}",
                        {"low": low, "high": high, "step": step},
                    )
                )
                continue
        elif name == "renhou":
            if value not in RENHOU:
                problems.append(
                    Problem(
                        "hand_options.renhou",
                        errors.CHOICE,
                        f"must be one of {', '.join(RENHOU)}",
                        {"choices": RENHOU},
                    )
                )
                continue
        elif name == "kazoe":
            if value not in KAZOE:
                problems.append(
                    Problem(
                        "hand_options.kazoe",
                        errors.CHOICE,
                        f"must be one of {', '.join(KAZOE)}",
                        {"choices": KAZOE},
                    )
                )
                continue
        elif not isinstance(value, bool):
            problems.append(Problem(f"hand_options.{name}", errors.TYPE, "must be true or false"))
            continue
        values[name] = value
    if problems:
        raise InputError(problems)
    return replace(defaults, **values)
