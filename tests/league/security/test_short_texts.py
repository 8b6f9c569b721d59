"""Short texts (issue 26, item 10): a table label, a rate's name and every other one-line text
refuse control characters (a line break included) and bidirectional controls, as names do, on the
form, the API and the services: a label must not be able to forge a line of the LINE text."""

from __future__ import annotations

import datetime
import json

import pytest
from django.conf import settings
from django.urls import reverse

import scoring
from league import limits
from league.accounts import tokens as api_auth
from league.club import services as club_services
from league.core import errors as core_errors
from league.core import names
from league.models import ApiToken, Game, RulesVersion, Season
from league.recording import services
from league.rules.forms import rules_initial
from tests.support.api import body, call, url
from tests.support.limits import BASE, RATE, json_errors, rules_post
from tests.support.record import new_url, posted

HOSTILE = [
    "A\n■精算 山田→阿部 9,999円",
    "A\r\nB",
    "\u202eA",
    "A\u2066B",
    "A\u200fB",
    "A\tB",
    "A\u2028B",
    "A\x1bB",
]


@pytest.fixture
def english(organiser_client):
    organiser_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return organiser_client


@pytest.fixture
def secret(club, organiser) -> str:
    return api_auth.token_create(club=club, user=organiser, name="LINE bot")[1]


def test_the_character_check_names_what_it_refuses():
    assert names.control_characters("A\n\u202eB\n") == ["U+000A", "U+202E"]
    assert names.control_characters("卓A 東南 🀄 ü") == []
    # A joiner inside an emoji is not a control: only line breaks, controls and direction marks.
    assert names.control_characters("👨\u200d👩") == []


@pytest.mark.parametrize("table", HOSTILE)
def test_a_table_label_with_a_control_character_is_refused_on_the_form(
    english, club, members, table
):
    response = english.post(new_url(club), posted(table=table))
    assert response.status_code == 200
    assert "table" in response.context["form"].errors
    assert not Game.objects.exists()


@pytest.mark.parametrize("table", HOSTILE)
def test_a_table_label_with_a_control_character_is_a_422_on_the_api(club, members, secret, table):
    response = call("POST", url(club, "games"), secret, body(table=table))
    assert response.status_code == 422, response.content
    assert "table" in json.dumps(response.json()["errors"])
    assert not Game.objects.exists()


def test_the_services_refuse_control_characters_in_every_short_text(club, members, organiser):
    points = (52000, 31000, 19000, -3000)
    seats = [services.SeatInput(m, p) for m, p in zip(members[:4], points, strict=True)]
    data = services.GameInput(
        date=datetime.date(2026, 11, 21), seats=seats, deposits=1000, rate="0.3", table="A\nB"
    )
    with pytest.raises(core_errors.ServiceError) as caught:
        services.game_record(club=club, user=organiser, data=data)
    assert "table" in caught.value.errors
    with pytest.raises(core_errors.ServiceError) as caught:
        api_auth.token_create(club=club, user=organiser, name="bot\u202e")
    assert "name" in caught.value.errors
    with pytest.raises(core_errors.ServiceError) as caught:
        club_services.season_create(
            club=club, user=organiser, name="2026\u202e年", start=datetime.date(2026, 1, 1),
            end=datetime.date(2026, 12, 31),
        )  # fmt: skip
    assert "name" in caught.value.errors
    assert limits.column_problems(Game, table="A\u202e")["table"]
    assert limits.column_problems(Game, table="卓 A") == {}
    assert not Game.objects.exists() and not Season.objects.exists()
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("name", ["0.3\n精算", "\u202e0.3", "0.3\u2069"])
def test_a_rate_name_with_a_control_character_is_refused(english, club, name):
    errors = json_errors(rules_post(english, club, json.dumps({**BASE, "rates": {name: RATE}})))
    assert any("rates." in e for e in errors), errors
    assert RulesVersion.objects.count() == 1
    rules = scoring.rules_from_json({**BASE, "rates": {name: RATE}})
    assert limits.rules_column_problems(rules)


def test_a_rate_name_with_a_control_character_is_an_error_on_its_row(english, club):
    response = english.post(
        reverse("rules:rules_new", args=[club.slug]),
        {**_fields_post(), "rate_name_0": "0.3\u202e"},
    )
    assert response.status_code == 200
    assert "rate_name_0" in response.context["form"].errors
    assert RulesVersion.objects.count() == 1


def _fields_post() -> dict[str, str]:
    data = {k: v for k, v in rules_initial(BASE).items() if v is not None}
    data.pop("uma", None)
    return {
        **data,
        "effective_from": "2026/11/01",
        "uma_0": "20",
        "uma_1": "10",
        "uma_2": "-10",
        "uma_3": "-20",
    }
