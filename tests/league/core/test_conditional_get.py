"""The busy pages by conditional GET (league.access.club_page): each sends an ETag made of the
club's data version and who asks, a repeat view with it answers 304 after the ordinary session
and auth middleware, and anything the page shows changing gives a new page."""

from __future__ import annotations

import datetime

import pytest
from django.conf import settings
from django.contrib import messages
from django.contrib.messages.storage.cookie import CookieStorage
from django.test import Client
from django.urls import resolve, reverse
from django.utils import timezone

from league import access
from league.club import services as club_services
from league.models import Day, Member, Season
from tests.support.clubs import make_user
from tests.support.pages import DATE, record


@pytest.fixture(autouse=True)
def no_undo_window(settings):
    """The ledger's tag changes every second while a payment can be undone (tested on its own
    below); elsewhere here that would make a repeat view a second later a new page."""
    settings.PAYMENT_UNDO_SECONDS = 0


@pytest.fixture
def day_games(club, organiser, members):
    record(club, organiser, members[:4])
    return Day.objects.get(club=club, date=DATE)


@pytest.fixture
def season(club):
    return Season.objects.create(
        club=club, name="2026秋", start=datetime.date(2026, 9, 1), end=datetime.date(2026, 11, 30)
    )


def busy_pages(club, season, member) -> dict[str, str]:
    slug = club.slug
    return {
        "season standings": reverse("standings:season_standings", args=[slug, season.pk]),
        "standings": reverse("standings:standings", args=[slug]),
        "day page": reverse("recording:day_detail", args=[slug, DATE]),
        "ledger": reverse("money:day_ledger", args=[slug, DATE]),
        "debts": reverse("money:debt_list", args=[slug]),
        "statement": reverse("money:member_statement", args=[slug, member.pk]),
        "player": reverse("standings:player_detail", args=[slug, member.pk]),
        "race": reverse("standings:season_race", args=[slug, season.pk]),
        "head-to-head": reverse("standings:season_matrix", args=[slug, season.pk]),
        "rating": reverse("standings:rating_list", args=[slug]),
        "seats": reverse("standings:club_seats", args=[slug]),
        "records": reverse("standings:records", args=[slug]),
    }


def tagged(client: Client, address: str) -> str:
    """The page's ETag, as a browser has it after its first page (which set the CSRF cookie)."""
    client.get(address)
    response = client.get(address)
    assert response.status_code == 200, address
    assert response["Cache-Control"] in ("private, no-cache", "no-cache, private")
    assert response["ETag"]
    return response["ETag"]


def again(client: Client, address: str, etag: str) -> int:
    return client.get(address, HTTP_IF_NONE_MATCH=etag).status_code


PAGES = [
    "season standings",
    "standings",
    "day page",
    "ledger",
    "debts",
    "statement",
    "player",
    "race",
    "head-to-head",
    "rating",
    "seats",
    "records",
]


@pytest.mark.parametrize("name", PAGES)
def test_a_repeat_view_of_each_busy_page_is_answered_304(
    name, organiser_client, club, season, members, day_games
):
    address = busy_pages(club, season, members[0])[name]
    etag = tagged(organiser_client, address)
    assert again(organiser_client, address, etag) == 304
    assert again(organiser_client, address, '"something-else"') == 200


@pytest.mark.parametrize("name", ["season standings", "day page", "ledger", "statement"])
def test_a_game_recorded_in_the_club_changes_the_page(
    name, organiser_client, organiser, club, season, members, day_games
):
    address = busy_pages(club, season, members[0])[name]
    etag = tagged(organiser_client, address)
    record(club, organiser, members[1:5], table="B")
    response = organiser_client.get(address, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response["ETag"] != etag


def test_a_game_in_another_club_leaves_the_pages_valid(
    organiser_client, club, season, members, day_games, other_club
):
    addresses = busy_pages(club, season, members[0])
    etags = {name: tagged(organiser_client, addresses[name]) for name in PAGES}
    boss = make_user("boss", other_club, role="organiser")
    theirs = [Member.objects.create(club=other_club, name=n) for n in "甲乙丙丁"]
    record(other_club, boss, theirs, rate="", chombo_seat=None)
    assert {
        name: again(organiser_client, addresses[name], etags[name]) for name in PAGES
    } == dict.fromkeys(PAGES, 304)


def test_a_renamed_member_changes_the_standings(
    organiser_client, organiser, club, season, members, day_games
):
    address = busy_pages(club, season, members[0])["season standings"]
    etag = tagged(organiser_client, address)
    club_services.member_edit(member=members[0], user=organiser, name="青木 改", kana="")
    response = organiser_client.get(address, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert "青木 改" in response.content.decode()


def test_each_user_and_language_has_its_own_tag(
    organiser_client, member_client, club, season, members, day_games
):
    address = busy_pages(club, season, members[0])["standings"]
    mine = tagged(organiser_client, address)
    assert again(member_client, address, mine) == 200  # another user: the full page
    organiser_client.post(reverse("i18n:set_language"), {"language": "en", "next": "/"})
    assert again(organiser_client, address, mine) == 200  # another language


def test_a_page_with_a_message_is_neither_tagged_nor_stored(
    rf, organiser, club, season, members, day_games
):
    address = busy_pages(club, season, members[0])["day page"]
    request = _request(rf, organiser, address)
    request._messages = CookieStorage(request)
    messages.success(request, "保存しました")
    response = resolve(address).func(request, **resolve(address).kwargs)
    assert response.status_code == 200
    assert "ETag" not in response
    assert "no-store" in response["Cache-Control"]
    plain = _request(rf, organiser, address)
    plain._messages = CookieStorage(plain)
    assert resolve(address).func(plain, **resolve(address).kwargs)["ETag"]


def test_the_ledger_changes_every_second_while_a_payment_can_be_undone(
    monkeypatch, settings, rf, organiser, club, day_games
):
    settings.PAYMENT_UNDO_SECONDS = 600
    club = access._club_checked(_request(rf, organiser), club.slug)
    now = club.data_at + datetime.timedelta(seconds=1)
    later = now + datetime.timedelta(seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: now)
    first = access._moment(club)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert access._moment(club) == first + 1
    gone = club.data_at + datetime.timedelta(days=1)
    monkeypatch.setattr(timezone, "now", lambda: gone)
    assert access._moment(club) == 0


def _request(rf, user, address: str = "/"):
    request = rf.get(address)
    request.COOKIES[settings.CSRF_COOKIE_NAME] = "x" * 32  # a browser after its first page
    request.user = user
    request.session = {}
    return request


def test_a_write_in_the_club_changes_its_version_and_not_another_clubs(
    rf, organiser, club, members, other_club, day_games
):
    boss = make_user("boss", other_club, role="organiser")
    before = access._club_checked(_request(rf, organiser), club.slug).data_version
    theirs_before = access._club_checked(_request(rf, boss), other_club.slug).data_version
    record(club, organiser, members[1:5], table="B")
    assert access._club_checked(_request(rf, organiser), club.slug).data_version != before
    assert access._club_checked(_request(rf, boss), other_club.slug).data_version == theirs_before
