"""The rules editor: a new rules version from a preset or another version, with a worked example,
and the summary of a version in words."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import scoring
from league import limits
from league.club.forms_manage import DateInputField, NumberField
from league.core.errors import problem_message
from league.core.format import chip_kind, chip_kind_key, signed
from league.rules.presets import hand_preset_label
from scoring.hand_options import (
    ABORTIVE,
    CHOMBO,
    EXTENSION,
    NUMBER_FIELDS,
    PAO,
    RULE_FIELDS,
    HandOptions,
    hand_preset_for,
)
from scoring.hand_presets import HAND_PRESETS
from scoring.hand_rules import NOT_WITH_THREE
from scoring.rules import BELOW_ZERO, CHOMBO_MODES, DEPOSITS, PLAYER_COUNTS, ROUNDINGS, TIES

# Rows offered for rate tiers and chip kinds (a club with more uses the JSON editor), and each
# row's columns: form field infix → key in the rules object.
RATE_ROWS = 4


CHIP_ROWS = 4


ROUNDING_LABELS = {
    "none": gettext_lazy("none (exact, one decimal)"),
    "gosha-rokunyu": gettext_lazy("round 500 down, 600 up (gosha-rokunyu)"),
    "shisha-gonyu": gettext_lazy("round 400 down, 500 up (shisha-gonyu)"),
    "kirisute": gettext_lazy("round down (kirisute)"),
    "kiriage": gettext_lazy("round up (kiriage)"),
    "toward-return": gettext_lazy("toward the return points (above it down, below it up)"),
}


TIES_LABELS = {
    "seat": gettext_lazy("the earlier seat from the dealer ranks higher"),
    "split": gettext_lazy("tied players share the rank"),
}


DEPOSITS_LABELS = {
    "top": gettext_lazy("go to the top"),
    "house": gettext_lazy("go to the club"),
}


BELOW_ZERO_LABELS = {
    "settle": gettext_lazy("counted as they are"),
    "floor": gettext_lazy("settled as 0 points"),
}


OKA_LABELS = {
    "top": gettext_lazy("goes to the top"),
    "house": gettext_lazy("goes to nobody (the top scores like everyone else)"),
}


ROUNDING_NEGATIVE_LABELS = {
    "magnitude": gettext_lazy("like positive points (−10,500 rounds as 10,500)"),
    "number-line": gettext_lazy("on the number line (−10,500 is −11 with 500 down, 600 up)"),
}


BUST_TO_LABELS = {
    "buster": gettext_lazy("to the player who busted them"),
    "top": gettext_lazy("to the top"),
}


YAKITORI_LABELS = {
    "none": gettext_lazy("no yakitori"),
    "penalty": gettext_lazy("penalty: the player loses points"),
    "pay_each": gettext_lazy("pays each player who won a hand"),
    "pay_top": gettext_lazy("pays the top"),
}


FLOATING_COUNTS = (0, 1, 2, 3, 4)  # how many players end at or above the floating line


CHOMBO_LABELS = {
    "none": gettext_lazy("paid in the game"),
    "penalty": gettext_lazy("penalty: the offender loses points"),
    "pay_top": gettext_lazy("pays the top (a top offender pays the others)"),
    "pay_each": gettext_lazy("pays each other player"),
}


def _choices(labels: Mapping[str, Any], allowed: tuple[str, ...]) -> list[tuple[str, Any]]:
    return [(value, labels[value]) for value in allowed]


def _chombo_summary(chombo: scoring.ChomboRule) -> str:
    if chombo.mode == "penalty":
        return _("the offender −%(p)s") % {"p": chombo.points}
    if chombo.mode == "pay_top":
        return _("pays %(p)s to the top; a top offender pays %(q)s, shared by the others") % {
            "p": chombo.points,
            "q": chombo.top_points,
        }
    if chombo.mode == "pay_each":
        return _("pays %(p)s to each other player") % {"p": chombo.points}
    return str(CHOMBO_LABELS["none"])


def _uma_summary(rules: scoring.Rules) -> str:
    fixed = " / ".join(signed(u) for u in rules.uma)
    if rules.floating is None:
        return fixed
    lines = [
        _("%(n)s float: %(uma)s") % {"n": n, "uma": " / ".join(signed(u) for u in uma)}
        for n, uma in sorted(rules.floating.by_floating.items())
    ]
    if fixed:
        lines.append(_("otherwise: %(uma)s") % {"uma": fixed})
    line = _("floating at %(line)s") % {"line": f"{rules.floating.line:,}"}
    return f"{line}; " + "; ".join(lines)


def rules_summary(rules: scoring.Rules) -> list[tuple[str, str]]:
    """The rules as (label, value) lines that an organiser can check at a glance."""
    lines = [
        (_("Players"), str(rules.players)),
        (_("Start / return"), f"{rules.start:,} / {rules.return_points:,}"),
        (_("Rounding"), str(ROUNDING_LABELS[rules.rounding])),
        (_("Uma"), _uma_summary(rules)),
        (_("Oka"), str(OKA_LABELS[rules.oka])),
        (_("Ties"), str(TIES_LABELS[rules.ties])),
        (_("Deposits"), str(DEPOSITS_LABELS[rules.deposits])),
        (_("Below zero"), str(BELOW_ZERO_LABELS[rules.below_zero])),
        (_("Chombo"), _chombo_summary(rules.chombo)),
        (
            _("Chips"),
            "; ".join(
                _("%(kind)s (tsumo %(tsumo)s, ron %(ron)s)")
                % {"kind": chip_kind(name), "tsumo": kind.tsumo, "ron": kind.ron}
                for name, kind in rules.chips.items()
            )
            or _("none"),
        ),
        (
            _("Rates"),
            "; ".join(
                _("%(name)s: %(yen)s yen per 1,000 points, chip %(chip)s yen")
                % {"name": name, "yen": f"{tier.yen_per_1000:,}", "chip": f"{tier.chip_yen:,}"}
                for name, tier in rules.rates.items()
            )
            or _("no money"),
        ),
    ]
    if rules.rounding_negative != "magnitude":
        lines.append((_("Negative points"), str(ROUNDING_NEGATIVE_LABELS[rules.rounding_negative])))
    if rules.bust_bonus is not None:
        bust = rules.bust_bonus
        text = _("%(p)s %(to)s") % {"p": bust.points, "to": BUST_TO_LABELS[bust.to]}
        if bust.at_zero:
            text += _(" (0 points counts)")
        lines.append((_("Bust bonus"), text))
    if rules.yakitori is not None:
        text = _("%(mode)s: %(p)s") % {
            "mode": YAKITORI_LABELS[rules.yakitori.mode],
            "p": rules.yakitori.points,
        }
        lines.append((_("Yakitori"), text))
    if rules.place_fees:
        fees = ", ".join(
            _("rank %(rank)s pays %(yen)s yen") % {"rank": rank, "yen": f"{fee:,}"}
            for rank, fee in sorted(rules.place_fees.items())
        )
        lines.append((_("Place fees"), fees))
    if rules.session_shugi:
        lines.append(
            (
                _("Yakuman shūgi"),
                _("%(yen)s yen from every other attendee") % {"yen": f"{rules.session_shugi:,}"},
            )
        )
    if rules.yen_unit > 1:
        lines.append((_("Day totals rounded to"), _("%(yen)s yen") % {"yen": rules.yen_unit}))
    if rules.surcharge_percent:
        lines.append((_("Surcharge on deferred debts"), f"{rules.surcharge_percent}%"))
    if rules.prize_cap is not None:
        lines.append((_("Prize cap"), _("%(yen)s yen") % {"yen": f"{rules.prize_cap:,}"}))
    return lines


class UmaWidget(forms.MultiWidget):
    def __init__(self) -> None:
        attrs = {"inputmode": "text", "autocomplete": "off", "size": 4}
        super().__init__([forms.TextInput(attrs=attrs) for _i in range(max(PLAYER_COUNTS))])

    def decompress(self, value: Any) -> list[Any]:
        return list(value or [])

    def render(self, *args: Any, **kwargs: Any) -> SafeString:
        """The four boxes in a row of their own, one rank each (static/league/app.css)."""
        return format_html('<div class="uma-inputs">{}</div>', super().render(*args, **kwargs))


class UmaField(forms.MultiValueField):
    """Uma per rank, 1st first, in thousands of points; the 4th is left empty for 3 players."""

    widget = UmaWidget

    def __init__(self, **kwargs: Any):
        fields = [NumberField(signed=True, required=False) for _i in range(max(PLAYER_COUNTS))]
        super().__init__(fields, require_all_fields=False, **kwargs)

    def compress(self, data_list: list[int | None]) -> list[int]:
        values = list(data_list or [])
        while values and values[-1] is None:
            values.pop()
        if any(v is None for v in values):
            raise forms.ValidationError(_("Fill in the uma of every rank."))
        return values  # type: ignore[return-value]


MISSING_AMOUNT = {
    "rate": gettext_lazy("Enter the amount (0 if there is none)."),
    "chip": gettext_lazy("Enter the number of chips (0 if there are none)."),
}


def _yen(label: Any, **kwargs: Any) -> NumberField:
    return NumberField(label=label, required=False, min_value=0, **kwargs)


HAND_FIELDS = (
    "hand_preset",
    "hand_kuitan",
    "hand_atozuke",
    "hand_aka",
    "hand_kiriage",
    "hand_kazoe",
    "hand_renhou",
    "hand_bust",
    "hand_agari_yame",
    "hand_tenpai_yame",
    "hand_draw_renchan",
    "hand_pao_scope",
    "hand_sanma_tsumo",
)
# Shown folded (「その他の局のルール」): the rest of the hand rules, each as the preset by default.
HAND_MORE_FIELDS = (
    "hand_length",
    "hand_multi_ron",
    "hand_multi_ron_honba",
    "hand_multi_ron_renchan",
    "hand_abortive",
    "hand_nagashi",
    "hand_extension",
    "hand_extension_target",
    "hand_honba_ron",
    "hand_honba_tsumo",
    "hand_draw_pot",
    "hand_riichi_min",
    "hand_yakuman_max",
    "hand_chombo",
    "hand_chombo_points",
    "hand_pao",
    "hand_pao_ron_honba",
)
HAND_ALL_FIELDS = (*HAND_FIELDS, *HAND_MORE_FIELDS)
# The hand rules' own fields a club may set over its hand preset (scoring.hand_options'
# RULE_FIELDS): the label, one line of explanation, and the words for each value.
RULE_FIELD_TEXT: dict[str, tuple[Any, Any]] = {
    "bust": (
        gettext_lazy("Busting out (飛び)"),
        gettext_lazy("Whether the game ends when a player's points go below zero (or to zero)."),
    ),
    "agari_yame": (
        gettext_lazy("Stopping after a win (あがりやめ)"),
        gettext_lazy("The last dealer, first after winning, may end the game there."),
    ),
    "tenpai_yame": (
        gettext_lazy("Stopping at tenpai (テンパイ止め)"),
        gettext_lazy("The last dealer, first and tenpai at a draw, may end the game there."),
    ),
    "draw_renchan": (
        gettext_lazy("Dealer repeats at a draw (流局時の連荘)"),
        gettext_lazy("When the dealer keeps the deal after an exhaustive draw."),
    ),
    "pao_scope": (
        gettext_lazy("What the liable player pays (包の範囲)"),
        gettext_lazy("The yakuman part only, or the whole hand with the other yaku."),
    ),
    "sanma_tsumo": (
        gettext_lazy("3-player tsumo (三麻のツモ損)"),
        gettext_lazy("On a tsumo, the absent North's share is lost, or split between the two."),
    ),
    "abortive": (
        gettext_lazy("Abortive draws (途中流局)"),
        gettext_lazy(
            "九種九牌, 四風連打, 四家立直, 四槓散了 and 三家和: whether they stop the hand, and "
            "who deals next."
        ),
    ),
    "extension": (
        gettext_lazy("Extra round (西入)"),
        gettext_lazy(
            "When nobody has the target points after the last hand: the game goes on into "
            "the next wind (South for east-only games)."
        ),
    ),
    "length": (
        gettext_lazy("Game length (東風・東南)"),
        gettext_lazy("East only, or East and South."),
    ),
    "multi_ron": (
        gettext_lazy("Several players call ron (頭ハネ・ダブロン)"),
        gettext_lazy("How many of them win on the same tile."),
    ),
    "multi_ron_honba": (
        gettext_lazy("Honba in a double ron"),
        gettext_lazy("Who is paid the honba when two players win on the same tile."),
    ),
    "multi_ron_renchan": (
        gettext_lazy("Dealer in a double ron"),
        gettext_lazy("When the dealer, among the winners, deals again."),
    ),
    "nagashi": (
        gettext_lazy("Nagashi mangan (流し満貫)"),
        gettext_lazy("Whether it counts, and how it is paid."),
    ),
    "chombo": (
        gettext_lazy("Chombo at the table (チョンボ)"),
        gettext_lazy(
            "Paid at the table, or left to the rules' chombo after the game (the game's "
            "points do not change)."
        ),
    ),
    "pao": (
        gettext_lazy("Liability (包・パオ)"),
        gettext_lazy("The yakuman for which a player who fed the last set is liable."),
    ),
    "pao_ron_honba": (
        gettext_lazy("Honba of a ron with liability"),
        gettext_lazy("Who pays the honba when the liable player is not the discarder."),
    ),
}
# The hand rules' numbers (scoring.hand_options.NUMBER_FIELDS), empty for the preset's.
NUMBER_FIELD_TEXT: dict[str, tuple[Any, Any]] = {
    "honba_ron": (
        gettext_lazy("Honba on a ron (points per honba)"),
        gettext_lazy("Paid by the discarder for each honba."),
    ),
    "honba_tsumo": (
        gettext_lazy("Honba on a tsumo (points per honba, from each)"),
        gettext_lazy("Paid by each other player for each honba."),
    ),
    "draw_pot": (
        gettext_lazy("Noten payments in all (ノーテン罰符)"),
        gettext_lazy("Split between the tenpai and noten players at a draw."),
    ),
    "riichi_min": (
        gettext_lazy("Points needed to declare riichi"),
        gettext_lazy("A player with fewer points cannot declare riichi."),
    ),
    "yakuman_max": (
        gettext_lazy("Most yakuman in one hand"),
        gettext_lazy("1: no double yakuman."),
    ),
    "chombo_points": (
        gettext_lazy("Chombo points to each other player"),
        gettext_lazy("Only when a chombo pays points to each other player."),
    ),
}
# The values of the choices over structured hand rules (scoring.hand_options).
MORE_RULE_VALUES = {
    "abortive": ABORTIVE,
    "extension": EXTENSION,
    "chombo": CHOMBO,
    "pao": tuple(PAO),
}
ABORTIVE_NAMES = {
    "kyuushu": "九種九牌",
    "suufon": "四風連打",
    "suucha": "四家立直",
    "suukan": "四槓散了",
    "sanchahou": "三家和",
}
# Words for a value of one field, where the same value means something else elsewhere.
FIELD_VALUE_TEXT: dict[tuple[str, str], Any] = {
    ("length", "hanchan"): gettext_lazy("East and South (東南戦)"),
    ("length", "tonpuu"): gettext_lazy("East only (東風戦)"),
    ("multi_ron", "atamahane"): gettext_lazy("the first in turn only (頭ハネ)"),
    ("multi_ron", "double"): gettext_lazy("up to two (ダブロン)"),
    ("multi_ron", "triple"): gettext_lazy("up to three (トリロン)"),
    ("multi_ron_honba", "first"): gettext_lazy("to the first in turn"),
    ("multi_ron_honba", "each"): gettext_lazy("to each winner"),
    ("multi_ron_renchan", "any"): gettext_lazy("whenever the dealer is among them"),
    ("multi_ron_renchan", "first"): gettext_lazy("only when the dealer is first in turn"),
    ("nagashi", "none"): gettext_lazy("not counted"),
    ("nagashi", "draw"): gettext_lazy("paid as a mangan, as a draw"),
    ("nagashi", "win"): gettext_lazy("paid as a mangan win"),
    ("chombo", "record"): gettext_lazy("after the game"),
    ("chombo", "mangan"): gettext_lazy("a reverse mangan at the table"),
    ("chombo", "each"): gettext_lazy("points to each other player"),
    ("pao", "none"): gettext_lazy("none"),
    ("pao", "two"): gettext_lazy("大三元 and 大四喜"),
    ("pao", "three"): gettext_lazy("大三元, 大四喜 and 四槓子"),
    ("pao_ron_honba", "discarder"): gettext_lazy("the discarder"),
    ("pao_ron_honba", "pao"): gettext_lazy("the liable player"),
    ("abortive", "none"): gettext_lazy("none: the hand is played on"),
    ("abortive_kind", "renchan"): gettext_lazy("dealer repeats"),
    ("abortive_kind", "rotate"): gettext_lazy("deal passes"),
    ("abortive_kind", "dealer-claimed"): gettext_lazy("as the dealer claims"),
    ("extension", "none"): gettext_lazy("none: the game ends"),
}
RULE_VALUE_TEXT: dict[str, Any] = {
    "true": gettext_lazy("yes"),
    "false": gettext_lazy("no"),
    "below-zero": gettext_lazy("ends below zero"),
    "at-zero": gettext_lazy("ends at zero or below"),
    "none": gettext_lazy("never ends"),
    "tenpai": gettext_lazy("when tenpai"),
    "tenpai-from-south": gettext_lazy("when tenpai, from the South round"),
    "never": gettext_lazy("never"),
    "hand": gettext_lazy("the whole hand"),
    "yakuman": gettext_lazy("the yakuman only"),
    "loss": gettext_lazy("lost (ツモ損)"),
    "split": gettext_lazy("split (折半)"),
    "renchan": gettext_lazy("they stop the hand; the dealer deals again"),
    "rotate": gettext_lazy("they stop the hand; the deal passes"),
    "sudden-death": gettext_lazy("until someone reaches the target"),
    "wind": gettext_lazy("the whole extra wind"),
}


def _rule_value(value: Any, field: str = "") -> str:
    key = {True: "true", False: "false"}.get(value, value) if isinstance(value, bool) else value
    found = FIELD_VALUE_TEXT.get((field, key)) or RULE_VALUE_TEXT.get(key, key)
    return str(found)


def _rule_field(name: str) -> forms.ChoiceField:
    label, help_text = RULE_FIELD_TEXT[name]
    allowed = RULE_FIELDS.get(name) or MORE_RULE_VALUES.get(name) or ("true", "false")
    return forms.ChoiceField(
        label=label,
        help_text=help_text,
        required=False,  # "": the hand preset's own value
        choices=[
            ("", gettext_lazy("as the preset")),
            *((v, _rule_value(v, name)) for v in allowed),
        ],
    )


def _number_field(name: str) -> NumberField:
    label, help_text = NUMBER_FIELD_TEXT[name]
    low, _high, _step = NUMBER_FIELDS.get(name, (100, 0, 100))
    return NumberField(label=label, help_text=help_text, required=False, min_value=low)


def _abortive_value(rules: Any) -> str:
    """The hand preset's 途中流局 in the words of the choice: one value shared by every kind
    the table can have, else the first kind's."""
    kinds = {
        kind: value
        for kind, value in rules.abortive.items()
        if not (rules.players == 3 and kind in NOT_WITH_THREE)
    }
    values = {v for v in kinds.values() if v != "none"}
    if not values:
        return _rule_value("none", "abortive")
    if len(values) > 1 or "none" in kinds.values():
        return _("by kind: %(kinds)s") % {
            "kinds": "・".join(
                f"{ABORTIVE_NAMES[kind]} {_rule_value(value, 'abortive_kind')}"
                for kind, value in kinds.items()
                if value != "none"
            )
        }
    return _rule_value(values.pop())


