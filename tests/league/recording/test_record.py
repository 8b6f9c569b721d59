"""Recording a game at the table: the new-game screen with its preview, editing and voiding."""

from __future__ import annotations

import datetime
import re
import uuid
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import scoring
from league.models import AuditLog, ChipEvent, Club, Game, Member, Membership, Result
from league.recording import services
from tests.support.clubs import make_club, make_user
from tests.support.record import NAMES, english, new_url, nothing_stored, posted

DATE = datetime.date(2026, 11, 21)
POINTS = (52000, 31000, 19000, -3000)


def edit_url(game) -> str:
    return reverse("recording:game_edit", args=[game.club.slug, game.pk])


def void_url(game) -> str:
    return reverse("recording:game_void", args=[game.club.slug, game.pk])


def engine(club, *, chombo=(), chips=(), points=POINTS, rate="0.3") -> scoring.GameResult:
    """What scoring itself says for the standard game: the page must store exactly this."""
    rules = club.rules_versions.get().rules
    seats = tuple(scoring.Seat(n, p) for n, p in zip(NAMES, points, strict=True))
    game = scoring.Game(seats=seats, deposits=1000, chombo=chombo, chips=chips, rate=rate)
    return scoring.settle_game(rules, game)


def counted_rows(game: Game) -> list[Result]:
    return list(game.results.filter(counted=True).select_related("member").order_by("seat"))


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def record_stored(club, members, user, points=POINTS) -> Game:
    """A game recorded through the service, for the edit and void pages."""
    seats = [services.SeatInput(m, p) for m, p in zip(members, points, strict=True)]
    data = services.GameInput(date=DATE, seats=seats, table="A", deposits=1000, rate="0.3")
    # The same result twice on one day is another test's subject (test_duplicates).
    return services.game_record(club=club, user=user, data=data, confirm_duplicate=True)


# --- the new-game screen -------------------------------------------------------------------


def test_get_shows_an_empty_form_for_four_seats_with_a_fresh_key(organiser_client, club, members):
    response = organiser_client.get(new_url(club))
    assert response.status_code == 200
    form = response.context["form"]
    assert [s.wind for s in form.seats()] == ["東", "南", "西", "北"]
    assert uuid.UUID(str(form["submission_key"].value()))
    html = response.content.decode()
    assert 'inputmode="numeric"' in html
    assert '<datalist id="member-list">' in html
    assert '<option value="青木" label="あおき">' in html
    # Rates and chips of マメの会
    assert all(f'<option value="{r}"' in html for r in ("0.2", "0.3", "0.5"))
    assert 'name="chip_kind_0"' in html and 'value="ippatsu"' in html


def test_two_gets_get_two_submission_keys(organiser_client, club, members):
    keys = {
        str(organiser_client.get(new_url(club)).context["form"]["submission_key"].value())
        for _ in range(2)
    }
    assert len(keys) == 2


def test_get_prefills_date_and_table(organiser_client, club, members):
    response = organiser_client.get(new_url(club) + "?date=2026-11-21&table=B")
    form = response.context["form"]
    assert form["date"].value() == "2026/11/21"  # written as dates are on every page
    assert form["table"].value() == "B"


def test_default_date_is_the_clubs_today(organiser_client, club, members, monkeypatch):
    from league.recording.views import record

    monkeypatch.setattr(record, "today", lambda: datetime.date(2026, 1, 2))
    response = organiser_client.get(new_url(club))
    assert response.context["form"]["date"].value() == "2026/01/02"


def test_no_inline_script_and_no_inline_handlers(organiser_client, club, members):
    response = organiser_client.post(new_url(club), posted("preview"))
    html = response.content.decode()
    assert "record.js" in html
    assert not re.search(r"<script(?![^>]*\ssrc=)[^>]*>", html)
    assert not re.search(r"\son[a-z]+\s*=", html)
    # The live check's texts and target come from data attributes, translatable in the template.
    assert 'data-target="100000"' in html
    assert "data-sum-short=" in html and "data-sum-over=" in html and "data-sum-ok=" in html


