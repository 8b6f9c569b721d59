"""Issue 21, item 3: no duplicate without a question. A game with the same day, the same members
and the same points (in any seat order) as a live game of that day is named and needs an explicit
confirmation: on the record form, through the API (409), on an edit, and in an import."""

from __future__ import annotations

import datetime
import uuid
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from league.models import Game
from league.recording import services
from league.recording.services import GameInput, SeatInput
from tests.support.api import body, call, url
from tests.support.games import record_game
from tests.support.record import english, new_url, posted

DATE = datetime.date(2026, 11, 21)
POINTS = (52000, 31000, 19000, -3000)
OTHER = (50000, 33000, 19000, -3000)

pytestmark = [pytest.mark.django_db, pytest.mark.duplicate_rule]


def record(club, user, members, points=POINTS, table="B", date=DATE, **kwargs) -> Game:
    return record_game(club, user, members, points, date=date, table=table, deposits=1000, **kwargs)


def saved_at(game: Game) -> str:
    return game.recorded_at.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%H:%M")


# --- the rule --------------------------------------------------------------------------------


def test_the_same_players_and_points_in_another_seat_order_are_a_duplicate(
    club, members, organiser
):
    first = record(club, organiser, members[:4])
    seats = [SeatInput(m, p) for m, p in zip(members[:4], POINTS, strict=True)]
    swapped = GameInput(
        date=DATE, seats=[seats[2], seats[0], seats[3], seats[1]], deposits=1000, rate="0.3"
    )
    assert services.duplicate_of(club=club, data=swapped) == first
    with pytest.raises(services.DuplicateGame) as refused:
        services.game_record(club=club, user=organiser, data=swapped)
    assert refused.value.earlier == first
    assert Game.objects.count() == 1


def test_other_points_another_day_or_a_voided_game_are_no_duplicate(club, members, organiser):
    first = record(club, organiser, members[:4])
    record(club, organiser, members[:4], points=OTHER)
    record(club, organiser, members[:4], date=DATE + datetime.timedelta(days=1))
    record(club, organiser, [members[4], *members[1:4]])  # another player
    services.game_void(game=first, user=organiser, reason="entered twice")
    again = record(club, organiser, members[:4])  # the voided game no longer counts
    assert again.number == 4 and Game.objects.count() == 5


def test_a_confirmed_duplicate_is_saved(club, members, organiser):
    record(club, organiser, members[:4])
    second = record(club, organiser, members[:4], confirm_duplicate=True)
    assert second.number == 2


def test_the_message_names_the_game_as_the_day_page_does(club, members, organiser, settings):
    first = record(club, organiser, members[:4])
    from django.utils import translation

    with translation.override("ja"):
        text = services.duplicate_message(first)
    assert text == f"第1半荘（B卓、{saved_at(first)} 保存）と同じ内容です。"


def test_an_edit_that_makes_a_game_repeat_another_asks(club, members, organiser):
    first = record(club, organiser, members[:4])
    second = record(club, organiser, members[:4], points=OTHER)
    data = services.game_input_from_stored(Game.objects.get(pk=second.pk))
    same = GameInput(
        date=DATE,
        seats=[SeatInput(s.member, p) for s, p in zip(data.seats, POINTS, strict=True)],
        table="B",
        deposits=1000,
        rate="0.3",
    )
    with pytest.raises(services.DuplicateGame) as refused:
        services.game_edit(game=Game.objects.get(pk=second.pk), user=organiser, data=same)
    assert refused.value.earlier == first
    services.game_edit(
        game=Game.objects.get(pk=second.pk), user=organiser, data=same, confirm_duplicate=True
    )
    # Its table changed, players and points kept: nothing to ask again.
    later = GameInput(date=DATE, seats=same.seats, table="C", deposits=1000, rate="0.3")
    services.game_edit(game=Game.objects.get(pk=second.pk), user=organiser, data=later)
    assert Game.objects.get(pk=second.pk).table == "C"


# --- the record form -------------------------------------------------------------------------


