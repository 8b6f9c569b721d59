"""An invitation on a phone: the organiser makes a link with its QR code; a player who already
uses 雀帳 opens it in another browser, logs in through it, picks their name and is in the club."""

from __future__ import annotations

import re
from typing import Any

import pytest

from league.models import Member, Membership
from tests.support.browser import PHONE, SCREENSHOTS, fits_the_screen
from tests.support.clubs import PASSWORD, make_club, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_invitation_link_and_its_qr_code_let_a_player_join(
    phone, browser, live_server: Any, log_in, screenshot
):
    club = make_club("mame", "mame-no-kai", "マメの会")
    make_user("organiser", club, Membership.ORGANISER)
    for name, kana in [("青木 健太", "あおき"), ("馬場 美穂", "ばば"), ("千葉 亮", "ちば")]:
        Member.objects.create(club=club, name=name, kana=kana)
    player = make_user("baba_m")

    log_in("organiser")
    phone.goto(f"{live_server.url}/c/mame/members/")
    phone.click("text=招待する")
    phone.fill("#id_note", "LINEグループ")
    with phone.expect_navigation():
        phone.click("text=リンクを作る")
    link = phone.input_value("#invitation-link")
    assert re.fullmatch(r"http://[^/]+/join/inv_[\w-]+/", link), link
    qr = phone.locator(".qr svg")
    box = qr.bounding_box()
    assert box is not None and 150 <= box["width"] <= PHONE["width"]  # big enough to scan
    assert fits_the_screen(phone)
    screenshot("invitation-made")

    context = browser.new_context(viewport=PHONE, is_mobile=True, locale="ja-JP")
    try:
        other = context.new_page()
        other.goto(link)
        assert "マメの会に参加" in other.inner_text("h1")
        with other.expect_navigation():
            other.click("text=ログインして参加")
        other.fill("#id_username", "baba_m")
        other.fill("#id_password", PASSWORD)
        with other.expect_navigation():
            other.click("main form[method=post] button[type=submit]")
        assert other.url == link  # back at the invitation
        other.check("label.choice:has-text('馬場 美穂') input")
        other.screenshot(path=str(SCREENSHOTS / "invitation-join.png"), full_page=True)
        with other.expect_navigation():
            other.click("button:has-text('参加する')")
        assert other.url.endswith("/c/mame/")
        assert "マメの会へようこそ、馬場 美穂さん" in other.inner_text("main")
    finally:
        context.close()
    assert Member.objects.get(name="馬場 美穂").user == player
    assert Membership.objects.get(club=club, user=player).role == Membership.MEMBER

    phone.goto(f"{live_server.url}/c/mame/invitations/")
    assert "1 / 1" in phone.inner_text("table") and "使用済み" in phone.inner_text("table")
    screenshot("invitation-used")