def test_a_club_without_rules_is_sent_to_set_them_up(client, db):
    bare = Club.objects.create(slug="bare", name="bare")
    client.force_login(make_user("founder", bare, Membership.ORGANISER))
    response = client.get(new_url(bare))
    assert response.status_code == 302
    assert response["Location"] == reverse("rules:rules_list", args=["bare"])


def test_rate_and_chips_are_hidden_when_the_rules_have_none(stranger_client, other_club):
    Member.objects.create(club=other_club, name="山田", kana="やまだ")
    response = stranger_client.get(new_url(other_club))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="rate"' not in html
    assert 'name="chip_kind_0"' not in html


def test_save_records_full_width_and_triangle_points(organiser_client, club, members):
    response = english(organiser_client).post(new_url(club), posted())
    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("recording:day_detail", args=[club.slug, DATE])
    assert messages_of(response) == ["Game 1 at table A saved."]
    assert (game.date, game.table, game.deposits, game.rate, game.number) == (
        DATE,
        "A",
        1000,
        "0.3",
        1,
    )
    expected = engine(club)
    rows = counted_rows(game)
    assert [r.member.name for r in rows] == list(NAMES)
    assert [(r.points, r.rank, r.score, r.chips, r.yen) for r in rows] == [
        (p.points, p.rank, p.score, p.chips, p.yen) for p in expected.players
    ]
    assert game.recorded_by.username == "organiser"
    assert AuditLog.objects.filter(game=game, action="game.create").count() == 1


@pytest.mark.parametrize("typed", ["Ａ", " A ", "Ａ　", "A"])
def test_a_table_typed_full_width_is_the_same_table(organiser_client, club, members, typed):
    """「Ａ卓」 and 「A卓」 were two tables on the day page, the LINE text and the player page."""
    response = organiser_client.post(new_url(club), posted(table=typed))
    assert response.status_code == 302
    assert Game.objects.get().table == "A"


def test_a_table_that_grows_past_its_column_when_folded_is_refused(organiser_client, club, members):
    # NFKC makes 「㌀」 four characters: 20 of them would not fit the table's 20.
    response = organiser_client.post(new_url(club), posted(table="㌀" * 20))
    assert response.status_code == 200
    assert response.context["form"].errors["table"] == [
        "20文字以内で入力してください（現在80文字）。"
    ]
    assert nothing_stored()


@pytest.mark.parametrize(
    "typed", ["2026/11/21", "2026年11月21日", "２０２６－１１－２１", "２０２６年１１月２１日"]
)
def test_dates_are_read_as_typed(organiser_client, club, members, typed):
    response = organiser_client.post(new_url(club), posted(date=typed))
    assert response.status_code == 302
    assert Game.objects.get().date == DATE


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("date", "11月21日ごろ", id="a-bad-date"),
        pytest.param("date", "2019-12-31", id="a-date-before-any-rules"),
        pytest.param("rate", "1.0", id="an-unknown-rate"),
    ],
)
def test_a_refused_value_is_an_error_next_to_its_field(
    organiser_client, club, members, field, value
):
    response = organiser_client.post(new_url(club), posted(**{field: value}))
    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert nothing_stored()


def test_preview_shows_the_settlement_and_stores_nothing(organiser_client, club, members):
    response = organiser_client.post(new_url(club), posted("preview"))
    assert response.status_code == 200
    assert nothing_stored()
    rows = response.context["preview"]
    expected = engine(club)
    assert [(r.member.name, r.rank, r.score, r.chips, r.yen) for r in rows] == [
        (n, p.rank, p.score, p.chips, p.yen) for n, p in zip(NAMES, expected.players, strict=True)
    ]
    html = response.content.decode()
    assert 'name="action" value="save"' in html
    # Every input is kept as typed, the submission key too, so "save" sends the same game.
    assert 'value="５２，０００"' in html and 'value="▲3,000"' in html
    form = response.context["form"]
    assert form["submission_key"].value() == posted_key(response)


