"""A club starts and runs by itself, on phones, from an empty database: the organiser signs up and
creates マメの会 with its preset, adds the players, invites one by link; that player signs up
through the link in a second browser and picks their name; the organiser records a game with
them; the player's My page shows the game and the money."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from league.core.clock import today
from league.models import Club, Game, Member, Membership
from tests.support.browser import PHONE, SCREENSHOTS, fits_the_screen

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "tsumo-pinfu-2026"
PLAYERS = ["青木 健太", "馬場 美穂", "千葉 亮"]


def sign_up(page, username: str) -> None:
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    with page.expect_navigation():
        page.click("main form button[type=submit]")


def test_sign_up_start_invite_record_and_the_member_sees_it(
    phone, browser, live_server: Any, screenshot
):
    assert not Club.objects.exists() and not Member.objects.exists()
    page = phone

    # The organiser: sign up, the club with マメの会's rules (playing as 山田), its first season.
    page.goto(f"{live_server.url}/accounts/signup/")
    sign_up(page, "yamada")
    assert page.url.endswith("/clubs/new/")
    page.fill("#id_name", "マメの会")
    page.locator("#id_slug").fill("mame")
    expect(page.locator("[data-slug-status]")).to_contain_text("/c/mame/")
    page.check("input[value='preset:mame-no-kai']")
    page.fill("#id_player_name", "山田 博")
    with page.expect_navigation():
        page.click("main form > p button[type=submit]")
    with page.expect_navigation():
        page.click("main form button[type=submit]")  # the first season as suggested
    assert page.url.endswith("/c/mame/")

    # The players, on the members page: a row each, added at once.
    page.goto(f"{live_server.url}/c/mame/members/new/")
    for i, name in enumerate(PLAYERS):
        page.fill(f"#id_name_{i}", name)
    with page.expect_navigation():
        page.click("main form button.primary[type=submit]")
    assert Member.objects.filter(name__in=PLAYERS).count() == len(PLAYERS)

    # An invitation link for the club's LINE group.
    page.goto(f"{live_server.url}/c/mame/members/")
    with page.expect_navigation():
        page.click("main a:has-text('招待する')")
    with page.expect_navigation():
        page.click("text=リンクを作る")
    link = page.input_value("#invitation-link")
    assert re.fullmatch(rf"{re.escape(live_server.url)}/join/inv_[\w-]+/", link), link
    screenshot("club-start-1-invitation")

    # 青木, on his own phone: opens the link, signs up through it, picks his name.
    context = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, locale="ja-JP", device_scale_factor=2
    )
    try:
        aoki = context.new_page()
        aoki.goto(link)
        with aoki.expect_navigation():
            aoki.click("text=新規登録して参加")
        assert "/accounts/signup/" in aoki.url
        sign_up(aoki, "aoki")
        assert aoki.url == link  # back at the invitation, logged in
        aoki.check("label.choice:has-text('青木 健太') input")
        with aoki.expect_navigation():
            aoki.click("button:has-text('参加する')")
        assert aoki.url.endswith("/c/mame/")
        expect(aoki.locator(".messages")).to_contain_text("青木 健太さん")

        # The organiser records a game with him.
        page.goto(f"{live_server.url}/c/mame/games/new/")
        page.wait_for_selector("form[data-record]")
        for i, name in enumerate(["山田 博", "青木 健太", "馬場 美穂", "千葉 亮"]):
            page.locator(f"#id_member_{i}").press_sequentially(name)
        for i, points in enumerate(["19,000", "５２０００", "31000", "▲3000"]):
            page.fill(f"#id_points_{i}", points)
        page.fill("#id_deposits", "1000")
        page.select_option("#id_rate", "0.3")
        with page.expect_navigation():
            page.click("form[data-record] .actions button[name=action][value=preview]")
        with page.expect_navigation():
            page.click("[data-preview] button[name=action][value=save]")
        game = Game.objects.get()
        aoki_row = game.results.get(counted=True, member__name="青木 健太")
        assert aoki_row.rank == 1 and aoki_row.yen > 0

        # 青木's My page: the game, and what he receives today.
        aoki.goto(f"{live_server.url}/c/mame/")
        with aoki.expect_navigation():
            aoki.click("header.site nav a.mine")
        assert aoki.url.endswith("/c/mame/me/")
        games = aoki.locator("#games tbody tr")
        expect(games).to_have_count(1)
        assert "第1半荘" in games.first.inner_text()
        assert f"{today():%Y/%m/%d}" in games.first.inner_text()
        lines = aoki.locator("#settlement .settle-lines li")
        received = [int(li.get_attribute("data-yen")) for li in lines.all()]
        assert all(li.get_attribute("data-pays") == "0" for li in lines.all())
        assert sum(received) == aoki_row.yen  # his whole win, from whoever pays him
        assert "受け取り" in lines.first.inner_text()
        assert fits_the_screen(aoki)
        aoki.evaluate("window.scrollTo(0, 0)")
        aoki.screenshot(path=str(SCREENSHOTS / "club-start-2-my-page.png"), full_page=True)
    finally:
        context.close()

    member = Member.objects.get(name="青木 健太")
    assert member.user.username == "aoki"
    club = Club.objects.get(slug="mame")
    assert Membership.objects.get(club=club, user=member.user).role == Membership.MEMBER
    assert Membership.objects.get(club=club, user__username="yamada").role == "organiser"
