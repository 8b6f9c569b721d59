"""A new club on a 390×844 phone, from sign-up to the close of its first evening with two tables
(issue 22's "Done when"): the organiser signs up, starts the club and its first season (dates
through the calendar button), adds eight members at once without readings (each gets one from
the name), opens today's draw from the club home in one tap, checks everyone in by reading and
draws two rounds of two tables. Games come from the cards, from the header's 記録 (straight to the
one table left, or asking which table) and from the plain record form with names typed by reading;
each lands on its card, no card is left offering 記録 and no game is recorded twice. Then the
ledger is settled without losing its scroll position, and the day is closed.
Screenshots: test-artifacts/screenshots/first-evening-*.png."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from league.core.clock import today
from league.models import Club, DrawTable, Game, Member
from tests.support.browser import SCREENSHOTS, fits_the_screen

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "tsumo-pinfu-2026"
# Typed without readings; pykakasi's reading (league/core/readings.py) is what people then type.
PEOPLE = {
    "長谷川 由美子": "はせがわゆみこ",
    "佐々木 美穂": "ささきみほ",
    "高橋 真由美": "たかはしまゆみ",
    "松本 和也": "まつもとかずや",
    "阿部 誠": "あべまこと",
    "小林 誠": "こばやしまこと",
    "林 直子": "はやしなおこ",
    "中村 大輔": "なかむらだいすけ",
}
READING = PEOPLE
POINTS = [["41000", "29000", "18000", "12000"], ["35000", "31000", "22000", "12000"]]


def fits(page: Page, name: str, screenshot) -> None:
    assert fits_the_screen(page), name
    wide = page.evaluate(
        "[...document.querySelectorAll('main table')]"
        ".filter(t => t.getBoundingClientRect().right > screen.width + 1).length"
    )
    assert wide == 0 or "/standings" in page.url, f"{name}: a table wider than the screen"
    screenshot(f"first-evening-{name}")


def save_game(page: Page, points: list[str]) -> None:
    for i, p in enumerate(points):
        page.fill(f"#id_points_{i}", p)
    with page.expect_navigation():
        page.click("form[data-record] .actions button[name=action][value=preview]")
    page.wait_for_selector("[data-preview]")
    with page.expect_navigation():
        page.click("[data-preview] button[name=action][value=save]")


def card_names(card) -> list[str]:
    return card.locator("[data-player]").all_inner_texts()


def test_a_new_club_runs_its_first_evening_with_two_tables(phone, live_server, screenshot):
    page = phone
    base = live_server.url

    # Sign up from the login page the bare address leads to; land in club creation.
    page.goto(f"{base}/")
    with page.expect_navigation():
        page.click("text=新規登録してクラブを始める")
    page.fill("#id_username", "幹事の山田")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.url.endswith("/clubs/new/")
    page.fill("#id_name", "木曜マメの会")
    page.locator("#id_slug").fill("thursday")
    expect(page.locator("[data-slug-status]")).to_contain_text("/c/thursday/")
    page.check("input[value='preset:mame-no-kai']")
    fits(page, "1-club", screenshot)
    with page.expect_navigation():
        page.click("main form > p button[type=submit]")

    # The first season, its first day chosen on the calendar (written back as 2026/01/05).
    year = today().year
    pickers = page.locator(".date-field [data-date-picker]")
    expect(pickers).to_have_count(2)
    page.locator(".date-field .date-picker").first.fill(f"{year}-01-05")
    expect(page.locator("#id_start")).to_have_value(f"{year}/01/05")
    fits(page, "2-season", screenshot)
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.url.endswith("/c/thursday/")

    # Eight members at once, no readings typed; more rows keep what was typed.
    page.goto(f"{base}/c/thursday/members/")
    with page.expect_navigation():
        page.click("text=メンバーを追加")
    names = list(PEOPLE)
    for i, name in enumerate(names[:5]):
        page.fill(f"#id_name_{i}", name)
    with page.expect_navigation():
        page.click("[data-more-rows]")
    expect(page.locator("#id_name_4")).to_have_value(names[4])
    for i, name in enumerate(names[5:], start=5):
        page.fill(f"#id_name_{i}", name)
    page.check("#id_guest_7")
    fits(page, "3-add-members", screenshot)
    with page.expect_navigation():
        page.click("form.member-rows button.primary[type=submit]")
    club = Club.objects.get(slug="thursday")
    stored = dict(Member.objects.filter(club=club).values_list("name", "kana"))
    assert {n: k.replace(" ", "") for n, k in stored.items()} == READING
    expect(page.locator("[data-invite-member]")).to_have_count(8)  # 招待する beside each
    fits(page, "4-members", screenshot)

    # Today's draw in one tap from the club home; everyone checked in by reading.
    page.goto(f"{base}/c/thursday/")
    with page.expect_navigation():
        page.click("[data-draw-today]")
    draw_url = page.url
    assert draw_url.endswith(f"/days/{today().isoformat()}/draw/")
    for name in names:
        page.locator("#id_name").fill(READING[name])
        with page.expect_navigation():
            page.click(".check-in button[type=submit]")
    expect(page.locator("[data-present]")).to_have_count(8)
    with page.expect_navigation():
        page.click("[data-draw]")
    expect(page.locator('[data-round="1"] .draw-card')).to_have_count(2)
    fits(page, "5-round-1", screenshot)

    # Round 1, table A from its card.
    card_a = page.locator('[data-round="1"] .draw-card[data-table="A"]')
    seated_a = card_names(card_a)
    with page.expect_navigation():
        card_a.locator("[data-record-table]").click()
    assert [page.input_value(f"#id_member_{i}") for i in range(4)] == seated_a
    fits(page, "6-record-from-card", screenshot)
    save_game(page, POINTS[0])
    assert page.url == draw_url

    # Round 1, table B from the header's 記録: the one table left opens at once.
    seated_b = card_names(page.locator('[data-round="1"] .draw-card[data-table="B"]'))
    with page.expect_navigation():
        page.click("header a.record")
    assert page.input_value("#id_table") == "B"
    assert [page.input_value(f"#id_member_{i}") for i in range(4)] == seated_b
    save_game(page, POINTS[1])
    expect(page.locator('[data-round="1"] [data-recorded]')).to_have_count(2)

    # Round 2: drawn; the header's 記録 now asks which table.
    with page.expect_navigation():
        page.click("[data-draw]")
    expect(page.locator('[data-round="2"] .draw-card')).to_have_count(2)
    round_2 = {
        label: card_names(page.locator(f'[data-round="2"] .draw-card[data-table="{label}"]'))
        for label in ("A", "B")
    }
    with page.expect_navigation():
        page.click("header a.record")
    expect(page.locator(".draw-card[data-table]")).to_have_count(2)
    fits(page, "7-which-table", screenshot)
    with page.expect_navigation():
        page.click('.draw-card[data-table="A"] [data-record-table]')
    assert page.input_value("#id_table") == "A"
    save_game(page, POINTS[0])

    # Round 2, table B from the plain record form, the four typed by reading, no table given:
    # the game is the card's all the same.
    page.goto(f"{base}/c/thursday/games/new/")
    page.fill("#id_table", "")
    for i, name in enumerate(round_2["B"]):
        page.fill(f"#id_member_{i}", READING[name])
    save_game(page, POINTS[1])
    page.goto(draw_url)
    expect(page.locator("[data-record-table]")).to_have_count(0)  # no card offers 記録
    expect(page.locator('[data-round="2"] [data-recorded]')).to_have_count(2)
    fits(page, "8-draw-done", screenshot)

    games = Game.objects.filter(club=club, date=today(), voided=False)
    assert games.count() == 4  # nothing recorded twice
    tables = DrawTable.objects.filter(round__day__club=club)
    assert tables.count() == 4 and tables.filter(game__isnull=True).count() == 0
    assert len(set(tables.values_list("game_id", flat=True))) == 4
    # The game typed in the plain form is round 2's table B, as its card says.
    second = tables.filter(round__number=2).order_by("position")
    assert [t.game.table for t in second] == ["A", "B"]

    # The day page, then the ledger: paying one far down the list keeps the page where it was.
    page.goto(f"{base}/c/thursday/days/{today().isoformat()}/")
    fits(page, "9-day", screenshot)
    page.goto(f"{base}/c/thursday/days/{today().isoformat()}/ledger/")
    fits(page, "10-ledger", screenshot)
    last = page.locator("li[data-transfer]").last
    last.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 120)")
    before = page.evaluate("window.scrollY")
    assert before > 200, "the ledger is long enough to scroll"
    with page.expect_navigation():
        last.locator("[data-settle=pay]").click()
    page.wait_for_function("window.scrollY > 0")
    after = page.evaluate("window.scrollY")
    assert abs(after - before) < 150, (before, after)
    expect(page.locator("[data-undo-bar]")).to_be_in_viewport()  # the undo is at hand
    # Scrolled to the end, the bar leaves the footer's links free to tap (it covered them).
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    bar = page.locator("[data-undo-bar]").bounding_box()
    footer = page.locator("footer.site").bounding_box()
    assert footer["y"] + footer["height"] <= bar["y"], (footer, bar)
    # As the phone shows it: where the list was, the undo bar at the foot of the screen.
    page.screenshot(path=str(SCREENSHOTS / "first-evening-11-paid-one.png"))

    with page.expect_navigation():
        page.click("[data-close-day]")
    with page.expect_navigation():
        page.click("[data-confirm-close]")
    expect(page.locator("[data-closed]")).to_have_count(1)
    expect(page.locator("li[data-transfer]")).to_have_count(0)
    fits(page, "12-closed", screenshot)
    assert re.search(r"/c/thursday/days/\d{4}-\d{2}-\d{2}/ledger/", page.url)