def posted_key(response) -> str:
    return response.wsgi_request.POST["submission_key"]


def test_a_preview_without_action_does_not_save(organiser_client, club, members):
    response = organiser_client.post(new_url(club), posted(action=None))
    assert response.status_code == 200
    assert response.context["preview"]
    assert nothing_stored()


def test_the_sum_error_goes_above_the_points_and_nothing_is_stored(organiser_client, club, members):
    response = english(organiser_client).post(new_url(club), posted(points_1="30,000"))
    assert response.status_code == 200
    form = response.context["form"]
    assert "must be 100,000" in " ".join(form.block_errors["points"])
    assert "1,000 short" in response.content.decode()
    assert nothing_stored()


def test_unreadable_points_are_an_error_next_to_the_field(organiser_client, club, members):
    response = organiser_client.post(new_url(club), posted(points_2="19千"))
    assert response.status_code == 200
    assert list(response.context["form"].errors) == ["points_2"]
    assert nothing_stored()


def test_points_not_in_hundreds_are_an_error_next_to_the_field(organiser_client, club, members):
    response = organiser_client.post(new_url(club), posted(points_0="52,050", points_1="30,950"))
    assert response.status_code == 200
    assert {"points_0", "points_1"} <= set(response.context["form"].errors)
    assert nothing_stored()


def test_the_same_member_in_two_seats_is_refused(organiser_client, club, members):
    response = organiser_client.post(new_url(club), posted(member_2="青木"))
    assert response.status_code == 200
    assert list(response.context["form"].errors) == ["member_2"]
    assert nothing_stored()


def test_a_member_is_found_by_unique_kana(organiser_client, club, members):
    response = organiser_client.post(new_url(club), posted(member_1="ばば"))
    assert response.status_code == 302
    assert counted_rows(Game.objects.get())[1].member.name == "馬場"


def test_an_unknown_member_is_an_error_that_offers_a_guest(organiser_client, club, members):
    response = english(organiser_client).post(new_url(club), posted(member_2="新人"))
    assert response.status_code == 200
    form = response.context["form"]
    assert form.errors["member_2"] == ["No such member"]
    assert 'name="guest_2"' in response.content.decode()
    assert 'name="guest_1"' not in response.content.decode()
    assert nothing_stored()
    assert not Member.objects.filter(name="新人").exists()


def test_a_ticked_guest_box_creates_the_guest_with_the_game(organiser_client, club, members):
    response = organiser_client.post(new_url(club), posted(member_2="新人", guest_2="on"))
    assert response.status_code == 302
    guest = Member.objects.get(club=club, name="新人")
    assert guest.is_guest
    assert counted_rows(Game.objects.get())[2].member == guest
    assert AuditLog.objects.filter(action="member.create", target=f"member:{guest.pk}").exists()


def test_a_guest_preview_creates_no_one(organiser_client, club, members):
    response = organiser_client.post(
        new_url(club), posted("preview", member_2="新人", guest_2="on")
    )
    assert response.status_code == 200
    assert [r.member.name for r in response.context["preview"]][2] == "新人"
    assert not Member.objects.filter(name="新人").exists()
    assert nothing_stored()


def test_a_failing_game_leaves_no_guest_behind(organiser_client, club, members):
    response = organiser_client.post(
        new_url(club), posted(member_2="新人", guest_2="on", points_1="30,000")
    )
    assert response.status_code == 200
    assert not Member.objects.filter(name="新人").exists()
    assert not AuditLog.objects.filter(action="member.create").exists()
    assert nothing_stored()


