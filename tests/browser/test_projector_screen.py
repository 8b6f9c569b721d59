"""Issue 42 part 4, the room: the projector page at 1920×1080 for a cup of 32 (8 tables) in its
second round, with the organiser's countdown running and the day's standings allowed. Everything
fits one screen without scrolling, the names are at least 48px and the countdown at least 120px
(read from the back of the room), and the countdown counts down in the page.
Screenshot: test-artifacts/screenshots/projector.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser

from league.core import clock
from league.draw import selectors as sel
from league.draw import services as draw
from league.models import Member, Membership
from tests.support.browser import SCREENSHOTS, log_in_on
from tests.support.clubs import make_club, make_user
from tests.support.draw import check_in_all, record_drawn

pytestmark = pytest.mark.django_db(transaction=True)

FAMILY = ["佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本", "中村"]
GIVEN = ["一郎", "花子", "健太", "由美"]


@pytest.fixture
def room() -> str:
    today = clock.today()
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    players = [
        Member.objects.create(club=club, name=f"{f} {g}", kana=f"{i:02d}")
        for i, (f, g) in enumerate((f, g) for f in FAMILY for g in GIVEN)
    ]
    day = check_in_all(club, organiser, players, today)
    draw.schedule_draw(club=club, user=organiser, date=today, rounds=3)
    for tv in sel.current_rounds(day)[0].tables:
        record_drawn(club, organiser, today, tv)
    draw.room_timer(club=club, user=organiser, day=day, minutes=45)
    draw.room_standings(club=club, user=organiser, day=day, shown=True)
    return f"/c/{club.slug}/days/{today:%Y-%m-%d}/draw/projector/"


def test_the_projector_reads_from_the_back_of_the_room(
    browser: Browser, live_server, room: str
) -> None:
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="ja-JP")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    log_in_on(page, live_server.url, "organiser")
    response = page.goto(f"{live_server.url}{room}")
    assert response is not None and response.status == 200
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "projector.png"), full_page=True)

    assert page.locator("#round").inner_text() == "2回戦"
    assert page.locator("#tables .table").count() == 8
    assert page.locator("#standings li").count() == 10  # the top 10 of 32
    # Nothing below the fold: the whole room on one screen.
    assert page.evaluate("document.documentElement.scrollHeight") <= 1080
    assert page.evaluate("document.documentElement.scrollWidth") <= 1920

    def px(selector: str) -> float:
        return page.eval_on_selector(selector, "e => parseFloat(getComputedStyle(e).fontSize)")

    assert px("#tables .table li span") >= 48
    assert px("#standings li span") >= 40
    assert px("#countdown") >= 120
    # Every name shown whole (no ellipsis) at its table.
    clipped = page.eval_on_selector_all(
        "#tables .table li, #standings li span",
        "es => es.filter(e => e.scrollWidth > e.clientWidth).length",
    )
    assert clipped == 0

    first = page.locator("#countdown").inner_text()
    assert re.fullmatch(r"4[45]:[0-5]\d", first), first  # 45 minutes, started during the setup
    page.wait_for_timeout(2100)
    assert page.locator("#countdown").inner_text() != first  # it counts down in the page
    context.close()
    assert errors == []
