"""Each page on a phone: it loads, shows its key content, fits the screen's width, and leaves a
screenshot in test-artifacts/screenshots/ for people to look at."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

import pytest

from league.club import services as club_services
from league.core.clock import today
from league.models import Member, Membership
from league.recording import services
from league.recording.services import GameInput, SeatInput
from tests.support.browser import fits_the_screen
from tests.support.clubs import MEMBER_NAMES, make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)

SEASON = "2026年 秋"


@pytest.fixture
def club_with_a_game():
    club = make_club("mame", "mame-no-kai", "マメの会")
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES]
    organiser = make_user("organiser", club, Membership.ORGANISER)
    seats = [
        SeatInput(m, p) for m, p in zip(members[:4], [52000, 31000, 19000, -3000], strict=True)
    ]
    data = GameInput(date=today(), seats=seats, deposits=1000, rate="0.3", table="A")
    services.game_record(club=club, user=organiser, data=data)
    date = today()
    club_services.season_create(
        club=club,
        user=organiser,
        name=SEASON,
        start=date - datetime.timedelta(days=30),
        end=date + datetime.timedelta(days=60),
        min_games=10,
    )
    return club


def open_page(page: Page, url: str) -> None:
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    assert response.request.redirected_from is None, f"{url} redirected to {page.url}"


# (screenshot name, path with {today} for the club's today, a selector of the page's key
# content, a text that content must show)
PAGES = [
    ("club-home", "/c/mame/", "main ul.game-lines a[href*='/games/']", "青木"),
    ("day-page", "/c/mame/days/{today}/", "#game-1 table.settled", "土井"),
    ("members-list", "/c/mame/members/", "main table tbody", "江藤"),
    ("seasons-list", "/c/mame/seasons/", "main table tbody", SEASON),
    ("rules-list", "/c/mame/rules/", "main section.card[aria-current=true] table", ""),
    ("record-page", "/c/mame/games/new/", "form[data-record] #id_points_3", ""),
    ("share-page", "/c/mame/days/{today}/share/", "main textarea[data-share-text]", "1位 青木"),
]


@pytest.mark.parametrize(("name", "path", "selector", "text"), PAGES, ids=[p[0] for p in PAGES])
def test_page_on_a_phone(
    phone, live_server, log_in, club_with_a_game, screenshot, name, path, selector, text
):
    log_in("organiser")
    open_page(phone, live_server.url + path.format(today=today().isoformat()))
    key = phone.locator(selector)
    assert key.count() == 1 and key.is_visible()
    assert "マメの会" in phone.locator("header.site .brand").inner_text()
    if text:
        is_field = key.evaluate("e => e.tagName === 'TEXTAREA'")
        assert text in (key.input_value() if is_field else key.inner_text())
    assert fits_the_screen(phone), f"{path} is wider than the phone's screen"
    screenshot(f"page-{name}")


def test_login_page_on_a_phone(phone, live_server, screenshot):
    open_page(phone, f"{live_server.url}/accounts/login/")
    for selector in ("#id_username", "#id_password", "main form button[type=submit]"):
        assert phone.locator(selector).is_visible()
    assert fits_the_screen(phone)
    screenshot("page-login")
