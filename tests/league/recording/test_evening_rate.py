"""Issue 37, item 4: the rate carries across the tables of one evening, and a rate none of the
day's other games has asks first. One rule (league.recording.services.check_rate), raised by the
record and edit actions and table mode's start; the record form, the edit form, table mode and
the API ask it (a box, or 409 with `confirm_rate`); the chat starts at the evening's rate, and
imports and the demo are not stopped by it."""

from __future__ import annotations

import datetime
import uuid

import pytest
from django.urls import reverse

from league.models import Game, TableGame
from league.recording import services
from league.recording.services import GameInput, SeatInput
from league.table import services as table
from tests.support.api import body, call, url
from tests.support.games import record_game
from tests.support.record import english, new_url, posted

DATE = datetime.date(2026, 11, 21)
POINTS = (52000, 31000, 19000, -3000)
OTHER = (50000, 33000, 19000, -3000)

pytestmark = [pytest.mark.django_db, pytest.mark.rate_rule]


def record(club, user, members, rate="0.3", table="A", points=POINTS, **kwargs) -> Game:
    return record_game(
        club, user, members, points, date=DATE, rate=rate, table=table, deposits=1000, **kwargs
    )


# --- the rule --------------------------------------------------------------------------------


def test_a_rate_new_to_the_evening_is_refused_unless_confirmed(club, members, organiser):
    record(club, organiser, members[:4])  # the day's first game: nothing to compare with
    with pytest.raises(services.RateDiffers) as refused:
        record(club, organiser, members[1:5], rate="0.2", table="B")
    assert refused.value.errors == {
        "confirm_rate": ["この日のほかの半荘はレート0.3、この半荘はレート0.2です。"]
    }
    assert refused.value.evening == ["0.3"] and Game.objects.count() == 1
    record(club, organiser, members[1:5], rate="0.3", table="B")  # the evening's rate: no question
    record(club, organiser, members[:4], rate="0.2", table="B", points=OTHER, confirm_rate=True)
    # Once confirmed, 0.2 is one of the evening's rates: the next game at it asks nothing.
    record(club, organiser, members[1:5], rate="0.2", table="B", points=OTHER)
    assert Game.objects.count() == 4


def test_a_void_game_does_not_set_the_evenings_rate(club, members, organiser):
    first = record(club, organiser, members[:4])
    services.game_void(game=first, user=organiser, reason="入力ミス")
    record(club, organiser, members[:4], rate="0.2")


def test_an_edit_asks_only_when_it_changes_the_rate(club, members, organiser):
    record(club, organiser, members[:4])
    second = record(club, organiser, members[1:5], table="B")
    seats = [SeatInput(m, p) for m, p in zip(members[1:5], OTHER, strict=True)]
    moved = GameInput(date=DATE, seats=seats, table="B", deposits=1000, rate="0.3")
    services.game_edit(game=second, user=organiser, data=moved)  # points changed, rate kept
    cheaper = GameInput(date=DATE, seats=seats, table="B", deposits=1000, rate="0.2")
    with pytest.raises(services.RateDiffers):
        services.game_edit(game=Game.objects.get(pk=second.pk), user=organiser, data=cheaper)
    assert Game.objects.get(pk=second.pk).rate == "0.3"
    services.game_edit(
        game=Game.objects.get(pk=second.pk), user=organiser, data=cheaper, confirm_rate=True
    )
    assert Game.objects.get(pk=second.pk).rate == "0.2"


def test_the_evenings_rate_is_the_tables_else_the_days_last(club, members, organiser):
    assert services.evening_rate(club=club, date=DATE) is None
    record(club, organiser, members[:4], rate="0.3", table="A")
    assert services.evening_rate(club=club, date=DATE, table="B") == "0.3"
    record(club, organiser, members[1:5], rate="0.5", table="B", confirm_rate=True)
    assert services.evening_rate(club=club, date=DATE) == "0.5"
    assert services.evening_rate(club=club, date=DATE, table="A") == "0.3"
    assert services.evening_rate(club=club, date=DATE, table="C") == "0.5"


# --- the record form -------------------------------------------------------------------------


def test_the_second_tables_form_starts_at_the_first_tables_rate(organiser_client, club, members):
    record(club, None, members[:4], rate="0.3", table="A")
    form = organiser_client.get(new_url(club), {"date": str(DATE), "table": "B"}).context["form"]
    assert form["rate"].value() == "0.3" and form["table"].value() == "B"


