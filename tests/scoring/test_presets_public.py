"""The public rule sets that clubs copy (scoring/presets.py): each settles a game worked by hand."""

from __future__ import annotations

import json

import pytest
from scoring_test_support import run_cli

from scoring import PRESETS
from scoring.parse import settle_json


def settle(rules: str, points: list[int], **extra: object) -> list[tuple[int, str]]:
    names = ["東", "南", "西", "北"]
    players = [{"name": n, "points": p} for n, p in zip(names, points, strict=True)]
    out = settle_json({"rules": rules, "players": players, **extra})
    return [(p["rank"], p["score"]) for p in out["players"]]


# 日本プロ麻雀連盟: 30,000 start and return, floating uma by how many end at or above 30,000.
@pytest.mark.parametrize(
    ("points", "expected"),
    [
        # One floating (45,000): uma +12/−1/−3/−8.
        # 45−30+12 = 27; 28−30−1 = −3; 25−30−3 = −8; 22−30−8 = −16.
        ([45_000, 28_000, 25_000, 22_000], [(1, "27.0"), (2, "-3.0"), (3, "-8.0"), (4, "-16.0")]),
        # Two floating (40,000 and 31,000): uma +8/+4/−4/−8.
        # 40−30+8 = 18; 31−30+4 = 5; 29−30−4 = −5; 20−30−8 = −18.
        ([40_000, 31_000, 29_000, 20_000], [(1, "18.0"), (2, "5.0"), (3, "-5.0"), (4, "-18.0")]),
        # Three floating (exactly 30,000 floats too): uma +8/+3/+1/−12.
        # 35.2−30+8 = 13.2; 30−30+3 = 3; 30.8... seats: 西 30,800 is 2nd, 南 30,000 3rd.
        # 西: 30.8−30+3 = 3.8; 南: 30−30+1 = 1; 北: 24−30−12 = −18; 東 takes the rest: 13.2.
        (
            [35_200, 30_000, 30_800, 24_000],
            [(1, "13.2"), (3, "1.0"), (2, "3.8"), (4, "-18.0")],
        ),
    ],
)
def test_jpml_floating_uma(points, expected):
    assert settle("jpml", points) == expected


def test_m_league_oka_and_uma_10_30_below_zero_counts():
    # 25,000 start, 30,000 return: oka 20 to the top. Uma +30/+10/−10/−30, no rounding.
    # 2nd 28.3−30+10 = 8.3; 3rd 25−30−10 = −15; 4th −3.3−30−30 = −63.3; top the rest: 70.0
    # (= 50−30+30+20).
    assert settle("m-league", [50_000, 28_300, 25_000, -3_300]) == [
        (1, "70.0"),
        (2, "8.3"),
        (3, "-15.0"),
        (4, "-63.3"),
    ]


def test_m_league_ties_share_the_uma():
    # 南 and 西 tie on 25,000 for 2nd: they share +10 and −10, so each gets 0 uma: 25−30 = −5.
    assert settle("m-league", [35_000, 25_000, 25_000, 15_000]) == [
        (1, "55.0"),  # 35−30+30+20
        (2, "-5.0"),
        (2, "-5.0"),
        (4, "-45.0"),  # 15−30−30
    ]


def test_ema_no_oka_uma_15_5_and_chombo_after_uma():
    # Start and return 30,000. 北 has a chombo: −20 after the uma, received by nobody.
    # 東 45−30+15 = 30; 南 32−30+5 = 7; 西 28−30−5 = −7; 北 15−30−15−20 = −50. Sum −20.
    result = settle("ema-2016", [45_000, 32_000, 28_000, 15_000], chombo=["北"])
    assert result == [(1, "30.0"), (2, "7.0"), (3, "-7.0"), (4, "-50.0")]


@pytest.mark.parametrize("name", ["jpml", "m-league", "ema-2016"])
def test_public_presets_are_listed_by_the_command_line(name):
    proc = run_cli("presets")
    assert proc.returncode == 0, proc.stderr
    assert name in json.loads(proc.stdout)


def test_public_presets_say_where_they_come_from():
    for name in ("jpml", "m-league", "ema-2016"):
        preset = PRESETS[name]
        assert "(public)" in preset.seed
        assert "Chosen where not read" in preset.note
