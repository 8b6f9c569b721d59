"""Nobody gets into another club, and hostile names stay text.

The club-scoped routes are read from the URL resolver, so a route added later is checked without
touching this file; a route with a parameter this file cannot fill fails the test until it can.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from league.accounts.tokens import token_create
from league.models import (
    Member,
    Membership,
    RulesVersion,
)
from league.recording import photos
from tests.support import api
from tests.support.clubs import client_for, make_user
from tests.support.games import record_game
from tests.support.isolation import (
    ATTRIBUTE,
    POINTS,
    SCRIPT,
    club_routes,
    money_rules,
    owing_day,
    populate,
    url,
)


def assert_hidden(client: Client, address: str) -> None:
    """404 to GET and to POST, except 405 for a method the view never takes (asked before the
    club is looked at, so it tells nothing); at least one of the two is 404."""
    statuses = [client.get(address).status_code, client.post(address).status_code]
    assert set(statuses) <= {404, 405} and 404 in statuses, (address, statuses)


@pytest.fixture
def values(club, organiser, members, settings) -> dict[str, Any]:
    # A chat configured (league.chat; Telegram needs no other service), so its club pages exist,
    # and the organiser plays too (their own chat page is for a member with a player).
    settings.TELEGRAM_SECRET_TOKEN = "isolation"
    Member.objects.filter(pk=members[4].pk).update(user=organiser)
    return populate(club, organiser, members[:4])


def test_every_club_route_can_be_filled_and_opens_for_its_organiser(organiser_client, values):
    """The control for the tests below: with these values each route exists for the club."""
    for name, params in club_routes():
        address = url(name, params, values)
        status = organiser_client.get(address).status_code
        if status == 405:
            status = organiser_client.post(address).status_code
        if "photo" in name and not photos.available():
            continue  # without requirements-photo.txt the photo pages are not there (404)
        assert status != 404, (name, address)


@pytest.fixture
def unthrottled(monkeypatch):
    """The walk asks for hundreds of club addresses that are not the user's: each is counted as
    a probe (league.throttle.CLUB_PROBE, tested in test_club_probe.py); no limit here."""
    from dataclasses import replace

    from league import throttle

    monkeypatch.setattr(
        throttle, "CLUB_PROBE", replace(throttle.CLUB_PROBE, pair=10**6, name=10**6, address=10**6)
    )


@pytest.mark.usefixtures("unthrottled")
def test_a_user_of_another_club_gets_404_everywhere(stranger_client, values):
    for name, params in club_routes():
        assert_hidden(stranger_client, url(name, params, values))


def test_a_user_of_another_club_cannot_reach_its_objects_through_their_own_club(
    stranger_client, other_club, values
):
    """Their own club's address with this club's game, member, day... ids: 404 too. Their
    club keeps money as well, so that its money pages exist and look the ids up."""
    RulesVersion.objects.create(
        club=other_club, effective_from=datetime.date(2026, 1, 1), rules_json=money_rules()
    )
    for name, params in club_routes():
        if params != ["slug"]:
            assert_hidden(stranger_client, url(name, params, values, slug=other_club.slug))


def test_a_logged_out_user_gets_404_everywhere(client, values):
    for name, params in club_routes():
        assert_hidden(client, url(name, params, values))


@pytest.mark.usefixtures("unthrottled")
def test_a_club_that_does_not_exist_looks_the_same(stranger_client, values):
    for name, params in club_routes():
        assert_hidden(stranger_client, url(name, params, values, slug="no-such-club"))


def test_the_home_page_sends_a_logged_out_user_to_log_in(client, db):
    response = client.get(reverse("site:home"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("accounts:login"))


# --- hostile names ---------------------------------------------------------------------------


@pytest.fixture
def hostile(club, organiser, members) -> dict[str, Any]:
    """Two members with HTML in their names, in games, on the day, owing money."""
    bad = [
        Member.objects.create(club=club, name=SCRIPT, kana="あ"),
        Member.objects.create(club=club, name=ATTRIBUTE, kana="い"),
    ]
    values = populate(club, organiser, [bad[0], members[0], members[1], bad[1]])
    return {**values, "bad": bad}


def pages_with_names(values: dict[str, Any]) -> list[str]:
    slug, date = values["slug"], values["date"]
    addresses = [
        reverse("recording:club_home", args=[slug]),
        reverse("recording:day_detail", args=[slug, date]),
        reverse("money:day_ledger", args=[slug, date]),
        reverse("recording:game_detail", args=[slug, values["game_id"]]),
        reverse("recording:game_edit", args=[slug, values["game_id"]]),
        reverse("club:member_list", args=[slug]),
        reverse("standings:standings", args=[slug]),
        reverse("standings:season_standings", args=[slug, values["season_id"]]),
        reverse("standings:season_race", args=[slug, values["season_id"]]),
        reverse("money:debt_list", args=[slug]),
    ]
    for member in values["bad"]:
        addresses += [
            reverse("standings:player_detail", args=[slug, member.pk]),
            reverse("money:member_statement", args=[slug, member.pk]),
        ]
    return addresses


def test_names_with_html_are_shown_escaped_everywhere(organiser_client, hostile):
    for address in pages_with_names(hostile):
        response = organiser_client.get(address)
        assert response.status_code == 200, address
        html = response.content.decode()
        assert SCRIPT not in html and "<img src=x" not in html, address
        assert escape(SCRIPT) in html or escape(ATTRIBUTE) in html, address


def test_each_hostile_name_appears_escaped_on_the_pages_that_list_players(
    organiser_client, hostile
):
    slug = hostile["slug"]
    for address in [
        reverse("recording:club_home", args=[slug]),
        reverse("recording:day_detail", args=[slug, hostile["date"]]),
        reverse("money:day_ledger", args=[slug, hostile["date"]]),
        reverse("club:member_list", args=[slug]),
        reverse("standings:standings", args=[slug]),
        reverse("standings:season_race", args=[slug, hostile["season_id"]]),
    ]:
        html = organiser_client.get(address).content.decode()
        for name in (SCRIPT, ATTRIBUTE):
            assert escape(name) in html, (address, name)


def test_a_member_of_the_club_sees_the_same_escaping(club, hostile):
    client = Client()
    client.force_login(make_user("plain", club))
    for address in pages_with_names(hostile):
        html = client.get(address).content.decode()
        assert SCRIPT not in html and "<img src=x" not in html, address


def test_an_organiser_recording_sees_hostile_names_escaped_in_the_pickers(
    organiser_client, hostile
):
    html = organiser_client.get(
        reverse("recording:game_new", args=[hostile["slug"]])
    ).content.decode()
    assert SCRIPT not in html and "<img src=x" not in html
    assert escape(SCRIPT) in html and escape(ATTRIBUTE) in html


def test_debts_of_another_club_are_never_listed(organiser_client, values, other_club, stranger):
    """The other club's debts and open days do not leak into this club's debt list. Its debt is
    made as the pages make one (games settled, a transfer deferred), so that it is in the
    books the list reads: a row written directly would be in no list, whatever the filter."""
    theirs = [Member.objects.create(club=other_club, name=f"余所者{n}") for n in "甲乙丙丁"]
    RulesVersion.objects.create(  # 金曜会 keeps money, at マメの会's rates
        club=other_club, effective_from=datetime.date(2026, 1, 1), rules_json=money_rules()
    )
    owing_day(other_club, stranger, theirs)
    debts = reverse("money:debt_list", args=[other_club.slug])
    assert "余所者" in client_for(stranger).get(debts).content.decode()  # the control
    html = organiser_client.get(reverse("money:debt_list", args=[values["slug"]])).content.decode()
    assert "余所者" not in html


def test_another_clubs_day_today_is_not_this_clubs_today(
    member_client, club, members, other_club, stranger
):
    """The club home's 「今日」 card links to the club's own day of today only: a game another
    club records today makes no day here."""
    today = timezone.localdate()
    theirs = [Member.objects.create(club=other_club, name=f"余所者{n}") for n in "甲乙丙丁"]
    record_game(other_club, stranger, theirs, POINTS[0], date=today, rate="")
    home = reverse("recording:club_home", args=[club.slug])
    today_link = reverse("recording:day_detail", args=[club.slug, today])
    assert today_link not in member_client.get(home).content.decode()
    # The control: the club's own game today does make the link.
    record_game(club, None, members[:4], POINTS[0], date=today)
    assert today_link in member_client.get(home).content.decode()


def test_a_photo_stays_in_its_club_for_an_organiser_of_both(
    monkeypatch, organiser, organiser_client, values, other_club
):
    """A photo is its uploader's, in its club: the same organiser, organiser of another club
    too, does not reach it through that club's address. (The status page reads the stored row
    only: it opens whether or not the photo readers are installed here.)"""
    monkeypatch.setattr(photos, "available", lambda: True)
    Membership.objects.create(user=organiser, club=other_club, role=Membership.ORGANISER)
    own = reverse("recording:photo_status", args=[values["slug"], values["photo_id"]])
    assert organiser_client.get(own).status_code == 200  # the control
    elsewhere = reverse("recording:photo_status", args=[other_club.slug, values["photo_id"]])
    assert organiser_client.get(elsewhere).status_code == 404


def test_a_member_of_another_club_cannot_be_set_inactive_from_this_one(
    organiser_client, club, members, other_club
):
    """The member form's toggle takes a member id from the address's query: looked up in the
    club of the address, so another club's member is a 404 and stays active."""
    theirs = Member.objects.create(club=other_club, name="余所者")
    toggle = reverse("club:member_new", args=[club.slug]) + "?toggle={}"
    assert organiser_client.post(toggle.format(theirs.pk)).status_code == 404
    theirs.refresh_from_db()
    assert theirs.is_active
    # The control: the club's own member is set inactive.
    assert organiser_client.post(toggle.format(members[0].pk)).status_code == 302
    members[0].refresh_from_db()
    assert not members[0].is_active