def _preset_values(rules: Any) -> dict[str, str]:
    """Each hand-rule field's first choice, "as the preset (its value)", for these rules; for a
    number, the preset's number (shown in the empty box)."""
    values = {name: _rule_value(getattr(rules, name), name) for name in RULE_FIELDS}
    pao = next((k for k, v in PAO.items() if set(v) == set(rules.pao)), None)
    values |= {
        "abortive": _abortive_value(rules),
        "extension": _extension_value(rules),
        "chombo": _rule_value(rules.chombo.mode, "chombo")
        + (f", {rules.chombo.points:,}" if rules.chombo.mode == "each" else ""),
        "pao": _rule_value(pao, "pao") if pao else "・".join(rules.pao),
    }
    out = {
        f"hand_{name}": _("as the preset (%(value)s)") % {"value": value}
        for name, value in values.items()
    }
    for name in NUMBER_FIELDS:
        value = getattr(rules, name)
        out[f"hand_{name}"] = "" if value is None else f"{value:,}"
    out["hand_extension_target"] = f"{rules.extension.target:,}" if rules.extension else ""
    out["hand_chombo_points"] = f"{rules.chombo.points:,}" if rules.chombo.mode == "each" else ""
    return out


def _extension_value(rules: Any) -> str:
    ext = rules.extension
    if ext is None:
        return _rule_value("none", "extension")
    how = _rule_value("sudden-death" if ext.sudden_death else "wind")
    return f"{how}, {ext.target:,}"


