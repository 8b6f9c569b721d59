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
from .hand_rules import BUST, DRAW_RENCHAN, KAZOE, PAO_SCOPE, SANMA_TSUMO, HandRules

# The hand rules' own fields a club may set over its hand preset (None: the preset's), and the
# values each takes (a bool where the tuple is empty).
RULE_FIELDS: dict[str, tuple[str, ...]] = {
    "bust": BUST,  # 飛び: below zero, at zero too, or never
    "agari_yame": (),  # あがりやめ: the last dealer, first, may stop after a win
    "tenpai_yame": (),  # テンパイ止め: … or after a tenpai draw
    "draw_renchan": DRAW_RENCHAN,  # 流局時の連荘: the dealer keeps the deal when tenpai …
    "pao_scope": PAO_SCOPE,  # 包の範囲: the liable player pays the yakuman, or the whole hand
    "sanma_tsumo": SANMA_TSUMO,  # 三麻のツモ損: the absent North's share lost, or split
}
FIELDS = ("kuitan", "aka", "atozuke", "kiriage", "kazoe", "renhou", *RULE_FIELDS)
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

    def to_json(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in FIELDS}
        return {k: v for k, v in out.items() if not (k in RULE_FIELDS and v is None)}

    def applied(self, rules: HandRules) -> HandRules:
        """The hand rules with this club's 切り上げ満貫 and 数え役満 and every hand-rule field it
        set over the preset."""
        chosen = {k: getattr(self, k) for k in RULE_FIELDS if getattr(self, k) is not None}
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


def hand_options_from_json(obj: object, defaults: HandOptions) -> HandOptions:
    """Options as kept (a JSON object; a field left out takes its default). Raises InputError
    naming each bad field (`hand_options.kuitan` …)."""
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
