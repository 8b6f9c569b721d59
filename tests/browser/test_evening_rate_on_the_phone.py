"""Issue 37, item 4, on a 390×844 phone: table A plays at 0.3; the second table's form starts at
0.3, not at the rules' first rate (0.2); 0.2 chosen there asks first (the preview names the
evening's rate, saving without the box is refused, with it the game is saved at 0.2). Then the
day's LINE text names what went to the club (the sticks left on table A), and table mode asks
the same when a third table starts at a rate new to the evening.
Screenshots: test-artifacts/screenshots/evening-rate-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from league.core.clock import today
from league.models import Game, Member, Membership, TableGame
from league.recording import services
from league.recording.services import GameInput, SeatInput
from tests.support.browser import fits_the_screen
from tests.support.clubs import MEMBER_NAMES, make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.rate_rule]


@pytest.fixture
def club():
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES]
    seats = [SeatInput(m, p) for m, p in zip(members[:4], (45000, 30000, 20000, 4000), strict=True)]
    data = GameInput(date=today(), seats=seats, table="A", deposits=1000, rate="0.3")
    services.game_record(club=club, user=organiser, data=data)  # table A's first game
    return club


def preview(page: Page) -> None:
    with page.expect_navigation():
        page.click("form[data-record] .actions button[name=action][value=preview]")
    page.wait_for_selector("[data-preview]")


def save(page: Page) -> None:
    with page.expect_navigation():
        page.click("[data-preview] button[name=action][value=save]")


def test_the_second_table_starts_at_the_evenings_rate_and_another_asks(
    phone, live_server, log_in, club, screenshot
):
    page = phone
    date = today().isoformat()
    log_in("organiser")

    page.goto(f"{live_server.url}/c/mame/games/new/?date={date}&table=B")
    assert page.input_value("#id_table") == "B"
    assert page.input_value("#id_rate") == "0.3"  # table A's, not the rules' first (0.2)
    assert fits_the_screen(page)
    screenshot("evening-rate-second-table")

    for i, name in enumerate(["馬場", "千葉", "土井", "江藤"]):
        page.fill(f"#id_member_{i}", name)
    for i, points in enumerate(["38000", "32000", "18000", "12000"]):
        page.fill(f"#id_points_{i}", points)
    page.select_option("#id_rate", "0.2")
    preview(page)
    warning = page.locator("[data-preview] [data-rate-warning]")
    assert warning.is_visible()
    assert "この日のほかの半荘はレート0.3、この半荘はレート0.2です。" in warning.inner_text()
    assert page.locator("#id_confirm_rate").is_visible()
    assert fits_the_screen(page)
    warning.scroll_into_view_if_needed()
    screenshot("evening-rate-asks")

    save(page)  # without the box: refused, asked again
    assert Game.objects.count() == 1
    assert "このレートで保存するには" in page.locator("[data-rate-warning]").inner_text()
    screenshot("evening-rate-refused")

    page.check("#id_confirm_rate")
    save(page)
    assert page.url.endswith(f"/days/{date}/")
    assert sorted(Game.objects.values_list("table", "rate")) == [("A", "0.3"), ("B", "0.2")]

    # The day's LINE text names what went to the club: table A's 1,000 points left on the table.
    page.goto(f"{live_server.url}/c/mame/days/{date}/share/")
    text = page.input_value("main textarea[data-share-text]")
    assert "\nクラブへ（マメの会） 30円（クラブに残った供託・リーチ棒 30円）\n■精算\n" in text, text
    assert fits_the_screen(page)
    screenshot("evening-rate-line-text")

    # Table mode asks where its rate is chosen: table C starts at the evening's rate (the day's
    # last game's, B's 0.2); 0.5 asks before the table starts.
    page.goto(f"{live_server.url}/c/mame/table/new/?date={date}&table=C")
    assert page.input_value("#id_rate") == "0.2"
    for i, name in enumerate(["青木", "馬場", "千葉", "土井"]):
        pk = Member.objects.get(name=name).pk
        page.select_option(f"#id_member_{i}", str(pk))
    page.select_option("#id_rate", "0.5")
    with page.expect_navigation():
        page.click("[data-start]")
    question = page.locator("[data-rate-warning]")
    assert "この日のほかの半荘はレート0.2、0.3、この半荘はレート0.5です。" in question.inner_text()
    assert not TableGame.objects.exists() and fits_the_screen(page)
    screenshot("evening-rate-table-mode-asks")
    page.check("#id_confirm_rate")
    with page.expect_navigation():
        page.click("[data-start]")
    assert TableGame.objects.get().rate == "0.5"
