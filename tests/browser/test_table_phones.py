"""Scorers on phones (issue 41, item 1): a plain member seated at the table scores it in table
mode; another member, not at the table, watches the same table read-only on their own phone and
sees the scorer's hand arrive by itself (the watcher's page reads the table every 2 s)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from league.core.clock import today
from league.models import Hand, Member, Membership
from league.table import services
from tests.support.browser import PHONE, log_in_on
from tests.support.clubs import MEMBER_NAMES, make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_seated_member_scores_while_another_watches_live(
    phone, live_server, log_in, browser: Browser, screenshot
):
    club = make_club("mame", "mame-no-kai", "マメの会")
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES]
    organiser = make_user("organiser", club, Membership.ORGANISER)
    seated = make_user("seated", club, Membership.MEMBER)
    watcher = make_user("watcher", club, Membership.MEMBER)
    Member.objects.filter(pk=members[0].pk).update(user=seated)
    Member.objects.filter(pk=members[4].pk).update(user=watcher)
    tg = services.table_start(
        club=club, user=organiser, key=uuid.uuid4(), date=today(), members=members[:4], rate="0.3"
    )
    url = f"{live_server.url}/c/mame/table/{tg.key}/"

    log_in("seated")
    phone.goto(url)
    phone.wait_for_selector("[data-sync].ok")
    expect(phone.locator("[data-result='draw']")).to_be_visible()

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="ja-JP")
    errors: list[str] = []
    try:
        other = context.new_page()
        other.on("pageerror", lambda e: errors.append(str(e)))
        log_in_on(other, live_server.url, "watcher")
        other.goto(url)
        expect(other.locator("[data-watching]")).to_be_visible()
        expect(other.locator("[data-result='draw']")).to_be_hidden()
        expect(other.locator("[data-undo]")).to_be_hidden()
        expect(other.locator("[data-seat='0'] [data-points]")).to_have_text("25,000")

        # The seated member records a draw with 青木 tenpai on their phone.
        phone.locator("[data-result='draw']").click()
        phone.locator("[data-panel] .part.tenpai button", has_text=members[0].name).click()
        phone.locator("[data-record]").click()
        phone.wait_for_selector("[data-sync].ok")
        expect(phone.locator("[data-seat='0'] [data-points]")).to_have_text("28,000")
        assert Hand.objects.get(table_game=tg).recorded_by == seated

        # The watcher's phone follows by itself (it reads the table every 2 s).
        expect(other.locator("[data-seat='0'] [data-points]")).to_have_text("28,000", timeout=3_000)
        expect(other.locator("[data-seat='1'] [data-points]")).to_have_text("24,000")
        other.screenshot(path=str(screenshot("table-scorer").parent / "table-watcher.png"))
    finally:
        context.close()
    assert errors == []


def test_a_conflict_names_the_hand_shows_both_and_the_player_chooses(
    phone, live_server, log_in, browser: Browser, screenshot
):
    """Two phones at one table, the second offline: both record 東1 differently. When the
    second comes back it names the hand (東1局), shows the table's and its own, and its player
    enters theirs again; the first phone follows by itself."""
    club = make_club("mame", "mame-no-kai", "マメの会")
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES]
    organiser = make_user("organiser", club, Membership.ORGANISER)
    seated = make_user("seated", club, Membership.MEMBER)
    Member.objects.filter(pk=members[0].pk).update(user=seated)
    tg = services.table_start(
        club=club, user=organiser, key=uuid.uuid4(), date=today(), members=members[:4], rate="0.3"
    )
    url = f"{live_server.url}/c/mame/table/{tg.key}/"
    log_in("organiser")
    phone.goto(url)
    phone.wait_for_selector("[data-sync].ok")

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="ja-JP")
    errors: list[str] = []
    try:
        other = context.new_page()
        other.on("pageerror", lambda e: errors.append(str(e)))
        other.on("dialog", lambda d: d.accept())
        log_in_on(other, live_server.url, "seated")
        other.goto(url)
        other.wait_for_selector("[data-sync].ok")

        # The second phone loses the signal and records 流局 with 青木 tenpai.
        context.set_offline(True)
        other.locator("[data-result='draw']").click()
        other.locator("[data-panel] .part.tenpai button", has_text=members[0].name).click()
        other.locator("[data-record]").click()
        expect(other.locator("[data-sync].waiting")).to_be_visible()

        # Meanwhile the first phone records 流局 with nobody tenpai.
        phone.locator("[data-result='draw']").click()
        phone.locator("[data-record]").click()
        phone.wait_for_selector("[data-sync].ok")
        expect(phone.locator("[data-seat='0'] [data-points]")).to_have_text("25,000")

        context.set_offline(False)
        other.evaluate("window.dispatchEvent(new Event('online'))")
        box = other.locator("[data-conflict]")
        expect(box).to_be_visible()
        expect(other.locator("[data-conflict-text]")).to_contain_text("東1局")
        expect(other.locator("[data-conflict-theirs]")).to_have_text("流局")
        expect(other.locator("[data-conflict-mine]")).to_have_text(f"流局（{members[0].name}）")
        expect(other.locator("[data-seat='0'] [data-points]")).to_have_text("25,000")
        other.screenshot(path=str(screenshot("table-conflict-first").parent / "table-conflict.png"))

        other.locator("[data-enter-mine]").click()
        other.wait_for_selector("[data-sync].ok")
        expect(box).to_be_hidden()
        expect(other.locator("[data-seat='0'] [data-points]")).to_have_text("28,000")
        # The first phone follows by itself.
        expect(phone.locator("[data-seat='0'] [data-points]")).to_have_text("28,000", timeout=3_000)
    finally:
        context.close()
    assert errors == []
    live = Hand.objects.get(table_game=tg, live=True)
    assert live.index == 0 and live.recorded_by == seated
    assert Hand.objects.filter(table_game=tg, live=False, recorded_by=organiser).count() == 1