def test_two_seats_cannot_add_the_same_guest(organiser_client, club, members):
    response = organiser_client.post(
        new_url(club), posted(member_2="新人", guest_2="on", member_3="新人", guest_3="on")
    )
    assert response.status_code == 200
    assert "member_3" in response.context["form"].errors
    assert not Member.objects.filter(name="新人").exists()


def test_a_member_of_another_club_is_refused(organiser_client, club, other_club, members):
    outsider = Member.objects.create(club=other_club, name="山田", kana="やまだ")
    for typed in (outsider.name, outsider.kana, str(outsider.pk)):
        response = organiser_client.post(new_url(club), posted(member_3=typed))
        assert response.status_code == 200
        assert "member_3" in response.context["form"].errors
    assert nothing_stored()


def test_an_inactive_member_is_not_offered_nor_seated(organiser_client, club, members):
    Member.objects.filter(name="土井").update(is_active=False)
    response = organiser_client.post(new_url(club), posted())
    assert response.status_code == 200
    assert "member_3" in response.context["form"].errors
    assert 'value="土井"' not in organiser_client.get(new_url(club)).content.decode()


def test_the_same_submission_key_twice_records_one_game(organiser_client, club, members):
    data = posted(member_2="新人", guest_2="on")
    first = organiser_client.post(new_url(club), data)
    second = organiser_client.post(new_url(club), data)
    assert first.status_code == second.status_code == 302
    assert Game.objects.count() == 1
    assert Result.objects.count() == 4
    assert Member.objects.filter(name="新人").count() == 1


def test_chombo_and_chips_are_stored_and_settled(organiser_client, club, members):
    data = posted(
        chombo_1="1",
        chip_kind_0="ippatsu",
        chip_winner_0="0",
        chip_kind_1="yakuman",
        chip_winner_1="2",
        chip_from_1="3",
        chip_multiplier_1="2",
    )
    response = organiser_client.post(new_url(club), data)
    assert response.status_code == 302
    game = Game.objects.get()
    expected = engine(
        club,
        chombo=("馬場",),
        chips=(
            scoring.ChipEvent("ippatsu", "青木"),
            scoring.ChipEvent("yakuman", "千葉", "土井", 2),
        ),
    )
    rows = counted_rows(game)
    assert [(r.chombo, r.rank, r.score, r.chips, r.yen) for r in rows] == [
        (p.chombo, p.rank, p.score, p.chips, p.yen) for p in expected.players
    ]
    assert rows[1].chombo == 1
    events = [
        (e.kind, e.winner.name, e.discarder.name if e.discarder else None, e.multiplier)
        for e in ChipEvent.objects.filter(game=game).order_by("id")
    ]
    assert events == [("ippatsu", "青木", None, 1), ("yakuman", "千葉", "土井", 2)]


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"chip_kind_0": "ippatsu"}, "chip_winner_0"),
        ({"chip_winner_0": "1"}, "chip_kind_0"),
        ({"chip_kind_0": "yakuman", "chip_winner_0": "1", "chip_from_0": "1"}, "chip_from_0"),
        ({"chip_kind_0": "sanbaiman", "chip_winner_0": "1"}, "chip_kind_0"),
        (
            {"chip_kind_0": "ippatsu", "chip_winner_0": "1", "chip_multiplier_0": "0"},
            "chip_multiplier_0",
        ),
    ],
)
def test_bad_chip_rows_are_errors_on_the_row(organiser_client, club, members, row, field):
    response = organiser_client.post(new_url(club), posted(**row))
    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert nothing_stored()


def test_games_of_one_day_are_numbered(organiser_client, club, members):
    organiser_client.post(new_url(club), posted())
    response = english(organiser_client).post(new_url(club), posted(confirm_duplicate="on"))
    assert messages_of(response)[-1] == "Game 2 at table A saved."
    assert list(Game.objects.values_list("number", flat=True)) == [1, 2]


# --- editing ---------------------------------------------------------------------------------


