"""The presets by their names in the UI language, with a plain description of each."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy


def preset_label(name: str) -> tuple[str, str]:
    """A preset's name and plain description in the UI language; its id for one not listed."""
    label, description = PRESET_LABELS.get(name, (name, ""))
    return str(label), str(description)


def hand_preset_label(name: str) -> str:
    """A hand preset's name in the UI language: the settlement preset's of the same name, else
    its own (the hand presets without a settlement preset of their name), else its id."""
    if name in HAND_ONLY_LABELS:
        return str(HAND_ONLY_LABELS[name])
    return preset_label(name)[0]


HAND_ONLY_LABELS: dict[str, Any] = {
    "tenhou-tonpuu": gettext_lazy("Tenhou (east-only)"),
    "tenhou-3p-tonpuu": gettext_lazy("Tenhou 3-player (east-only)"),
    "ema": gettext_lazy("EMA (European rules)"),
}


# Each preset as an organiser knows it: a name and one plain line (the ids stay in the data).
PRESET_LABELS: dict[str, tuple[Any, Any]] = {
    "kinyokai-2015": (
        gettext_lazy("Kinyōkai (Yamaguchi)"),
        gettext_lazy("25,000 start, 30,000 return, 5-10 uma, 500 rounded down and 600 up."),
    ),
    "mame-no-kai": (
        gettext_lazy("Mame no Kai"),
        gettext_lazy("10-20 uma, no points below zero, chombo paid to the top, chips and rates."),
    ),
    "kagetsu-cup": (
        gettext_lazy("Kagetsu Cup"),
        gettext_lazy("East-only games without uma; 4th place pays a fee, yakuman shūgi."),
    ),
    "pairon-kansai": (
        gettext_lazy("Pairon Kansai (4 players)"),
        gettext_lazy("25,000 start, 30,000 return, 10-20 uma, points below zero counted."),
    ),
    "pairon-kansai-3p": (
        gettext_lazy("Pairon Kansai (3 players)"),
        gettext_lazy("35,000 start, 40,000 return; 3rd pays 20 to the 1st."),
    ),
    "takabari-kenko": (
        gettext_lazy("Takabari health mahjong"),
        gettext_lazy("No money: rank points +4 / +2 / −2 / −4, no oka."),
    ),
    "jpml": (
        gettext_lazy("Japan Professional Mahjong League (JPML)"),
        gettext_lazy(
            "30,000 start, no oka; floating uma, by how many end at or above 30,000 (浮きウマ)."
        ),
    ),
    "m-league": (
        gettext_lazy("M.League"),
        gettext_lazy(
            "25,000 start, 30,000 return, 10-30 uma, oka to the top, no busting out. A chombo "
            "counts in the season total, not in the game: book it as an adjustment (−20)."
        ),
    ),
    "ema-2016": (
        gettext_lazy("EMA (European rules, 2016)"),
        gettext_lazy("30,000 start, no oka, 5-15 uma, chombo −20 after the uma."),
    ),
    "tenhou": (
        gettext_lazy("Tenhou (ranked games)"),
        gettext_lazy(
            "25,000 start, 30,000 return, 10-20 uma, 500 rounded up (−7,500 counts −8), "
            "leftover sticks to the top."
        ),
    ),
    "tenhou-3p": (
        gettext_lazy("Tenhou 3-player (ranked games)"),
        gettext_lazy(
            "3 players: 35,000 start, 40,000 return, the 3rd pays the top 20, 500 rounded up, "
            "leftover sticks to the top."
        ),
    ),
    "saikouisen": (
        gettext_lazy("Saikouisen"),
        gettext_lazy("30,000 start, no oka, 10-30 uma."),
    ),
    "npm": (
        gettext_lazy("Nihon Pro Mahjong Kyokai (NPM)"),
        gettext_lazy("25,000 start, 30,000 return, 10-30 uma, oka to the top."),
    ),
    "rmu-a": (
        gettext_lazy("RMU (A rules)"),
        gettext_lazy("30,000 start, no oka, 5-15 uma, tied players share the uma."),
    ),
    "rmu-m": (
        gettext_lazy("RMU (M rules)"),
        gettext_lazy("25,000 start, 30,000 return, 10-30 uma, oka to the top."),
    ),
    "wrc": (
        gettext_lazy("World Riichi Championship (WRC)"),
        gettext_lazy("30,000 start, no oka, 5-15 uma, tied players share the uma."),
    ),
}