def test_a_season_of_another_club_is_no_choice_on_ones_own_clubs_pages(
    stranger_client, organiser_client, other_club, values
):
    """?season= on the seats page is looked up in the club of the address: this club's season
    through another club's page is a 404."""
    own = reverse("standings:club_seats", args=[values["slug"]]) + f"?season={values['season_id']}"
    assert organiser_client.get(own).status_code == 200  # the control
    theirs = (
        reverse("standings:club_seats", args=[other_club.slug]) + f"?season={values['season_id']}"
    )
    assert stranger_client.get(theirs).status_code == 404


def test_an_export_stays_in_its_club_for_an_organiser_of_both(
    organiser, organiser_client, values, other_club
):
    """A file is its maker's, in its club: the same organiser, organiser of another club too,
    does not reach it through that club's address."""
    Membership.objects.create(user=organiser, club=other_club, role=Membership.ORGANISER)
    own = reverse("excel:export_status", args=[values["slug"], values["export_id"]])
    assert organiser_client.get(own).status_code == 200  # the control
    for name in ("excel:export_status", "excel:export_download"):
        elsewhere = reverse(name, args=[other_club.slug, values["export_id"]])
        assert organiser_client.get(elsewhere).status_code == 404, name


def test_another_clubs_ids_through_ones_own_club_in_the_api(
    club, organiser, other_club, stranger, values
):
    """The API's reads by id, with 金曜会's token and address and マメの会's season, member
    and day: each a 404 (422 for a ?season= the club does not have), as they are 200 with
    マメの会's own token (the control)."""
    RulesVersion.objects.create(  # 金曜会 keeps money too: its ledger is looked up
        club=other_club, effective_from=datetime.date(2026, 1, 1), rules_json=money_rules()
    )
    season, member, date = values["season_id"], values["member_id"], values["date"]
    paths = [
        f"seasons/{season}/teams",
        f"seasons/{season}/fixtures",
        f"seasons/{season}/stages",
        f"standings?season={season}",
        f"players/{member}/stats",
        f"players/{member}/stats?season={season}",
        f"players/{member}/rating",
        f"seats?season={season}",
        f"days/{date}",
        f"days/{date}/ledger",
        f"tables/{values['key']}",
    ]
    ours = token_create(club=club, user=organiser, name="ours")[1]
    theirs = token_create(club=other_club, user=stranger, name="theirs")[1]
    for path in paths:
        assert api.call("GET", api.url(club, path), ours).status_code == 200, path
        assert api.call("GET", api.url(other_club, path), theirs).status_code in {404, 422}, path
