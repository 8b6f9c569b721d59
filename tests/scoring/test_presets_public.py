"""The public rule sets that clubs copy (scoring/presets.py): each settles a game worked by hand."""

from __future__ import annotations

import json

import pytest

from scoring import PRESETS
from scoring.parse import settle_json
from tests.support.scoring_cases import run_cli


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


# 天鳳: 五捨六入, uma +20/+10/-10/-20, oka 20 and leftover sticks to the first, ties by seat.
def test_tenhou_gives_tenhous_own_result_line():
    # A real 鳳南 game (tests/data/online/2019021004gm-00a9-0000-e2f6516d.xml), whose owari line is
    # "44,-46.0,71,-33.0,407,21.0,478,58.0": 4,400 rounds to 4 (五捨), 4 − 30 − 20 = −46.
    assert settle("tenhou", [4_400, 7_100, 40_700, 47_800]) == [
        (4, "-46.0"),
        (3, "-33.0"),
        (2, "21.0"),
        (1, "58.0"),
    ]


def test_tenhou_ties_by_seat_and_sticks_to_the_first():
    # 東 and 南 tie on 30,000: 東 (起家) ranks first. 1,000 in sticks left on the table.
    # 南 30 − 30 + 10 = 10; 西 24,500 → 25 (half up) − 30 − 10 = −15; 北 14,500 → 15 − 30 − 20 = −35.
    # 東 takes the rest: 40 (= 0 + 20 uma + 20 oka + 1 stick − the two 500s rounded up).
    result = settle("tenhou", [30_000, 30_000, 24_500, 14_500], deposits=1_000)
    assert result == [(1, "40.0"), (2, "10.0"), (3, "-15.0"), (4, "-35.0")]


# Tenhou rounds the hundreds half up on the magnitude (issue 40): each x,500 case of the issue,
# the other seats on whole thousands where the total allows. Under 五捨六入 each would be one off.
@pytest.mark.parametrize(
    ("points", "expected"),
    [
        # 西 24,500 → 25: 25 − 30 − 10 = −15 (五捨六入: −16). 南 30 − 30 + 10 = 10;
        # 北 −5 − 30 − 20 = −55; 東 (50,500, the top) takes the rest: 60.
        ([50_500, 30_000, 24_500, -5_000], [(1, "60.0"), (2, "10.0"), (3, "-15.0"), (4, "-55.0")]),
        # 東 38,500 → 39: 39 − 30 + 10 = 19 (五捨六入: 18). 西 21 − 30 − 10 = −19; 北 −55;
        # 南 (45,500, the top) takes the rest: 55.
        ([38_500, 45_500, 21_000, -5_000], [(2, "19.0"), (1, "55.0"), (3, "-19.0"), (4, "-55.0")]),
        # 北 −7,500 → −8: −8 − 30 − 20 = −58 (五捨六入: −57). 南 and 西 tie on 31,000, 南 first:
        # 31 − 30 + 10 = 11 and 31 − 30 − 10 = −9; 東 (45,500, the top) takes the rest: 56.
        ([45_500, 31_000, 31_000, -7_500], [(1, "56.0"), (2, "11.0"), (3, "-9.0"), (4, "-58.0")]),
    ],
    ids=["24500-to-25", "38500-to-39", "minus-7500-to-minus-8"],
)
def test_tenhou_rounds_x500_half_up_on_the_magnitude(points, expected):
    assert settle("tenhou", points) == expected


def test_saikouisen_no_oka_uma_10_30():
    # 30,000/30,000, uma +30/+10/−10/−30: 32−30+10 = 12; 28−30−10 = −12; 15−30−30 = −45; top 45.
    assert settle("saikouisen", [45_000, 32_000, 28_000, 15_000]) == [
        (1, "45.0"),
        (2, "12.0"),
        (3, "-12.0"),
        (4, "-45.0"),
    ]


def test_npm_oka_and_uma_10_30():
    # 25,000/30,000, oka 20 to the top, uma +30/+10/−10/−30, 1,000 points = 1P, no rounding.
    # 31−30+10 = 11; 18.7−30−10 = −21.3; 8−30−30 = −52; top 42.3−30+30+20 = 62.3.
    assert settle("npm", [42_300, 31_000, 18_700, 8_000]) == [
        (1, "62.3"),
        (2, "11.0"),
        (3, "-21.3"),
        (4, "-52.0"),
    ]


def test_rmu_a_ties_share_the_uma():
    # 30,000/30,000, uma +15/+5/△5/△15; 南 and 西 tie for 2nd: +5 and −5 shared, 0 each.
    assert settle("rmu-a", [40_000, 30_000, 30_000, 20_000]) == [
        (1, "25.0"),
        (2, "0.0"),
        (2, "0.0"),
        (4, "-25.0"),
    ]


def test_rmu_m_top_gets_50_with_the_oka():
    # 25,000 start; RMU's +50/+10/△10/△30 is uma +30 plus the 20 oka, measured from 30,000.
    # top 38−30+50 = 58; 30−30+10 = 10; 22−30−10 = −18; 10−30−30 = −50.
    assert settle("rmu-m", [38_000, 30_000, 22_000, 10_000]) == [
        (1, "58.0"),
        (2, "10.0"),
        (3, "-18.0"),
        (4, "-50.0"),
    ]


def test_wrc_uma_15_5_modified_for_ties():
    # (points − 30,000) / 1,000 + uma; 南 and 西 tie for 2nd and share +5 and −5: 3.0 each.
    # top 41.2−30+15 = 26.2; 北 12.8−30−15 = −32.2.
    assert settle("wrc", [41_200, 33_000, 33_000, 12_800]) == [
        (1, "26.2"),
        (2, "3.0"),
        (2, "3.0"),
        (4, "-32.2"),
    ]


def test_m_league_note_says_chombo_goes_to_the_season_total():
    assert "season total" in PRESETS["m-league"].note


PUBLIC = ["jpml", "m-league", "ema-2016", "tenhou", "saikouisen", "npm", "rmu-a", "rmu-m", "wrc"]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_presets_are_listed_by_the_command_line(name):
    proc = run_cli("presets")
    assert proc.returncode == 0, proc.stderr
    assert name in json.loads(proc.stdout)


def test_public_presets_say_where_they_come_from():
    for name in PUBLIC:
        preset = PRESETS[name]
        assert "(public)" in preset.seed
        assert "Chosen where not read" in preset.note
    for name in ("tenhou", "saikouisen", "npm", "rmu-a", "rmu-m", "wrc"):
        assert "http" in PRESETS[name].note, name
