"""Seasons that don't swallow each other, on a 390×844 phone: the organiser makes a team league
beside the club's 2026 season from the season form (its games apart by default), is asked about
a second individual season over the same dates (naming the first) and confirms it; the club
home then leads to each season running today, with the league's teams."""

from __future__ import annotations

import datetime

import pytest

from league.club import services as club_services
from league.core.clock import today
from league.models import Membership, Season
from tests.support.clubs import make_club, make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def club(db):
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    year = today().year
    club_services.season_create(
        club=club,
        user=organiser,
        name=f"{year}年",
        start=datetime.date(year, 1, 1),
        end=datetime.date(year, 12, 31),
    )
    return club


def no_sideways_scroll(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def _fill(phone, name: str, start: str, end: str) -> None:
    phone.fill("#id_name", name)
    phone.fill("#id_start", start)
    phone.fill("#id_end", end)


def test_a_team_league_beside_the_season_and_an_overlap_confirmed(
    phone, live_server, log_in, club, screenshot
) -> None:
    year = today().year
    log_in("organiser")
    phone.goto(f"{live_server.url}/c/mame/seasons/new/")
    _fill(phone, "秋のチーム戦", f"{year}/01/01", f"{year}/12/31")
    phone.get_by_label("チーム戦").check()
    assert not phone.is_checked("#id_in_club_season")
    screenshot("season-new-team-league")
    no_sideways_scroll(phone)
    with phone.expect_navigation():
        phone.click("form.card button[type=submit]")
    league = Season.objects.get(name="秋のチーム戦")
    assert league.kind == Season.TEAM and not league.in_club_season

    # A second individual season over the same dates: asked, naming the first.
    phone.goto(f"{live_server.url}/c/mame/seasons/new/")
    _fill(phone, "後期", f"{year}/07/01", f"{year}/12/31")
    with phone.expect_navigation():
        phone.click("form.card button[type=submit]")
    errors = phone.locator(".errorlist").all_inner_texts()
    assert any(f"{year}年" in e and f"{year}/01/01" in e for e in errors), errors
    assert not Season.objects.filter(name="後期").exists()
    screenshot("season-new-overlap-asked")
    no_sideways_scroll(phone)
    phone.check("#id_confirm_overlap")
    with phone.expect_navigation():
        phone.click("form.card button[type=submit]")
    assert Season.objects.get(name="後期").kind == Season.INDIVIDUAL

    phone.goto(f"{live_server.url}/c/mame/")
    running = phone.locator("[data-running-seasons]")
    assert running.get_by_role("link", name="秋のチーム戦").is_visible()
    assert running.get_by_role("link", name="チーム", exact=True).is_visible()
    assert running.get_by_role("link", name=f"{year}年").is_visible()
    screenshot("club-home-running-seasons")
    no_sideways_scroll(phone)
