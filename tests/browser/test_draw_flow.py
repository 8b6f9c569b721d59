"""The table draw on a phone: check 10 players in at マメの会, draw round 1, record both tables
from their cards, see round 2 proposed with new opponents, one player leaves, draw again; and a
花月杯 cup day's schedule printed on A4."""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

import pytest

from league.models import Member, Membership
from tests.support.browser import preview_then_save
from tests.support.clubs import make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = ["青木", "馬場", "千葉", "土井", "江藤", "藤井", "後藤", "林", "今井", "城島"]
POINTS = ["40000", "30000", "20000", "10000"]


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def tables_of(page: Page, scope: str) -> list[frozenset[str]]:
    return [
        frozenset(card.locator("[data-player]").all_inner_texts())
        for card in page.locator(f"{scope} .draw-card").all()
    ]


def pairs(tables: list[frozenset[str]]) -> set[frozenset[str]]:
    return {frozenset(p) for t in tables for p in combinations(sorted(t), 2)}


@pytest.fixture
def mame(db):
    club = make_club("mame", "mame-no-kai", "マメの会")
    for i, name in enumerate(NAMES):
        Member.objects.create(club=club, name=name, kana=f"かな{i}")
    make_user("organiser", club, Membership.ORGANISER)
    return club


def test_an_evening_of_draws_on_a_phone(phone, live_server, log_in, mame, screenshot) -> None:
    log_in("organiser")
    phone.goto(f"{live_server.url}/c/mame/draw/")
    with phone.expect_navigation():
        phone.click("[data-open-draw]")
    draw_url = phone.url
    for name in NAMES:
        phone.locator("#id_name").press_sequentially(name)
        with phone.expect_navigation():
            phone.click(".check-in button[type=submit]")
    assert phone.locator("[data-present]").count() == 10
    assert phone.locator('[data-proposal="1"]').is_visible()
    screenshot("draw-1-checked-in")
    no_sideways_scroll(phone)

    with phone.expect_navigation():
        phone.click("[data-draw]")
    assert phone.locator('[data-round="1"] .draw-card').count() == 2
    assert phone.locator("[data-sitting-out]").count() == 2
    round_1 = tables_of(phone, '[data-round="1"]')
    screenshot("draw-2-round-1")
    no_sideways_scroll(phone)

    for label in ("A", "B"):
        card = phone.locator(f'[data-round="1"] .draw-card[data-table="{label}"]')
        seated = card.locator("[data-player]").all_inner_texts()
        with phone.expect_navigation():
            card.locator("[data-record-table]").click()
        for i, name in enumerate(seated):  # the form is filled in seat order
            assert phone.input_value(f"#id_member_{i}") == name
            phone.fill(f"#id_points_{i}", POINTS[i])
        assert phone.input_value("#id_table") == label
        if label == "A":
            screenshot("draw-3-record-form-prefilled")
        preview_then_save(phone)
        assert phone.url == draw_url
        assert card.locator("[data-recorded]").is_visible()

    proposal = phone.locator('[data-proposal="2"]')
    assert proposal.is_visible()
    proposed = tables_of(phone, '[data-proposal="2"]')
    # New opponents: at most two pairs of each table of four met in round 1.
    assert len(pairs(round_1) & pairs(proposed)) <= 4
    assert proposed != round_1
    screenshot("draw-4-round-2-proposed")

    leaver = next(iter(proposed[0]))
    with phone.expect_navigation():
        phone.click(f'[data-leave="{leaver}"]')
    assert phone.locator("[data-present]").count() == 9
    with phone.expect_navigation():
        phone.click("[data-draw]")
    round_2 = tables_of(phone, '[data-round="2"]')
    assert len(round_2) == 2 and all(len(t) == 4 for t in round_2)
    assert leaver not in set().union(*round_2)
    assert phone.locator("[data-sitting-out]").count() == 1
    screenshot("draw-5-round-2-after-leaving")
    no_sideways_scroll(phone)


def test_a_cup_day_schedule_prints_on_a4(phone, live_server, log_in, screenshot, db) -> None:
    club = make_club("kagetsu", "kagetsu-cup", "花月杯")
    make_user("organiser", club, Membership.ORGANISER)
    players = [Member.objects.create(club=club, name=f"選手{i:02d}") for i in range(16)]
    log_in("organiser")
    phone.goto(f"{live_server.url}/c/kagetsu/draw/")
    with phone.expect_navigation():
        phone.click("[data-open-draw]")
    for m in players:
        phone.locator("#id_name").fill(m.name)
        with phone.expect_navigation():
            phone.click(".check-in button[type=submit]")
    phone.click(".draw-links a")  # the whole-day schedule
    phone.wait_for_selector(".schedule-form")
    phone.fill("#id_rounds", "5")
    with phone.expect_navigation():
        phone.click(".schedule-form button[type=submit]")
    assert phone.locator("[data-schedule-round]").count() == 5
    assert phone.locator("[data-schedule-player]").count() == 16
    screenshot("draw-6-cup-schedule")
    no_sideways_scroll(phone)
    phone.emulate_media(media="print")
    assert not phone.locator("header.site").is_visible()
    pdf = phone.pdf(format="A4")
    assert pdf.startswith(b"%PDF")
    pages = pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
    assert 1 <= pages <= 3
