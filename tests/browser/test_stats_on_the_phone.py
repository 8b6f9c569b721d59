"""A member on a 390×844 phone opens a player's head-to-head, the rating chart, the season's
head-to-head matrix one row at a time, and the club's records, with nothing wider than the screen.
Screenshots: test-artifacts/screenshots/stats-*.png."""

from __future__ import annotations

import datetime

import pytest

from league.models import Member, Membership, Season
from league.recording.services import ChipInput, GameInput, SeatInput, game_record
from tests.support.browser import SCREENSHOTS, fits_the_screen
from tests.support.clubs import MEMBER_NAMES, make_club, make_user

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = [*MEMBER_NAMES, ("藤原", "ふじわら")]
POINTS = [
    [45_000, 30_000, 15_000, 10_000],
    [20_000, 40_000, 25_000, 15_000],
    [35_000, 25_000, 28_000, 12_000],
    [18_000, 22_000, 31_000, 29_000],
]


def part(phone, selector: str, name: str) -> None:
    """A screenshot of one section, from the page laid out at the top (the sticky header stays
    above it, not over it)."""
    phone.evaluate("window.scrollTo(0, 0)")
    box = phone.locator(selector).bounding_box()
    assert box is not None
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True, clip=box)


@pytest.fixture
def club_with_games():
    club = make_club("mame", "mame-no-kai", "マメの会")
    make_user("member", club, Membership.MEMBER)
    people = [Member.objects.create(club=club, name=n, kana=k) for n, k in NAMES]
    start = datetime.date(2026, 4, 1)
    season = Season.objects.create(
        club=club, name="2026年前期", start=start, end=start + datetime.timedelta(days=120)
    )
    for i in range(24):
        seated = [people[(i + k * (1 + i % 2)) % len(people)] for k in range(4)]
        if len(set(seated)) < 4:
            seated = [people[(i + k) % len(people)] for k in range(4)]
        chips = (ChipInput("yakuman", seated[0], seated[3]),) if i == 10 else ()
        game_record(
            club=club,
            user=None,
            data=GameInput(
                date=start + datetime.timedelta(days=7 * (i // 4)),
                seats=[SeatInput(m, p) for m, p in zip(seated, POINTS[i % 4], strict=True)],
                chips=chips,
            ),
        )
    return club, season, people


def test_head_to_head_rating_and_records_on_the_phone(
    phone, live_server, log_in, screenshot, club_with_games
):
    _club, season, people = club_with_games
    log_in("member")
    phone.goto(f"{live_server.url}/c/mame/players/{people[0].pk}/")
    table = phone.locator("#head-to-head table")
    assert table.is_visible()
    opponents = table.locator("tbody th").all_text_contents()
    assert set(opponents) <= {n for n, _k in NAMES[1:]} and len(opponents) == 5
    phone.locator("#head-to-head").scroll_into_view_if_needed()
    assert fits_the_screen(phone)
    screenshot("stats-player")
    part(phone, "#head-to-head", "stats-head-to-head")
    part(phone, "#seats", "stats-seats")
    assert phone.evaluate(
        "(() => { const w = document.querySelector('#head-to-head .table-wrap');"
        " return w.scrollWidth <= w.clientWidth + 1; })()"
    ), "the head-to-head table fits the phone without scrolling sideways"

    phone.locator("#rating").scroll_into_view_if_needed()
    chart = phone.locator("#rating svg.line-chart")
    assert chart.is_visible()
    box = chart.bounding_box()
    assert box is not None and box["width"] <= 390
    assert "μ" in phone.locator("#rating dl").inner_text()
    assert phone.locator("#rating table.expected tbody tr").count() == 10
    part(phone, "#rating", "stats-rating")

    phone.goto(f"{live_server.url}/c/mame/seasons/{season.pk}/head-to-head/")
    assert phone.locator("#matrix-row").is_visible()
    assert not phone.locator("table.matrix").is_visible()  # the whole table is for wide screens
    first = phone.locator("#matrix-row h2").inner_text()
    with phone.expect_navigation():
        phone.locator(".matrix-pager a[rel=next]").click()
    assert phone.locator("#matrix-row h2").inner_text() != first
    assert fits_the_screen(phone)
    part(phone, "#matrix-row", "stats-matrix")

    phone.goto(f"{live_server.url}/c/mame/records/")
    assert phone.locator("h1").inner_text() == "歴代記録"
    assert "役満" in phone.locator("main").inner_text()
    assert phone.locator(".records a").count() > 5  # every record links to its game or day
    assert fits_the_screen(phone)
    screenshot("stats-records")