def edit_data(game, action: str = "save", **overrides: Any) -> dict[str, Any]:
    data = posted(action, revision=str(game.revision), submission_key=None, date=None)
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def test_edit_shows_the_stored_game(organiser_client, club, members, organiser):
    game = record_stored(club, members[:4], organiser)
    services.game_edit(
        game=game,
        user=organiser,
        data=services.GameInput(
            date=DATE,
            seats=[
                services.SeatInput(members[0], 52000),
                services.SeatInput(members[1], 31000, chombo=1),
                services.SeatInput(members[2], 19000),
                services.SeatInput(members[3], -3000),
            ],
            table="B",
            deposits=1000,
            rate="0.5",
            chips=[services.ChipInput("yakuman", members[2], members[3], 2)],
        ),
    )
    game.refresh_from_db()
    response = organiser_client.get(edit_url(game))
    assert response.status_code == 200
    form = response.context["form"]
    values = {name: form[name].value() for name in form.fields}
    assert values["date"] == "2026/11/21"
    assert form.fields["date"].disabled
    assert [values[f"member_{i}"] for i in range(4)] == list(NAMES)
    assert [values[f"points_{i}"] for i in range(4)] == ["52,000", "31,000", "19,000", "-3,000"]
    assert values["chombo_1"] == 1
    assert (values["table"], values["deposits"], values["rate"], values["revision"]) == (
        "B",
        "1,000",
        "0.5",
        2,
    )
    assert (values["chip_kind_0"], values["chip_winner_0"], values["chip_from_0"]) == (
        "yakuman",
        2,
        3,
    )
    assert values["chip_multiplier_0"] == 2
    assert "submission_key" not in form.fields


def test_edit_resettles_as_a_new_revision(organiser_client, club, members, organiser):
    game = record_stored(club, members[:4], organiser)
    data = edit_data(game, points_0="42,000", points_1="41,000", chombo_3="1")
    response = english(organiser_client).post(edit_url(game), data)
    assert response.status_code == 302
    assert response["Location"] == reverse("recording:game_detail", args=[club.slug, game.pk])
    assert messages_of(response) == ["Game 1 updated."]
    game.refresh_from_db()
    assert game.revision == 2
    assert not game.results.filter(revision=1, counted=True).exists()
    assert game.results.filter(revision=1).count() == 4
    expected = engine(club, points=(42000, 41000, 19000, -3000), chombo=("土井",))
    assert [(r.points, r.rank, r.score, r.chombo, r.yen) for r in counted_rows(game)] == [
        (p.points, p.rank, p.score, p.chombo, p.yen) for p in expected.players
    ]
    log = AuditLog.objects.get(game=game, action="game.edit")
    assert log.before["revision"] == 1 and log.after["revision"] == 2


def test_edit_preview_changes_nothing(organiser_client, club, members, organiser):
    game = record_stored(club, members[:4], organiser)
    response = organiser_client.post(
        edit_url(game), edit_data(game, "preview", points_0="42,000", points_1="41,000")
    )
    assert response.status_code == 200
    assert [r.points for r in response.context["preview"]][:2] == [42000, 41000]
    game.refresh_from_db()
    assert game.revision == 1


def test_edit_cannot_move_the_date(organiser_client, club, members, organiser):
    game = record_stored(club, members[:4], organiser)
    response = organiser_client.post(edit_url(game), edit_data(game, date="2026-11-22"))
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.date == DATE and game.revision == 2


def test_a_stale_revision_is_refused(organiser_client, club, members, organiser):
    game = record_stored(club, members[:4], organiser)
    stale = edit_data(game, points_0="42,000", points_1="41,000")
    assert organiser_client.post(edit_url(game), edit_data(game)).status_code == 302
    response = english(organiser_client).post(edit_url(game), stale)
    assert response.status_code == 200
    assert "Someone else changed this game" in " ".join(response.context["form"].non_field_errors())
    game.refresh_from_db()
    assert game.revision == 2
    assert [r.points for r in counted_rows(game)] == list(POINTS)


