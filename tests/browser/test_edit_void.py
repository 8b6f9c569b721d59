"""Correcting a game on a phone, then voiding it: the game page shows the new numbers, the game
struck through, and a history with one entry per change."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from league.core.clock import today
from league.models import Game, Member, Membership
from league.recording import services
from league.recording.services import GameInput, SeatInput
from tests.support.clubs import MEMBER_NAMES, make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)

POINTS = [40000, 30000, 20000, 10000]
# Seats 1 and 4 corrected; the total stays 100,000.
EDITED = [45000, 30000, 20000, 5000]


@pytest.fixture
def game() -> Game:
    club = make_club("mame", "mame-no-kai", "マメの会")
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES]
    organiser = make_user("organiser", club, Membership.ORGANISER)
    seats = [SeatInput(m, p) for m, p in zip(members[:4], POINTS, strict=True)]
    data = GameInput(date=today(), seats=seats, rate="0.3")
    return services.game_record(club=club, user=organiser, data=data)


def stored_points(game: Game) -> list[int]:
    return list(game.results.filter(counted=True).order_by("seat").values_list("points", flat=True))


def history_actions(page: Page) -> list[str]:
    return [li.get_attribute("data-action") or "" for li in page.locator("ol.history > li").all()]


def test_edit_then_void_a_game(phone, live_server, log_in, game, screenshot):
    page = phone
    log_in("organiser")
    game_url = f"{live_server.url}/c/mame/games/{game.pk}/"
    response = page.goto(game_url)
    assert response is not None and response.status == 200
    assert history_actions(page) == ["game.create"]

    with page.expect_navigation():
        page.click(f"main a[href$='/games/{game.pk}/edit/']")
    assert page.input_value("#id_member_0") == "青木"
    page.fill("#id_points_0", "45000")
    page.fill("#id_points_3", "5000")
    assert "ok" in (page.get_attribute("[data-sum]", "class") or "").split()
    with page.expect_navigation():
        page.click("form[data-record] .actions button[name=action][value=preview]")
    preview_points = page.locator(
        "[data-preview] table.preview-result tbody tr td:nth-child(2)"
    ).all_inner_texts()
    assert [p.strip() for p in preview_points] == ["45,000", "30,000", "20,000", "5,000"]
    with page.expect_navigation():
        page.click("[data-preview] button[name=action][value=save]")

    assert page.url == game_url
    table_points = page.locator("table.settled tbody td:nth-child(2)").all_inner_texts()
    assert [p.strip() for p in table_points] == ["45,000", "30,000", "20,000", "5,000"]
    assert history_actions(page) == ["game.create", "game.edit"]
    edit_entry = page.locator("ol.history > li[data-action='game.edit']").inner_text()
    for text in ("青木", "土井", "40,000", "45,000", "10,000", "5,000"):
        assert text in edit_entry
    game.refresh_from_db()
    assert (game.revision, stored_points(game)) == (2, EDITED)
    screenshot("game-page-history")

    with page.expect_navigation():
        page.click(f"main a[href$='/games/{game.pk}/void/']")
    page.fill("#id_reason", "二重入力")
    with page.expect_navigation():
        page.click("form.void-form button[type=submit]")

    assert page.url == game_url
    table = page.locator("table.settled")
    assert "void" in (table.get_attribute("class") or "").split()
    struck = table.locator("tbody td").first.evaluate(
        "cell => getComputedStyle(cell).textDecorationLine"
    )
    assert "line-through" in struck
    assert history_actions(page) == ["game.create", "game.edit", "game.void"]
    assert "二重入力" in page.locator("ol.history > li[data-action='game.void']").inner_text()
    # A void game offers no edit or void any more.
    assert page.locator(f"main a[href$='/games/{game.pk}/edit/']").count() == 0
    game.refresh_from_db()
    assert game.voided and game.void_reason == "二重入力"
    screenshot("game-voided")