def hand_options_initial(options: HandOptions) -> dict[str, Any]:
    out = {}
    for name, value in options.to_json().items():
        if isinstance(value, bool) and name in RULE_FIELDS:
            value = "true" if value else "false"
        out[f"hand_{name}"] = value
    return out


class RulesForm(forms.Form):
    """A rules version: the common fields, or the whole rules object as JSON ("advanced").

    Either way the result is checked by `scoring.rules_from_json`, and each problem it finds is
    shown next to the field it is about. `self.rules` holds the checked rules after `is_valid()`.
    """

    effective_from = DateInputField(label=gettext_lazy("Takes effect on"))
    note = forms.CharField(label=gettext_lazy("Note"), max_length=200, required=False)
    preset = forms.CharField(widget=forms.HiddenInput, required=False, max_length=50)

    players = forms.TypedChoiceField(
        label=gettext_lazy("Players"), coerce=int, choices=[(n, str(n)) for n in PLAYER_COUNTS]
    )
    start = NumberField(label=gettext_lazy("Start points"))
    return_points = NumberField(label=gettext_lazy("Return points"))
    rounding = forms.ChoiceField(
        label=gettext_lazy("Rounding"), choices=_choices(ROUNDING_LABELS, ROUNDINGS)
    )
    # Not required: with floating uma it is only the default list, which may be left out.
    uma = UmaField(label=gettext_lazy("Uma (1st, 2nd, …; in 1,000 points)"), required=False)
    ties = forms.ChoiceField(label=gettext_lazy("Ties"), choices=_choices(TIES_LABELS, TIES))
    deposits = forms.ChoiceField(
        label=gettext_lazy("Deposits left at the end"),
        choices=_choices(DEPOSITS_LABELS, DEPOSITS),
    )
    below_zero = forms.ChoiceField(
        label=gettext_lazy("Points below zero"), choices=_choices(BELOW_ZERO_LABELS, BELOW_ZERO)
    )
    oka = forms.ChoiceField(label=gettext_lazy("Oka"), choices=list(OKA_LABELS.items()))
    rounding_negative = forms.ChoiceField(
        label=gettext_lazy("Negative points are rounded"),
        choices=list(ROUNDING_NEGATIVE_LABELS.items()),
    )
    floating = forms.BooleanField(
        label=gettext_lazy("Floating uma (浮きウマ): the uma depends on how many float"),
        required=False,
    )
    floating_line = NumberField(label=gettext_lazy("Floating line (points)"), required=False)
    bust_points = NumberField(
        label=gettext_lazy("Bust bonus (in 1,000 points; empty: none)"), required=False, min_value=1
    )
    bust_to = forms.ChoiceField(label=gettext_lazy("Paid"), choices=list(BUST_TO_LABELS.items()))
    bust_at_zero = forms.BooleanField(
        label=gettext_lazy("Exactly 0 points counts as busted"), required=False
    )
    yakitori_mode = forms.ChoiceField(
        label=gettext_lazy("Yakitori"), choices=list(YAKITORI_LABELS.items())
    )
    yakitori_points = NumberField(
        label=gettext_lazy("Yakitori points (in 1,000 points)"), required=False, min_value=1
    )
    chombo_mode = forms.ChoiceField(
        label=gettext_lazy("Chombo"), choices=_choices(CHOMBO_LABELS, CHOMBO_MODES)
    )
    chombo_points = NumberField(
        label=gettext_lazy("Chombo points (in 1,000 points)"), required=False
    )
    chombo_top_points = NumberField(
        label=gettext_lazy("Points a top offender pays (in 1,000 points)"), required=False
    )
    session_shugi = _yen(gettext_lazy("Yakuman shūgi from every other attendee (yen)"))
    yen_unit = NumberField(label=gettext_lazy("Round day totals to (yen)"), min_value=1)
    surcharge_percent = _yen(gettext_lazy("Surcharge on deferred debts (%)"))
    prize_cap = _yen(gettext_lazy("Prize cap (yen)"))

    # The club's hand options (scoring.hand_options), kept with the version; table mode and the
    # point calculator play by them. Kept apart from the rules object: the JSON does not hold them.
    hand_kuitan = forms.BooleanField(label=gettext_lazy("Open tanyao (喰いタン)"), required=False)
    hand_atozuke = forms.BooleanField(
        label=gettext_lazy("Yaku settled on the winning tile (後付け)"), required=False
    )
    hand_aka = forms.BooleanField(label=gettext_lazy("Red fives (赤ドラ)"), required=False)
    hand_kiriage = forms.BooleanField(
        label=gettext_lazy("Round up to mangan (切り上げ満貫): 4 han 30 fu and 3 han 60 fu"),
        required=False,
    )
    hand_kazoe = forms.ChoiceField(  # left out (a form posted by a script): the preset's
        label=gettext_lazy("13 han or more (数え役満)"),
        required=False,
        choices=[
            ("yakuman", gettext_lazy("a yakuman (数え役満)")),
            ("sanbaiman", gettext_lazy("a sanbaiman")),
        ],
    )

    hand_renhou = forms.ChoiceField(  # left out: the preset's (none)
        label=gettext_lazy("A non-dealer's ron before their first draw (人和)"),
        required=False,
        choices=[
            ("none", gettext_lazy("not a yaku")),
            ("mangan", gettext_lazy("a 5-han yaku (a mangan alone)")),
            ("yakuman", gettext_lazy("a yakuman")),
        ],
    )

    hand_bust = _rule_field("bust")
    hand_agari_yame = _rule_field("agari_yame")
    hand_tenpai_yame = _rule_field("tenpai_yame")
    hand_draw_renchan = _rule_field("draw_renchan")
    hand_pao_scope = _rule_field("pao_scope")
    hand_sanma_tsumo = _rule_field("sanma_tsumo")
    hand_abortive = _rule_field("abortive")
    hand_extension = _rule_field("extension")
    hand_extension_target = NumberField(
        label=gettext_lazy("Target of the extra round (points)"),
        help_text=gettext_lazy("Empty: the preset's target, else the return points."),
        required=False,
        min_value=100,
    )
    hand_length = _rule_field("length")
    hand_multi_ron = _rule_field("multi_ron")
    hand_multi_ron_honba = _rule_field("multi_ron_honba")
    hand_multi_ron_renchan = _rule_field("multi_ron_renchan")
    hand_nagashi = _rule_field("nagashi")
    hand_pao_ron_honba = _rule_field("pao_ron_honba")
    hand_chombo = _rule_field("chombo")
    hand_pao = _rule_field("pao")
    hand_honba_ron = _number_field("honba_ron")
    hand_honba_tsumo = _number_field("honba_tsumo")
    hand_draw_pot = _number_field("draw_pot")
    hand_riichi_min = _number_field("riichi_min")
    hand_yakuman_max = _number_field("yakuman_max")
    hand_chombo_points = _number_field("chombo_points")
    hand_preset = forms.ChoiceField(
        label=gettext_lazy("Hand rules (payments, honba, who deals next)"),
        help_text=gettext_lazy(
            "The rules table mode plays by. As the rules preset: the hand rules of the same "
            "family (EMA for EMA …), else Tenhou's."
        ),
        required=False,
        choices=[("", gettext_lazy("as the rules preset"))],
    )

    def _label_rule_fields(self) -> None:
        # "as the preset" says the preset's value: the hand preset the club picked, else the
        # one of its rules preset's family.
        preset = str(self.data.get("preset") or self.initial.get("preset") or "")
        try:
            players = int(self.data.get("players") or self.initial.get("players") or 4)
        except (TypeError, ValueError):
            players = 4
        players = players if players in (3, 4) else 4
        family = hand_preset_for(preset, players)
        picked = HAND_PRESETS.get(
            str(self.data.get("hand_preset") or self.initial.get("hand_preset") or "")
        )
        rules = (picked if picked and picked.rules.players == players else family).rules
        for name, shown in _preset_values(rules).items():
            field = self.fields[name]
            if isinstance(field, forms.ChoiceField):
                field.choices = [("", shown), *field.choices[1:]]
            else:  # a number: the preset's, in the empty box
                field.widget.attrs["placeholder"] = shown
        field = self.fields["hand_preset"]
        field.choices = [
            ("", _("as the rules preset (%(value)s)") % {"value": hand_preset_label(family.name)}),
            *(
                (name, hand_preset_label(name))
                for name, found in HAND_PRESETS.items()
                if found.rules.players == players
            ),
        ]
        self._hand_players, self._hand_family = players, family

    def hand_defaults(self) -> dict[str, dict[str, str]]:
        """For the page's script: the "as the preset" words of each hand preset the club may
        pick ("": its rules preset's family), so that picking another shows that one's values at
        once. Made when the page asks, not for every form (the rules list makes one per row)."""
        players, family = self._hand_players, self._hand_family
        return {
            "": _preset_values(family.rules),
            **{
                name: _preset_values(found.rules)
                for name, found in HAND_PRESETS.items()
                if found.rules.players == players
            },
        }

    advanced = forms.BooleanField(
        label=gettext_lazy("Use the JSON below instead of the fields above"), required=False
    )
    rules_json = forms.CharField(
        label=gettext_lazy("Rules as JSON"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 16, "spellcheck": "false"}),
    )

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._label_rule_fields()
        for i in range(RATE_ROWS):
            self.fields[f"rate_name_{i}"] = forms.CharField(
                label=gettext_lazy("Rate"),
                required=False,
                max_length=20,
                widget=forms.TextInput(attrs={"size": 5}),
            )
            self.fields[f"rate_yen_{i}"] = _yen(gettext_lazy("Yen per 1,000 points"))
            self.fields[f"rate_chip_{i}"] = _yen(gettext_lazy("Yen per chip"))
        for i in range(CHIP_ROWS):
            self.fields[f"chip_name_{i}"] = forms.CharField(
                label=gettext_lazy("Chip kind"),
                required=False,
                max_length=30,
                widget=forms.TextInput(attrs={"size": 9}),
            )
            self.fields[f"chip_tsumo_{i}"] = _yen(gettext_lazy("Chips from each on tsumo"))
            self.fields[f"chip_ron_{i}"] = _yen(gettext_lazy("Chips from the discarder on ron"))
        for rank in range(1, max(PLAYER_COUNTS) + 1):
            self.fields[f"fee_{rank}"] = _yen(gettext_lazy("Rank %(rank)s") % {"rank": rank})
        for count in FLOATING_COUNTS:
            self.fields[f"uma_floating_{count}"] = UmaField(
                label=gettext_lazy("When %(n)s float") % {"n": count}, required=False
            )
        for name, text in RULE_HELP.items():
            self.fields[name].help_text = text
        self.rules: scoring.Rules | None = None
        # (row kind, name) → row number, to put a problem about "rates.0.3" on its row.
        self._row_index: dict[tuple[str, str], int] = {}

    def rule_field_names(self) -> list[str]:
        meta = {"effective_from", "note", "preset", "advanced", "rules_json", *HAND_ALL_FIELDS}
        return [name for name in self.fields if name not in meta]

    def hand_fields(self) -> list[Any]:
        return [self[name] for name in HAND_FIELDS]

    def hand_more_fields(self) -> list[Any]:
        return [self[name] for name in HAND_MORE_FIELDS]

    def hand_more_open(self) -> bool:
        """Whether the folded hand rules start open: one of them is set, or has an error."""
        return any(
            self[name].value() not in (None, "") or self[name].errors for name in HAND_MORE_FIELDS
        )

    def hand_options_json(self) -> dict[str, Any]:
        """The hand options as rules_version_create takes them (after is_valid())."""
        sent = {name.removeprefix("hand_"): self.cleaned_data[name] for name in HAND_ALL_FIELDS}
        for name in RULE_FIELDS:  # a yes/no hand rule, sent as text
            if not RULE_FIELDS[name] and sent.get(name) in ("true", "false"):
                sent[name] = sent[name] == "true"
        return {name: value for name, value in sent.items() if value not in ("", None)}

    # Rows for the template: (name, first value, second value) bound fields.
    def rate_rows(self) -> list[tuple[Any, Any, Any]]:
        return [
            (self[f"rate_name_{i}"], self[f"rate_yen_{i}"], self[f"rate_chip_{i}"])
            for i in range(RATE_ROWS)
        ]

    def chip_rows(self) -> list[tuple[Any, Any, Any]]:
        return [
            (self[f"chip_name_{i}"], self[f"chip_tsumo_{i}"], self[f"chip_ron_{i}"])
            for i in range(CHIP_ROWS)
        ]

    def floating_fields(self) -> list[Any]:
        return [self[f"uma_floating_{n}"] for n in FLOATING_COUNTS]

    def fee_fields(self) -> list[Any]:
        return [self[f"fee_{rank}"] for rank in range(1, max(PLAYER_COUNTS) + 1)]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        advanced = bool(cleaned.get("advanced"))
        if advanced:  # the JSON replaces the fields: what they hold does not matter then
            for name in self.rule_field_names():
                self.errors.pop(name, None)
        if self.errors:
            return cleaned
        obj = self._json_object() if advanced else self._fields_object()
        if obj is None:
            return cleaned
        try:
            rules = scoring.rules_from_json(obj)
        except scoring.InputError as e:
            for problem in e.problems:
                self._add_problem(problem, advanced=advanced)
            return cleaned
        if not self._add_column_problems(rules, advanced=advanced):
            return cleaned
        self.rules = rules
        named = (
            obj if isinstance(obj, str) else obj.get("preset") if isinstance(obj, dict) else None
        )
        if isinstance(named, str):  # the JSON names the preset it is based on
            cleaned["preset"] = named
        return cleaned

    def _json_object(self) -> Any:
        text = self.cleaned_data.get("rules_json", "")
        if not text.strip():
            self.add_error("rules_json", _("Enter the rules as JSON."))
            return None
        # Cheap checks first: the parser recurses once per level of nesting.
        if len(text) > limits.MAX_RULES_JSON:
            self.add_error("rules_json", limits.JSON_TOO_LONG % {"n": f"{limits.MAX_RULES_JSON:,}"})
            return None
        if limits.json_too_deep(text):
            self.add_error("rules_json", limits.JSON_TOO_DEEP % {"n": limits.MAX_JSON_DEPTH})
            return None
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as e:
            self.add_error("rules_json", _("This is not valid JSON: %(error)s") % {"error": e})
            return None
        problem = limits.json_text_problem(obj)
        if problem is not None:
            self.add_error("rules_json", problem)
            return None
        return obj

    def _rows(self, kind: str) -> dict[str, dict[str, int]] | None:
        """A kind's rows as {name: {key: value}}; a row with a value needs a name."""
        count, columns = ROWS[kind]
        out: dict[str, dict[str, int]] = {}
        ok = True
        for i in range(count):
            name = unicodedata.normalize("NFKC", self.cleaned_data[f"{kind}_name_{i}"]).strip()
            if kind == "chip":
                name = chip_kind_key(name)  # 「一発」 is the kind "ippatsu"
            values = {key: self.cleaned_data[f"{kind}_{col}_{i}"] for col, key in columns.items()}
            if not name:
                if any(v is not None for v in values.values()):
                    self.add_error(f"{kind}_name_{i}", _("Enter a name."))
                    ok = False
            elif name in out:
                self.add_error(f"{kind}_name_{i}", _("This name is used twice."))
                ok = False
            else:
                # A named row needs every amount: an empty one is a mistake, never 0 yen.
                for col, key in columns.items():
                    if values[key] is None:
                        self.add_error(f"{kind}_{col}_{i}", MISSING_AMOUNT[kind])
                        ok = False
                out[name] = {key: v for key, v in values.items() if v is not None}
                self._row_index[(kind, name)] = i
        return out if ok else None

    def _fields_object(self) -> dict[str, Any] | None:
        c = self.cleaned_data
        rates = self._rows("rate")
        chips = self._rows("chip")
        if rates is None or chips is None:
            return None
        chombo: dict[str, Any] = {"mode": c["chombo_mode"]}
        if c["chombo_mode"] != "none" and c["chombo_points"] is not None:
            chombo["points"] = c["chombo_points"]
        if c["chombo_mode"] == "pay_top" and c["chombo_top_points"] is not None:
            chombo["top_points"] = c["chombo_top_points"]
        fees = {}
        for rank in range(1, max(PLAYER_COUNTS) + 1):
            if not c[f"fee_{rank}"]:
                continue
            if rank > c["players"]:
                self.add_error(f"fee_{rank}", _("There is no such rank with this many players."))
                return None
            fees[str(rank)] = c[f"fee_{rank}"]
        extra: dict[str, Any] = {"oka": c["oka"], "rounding_negative": c["rounding_negative"]}
        if c["bust_points"] is not None:
            extra["bust_bonus"] = {
                "points": c["bust_points"],
                "to": c["bust_to"],
                "at_zero": bool(c["bust_at_zero"]),
            }
        if c["yakitori_mode"] != "none":
            if c["yakitori_points"] is None:
                self.add_error("yakitori_points", _("Enter the points."))
                return None
            extra["yakitori"] = {"mode": c["yakitori_mode"], "points": c["yakitori_points"]}
        uma: Any = c["uma"]
        if c["floating"]:
            table = {
                str(n): c[f"uma_floating_{n}"] for n in FLOATING_COUNTS if c[f"uma_floating_{n}"]
            }
            uma = (
                {"by_floating": table, "default": c["uma"]} if c["uma"] else {"by_floating": table}
            )
            if c["floating_line"] is not None:
                uma["floating_line"] = c["floating_line"]
        return {
            **extra,
            "players": c["players"],
            "start": c["start"],
            "return": c["return_points"],
            "rounding": c["rounding"],
            "uma": uma,
            "ties": c["ties"],
            "deposits": c["deposits"],
            "below_zero": c["below_zero"],
            "chombo": chombo,
            "chips": chips,
            "rates": rates,
            "place_fees": fees,
            "session_shugi": c["session_shugi"] or 0,
            "yen_unit": c["yen_unit"],
            "surcharge_percent": c["surcharge_percent"] or 0,
            "prize_cap": c["prize_cap"],
        }

    def _add_problem(self, problem: scoring.Problem, *, advanced: bool) -> None:
        path = _strip_root(problem.field)
        message = problem_message(problem)
        self._add_message(path, message, advanced=advanced)

    def _add_message(self, path: str, message: str, *, advanced: bool) -> None:
        if advanced:
            self.add_error("rules_json", f"{path}: {message}" if path else message)
            return
        field = self.problem_field(path)
        self.add_error(field, message if field else f"{path}: {message}")

    def _add_column_problems(self, rules: scoring.Rules, *, advanced: bool) -> bool:
        """Rate names and chip kinds that their columns cannot hold; False when there were any."""
        problems = limits.rules_column_problems(rules)
        for kind, name, message in problems:
            index = self._row_index.get((kind, name))
            if not advanced and index is not None:
                self.add_error(f"{kind}_name_{index}", message)
            else:
                head = "rates" if kind == "rate" else "chips"
                self.add_error("rules_json", f"{head}.{limits.printable(name)}: {message}")
        return not problems

    def problem_field(self, path: str) -> str | None:
        """The form field a scoring problem's path is about: "rates.0.3.yen_per_1000" → "rate_yen_0"."""
        simple = {
            "players": "players",
            "start": "start",
            "return": "return_points",
            "rounding": "rounding",
            "ties": "ties",
            "deposits": "deposits",
            "below_zero": "below_zero",
            "chombo": "chombo_mode",
            "chombo.mode": "chombo_mode",
            "chombo.points": "chombo_points",
            "chombo.top_points": "chombo_top_points",
            "session_shugi": "session_shugi",
            "yen_unit": "yen_unit",
            "surcharge_percent": "surcharge_percent",
            "prize_cap": "prize_cap",
        }
        if path in simple:
            return simple[path]
        if path.startswith("uma.by_floating."):
            count = path.removeprefix("uma.by_floating.").partition("[")[0]
            return f"uma_floating_{count}" if f"uma_floating_{count}" in self.fields else "uma"
        if path == "uma.floating_line":
            return "floating_line"
        if path == "uma" or path.startswith(("uma[", "uma.")):
            return "uma"
        v2 = {
            "oka": "oka",
            "rounding_negative": "rounding_negative",
            "bust_bonus.points": "bust_points",
            "bust_bonus.to": "bust_to",
            "yakitori.mode": "yakitori_mode",
            "yakitori.points": "yakitori_points",
        }
        if path in v2:
            return v2[path]
        if path.startswith("place_fees."):
            rank = path.removeprefix("place_fees.")
            return f"fee_{rank}" if f"fee_{rank}" in self.fields else None
        for kind, head in (("rate", "rates."), ("chip", "chips.")):
            if path.startswith(head):
                # Rate names may hold dots ("0.3"), so the key is taken from the end.
                name, _dot, key = path.removeprefix(head).rpartition(".")
                column = {k: col for col, k in ROWS[kind][1].items()}.get(key)
                index = self._row_index.get((kind, name))
                if column is not None and index is not None:
                    return f"{kind}_{column}_{index}"
        return None


