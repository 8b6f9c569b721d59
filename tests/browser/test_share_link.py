"""The public share link on a phone: the organiser turns it on and copies it; a logged-out phone
opens it and sees the standings, with no link into the club, no edit or money link, and no yen
until the organiser allows money on it."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect

from league.club import services as club_services
from league.core.clock import today
from league.models import Club, Member, MemberDay, Membership, Result
from league.recording import services
from league.recording.services import GameInput, SeatInput
from tests.support.browser import PHONE, SCREENSHOTS, fits_the_screen
from tests.support.clubs import MEMBER_NAMES, make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = [
    ((0, 1, 2, 3), (45000, 30000, 20000, 4000)),
    ((0, 2, 4, 1), (38000, 29000, 22000, 10000)),
    ((1, 0, 3, 4), (70000, 15000, 10000, 4000)),
    ((4, 3, 2, 1), (36000, 31000, 24000, 8000)),
]
DEPOSITS = 1000


@pytest.fixture
def club() -> Club:
    club = make_club("mame", "mame-no-kai", "マメの会")
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES]
    organiser = make_user("organiser", club, Membership.ORGANISER)
    first = today() - datetime.timedelta(days=2)
    for number, (order, points) in enumerate(GAMES):
        services.game_record(
            club=club,
            user=organiser,
            data=GameInput(
                date=first + datetime.timedelta(days=number // 2),
                seats=[SeatInput(members[m], p) for m, p in zip(order, points, strict=True)],
                deposits=DEPOSITS,
                rate="0.3",
                table="A",
            ),
        )
    club_services.season_create(
        club=club,
        user=organiser,
        name="2026年 秋",
        start=first,
        end=today() + datetime.timedelta(days=30),
        min_games=1,
    )
    return club


def big_yen(club: Club) -> set[str]:
    """The club's yen amounts of four digits or more, as the pages write them (2,370)."""
    amounts = set(Result.objects.filter(game__club=club).values_list("yen", flat=True))
    amounts |= set(MemberDay.objects.filter(club=club).values_list("yen", flat=True))
    return {f"{abs(a):,}" for a in amounts if a is not None and abs(a) >= 1000}


def links_and_forms(page: Page) -> dict[str, list[str]]:
    return page.evaluate(
        """() => ({
            links: [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
            forms: [...document.querySelectorAll('form')].map(f => f.getAttribute('action')),
        })"""
    )


def shoot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def check_public(page: Page, token: str, club: Club, *, money: bool) -> None:
    """Nothing on the page leads into the club or changes anything; yen only with money."""
    found = links_and_forms(page)
    assert found["links"]
    for href in found["links"]:
        assert href.startswith((f"/s/{token}/", "?")), href
    assert found["forms"] == ["/i18n/setlang/"]  # the language switch only
    body = page.content()
    # No way to record a game (the members' menu item 記録); the club's records (歴代記録) are public.
    assert "/c/" not in body and "ログアウト" not in body and ">記録<" not in body
    shown = [amount for amount in big_yen(club) if amount in page.inner_text("main")]
    if money:
        assert shown
    else:
        assert shown == [] and "収支" not in body and "円" not in body
    assert fits_the_screen(page)


def test_the_organiser_shares_the_link_and_a_stranger_reads_it(
    club, log_in, phone: Page, browser: Browser, live_server: Any, screenshot
):
    phone.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    log_in("organiser")
    phone.goto(f"{live_server.url}/c/{club.slug}/")
    phone.click("[data-share-settings-link]")
    assert phone.locator("input[data-share-text]").count() == 0
    screenshot("share-link-1-off")
    with phone.expect_navigation():
        phone.click("button[value=enable]")
    link = phone.locator("input[data-share-text]").input_value()
    club.refresh_from_db()
    assert club.share_token and link == f"{live_server.url}/s/{club.share_token}/"
    phone.click("[data-copy]")
    expect(phone.locator("[data-copy-status]")).to_have_text("コピーしました。")
    assert phone.evaluate("navigator.clipboard.readText()") == link
    assert fits_the_screen(phone)
    screenshot("share-link-2-on")

    # Someone in the LINE group, not logged in, on their own phone.
    context = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, locale="ja-JP", device_scale_factor=2
    )
    visitor = context.new_page()
    errors: list[str] = []
    visitor.on("pageerror", lambda error: errors.append(str(error)))
    try:
        response = visitor.goto(link)
        assert response is not None and response.status == 200
        assert response.headers["referrer-policy"] == "same-origin"
        assert visitor.locator("table.standings tbody tr").count() == len(MEMBER_NAMES)
        for name, _kana in MEMBER_NAMES:
            assert name in visitor.locator("table.standings").inner_text()
        check_public(visitor, club.share_token, club, money=False)
        shoot(visitor, "share-link-3-public-standings")

        with visitor.expect_navigation():
            visitor.click("text=推移グラフ")
        expect(visitor.locator("svg").first).to_be_attached()
        check_public(visitor, club.share_token, club, money=False)
        shoot(visitor, "share-link-4-public-race")

        visitor.goto(link + "days/")
        with visitor.expect_navigation():
            visitor.locator(".day-links a").first.click()
        expect(visitor.locator("table.settled").first).to_be_visible()
        check_public(visitor, club.share_token, club, money=False)
        shoot(visitor, "share-link-5-public-day")
        day_url = visitor.url

        # The organiser allows money (after saying yes to the question): the visitor sees the
        # yen and the day's payments.
        asked: list[str] = []

        def answer(dialog) -> None:
            asked.append(dialog.message)
            dialog.accept()

        phone.on("dialog", answer)
        with phone.expect_navigation():
            phone.click("button[value=money_on]")
        assert "金額" in asked[-1]
        visitor.goto(day_url)
        check_public(visitor, club.share_token, club, money=True)
        assert "精算" in visitor.inner_text("main")
        shoot(visitor, "share-link-6-public-day-money")

        # The visitor reads it in English: the language switch's form passes the CSRF check.
        with visitor.expect_navigation():
            visitor.click("footer button[value=en]")
        assert visitor.url == day_url and visitor.locator("html").get_attribute("lang") == "en"

        # The organiser changes the link: asked first; saying no changes nothing.
        phone.remove_listener("dialog", answer)
        phone.once("dialog", lambda dialog: dialog.dismiss())
        token = Club.objects.get(pk=club.pk).share_token
        phone.click("button[value=rotate]")
        phone.wait_for_timeout(300)
        assert Club.objects.get(pk=club.pk).share_token == token
        phone.on("dialog", answer)
        with phone.expect_navigation():
            phone.click("button[value=rotate]")
        assert "使えなく" in asked[-1]
        screenshot("share-link-7-rotated")
        response = visitor.goto(link)
        assert response is not None and response.status == 404
        shoot(visitor, "share-link-8-old-link")
    finally:
        context.close()
    assert errors == []
