"""Recording a game on a phone: names from the datalist, points typed the Japanese way, the live
sum check, the ± button, the preview, saving, and a double tap on Save storing one game."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import scoring
from league.core.clock import today
from league.models import Club, Game, RulesVersion
from tests.support.clubs import make_playing_club

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)

# What is typed per seat (from the first dealer) and what the server reads it as.
NAMES = ["青木", "馬場", "千葉", "土井"]
POINTS = [52000, 31000, 19000, -3000]
DEPOSITS = 1000
RATE = "0.3"


@pytest.fixture
def club_setup():
    return make_playing_club()


@pytest.fixture
def record_page(phone, live_server, log_in, club_setup):
    log_in("organiser")
    response = phone.goto(f"{live_server.url}/c/mame/games/new/")
    assert response is not None and response.status == 200
    phone.wait_for_selector("form[data-record]")
    return phone


def sum_state(page: Page) -> tuple[bool, str, str]:
    """The live sum check: (shown, its class list, its text)."""
    status = page.locator("[data-sum]")
    return status.is_visible(), status.get_attribute("class") or "", status.inner_text()


def fill_seats(page: Page, fourth: str) -> None:
    """The players, by typing their names, and the points of the game, with seat 3's wrong."""
    for i, name in enumerate(NAMES):
        page.locator(f"#id_member_{i}").press_sequentially(name)
    page.fill("#id_points_0", "５２０００")  # full-width digits, as a Japanese keyboard types
    page.fill("#id_points_1", "31,000")
    page.fill("#id_points_2", "18000")  # 1,000 short: corrected below
    page.fill("#id_points_3", fourth)
    page.fill("#id_deposits", f"{DEPOSITS}")
    page.select_option("#id_rate", RATE)


def expected_rows(club: Club) -> list[tuple[str, str, str]]:
    rules = RulesVersion.objects.get(club=club).rules
    result = scoring.settle_game(
        rules,
        scoring.Game(
            seats=tuple(scoring.Seat(n, p) for n, p in zip(NAMES, POINTS, strict=True)),
            deposits=DEPOSITS,
            rate=RATE,
        ),
    )
    return [(p.name, str(p.rank), scoring.format_score(p.score, "ja")) for p in result.players]


def preview_rows(page: Page) -> list[tuple[str, str, str]]:
    rows = []
    for row in page.locator("[data-preview] table.preview-result tbody tr").all():
        cells = row.locator("td")
        player = cells.nth(0).inner_text()
        name = next(n for n in NAMES if n in player)
        rows.append((name, cells.nth(2).inner_text().strip(), cells.nth(3).inner_text().strip()))
    return rows


def press_preview(page: Page) -> None:
    with page.expect_navigation():
        page.click("form[data-record] .actions button[name=action][value=preview]")
    page.wait_for_selector("[data-preview]")


def test_record_a_game_from_the_phone(record_page, live_server, club_setup, screenshot):
    page = record_page
    assert page.locator("[data-sum]").is_hidden()
    screenshot("record-form-empty")

    fill_seats(page, "▲3000")
    shown, classes, text = sum_state(page)
    assert shown
    assert "off" in classes.split() and "ok" not in classes.split()
    assert "1,000" in text  # 98,000 of 99,000: 1,000 short
    screenshot("record-form-sum-error")

    page.fill("#id_points_2", "19000")
    shown, classes, text = sum_state(page)
    assert shown
    assert "ok" in classes.split() and "off" not in classes.split()
    assert "99,000" in text

    press_preview(page)
    assert Game.objects.count() == 0  # a preview stores nothing
    assert preview_rows(page) == expected_rows(club_setup)
    points = page.locator(
        "[data-preview] table.preview-result tbody tr td:nth-child(2)"
    ).all_inner_texts()
    assert [p.strip() for p in points] == ["52,000", "31,000", "19,000", "▲3,000"]
    screenshot("record-preview")

    with page.expect_navigation():
        page.click("[data-preview] button[name=action][value=save]")
    date = today()
    assert page.url == f"{live_server.url}/c/mame/days/{date.isoformat()}/"
    game_card = page.locator("#game-1")
    assert game_card.is_visible()
    for name in NAMES:
        assert name in game_card.inner_text()
    screenshot("record-day-page")

    game = Game.objects.get()
    assert (game.club, game.date, game.deposits, game.rate) == (club_setup, date, DEPOSITS, RATE)
    stored = game.results.filter(counted=True).order_by("seat")
    assert [(r.member.name, r.points) for r in stored] == list(zip(NAMES, POINTS, strict=True))


def test_double_tap_on_save_stores_one_game(record_page, live_server, club_setup):
    page = record_page
    # Seat 4's minus through the ± button, as on a phone keypad without a minus key.
    fill_seats(page, "3000")
    page.fill("#id_points_2", "19000")
    assert "off" in sum_state(page)[1].split()  # 104,000: over until the sign is flipped
    page.click("button[data-sign-for=id_points_3]")
    assert page.input_value("#id_points_3") in ("-3000", "▲3000")
    assert "ok" in sum_state(page)[1].split()

    press_preview(page)
    assert preview_rows(page) == expected_rows(club_setup)

    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    with page.expect_navigation():
        page.dblclick("[data-preview] button[name=action][value=save]")
    page.wait_for_url(f"{live_server.url}/c/mame/days/{today().isoformat()}/")
    page.wait_for_load_state("load")
    assert Game.objects.count() == 1
    # record.js disabled the buttons after the first tap: the second one sent nothing.
    assert len(posts) == 1