def test_a_void_game_cannot_be_edited(organiser_client, club, members, organiser):
    game = record_stored(club, members[:4], organiser)
    services.game_void(game=game, user=organiser, reason="entered twice")
    for response in (
        organiser_client.get(edit_url(game)),
        organiser_client.post(edit_url(game), edit_data(game)),
    ):
        assert response.status_code == 302
        assert response["Location"] == reverse("recording:game_detail", args=[club.slug, game.pk])
        assert any(m.level_tag == "error" for m in get_messages(response.wsgi_request))
    game.refresh_from_db()
    assert game.revision == 1


def test_edit_may_seat_a_member_who_has_since_left(organiser_client, club, members, organiser):
    game = record_stored(club, members[:4], organiser)
    Member.objects.filter(name="土井").update(is_active=False)
    response = organiser_client.post(edit_url(game), edit_data(game))
    assert response.status_code == 302


# --- voiding ---------------------------------------------------------------------------------


def test_void_asks_for_a_reason(organiser_client, club, members, organiser):
    game = record_stored(club, members[:4], organiser)
    page = organiser_client.get(void_url(game))
    assert page.status_code == 200
    assert "青木" in page.content.decode()
    response = organiser_client.post(void_url(game), {"reason": "  ", "revision": "1"})
    assert response.status_code == 200
    assert "reason" in response.context["form"].errors
    game.refresh_from_db()
    assert not game.voided


