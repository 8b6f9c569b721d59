"""The import's preview on a phone: a workbook with a game the club already has and a new name.
The page fits 390 px; the duplicate is marked and skipped unless the organiser ticks the box;
a reading that is not kana is refused at its field. Screenshot:
test-artifacts/screenshots/import-preview.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from league.excel import imports
from league.excel import services as excel_services
from league.models import Game, Member, Membership
from league.recording import services
from tests.support.browser import fits_the_screen
from tests.support.clubs import make_club, make_user
from tests.support.imports import STANDARD, game, simple

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def waiting(live_server) -> str:
    """An upload waiting for the organiser: three games, one of them recorded already."""
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    members = {n: Member.objects.create(club=club, name=n) for n, _p in STANDARD}
    seats = [services.SeatInput(members[n], p) for n, p in STANDARD]
    first = game(*STANDARD)
    services.game_record(
        club=club, user=organiser, data=services.GameInput(date=first[0], table="A", seats=seats)
    )
    data = simple(first, game(("長谷川 由美子", 45000), *STANDARD[1:]), game(*STANDARD, table="B"))
    return keep_upload(live_server, club, organiser, data, "成績表_2024年度_マメの会.xlsx")


def keep_upload(live_server, club, organiser, data: bytes, filename: str) -> str:
    """The workbook as the upload page keeps it (read, and its preview settled once); the
    preview's address."""
    parsed = imports.workbook_read(data, players=4)
    excel_services.upload_keep(
        club=club,
        user=organiser,
        filename=filename,
        parsed=imports.parsed_dump(parsed),
        games=len(parsed.games),
        preview=imports.preview_dump(imports.plan_kept(club=club, parsed=parsed)),
    )
    return f"{live_server.url}/c/{club.slug}/import/preview/"


def test_the_preview_fits_a_phone_and_skips_the_duplicate(phone: Page, log_in, screenshot, waiting):
    log_in("organiser")
    assert phone.goto(waiting).status == 200
    assert fits_the_screen(phone)
    assert phone.locator("#duplicates-title").is_visible()
    screenshot("import-preview")

    phone.fill("input[name^=kana_]", "abc")
    with phone.expect_navigation():
        phone.click("button.primary")
    assert "ひらがなかカタカナだけで入力してください。" in phone.content()
    assert Game.objects.count() == 1

    phone.fill("input[name^=kana_]", "はせがわ ゆみこ")
    with phone.expect_navigation():
        phone.click("button.primary")
    assert phone.url.endswith("/import/status/")  # the worker's task (run at once in tests)
    # The recorded game and the new one: the same points at table B repeat the recorded game
    # (the record form's rule: any table) and are skipped as well.
    assert Game.objects.count() == 2


def test_confirming_shows_the_import_under_way_then_the_result(
    phone: Page, log_in, screenshot, waiting
):
    """While the confirmation runs, the page says so (on SQLite without a count: never a made-up
    percentage) and the button cannot be tapped twice; then the club's page says what came in."""
    log_in("organiser")
    assert phone.goto(waiting).status == 200
    phone.fill("input[name^=kana_]", "はせがわ ゆみこ")
    # What the page shows once the confirmation is sent, noted by a listener that runs after
    # import.js's own (the request then takes the page away), and read back afterwards.
    phone.evaluate(
        """() => document.querySelector('form[data-import-confirm]').addEventListener(
            'submit', () => localStorage.setItem('seen', JSON.stringify([
                !document.querySelector('[data-import-progress]').hidden,
                document.querySelector('[data-progress-text]').textContent,
                document.querySelector('button.primary').disabled,
            ])))"""
    )
    with phone.expect_navigation():
        phone.click("button.primary")
    visible, text, disabled = phone.evaluate("() => JSON.parse(localStorage.getItem('seen'))")
    assert visible and disabled
    assert "バックグラウンド処理に渡しています" in text  # the task, queued
    assert "取り込みました" in phone.content()
    assert Game.objects.count() == 2  # the new game beside the one recorded before


@pytest.fixture
def with_problems(live_server) -> str:
    """An upload waiting with problems: a sum that does not add up, a name twice in one game."""
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    for n, _p in STANDARD:
        Member.objects.create(club=club, name=n)
    short = game(("青木", 45000), *STANDARD[1:3], ("土井", 4000))
    twice = game(("馬場", 45000), *STANDARD[1:])
    return keep_upload(
        live_server, club, organiser, simple(short, twice, game(*STANDARD)), "成績表.xlsx"
    )


def test_the_problems_wrap_on_a_phone_instead_of_running_off_its_side(
    phone: Page, log_in, screenshot, with_problems
):
    """Each problem's message wraps inside the card: nothing to swipe sideways to read it.
    Screenshot: import-preview-problems.png."""
    log_in("organiser")
    assert phone.goto(with_problems).status == 200
    assert fits_the_screen(phone)
    assert phone.locator("#problems-title").is_visible()
    wide = phone.evaluate(
        """() => [...document.querySelectorAll('.import-problems')]
          .map(t => t.closest('.table-wrap'))
          .filter(w => w.scrollWidth > w.clientWidth + 1).length"""
    )
    assert wide == 0
    assert phone.locator(".import-problems tbody tr").count() == 2
    screenshot("import-preview-problems")