def _strip_root(path: str) -> str:
    """scoring names rules problems under "rules" ("rules.uma"); the form is the rules."""
    if path == "rules":
        return ""
    return path.removeprefix("rules.").removeprefix(".")


def rules_initial(rules_json: Mapping[str, Any]) -> dict[str, Any]:
    """A rules object (a version's `rules_json`, a preset's `to_json()`) as the form's initial."""
    r = rules_json
    chombo = r.get("chombo", {})
    uma = r["uma"]
    floating = uma if isinstance(uma, Mapping) else None
    bust = r.get("bust_bonus") or {}
    yakitori = r.get("yakitori") or {}
    initial: dict[str, Any] = {
        "players": r["players"],
        "start": r["start"],
        "return_points": r["return"],
        "rounding": r["rounding"],
        "uma": list(floating.get("default", [])) if floating else list(uma),
        "floating": floating is not None,
        "floating_line": floating.get("floating_line") if floating else None,
        "oka": r.get("oka", "top"),
        "rounding_negative": r.get("rounding_negative", "magnitude"),
        "bust_points": bust.get("points"),
        "bust_to": bust.get("to", "buster"),
        "bust_at_zero": bust.get("at_zero", False),
        "yakitori_mode": yakitori.get("mode", "none"),
        "yakitori_points": yakitori.get("points"),
        "ties": r["ties"],
        "deposits": r["deposits"],
        "below_zero": r["below_zero"],
        "chombo_mode": chombo.get("mode", "none"),
        "chombo_points": chombo.get("points"),
        "chombo_top_points": chombo.get("top_points"),
        "session_shugi": r.get("session_shugi", 0),
        "yen_unit": r.get("yen_unit", 1),
        "surcharge_percent": r.get("surcharge_percent", 0),
        "prize_cap": r.get("prize_cap"),
        "rules_json": json.dumps(dict(r), ensure_ascii=False, indent=2),
        # More rows than the form offers: only the JSON can show them all.
        "advanced": len(r.get("rates", {})) > RATE_ROWS or len(r.get("chips", {})) > CHIP_ROWS,
    }
    for i, (name, tier) in enumerate(list(r.get("rates", {}).items())[:RATE_ROWS]):
        initial |= {
            f"rate_name_{i}": name,
            f"rate_yen_{i}": tier.get("yen_per_1000"),
            f"rate_chip_{i}": tier.get("chip_yen"),
        }
    for i, (name, kind) in enumerate(list(r.get("chips", {}).items())[:CHIP_ROWS]):
        initial |= {
            f"chip_name_{i}": chip_kind(name),  # shown as players call it: 一発
            f"chip_tsumo_{i}": kind.get("tsumo"),
            f"chip_ron_{i}": kind.get("ron"),
        }
    for rank, fee in r.get("place_fees", {}).items():
        initial[f"fee_{rank}"] = fee
    for count, table in (floating or {}).get("by_floating", {}).items():
        initial[f"uma_floating_{count}"] = list(table)
    return initial