def test_void_stores_the_reason_and_stops_counting(organiser_client, club, members, organiser):
    game = record_stored(club, members[:4], organiser)
    response = english(organiser_client).post(
        void_url(game), {"reason": "entered twice", "revision": "1"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("recording:game_detail", args=[club.slug, game.pk])
    assert messages_of(response) == ["Game 1 voided."]
    game.refresh_from_db()
    assert game.voided and game.void_reason == "entered twice"
    assert not game.results.filter(counted=True).exists()
    log = AuditLog.objects.get(game=game, action="game.void")
    assert log.reason == "entered twice"


def test_a_void_game_cannot_be_voided_again(organiser_client, club, members, organiser):
    game = record_stored(club, members[:4], organiser)
    services.game_void(game=game, user=organiser, reason="entered twice")
    response = organiser_client.post(void_url(game), {"reason": "again", "revision": "1"})
    assert response.status_code == 302
    assert AuditLog.objects.filter(action="game.void").count() == 1


# --- who may do what -------------------------------------------------------------------------


@pytest.fixture
def game(club, members, organiser) -> Game:
    return record_stored(club, members[:4], organiser)


def urls_of(club, game) -> list[str]:
    return [new_url(club), edit_url(game), void_url(game)]


@pytest.mark.parametrize("view", [0, 1, 2])
def test_an_organiser_may_open_every_view(organiser_client, club, game, view):
    assert organiser_client.get(urls_of(club, game)[view]).status_code == 200


@pytest.mark.parametrize("view", [0, 1, 2])
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize(
    ("who", "status"), [("member_client", 403), ("stranger_client", 404), ("anonymous", 404)]
)
def test_others_may_not(request, club, game, view, method, who, status):
    client = Client() if who == "anonymous" else request.getfixturevalue(who)
    url = urls_of(club, game)[view]
    data = (
        posted()
        if view == 0
        else edit_data(game)
        if view == 1
        else {"reason": "x", "revision": "1"}
    )
    response = getattr(client, method)(url, data)
    assert response.status_code == status
    game.refresh_from_db()
    assert Game.objects.count() == 1 and game.revision == 1 and not game.voided


@pytest.mark.parametrize("view", [0, 1, 2])
@pytest.mark.parametrize("method", ["put", "delete", "patch"])
def test_other_methods_are_not_allowed(organiser_client, club, game, view, method):
    response = getattr(organiser_client, method)(urls_of(club, game)[view])
    assert response.status_code == 405


@pytest.mark.parametrize("view", ["recording:game_edit", "recording:game_void"])
def test_a_game_of_another_club_is_not_found(
    organiser_client, stranger_client, club, other_club, game, view
):
    # This club's organiser asking for the other club's game through this club's address...
    yamada = [Member.objects.create(club=other_club, name=f"山田{i}") for i in range(4)]
    seats = [
        services.SeatInput(m, p) for m, p in zip(yamada, (40000, 30000, 20000, 10000), strict=True)
    ]
    theirs = services.game_record(
        club=other_club, user=None, data=services.GameInput(date=DATE, seats=seats)
    )
    assert organiser_client.get(reverse(view, args=[club.slug, theirs.pk])).status_code == 404
    # ...and the other club's organiser asking for this club's game through theirs.
    assert stranger_client.get(reverse(view, args=[other_club.slug, game.pk])).status_code == 404
    assert organiser_client.get(reverse(view, args=[club.slug, 999_999])).status_code == 404


# --- queries ---------------------------------------------------------------------------------


def get_queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


NEW_FORM_QUERIES = (
    7  # session, user, the club with the role, rules in force, members, the day's games,
)
# the closed seasons holding the date (league.club: their warning)


def test_the_new_form_needs_the_same_queries_for_any_club_size(
    organiser_client, club, members, organiser, django_assert_num_queries
):
    url = new_url(club)
    with django_assert_num_queries(NEW_FORM_QUERIES):
        assert organiser_client.get(url).status_code == 200
    for i in range(55):
        Member.objects.create(club=club, name=f"会員{i}", kana=f"かいいん{i}")
    for _ in range(50):
        record_stored(club, members[:4], organiser)
    assert Game.objects.count() == 50
    with django_assert_num_queries(NEW_FORM_QUERIES):
        assert organiser_client.get(url).status_code == 200


def test_the_edit_form_needs_the_same_queries_for_any_history(
    organiser_client, club, members, organiser
):
    seats = [services.SeatInput(m, p) for m, p in zip(members[:4], POINTS, strict=True)]

    def with_chips(n: int) -> services.GameInput:
        chips = [services.ChipInput("yakuman", members[0], members[1])] * n
        return services.GameInput(date=DATE, seats=seats, deposits=1000, rate="0.3", chips=chips)

    game = services.game_record(club=club, user=organiser, data=with_chips(1))
    first = get_queries(organiser_client, edit_url(game))
    for n in range(2, 7):
        game = services.game_edit(game=game, user=organiser, data=with_chips(n))
    for i in range(30):
        Member.objects.create(club=club, name=f"会員{i}")
    assert get_queries(organiser_client, edit_url(game)) == first


def test_another_clubs_rules_are_used_for_their_form(stranger_client, other_club):
    make_club("third")  # a club with its own rules must not change this one
    response = stranger_client.get(new_url(other_club))
    assert response.context["form"].rules == scoring.PRESETS["kinyokai-2015"].rules


def test_table_mode_from_the_same_four_seats_them(organiser_client, club, members, organiser):
    """「同じ4人で」 (?seats=<game>) then 「局ごとに記録する」: table mode opened with no players, as
    it does not read a game's id; the link now carries the players, the table, rate and date."""
    game = record_stored(club, members[:4], organiser)
    form = organiser_client.get(new_url(club), {"date": "2026-11-21", "seats": game.pk})
    link = re.search(r'href="([^"]+)" data-table-mode', form.content.decode()).group(1)
    assert "seats=" not in link
    page = organiser_client.get(link.replace("&amp;", "&"))
    assert page.status_code == 200
    assert [s["chosen"] for s in page.context["seats"]] == [m.pk for m in members[:4]]
    assert 'value="A"' in page.content.decode()  # the table
