"""Recording an online game on a 390×844 phone: paste a real Tenhou log, map the four online names
to members, record; then the same log is found already recorded. Each page fits the screen. Screenshots:
test-artifacts/screenshots/online-paste.png, online-map.png, online-recorded.png,
online-duplicate.png."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from league.models import Game, Member, Membership, OnlineLog, Result
from tests.support.browser import fits_the_screen
from tests.support.clubs import make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)

LOG = (
    Path(__file__).resolve().parents[1] / "data" / "online" / "2019021004gm-00a9-0000-e2f6516d.json"
).read_text(encoding="utf-8")
NAMES = ["長谷川 由美子", "佐々木 美穂", "高橋 真由美", "松本 和也"]


@pytest.fixture
def online_page(live_server) -> str:
    club = make_club("tenhou-club", "tenhou", "天鳳部")
    make_user("organiser", club, Membership.ORGANISER)
    for name in NAMES:
        Member.objects.create(club=club, name=name)
    return f"{live_server.url}/c/{club.slug}/online/"


def test_an_online_game_is_recorded_on_the_phone(phone: Page, log_in, screenshot, online_page):
    log_in("organiser")
    assert phone.goto(online_page).status == 200
    assert phone.locator("html").get_attribute("lang") == "ja"
    assert fits_the_screen(phone)
    phone.fill("textarea[name=text]", LOG)
    screenshot("online-paste")
    with phone.expect_navigation():
        phone.click("button.primary")
    assert phone.locator("[data-online-map]").is_visible()
    assert "10局はすべて計算どおりです" in phone.content()
    assert fits_the_screen(phone)
    for i, name in enumerate(NAMES):
        phone.select_option(f"select[name=member_{i}]", label=name)
    phone.fill("input[name=date]", "2026-11-20")
    screenshot("online-map")
    with phone.expect_navigation():
        phone.click("button.primary")
    game = Game.objects.get()
    assert phone.url.endswith(f"/games/{game.pk}/")
    assert fits_the_screen(phone)
    screenshot("online-recorded")
    assert [r.score for r in Result.objects.filter(game=game).order_by("seat")] == [
        -460,
        -330,
        210,
        580,
    ]
    # The same log again: the names come back chosen, and the log is refused.
    phone.goto(online_page)
    assert phone.locator(".online-logs li").count() == 1
    phone.fill("textarea[name=text]", LOG)
    with phone.expect_navigation():
        phone.click("button.primary")
    assert phone.locator("[data-online-found]").is_visible()
    assert "この牌譜はもう記録されています" in phone.content()
    assert phone.locator("[data-online-map]").count() == 0  # nothing to record
    assert fits_the_screen(phone)
    screenshot("online-duplicate")
    assert Game.objects.count() == 1 and OnlineLog.objects.count() == 1
