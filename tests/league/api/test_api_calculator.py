"""The point calculator in the API (league.api.calculator): tiles → han, fu, yaku and points under
the club's rules and hand options; bad input a 400 naming the field; listed in the schema."""

from __future__ import annotations

import datetime

import pytest

from league.accounts import tokens as api_auth
from league.models import RulesVersion
from league.rules import services as rules_services
from tests.support.calculator import PINFU_TSUMO, calc

OPEN_TANYAO = {
    "tiles": "234m456p66s",
    "win": "6s",
    "melds": [{"kind": "chi", "tiles": "234s"}, {"kind": "pon", "tiles": "888p"}],
    "seat_wind": "south",
    "date": "2026-11-20",
}


@pytest.fixture
def secret(club, organiser) -> str:
    return api_auth.token_create(club=club, user=organiser, name="calculator")[1]


def hand_options_from_november(club, organiser, options: dict) -> None:
    """A new rules version from 2026-11-01: the club's rules with these hand options."""
    base = RulesVersion.objects.get(club=club)
    rules_services.rules_version_create(
        club=club,
        user=organiser,
        effective_from=datetime.date(2026, 11, 1),
        rules_json=base.rules_json,
        preset=base.preset,
        hand_options=options,
    )


def test_tiles_to_han_fu_yaku_and_points(client, secret):
    answer = calc(client, secret, PINFU_TSUMO)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    # 立直 門前清自摸和 平和 + 裏ドラ 9s ×2: 5 han, a non-dealer mangan tsumo 2,000 / 4,000.
    assert (body["han"], body["fu"], body["yakuman"], body["ura"]) == (5, 20, None, 2)
    assert set(body["yaku"]) == {"立直", "門前清自摸和", "平和"}
    assert (body["points"], body["tsumo_dealer"], body["tsumo_others"], body["ron"]) == (
        8000,
        4000,
        2000,
        None,
    )
    dealer_ron = {"tiles": "22444m333067p444s", "win": "4s", "seat_wind": "east"}
    body = calc(client, secret, dealer_ron).json()
    assert (body["han"], body["fu"], body["aka"], body["ron"], body["points"]) == (
        2,
        40,
        1,
        3900,
        3900,
    )


def test_the_clubs_options_are_used(client, secret, club, organiser):
    assert calc(client, secret, OPEN_TANYAO).json()["yaku"] == ["断幺九"]
    hand_options_from_november(club, organiser, {"kuitan": False})
    answer = calc(client, secret, OPEN_TANYAO)
    assert answer.status_code == 400 and list(answer.json()["errors"]) == ["tiles"]
    earlier = calc(client, secret, {**OPEN_TANYAO, "date": "2026-10-31"})
    assert earlier.status_code == 200  # the version in force then


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"tiles": "xyz", "win": "4s"}, "tiles"),
        ({"tiles": "123m", "win": "1m"}, "tiles"),  # not a winning hand
        ({"tiles": "22444m333567p444s", "win": "9s"}, "win"),
        ({"tiles": 5, "win": "4s"}, "tiles"),
        ({"win": "4s"}, "tiles"),
        ({**PINFU_TSUMO, "seat_wind": "up"}, "seat_wind"),
        ({**PINFU_TSUMO, "melds": [{"kind": "chow", "tiles": "123m"}]}, "melds[0].kind"),
        ({**PINFU_TSUMO, "date": "1999-01-01"}, "date"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, secret, body, field):
    answer = calc(client, secret, body)
    assert answer.status_code == 400, answer.content
    assert field in answer.json()["errors"]


def test_listed_in_the_schema_and_needs_a_token(client, db):
    schema = client.get("/api/openapi.json").json()
    operation = schema["paths"]["/api/clubs/{slug}/calculator"]["post"]
    assert {"200", "400"} <= set(operation["responses"])
    assert calc(client, "wrong", PINFU_TSUMO).status_code == 401


def test_first_turn_wins_and_renhou_where_the_club_counts_it(client, secret, club, organiser):
    # Issue 40. 天和 for the dealer's tsumo; 人和 refused until the club's hand options count it.
    haku = {"tiles": "11p456p789s123s555z", "win": "5z"}
    tenhou = calc(client, secret, {**haku, "tsumo": True, "seat_wind": "east", "tenhou": True})
    assert tenhou.status_code == 200 and tenhou.json()["yakuman"] == 1
    assert "天和" in tenhou.json()["yaku"]
    renhou = {**haku, "seat_wind": "south", "renhou": True, "date": "2026-11-20"}
    refused = calc(client, secret, renhou)
    assert refused.status_code == 400 and list(refused.json()["errors"]) == ["renhou"]
    hand_options_from_november(club, organiser, {"renhou": "yakuman"})
    answer = calc(client, secret, renhou)
    assert answer.status_code == 200 and answer.json()["yakuman"] == 1
    # 北抜き: the club plays four: refused naming the field.
    kita = calc(client, secret, {**haku, "tsumo": True, "seat_wind": "south", "kita": 1})
    assert kita.status_code == 400 and list(kita.json()["errors"]) == ["kita"]
