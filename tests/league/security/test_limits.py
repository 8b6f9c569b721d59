"""No input gives a 500 (league/limits.py): the rules JSON editor, texts against their columns,
dates within bounds on every write path, and page numbers too large for the database."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import types
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from league import limits, money
from league.accounts import tokens as api_auth
from league.club import services as club_services
from league.core import errors as core_errors
from league.core.clock import today
from league.models import ApiToken, ChipEvent, Game, LedgerEntry, RulesVersion, Season
from league.money import services as money_services
from league.recording import services
from league.rules import services as rules_services
from league.rules.forms import RulesForm, rules_initial
from tests.support.api import body, call, url
from tests.support.db import as_test_case
from tests.support.imports import STANDARD, game, plan_of, simple
from tests.support.limits import BASE, RATE, json_errors, rules_post
from tests.support.record import new_url, nothing_stored, posted

POINTS = (52000, 31000, 19000, -3000)


@pytest.fixture
def english(organiser_client):
    organiser_client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "en"
    return organiser_client


# --- the rules JSON editor -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (
            {**BASE, "rates": {"r" * 21: RATE}},
            "rates.rrrrrrrrrrrrrrrrrrrrr: A rate's name may have",
        ),
        (
            {**BASE, "chips": {"k" * 31: {"tsumo": 1, "ron": 1}}},
            "chips." + "k" * 31 + ": A chip kind may have at most 30",
        ),
        ({**BASE, "rates": {"a\x00": RATE}}, "rates.a\\0: Remove the NUL"),
        ({**BASE, "note\x00": 1}, "note\\0: Remove the NUL"),
        ({**BASE, "rates": {"0.3": {"yen_per_1000": "\x00"}}}, "Remove the NUL"),
    ],
)
def test_rules_json_that_the_columns_cannot_hold_is_refused(english, club, rules, expected):
    errors = json_errors(rules_post(english, club, json.dumps(rules)))
    assert any(expected in e for e in errors), errors
    assert RulesVersion.objects.count() == 1


def test_a_rate_name_of_exactly_twenty_characters_is_kept(english, club):
    response = rules_post(english, club, json.dumps({**BASE, "rates": {"r" * 20: RATE}}))
    assert response.status_code == 302
    assert list(RulesVersion.objects.latest("effective_from").rules_json["rates"]) == ["r" * 20]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("null", "not null"),
        ('{"preset": "mame-no-kai", "rates": {"\\ud800": {}}}', "not valid Unicode"),
        ('{"preset": "mame-no-kai", "note\\udfff": 1}', "not valid Unicode"),
        ('{"preset": "mame-no-kai", "rates": {"\\u0000": {}}}', "Remove the NUL"),
        ("[" * 21 + "]" * 21, "nested more than 20 levels"),
        ('{"preset": "mame-no-kai", "x": ' + "[" * 3000 + "]" * 3000 + "}", "nested more than"),
        ("[" * 100_000 + "]" * 100_000, "at most 50,000 characters"),
        ('{"preset": "mame-no-kai", "yen_unit": 1' + "0" * 5000 + "}", "not valid JSON"),
    ],
)
def test_hostile_rules_json_is_refused_with_a_message(english, club, monkeypatch, text, expected):
    errors = json_errors(rules_post(english, club, text))
    assert any(expected in e for e in errors), errors
    assert RulesVersion.objects.count() == 1


def test_deep_nesting_never_reaches_the_json_parser(english, club, monkeypatch):
    def parser_called(*args: Any, **kwargs: Any):
        raise AssertionError("json.loads was called")

    fake = types.SimpleNamespace(loads=parser_called, dumps=json.dumps)
    monkeypatch.setattr("league.rules.forms.json", fake)
    for depth in (25, 3000, 100_000):
        errors = json_errors(rules_post(english, club, "[" * depth + "]" * depth))
        assert errors


def test_brackets_inside_strings_do_not_count_as_nesting():
    assert not limits.json_too_deep('{"note": "' + "[" * 100 + '"}')
    assert not limits.json_too_deep('{"a": "\\"[[[[[[[[[[[[[[[[[[[[[[[[[["}')
    assert limits.json_too_deep("{" * 21)
    assert not limits.json_too_deep("{" * 20)


def test_a_long_rate_name_is_an_error_on_its_row_in_the_fields(english, club):
    form = RulesForm({**rules_initial(BASE), "effective_from": "2026/11/01"})
    form.data = {**form.data, "rate_name_0": "r" * 21, "uma_0": "20", "uma_1": "10"}
    form.data |= {"uma_2": "-10", "uma_3": "-20", "chombo_mode": "pay_top"}
    assert not form.is_valid()
    assert "rate_name_0" in form.errors


def test_the_service_refuses_rules_its_columns_cannot_hold(club, organiser):
    for rules in ({**BASE, "rates": {"r" * 21: RATE}}, {**BASE, "chips": {"k" * 31: {}}}):
        with pytest.raises(core_errors.ServiceError) as caught:
            rules_services.rules_version_create(
                club=club, user=organiser, effective_from=datetime.date(2026, 11, 1),
                rules_json=rules,
            )  # fmt: skip
        assert "rules_json" in caught.value.errors
    with pytest.raises(core_errors.ServiceError) as caught:
        rules_services.rules_version_create(
            club=club, user=organiser, effective_from=datetime.date(2026, 11, 1),
            rules_json=BASE, note="n" * 201, preset="p" * 51,
        )  # fmt: skip
    assert set(caught.value.errors) == {"note", "preset"}
    assert RulesVersion.objects.count() == 1


# Hostile JSON: random documents built from a valid rules object's parts and hostile leaves.
HOSTILE_STRINGS = st.sampled_from(
    ["", "\x00", "a\x00b", "\ud800", "\udfff", "x" * 21, "y" * 31, "0.3", "ippatsu", "mame-no-kai",
     "<script>", "NaN", "null", "🀄" * 25, "\u202e", "top", "house", "none", "seat"]
)  # fmt: skip
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=True, allow_infinity=True)
    | HOSTILE_STRINGS
    | st.text(max_size=40)
)
JSON_VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(HOSTILE_STRINGS | st.text(max_size=25), inner, max_size=4)
    ),
    max_leaves=25,
)
FIELDS = sorted(BASE)


@st.composite
def hostile_rules(draw: st.DrawFn) -> str:
    """A rules object with one to four keys replaced by hostile values, or with hostile rate
    names and chip kinds, or random JSON, hostile text, deep nesting."""
    kind = draw(st.sampled_from(["mutated", "names", "random", "text", "nested"]))
    if kind == "random":
        return json.dumps(draw(JSON_VALUES))  # ensure_ascii: surrogates and NUL escaped
    if kind == "text":
        return draw(st.text(max_size=200))
    if kind == "nested":
        depth = draw(st.integers(min_value=1, max_value=200))
        opener = draw(st.sampled_from(["[", '{"a":']))
        return opener * depth + "1" + ("]" if opener == "[" else "}") * depth
    rules: dict[str, Any] = json.loads(json.dumps(BASE))
    if kind == "mutated":
        for _ in range(draw(st.integers(min_value=1, max_value=4))):
            key = draw(st.sampled_from([*FIELDS, "preset"]) | HOSTILE_STRINGS)
            rules[key] = draw(JSON_VALUES)
    # "names": valid rules but for their rate names and chip kinds, so that some are saved.
    if draw(st.booleans()):
        rules["rates"] = {draw(HOSTILE_STRINGS | st.text(max_size=30)): RATE}
    if draw(st.booleans()):
        rules["chips"] = {draw(HOSTILE_STRINGS | st.text(max_size=40)): {"tsumo": 1, "ron": 1}}
    text = json.dumps(rules, ensure_ascii=draw(st.booleans()))
    # A browser sends UTF-8: lone surrogates can only arrive escaped (\\ud800) in the JSON.
    return text if not limits.unstorable(text) else json.dumps(rules)


@settings(
    max_examples=50,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=hostile_rules())
def test_the_rules_json_editor_never_fails_and_stores_only_what_fits(
    organiser_client, club, members, organiser, text
):
    with as_test_case():
        response = rules_post(organiser_client, club, text)
        assert response.status_code in (200, 302)
        event(f"status {response.status_code}")
        new = RulesVersion.objects.exclude(effective_from=datetime.date(2020, 1, 1))
        if response.status_code == 200:
            assert response.context["form"].errors
            assert not new.exists()
        else:
            stored = new.get().rules
            assert all(len(n) <= 20 and not limits.unstorable(n) for n in stored.rates)
            assert all(len(n) <= 30 and not limits.unstorable(n) for n in stored.chips)
            # Every game under the stored rules fits its columns too.
            rate = next(iter(stored.rates), "")
            seats = [services.SeatInput(m, 0) for m in members[: stored.players]]
            data = services.GameInput(
                date=datetime.date(2026, 11, 21),
                seats=[
                    services.SeatInput(s.member, stored.start + (1000 if i == 0 else 0))
                    for i, s in enumerate(seats)
                ],
                deposits=-1000,
                rate=rate,
            )
            # The rules may refuse this game; what matters is that no database error escapes.
            with contextlib.suppress(core_errors.ServiceError):
                services.game_record(club=club, user=organiser, data=data)
        transaction.set_rollback(True)


# --- texts and dates on every write path -----------------------------------------------------


def test_a_game_dated_beyond_the_bounds_is_refused_on_the_form(english, club, members):
    for typed in ("9999-12-31", "1999-12-31", f"{today() + datetime.timedelta(days=400):%Y-%m-%d}"):
        response = english.post(new_url(club), posted(date=typed))
        assert response.status_code == 200
        assert "date" in response.context["form"].errors, typed
    assert nothing_stored()


def test_a_game_a_year_ahead_is_still_accepted(club, members, organiser):
    late = limits.latest_date()
    seats = [services.SeatInput(m, p) for m, p in zip(members[:4], POINTS, strict=True)]
    data = services.GameInput(date=late, seats=seats, deposits=1000, rate="0.3")
    assert services.game_record(club=club, user=organiser, data=data).date == late


@pytest.fixture
def secret(club, organiser) -> str:
    return api_auth.token_create(club=club, user=organiser, name="bot")[1]


def test_a_game_dated_9999_is_a_422_on_the_api(club, members, secret):
    response = call("POST", url(club, "games"), secret, body(date="9999-12-31"))
    assert response.status_code == 422
    assert "date" in response.json()["errors"]
    assert not Game.objects.exists()


def test_a_game_dated_9999_is_a_problem_on_its_date_cell_on_import(club, members):
    plan = plan_of(club, simple(game(*STANDARD, date=datetime.date(9999, 12, 31))))
    assert [(p.row, p.column) for p in plan.problems] == [(2, "A")]
    assert "on or before" in plan.problems[0].message


def test_seasons_and_rules_are_bounded_too(english, club):
    response = english.post(
        reverse("club:season_new", args=[club.slug]),
        {"name": "x", "start": "1999/01/01", "end": "9999/12/31", "min_games": "0"},
    )
    assert set(response.context["form"].errors) == {"start", "end"}
    next_year = f"{today().year + 1}/12/31"  # set up in December: more than a year ahead
    response = english.post(
        reverse("club:season_new", args=[club.slug]),
        {"name": "next", "start": f"{today().year + 1}/01/01", "end": next_year, "min_games": "0"},
    )
    assert response.status_code == 302
    assert Season.objects.count() == 1
    response = rules_post(english, club, json.dumps(BASE), effective_from="9999/12/31")
    assert "effective_from" in response.context["form"].errors
    assert RulesVersion.objects.count() == 1


def test_texts_too_long_for_their_columns_are_service_errors(club, members, organiser):
    seats = [services.SeatInput(m, p) for m, p in zip(members[:4], POINTS, strict=True)]
    data = services.GameInput(
        date=datetime.date(2026, 11, 21),
        seats=seats,
        deposits=1000,
        rate="0.3",
        table="t" * 21,
        chips=[services.ChipInput("k" * 31, members[0])],
    )
    with pytest.raises(core_errors.ServiceError) as caught:
        services.game_record(club=club, user=organiser, data=data)
    assert {"table", "chips"} <= set(caught.value.errors)
    for name, kana in (("n" * 51, ""), ("青木\x00", ""), ("某", "か" * 101)):
        with pytest.raises(core_errors.ServiceError):
            club_services.member_create(club=club, user=organiser, name=name, kana=kana)
    with pytest.raises(core_errors.ServiceError):
        club_services.season_create(
            club=club, user=organiser, name="s" * 101, start=datetime.date(2026, 1, 1),
            end=datetime.date(2026, 12, 31),
        )  # fmt: skip
    assert not Game.objects.exists() and not ChipEvent.objects.exists()
    with pytest.raises(core_errors.ServiceError) as caught:
        money_services.day_attendees_add(
            club=club, user=organiser, date=datetime.date(9999, 1, 1), members=members[:1]
        )
    assert "date" in caught.value.errors


# --- page numbers ----------------------------------------------------------------------------


@pytest.mark.parametrize("page", ["9999999999999999999", "99999999999999999999999", "100001"])
def test_a_page_number_too_large_is_a_404(member_client, club, organiser, page):
    season = club_services.season_create(
        club=club, user=organiser, name="s", start=datetime.date(2026, 1, 1),
        end=datetime.date(2026, 12, 31),
    )  # fmt: skip
    for path in (
        reverse("standings:standings", args=[club.slug]),
        reverse("standings:season_standings", args=[club.slug, season.pk]),
    ):
        assert member_client.get(f"{path}?page={page}").status_code == 404


def test_token_names_and_correction_notes_are_checked_against_their_columns(club, organiser):
    for name in ("t" * 101, "bot\x00"):
        with pytest.raises(core_errors.ServiceError) as caught:
            api_auth.token_create(club=club, user=organiser, name=name)
        assert "name" in caught.value.errors
    assert not ApiToken.objects.exists()
    entry = LedgerEntry(club=club, kind=LedgerEntry.PAYMENT, amount=100)
    with pytest.raises(core_errors.ServiceError) as caught:
        money.entry_reverse(entry=entry, user=organiser, note="n" * 201)
    assert "note" in caught.value.errors


@pytest.mark.parametrize(
    "text", ["null", "[" * 100_000 + "]" * 100_000, '{"rates": {"\\ud800": {}}}']
)
def test_the_worked_example_refuses_hostile_json_with_errors(english, club, text):
    data = {**rules_initial(BASE), "advanced": "on", "rules_json": text}
    data |= {"uma_0": "20", "uma_1": "10", "uma_2": "-10", "uma_3": "-20"}
    data.pop("uma")
    response = english.post(reverse("rules:rules_example", args=[club.slug]), {
        k: v for k, v in data.items() if v is not None
    })  # fmt: skip
    assert response.status_code == 200
    assert response.json()["errors"]


def test_a_game_stored_before_dates_were_bounded_can_still_be_corrected(club, members, organiser):
    seats = [services.SeatInput(m, p) for m, p in zip(members[:4], POINTS, strict=True)]
    data = services.GameInput(date=datetime.date(2026, 11, 21), seats=seats, deposits=1000)
    stored = services.game_record(club=club, user=organiser, data=data)
    Game.objects.filter(pk=stored.pk).update(date=datetime.date(9999, 12, 31))  # as if from before
    stored.refresh_from_db()
    edited = dataclasses.replace(services.game_input_from_stored(stored), table="B")
    assert services.game_edit(game=stored, user=organiser, data=edited).table == "B"
