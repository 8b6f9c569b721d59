"""Issue 21's browser test on a 390×844 phone: one game recorded twice is stopped with the earlier
game named; マメの会 (a club that pays on the day) closes its day in one tap with no surcharge; every
member's My page agrees with the day's ledger."""

from __future__ import annotations

from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import pytest

from league import money
from league.core.clock import today
from league.models import Day, Game, LedgerEntry, Member, Membership
from tests.support.browser import fits_the_screen
from tests.support.clubs import MEMBER_NAMES, make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = ["青木", "馬場", "千葉", "土井"]
POINTS = ["52000", "31,000", "19000", "▲3000"]


@pytest.fixture
def club_setup():
    club = make_club("mame", "mame-no-kai", "マメの会")
    members = {}
    for name, kana in MEMBER_NAMES:
        members[name] = Member.objects.create(club=club, name=name, kana=kana)
    make_user("organiser", club, Membership.ORGANISER)
    for i, name in enumerate(NAMES):  # each player has a login linked to their record
        member = members[name]
        member.user = make_user(f"player{i}", club)
        member.save(update_fields=["user"])
    return club, members


def fill_game(page: Page, table: str, order: tuple[int, ...] = (0, 1, 2, 3)) -> None:
    page.fill("#id_table", table)
    seats = [(NAMES[k], POINTS[k]) for k in order]
    for i, (name, points) in enumerate(seats):
        page.locator(f"#id_member_{i}").fill(name)
        page.fill(f"#id_points_{i}", points)
    page.fill("#id_deposits", "1000")
    page.select_option("#id_rate", "0.3")


def preview(page: Page) -> None:
    with page.expect_navigation():
        page.click("form[data-record] .actions button[name=action][value=preview]")
    page.wait_for_selector("[data-preview]")


def save(page: Page) -> None:
    with page.expect_navigation():
        page.click("[data-preview] button[name=action][value=save]")


def test_duplicate_close_and_my_pages(phone, live_server, log_in, club_setup, screenshot):
    club, members = club_setup
    page = phone
    log_in("organiser")
    new_game = f"{live_server.url}/c/mame/games/new/"

    # The game, recorded once.
    page.goto(new_game)
    fill_game(page, "B")
    preview(page)
    assert page.locator("[data-duplicate]").count() == 0
    save(page)
    first = Game.objects.get()

    # The same game again (another seat order, another table): stopped, the earlier game named.
    page.goto(new_game)
    fill_game(page, "A", order=(2, 0, 3, 1))
    preview(page)
    warning = page.locator("[data-duplicate]")
    assert warning.count() == 1
    saved_at = first.recorded_at.astimezone(ZoneInfo("Asia/Tokyo"))
    assert f"第1半荘（B卓、{saved_at:%H:%M} 保存）と同じ内容です。" in warning.inner_text()
    assert fits_the_screen(page)
    screenshot("books-duplicate-preview")
    save(page)  # without ticking the box
    assert Game.objects.count() == 1
    assert page.locator("[data-duplicate] .errorlist").count() == 1
    screenshot("books-duplicate-refused")

    # The day's ledger: マメの会 pays on the day, so closing marks every transfer paid, one tap.
    date = today()
    page.goto(f"{live_server.url}/c/mame/days/{date.isoformat()}/ledger/")
    open_transfers = page.locator("li[data-transfer]").count()
    assert open_transfers >= 2
    with page.expect_navigation():
        page.click("[data-close-day]")
    assert fits_the_screen(page)
    screenshot("books-close")
    with page.expect_navigation():
        page.click("[data-confirm-close]")  # the one tap: nothing to choose
    day = Day.objects.get(club=club, date=date)
    assert day.closed_at is not None
    entries = LedgerEntry.objects.filter(day=day)
    assert entries.count() == open_transfers
    assert set(entries.values_list("kind", flat=True)) == {LedgerEntry.PAYMENT}
    assert not entries.filter(surcharge__gt=0).exists()
    heading = page.locator("#to-settle").inner_text()
    assert "締め済み" in heading and "未精算" not in heading
    assert fits_the_screen(page)
    screenshot("books-closed")

    # Every player's My page says what the ledger says.
    ledger = money.day_ledger(day=day)
    totals = {int(p.name): p.yen for p in ledger.players}
    for i, name in enumerate(NAMES):
        page.context.clear_cookies()
        log_in(f"player{i}")
        page.goto(f"{live_server.url}/c/mame/me/")
        box = page.locator("#settlement")
        assert box.count() == 1, name
        shown = int(box.locator("[data-day-total]").get_attribute("data-day-total"))
        assert shown == totals[members[name].pk], name
        assert box.locator("[data-closed]").count() == 1, name
        assert "支払い・受け取りはありません" in box.inner_text(), name
        assert box.locator(".settle-lines li").count() == 0, name
        assert fits_the_screen(page), name
        if i in (0, 3):  # the winner and the loser
            screenshot(f"books-my-page-{i}")