def test_the_preview_asks_and_saving_needs_the_box(organiser_client, club, members):
    record(club, None, members[1:5], rate="0.3", table="A")
    cheaper = {"table": "B", "rate": "0.2"}
    preview = organiser_client.post(new_url(club), posted("preview", **cheaper))
    page = preview.content.decode()
    assert "この日のほかの半荘はレート0.3、この半荘はレート0.2です。" in page
    assert 'name="confirm_rate"' in page and "data-rate-warning" in page

    refused = english(organiser_client).post(new_url(club), posted(**cheaper))
    assert refused.status_code == 200 and Game.objects.count() == 1
    assert refused.context["form"].errors["confirm_rate"] == [
        "Tick the box to save the game at this rate."
    ]
    saved = organiser_client.post(new_url(club), posted(**cheaper, confirm_rate="on"))
    assert saved.status_code == 302 and Game.objects.filter(rate="0.2").count() == 1


def test_a_confirmed_duplicate_stays_confirmed_while_the_rate_is_asked(
    organiser_client, club, members
):
    record(club, None, members[:4], rate="0.3", table="A", points=POINTS)
    both = posted(table="B", rate="0.2", confirm_duplicate="on")
    refused = organiser_client.post(new_url(club), both)
    assert "confirm_rate" in refused.context["form"].errors
    assert refused.context["duplicate"] is not None  # its box is on the page again, ticked
    assert 'name="confirm_duplicate" id="id_confirm_duplicate" checked' in refused.content.decode()
    saved = organiser_client.post(new_url(club), {**both, "confirm_rate": "on"})
    assert saved.status_code == 302 and Game.objects.count() == 2


def test_the_edit_form_asks_when_the_rate_changes(organiser_client, club, members):
    record(club, None, members[1:5], rate="0.3", table="A")
    organiser_client.post(new_url(club), posted(table="B"))
    game = Game.objects.get(table="B")
    edit = reverse("recording:game_edit", args=[club.slug, game.pk])
    form = posted(table="B", rate="0.2", revision="1", submission_key=None)
    refused = organiser_client.post(edit, form)
    assert refused.status_code == 200 and "confirm_rate" in refused.context["form"].errors
    assert Game.objects.get(pk=game.pk).rate == "0.3"
    saved = organiser_client.post(edit, {**form, "confirm_rate": "on"})
    assert saved.status_code == 302 and Game.objects.get(pk=game.pk).rate == "0.2"


# --- table mode ------------------------------------------------------------------------------


def start_post(members, **extra):
    return {
        "date": str(DATE),
        "table": "B",
        "key": str(uuid.uuid4()),
        **{f"member_{i}": str(m.pk) for i, m in enumerate(members)},
        **extra,
    }


def test_table_mode_starts_at_the_evenings_rate_and_asks_for_another(
    organiser_client, club, members, organiser
):
    record(club, organiser, members[:4], rate="0.3", table="A")
    start = reverse("table:table_new", args=[club.slug])
    page = organiser_client.get(start, {"date": str(DATE), "table": "B"})
    assert page.context["rate"] == "0.3"
    refused = organiser_client.post(start, start_post(members[1:5], rate="0.2"))
    assert refused.status_code == 200 and not TableGame.objects.exists()
    text = refused.content.decode()
    assert "この日のほかの半荘はレート0.3、この半荘はレート0.2です。" in text
    assert 'name="confirm_rate"' in text
    started = organiser_client.post(start, start_post(members[1:5], rate="0.2", confirm_rate="on"))
    assert started.status_code == 302 and TableGame.objects.get().rate == "0.2"


def test_table_mode_saves_the_rate_it_started_at_without_asking_again(club, members, organiser):
    record(club, organiser, members[:4], rate="0.3", table="A")
    with pytest.raises(services.RateDiffers):
        table.table_start(
            club=club, user=organiser, key=uuid.uuid4(), date=DATE, members=members[1:5], rate="0.2"
        )
    tg = table.table_start(
        club=club,
        user=organiser,
        key=uuid.uuid4(),
        date=DATE,
        members=members[1:5],
        rate="0.2",
        confirm_rate=True,
    )
    ids = [str(m.pk) for m in members[1:5]]
    for i in range(2):  # two hands: a dealer's tsumo that busts everyone else
        event = {"result": "tsumo", "winner": ids[0], "yakuman": 1}
        table.hand_record(tg=tg, user=organiser, index=i, key=uuid.uuid4(), event=event, marks={})
    game = table.table_game_save(tg=tg, user=organiser)
    assert game.rate == "0.2"