def test_the_preview_names_the_earlier_game_and_saving_needs_the_box(
    organiser_client, club, members
):
    assert organiser_client.post(new_url(club), posted(table="B")).status_code == 302
    first = Game.objects.get()
    preview = english(organiser_client).post(new_url(club), posted("preview", table="B"))
    page = preview.content.decode()
    assert f"Same as Game 1 (table B, saved {saved_at(first)})." in page
    assert 'name="confirm_duplicate"' in page and f'data-duplicate="{first.pk}"' in page

    refused = english(organiser_client).post(new_url(club), posted(table="B"))
    assert refused.status_code == 200 and Game.objects.count() == 1
    assert "confirm_duplicate" in refused.context["form"].errors
    assert refused.context["duplicate"] == first

    saved = organiser_client.post(new_url(club), posted(table="B", confirm_duplicate="on"))
    assert saved.status_code == 302 and Game.objects.count() == 2


def test_a_double_tap_is_still_one_game_and_no_question(organiser_client, club, members):
    key = str(uuid.uuid4())
    for _ in range(2):
        response = organiser_client.post(new_url(club), posted(submission_key=key))
        assert response.status_code == 302
    assert Game.objects.count() == 1


def test_the_edit_form_asks_too(organiser_client, club, members, organiser):
    record(club, organiser, members[:4], table="A")
    second = record(club, organiser, members[:4], points=OTHER, table="A")
    edit = reverse("recording:game_edit", args=[club.slug, second.pk])
    form = posted(table="A", revision="1", submission_key=None)
    refused = organiser_client.post(edit, form)
    assert refused.status_code == 200 and "confirm_duplicate" in refused.context["form"].errors
    assert Game.objects.get(pk=second.pk).revision == 1
    saved = organiser_client.post(edit, {**form, "confirm_duplicate": "on"})
    assert saved.status_code == 302 and Game.objects.get(pk=second.pk).revision == 2


# --- the API ---------------------------------------------------------------------------------


def test_the_api_answers_409_with_the_earlier_game(club, members, secret):
    first = call("POST", url(club, "games"), secret, body())
    assert first.status_code == 201
    earlier = first.json()["id"]
    again = call("POST", url(club, "games"), secret, body())
    assert again.status_code == 409
    answer = again.json()
    assert answer["duplicate_of"] == {
        "id": earlier,
        "url": f"/api/clubs/{club.slug}/games/{earlier}",
        "page": reverse("recording:game_detail", args=[club.slug, earlier]),
    }
    assert answer["errors"]["confirm_duplicate"][0].startswith("Same as Game 1")
    assert Game.objects.count() == 1
    confirmed = call("POST", url(club, "games"), secret, body(confirm_duplicate=True))
    assert confirmed.status_code == 201 and Game.objects.count() == 2


def test_an_idempotent_retry_is_a_replay_not_a_duplicate(club, members, secret):
    key = {"Idempotency-Key": "line:7"}
    assert call("POST", url(club, "games"), secret, body(), **key).status_code == 201
    assert call("POST", url(club, "games"), secret, body(), **key).status_code == 200
    confirmed = body(confirm_duplicate=True)  # the same body, confirmed: still the same request
    assert call("POST", url(club, "games"), secret, confirmed, **key).status_code == 200
    assert Game.objects.count() == 1


def test_an_api_edit_into_a_duplicate_is_409(club, members, secret):
    call("POST", url(club, "games"), secret, body())
    players = body()["players"]
    players[0]["points"], players[1]["points"] = "50,000", "33,000"
    second = call("POST", url(club, "games"), secret, body(players=players)).json()
    sent = {**body(), "revision": second["revision"]}
    answer = call("PUT", url(club, f"games/{second['id']}"), secret, sent)
    assert answer.status_code == 409 and answer.json()["duplicate_of"]["id"] != second["id"]
    sent["confirm_duplicate"] = True
    assert call("PUT", url(club, f"games/{second['id']}"), secret, sent).status_code == 200


def test_the_schema_documents_confirm_duplicate(client):
    schema = client.get("/api/openapi.json").json()
    game_in = schema["components"]["schemas"]["GameIn"]["properties"]
    assert "confirm_duplicate" in game_in and "409" in game_in["confirm_duplicate"]["description"]
    conflict = schema["components"]["schemas"]["Conflict"]["properties"]
    assert "duplicate_of" in conflict