ROWS: dict[str, tuple[int, dict[str, str]]] = {
    "rate": (RATE_ROWS, {"yen": "yen_per_1000", "chip": "chip_yen"}),
    "chip": (CHIP_ROWS, {"tsumo": "tsumo", "ron": "ron"}),
}


# One sentence and an example for each choice, shown under its field.
RULE_HELP: dict[str, Any] = {
    "players": gettext_lazy("How many sit at a table."),
    "start": gettext_lazy("The points each player starts with, e.g. 25,000."),
    "return_points": gettext_lazy(
        "Results are measured from this line (返し). With 25,000 start and 30,000 return, the "
        "5,000 × 4 = 20 difference (oka) goes to the top."
    ),
    "rounding": gettext_lazy(
        "How final points become whole thousands before the uma, e.g. with 500 down and 600 "
        "up, 34,500 counts as 34 and 34,600 as 35."
    ),
    "uma": gettext_lazy(
        "Points added by rank, in thousands: 10-20 is +20 / +10 / −10 / −20. Leave the 4th "
        "empty for 3 players."
    ),
    "ties": gettext_lazy("Who ranks higher when two players end on the same points."),
    "deposits": gettext_lazy("Riichi sticks still on the table when the game ends."),
    "below_zero": gettext_lazy(
        "A player who ends below zero (箱下): −5,000 counts as −5,000, or as 0."
    ),
    "chombo_mode": gettext_lazy(
        "How a chombo is settled after the game, e.g. pays the top 20: the offender −20, the "
        "top +20."
    ),
    "session_shugi": gettext_lazy("花月杯: 2,000 yen from each of the others for a yakuman."),
    "yen_unit": gettext_lazy("Each player's day total is rounded to this; 1 is to the yen."),
    "surcharge_percent": gettext_lazy(
        "Added to a debt paid on a later day: 10% makes 1,140 yen 1,254 yen."
    ),
    "prize_cap": gettext_lazy("The most the champion receives from the club's pot."),
    "oka": gettext_lazy(
        "The difference between return and start points, e.g. 20 with 25,000 / 30,000."
    ),
    "rounding_negative": gettext_lazy("Only matters for points below zero."),
    "bust_points": gettext_lazy(
        "A player who ends below zero pays this, e.g. 10: −10 for them, +10 for the other."
    ),
    "yakitori_mode": gettext_lazy("For a player who won no hand all game."),
}