# --- the API ---------------------------------------------------------------------------------


def test_the_api_answers_409_for_a_rate_new_to_the_evening(club, members, secret):
    assert call("POST", url(club, "games"), secret, body(table="A")).status_code == 201
    players = body()["players"]
    players[0]["points"], players[1]["points"] = "50,000", "33,000"
    cheaper = body(table="B", rate="0.2", players=players)
    refused = call("POST", url(club, "games"), secret, cheaper)
    assert refused.status_code == 409
    assert refused.json() == {
        "errors": {
            "confirm_rate": ["Today's other games were played at rate 0.3, this one at 0.2."]
        },
        "evening_rates": ["0.3"],
    }
    assert Game.objects.count() == 1
    saved = call("POST", url(club, "games"), secret, {**cheaper, "confirm_rate": True})
    assert saved.status_code == 201 and saved.json()["rate"] == "0.2"


def test_the_api_starts_a_game_without_a_rate_at_the_evenings(club, members, secret):
    call("POST", url(club, "games"), secret, body(table="A", rate="0.5"))
    players = body()["players"]
    players[0]["points"], players[1]["points"] = "50,000", "33,000"
    sent = body(table="B", players=players)
    del sent["rate"]
    saved = call("POST", url(club, "games"), secret, sent)
    assert saved.status_code == 201 and saved.json()["rate"] == "0.5"


def test_an_api_correction_to_another_rate_is_409(club, members, secret):
    call("POST", url(club, "games"), secret, body(table="A"))
    players = body()["players"]
    players[0]["points"], players[1]["points"] = "50,000", "33,000"
    second = call("POST", url(club, "games"), secret, body(table="B", players=players)).json()
    patch = {"revision": second["revision"], "rate": "0.2"}
    refused = call("PATCH", url(club, f"games/{second['id']}"), secret, patch)
    assert refused.status_code == 409 and refused.json()["evening_rates"] == ["0.3"]
    patch["confirm_rate"] = True
    assert call("PATCH", url(club, f"games/{second['id']}"), secret, patch).status_code == 200


def test_the_api_table_start_asks_too(club, members, organiser, secret):
    record(club, organiser, members[:4], rate="0.3", table="A")
    start = {"date": DATE.isoformat(), "table": "B", "players": [m.pk for m in members[1:5]]}
    at_evening = call("POST", url(club, "tables"), secret, start)
    assert at_evening.status_code == 201  # no rate sent: the evening's
    assert TableGame.objects.get().rate == "0.3"
    cheaper = {**start, "rate": "0.2"}
    refused = call("POST", url(club, "tables"), secret, cheaper)
    assert refused.status_code == 409 and refused.json()["evening_rates"] == ["0.3"]
    confirmed = call("POST", url(club, "tables"), secret, {**cheaper, "confirm_rate": True})
    assert confirmed.status_code == 201


def test_the_schema_documents_confirm_rate(client):
    schema = client.get("/api/openapi.json").json()["components"]["schemas"]
    for name in ("GameIn", "GameEditIn", "GamePatchIn", "TableIn"):
        assert "409" in schema[name]["properties"]["confirm_rate"]["description"]
    assert "evening_rates" in schema["Conflict"]["properties"]


# --- the paths that do not ask -----------------------------------------------------------------
# The chat (tests/league/chat/test_chat.py) and the demo (tests/league/management/test_loaddemo.py) are checked
# under this rule where they are tested; the import here.


def test_an_import_keeps_a_workbooks_rates(club, members, organiser):
    """A workbook's rates are the club's record of what was played: a day at a rate the club's
    games of that day do not have is imported, not asked about (games_record_bulk)."""
    record(club, organiser, members[:4], rate="0.3", table="A")
    data = GameInput(
        date=DATE,
        seats=[SeatInput(m, p) for m, p in zip(members[1:5], POINTS, strict=True)],
        table="B",
        deposits=1000,
        rate="0.2",
    )
    preview = services.game_preview(club=club, data=data)
    [game] = services.games_record_bulk(club=club, user=organiser, games=[(data, preview)])
    assert game.rate == "0.2"
