"""The point calculator never answers 500 (issue 39): honour tiles past 7z (8z, 9z, read past the
last tile before), more than four of a tile, and winds that are not text (`seat_wind: []`,
`round_wind: {}`) are refused naming the field, in the API and in table mode."""

from __future__ import annotations

import pytest

import scoring
from scoring import calculator
from scoring.hand_presets import HAND_PRESETS
from tests.support.calculator import PINFU_TSUMO, calc
from tests.support.pao import post

BAD = [
    ({"tiles": "123456m234p5678z", "win": "8z"}, "tiles"),
    ({"tiles": "123456m234p56799z", "win": "9z"}, "tiles"),
    ({"tiles": "123456m234p567s99z", "win": "9z"}, "tiles"),
    # Five 1m were read as 1111m and a 2m: a winning hand (11112m3m: 111m 123m) once.
    ({"tiles": "11111m3m456p789s55z", "win": "3m", "tsumo": True}, "tiles"),
    ({**PINFU_TSUMO, "dora": ["8z"]}, "dora"),
    ({**PINFU_TSUMO, "seat_wind": []}, "seat_wind"),
    ({**PINFU_TSUMO, "round_wind": {}}, "round_wind"),
]


@pytest.mark.parametrize(("body", "field"), BAD)
def test_the_api_refuses_them_naming_the_field(client, secret, body, field):
    answer = calc(client, secret, body)
    assert answer.status_code in (400, 422), answer.content
    assert field in str(answer.json())


@pytest.mark.parametrize(("body", "field"), BAD)
def test_table_mode_refuses_them_naming_the_field(organiser_client, tg, club, body, field):
    """As the phone asks: the API's calculator with the session and the table's key."""
    answer = post(
        organiser_client, f"/api/clubs/{club.slug}/calculator", {**body, "table": str(tg.key)}
    )
    assert answer.status_code in (400, 422), answer.content
    assert field in str(answer.json())


@pytest.mark.parametrize(
    ("tiles", "win"), [("123456m234p567s88z", "8z"), ("123m456p789s99z11z", "9z")]
)
def test_the_engine_refuses_honours_past_7z(tiles, win):
    hand = calculator.WinningHand(tiles=tiles, win=win)
    rules = next(iter(HAND_PRESETS.values())).rules
    with pytest.raises(scoring.InputError):
        calculator.value_hand(rules, calculator.ClubOptions(), hand)
