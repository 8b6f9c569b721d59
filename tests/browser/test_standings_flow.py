"""A season's standings on a phone: sorting by average rank (both ways), a player's page with
its two charts drawn, and the season's race with one line per qualifying player."""

from __future__ import annotations

import datetime
import re
from typing import TYPE_CHECKING

import pytest

from league.club import services as club_services
from league.core.clock import today
from league.core.format import hundredths
from league.models import Member, Membership, Season
from league.recording import services
from league.recording.services import GameInput, SeatInput
from league.standings import charts, stats
from tests.support.browser import fits_the_screen
from tests.support.clubs import MEMBER_NAMES, make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = [*MEMBER_NAMES, ("藤原", "ふじわら")]
MIN_GAMES = 2
# Each game: the players from 1st to 4th (indexes into NAMES) and their points. 藤原 (5) plays
# once, so stays below the minimum; 馬場 (1) has one huge win, so that they lead on total while
# 青木 (0) has the better average rank.
GAMES = [
    ((0, 1, 2, 3), (45000, 30000, 20000, 4000)),
    ((0, 2, 4, 1), (38000, 29000, 22000, 10000)),
    ((1, 0, 3, 4), (70000, 15000, 10000, 4000)),
    ((0, 1, 4, 2), (36000, 31000, 24000, 8000)),
    ((2, 3, 0, 4), (40000, 27000, 21000, 11000)),
    ((1, 4, 2, 3), (47000, 28000, 19000, 5000)),
    ((0, 3, 1, 5), (39000, 30000, 26000, 4000)),
    ((2, 1, 4, 3), (35000, 32000, 23000, 9000)),
    ((3, 0, 2, 4), (90000, 5000, 3000, 1000)),
    ((1, 2, 3, 4), (44000, 30000, 17000, 8000)),
]
DEPOSITS = 1000
RATE = "0.3"
# The average rank header's sort link, either way round (not its text: that is translated).
AVG_RANK_LINK = "a[href*='sort=avg_rank'], a[href*='sort=-avg_rank']"


@pytest.fixture
def season() -> Season:
    club = make_club("mame", "mame-no-kai", "マメの会")
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in NAMES]
    organiser = make_user("organiser", club, Membership.ORGANISER)
    first = today() - datetime.timedelta(days=len(GAMES))
    for number, (order, points) in enumerate(GAMES):
        assert sum(points) + DEPOSITS == 100_000
        seats = [SeatInput(members[m], p) for m, p in zip(order, points, strict=True)]
        shift = number % 4  # the winner is not always the first dealer
        data = GameInput(
            date=first + datetime.timedelta(days=number // 2),
            seats=seats[shift:] + seats[:shift],
            deposits=DEPOSITS,
            rate=RATE,
            table="A",
        )
        services.game_record(club=club, user=organiser, data=data)
    return club_services.season_create(
        club=club,
        user=organiser,
        name="2026年 秋",
        start=first,
        end=today() + datetime.timedelta(days=30),
        min_games=MIN_GAMES,
    )


def standings(season: Season, order: str) -> list[dict]:
    return list(
        stats.standings(
            club=season.club,
            start=season.start,
            end=season.end,
            min_games=season.min_games,
            order=order,
        )
    )


def open_page(page: Page, url: str) -> None:
    response = page.goto(url)
    assert response is not None and response.status == 200, url


def table_rows(page: Page) -> list[list[str]]:
    """(player, average rank cell) of each player row, top to bottom; the divider row skipped."""
    return page.evaluate(
        """(link) => {
            const heads = [...document.querySelectorAll('table.standings thead th')];
            const column = heads.findIndex(th => th.querySelector(link));
            return [...document.querySelectorAll('table.standings tbody tr:not(.divider)')].map(
                tr => [tr.querySelector('.name a').textContent.trim(),
                       tr.children[column].textContent.trim()]);
        }""",
        AVG_RANK_LINK,
    )


def expected_rows(season: Season, order: str) -> list[list[str]]:
    return [[r["name"], hundredths(r["avg_rank"])] for r in standings(season, order)]


def avg_rank_header(page: Page) -> Locator:
    return page.locator("table.standings thead th").filter(has=page.locator(AVG_RANK_LINK))


def sort_by_average_rank(page: Page, expected_sort: str) -> None:
    with page.expect_navigation():
        avg_rank_header(page).locator("a").click()
    assert re.search(rf"[?&]sort={expected_sort}(&|$)", page.url), page.url
    header = avg_rank_header(page)
    descending = expected_sort.startswith("-")
    assert header.get_attribute("aria-sort") == ("descending" if descending else "ascending")
    arrow = "desc" if descending else "asc"  # the class that draws ↓ or ↑ (app.css)
    assert arrow in (header.get_attribute("class") or "").split()
    # Scrolled to, the sorted column shows clear of the two columns that stay put.
    header.scroll_into_view_if_needed()
    name = page.locator("table.standings thead th.name").bounding_box()
    box = header.bounding_box()
    assert box is not None and name is not None
    assert box["x"] >= name["x"] + name["width"] - 1
    assert box["x"] + box["width"] <= page.viewport_size["width"] + 1


def drawn(page: Page, selector: str) -> None:
    """Every element of `selector` has a non-empty shape and takes room on the screen."""
    elements = page.locator(selector)
    assert elements.count() > 0, selector
    for element in elements.all():
        box = element.bounding_box()
        assert box is not None and box["width"] > 0 and box["height"] > 0, selector


def test_standings_sorted_by_average_rank_then_a_player(
    phone, live_server, log_in, season, screenshot
):
    by_position = expected_rows(season, "position")
    ascending = expected_rows(season, "avg_rank")
    descending = expected_rows(season, "-avg_rank")
    assert ascending != by_position  # the data makes the click change the order
    assert len({rank for _name, rank in ascending}) == len(NAMES)  # no ties to order arbitrarily

    log_in("organiser")
    open_page(phone, f"{live_server.url}/c/mame/seasons/{season.pk}/")
    assert table_rows(phone) == by_position
    assert phone.locator("table.standings tr.divider").count() == 1  # 藤原 is below the minimum
    assert fits_the_screen(phone)
    screenshot("standings-season")

    # A phone shows the few columns a member looks for first, 収支 among them; every column on
    # request, and then the first two columns stay put while the rest scrolls under them.
    heads = phone.locator("table.standings thead th:visible").all_inner_texts()
    assert len(heads) <= 6 and "平均順位" in heads and "対局" in heads, heads
    assert phone.locator(".standings-wrap").evaluate("w => w.scrollWidth <= w.clientWidth + 1")
    phone.get_by_label("すべての列").check()
    row = phone.locator("table.standings tbody tr:not(.divider)").first
    before = (row.locator(".pos").bounding_box(), row.locator(".name").bounding_box())
    games_before = row.locator("td").nth(1).bounding_box()
    phone.locator(".standings-wrap").evaluate("wrap => { wrap.scrollLeft = 200; }")
    after = (row.locator(".pos").bounding_box(), row.locator(".name").bounding_box())
    assert [b["x"] for b in after] == [b["x"] for b in before]
    assert row.locator("td").nth(1).bounding_box()["x"] < games_before["x"] - 100
    screenshot("standings-season-scrolled")

    sort_by_average_rank(phone, "avg_rank")
    assert table_rows(phone) == ascending
    assert fits_the_screen(phone)
    screenshot("standings-avg-rank-ascending")

    sort_by_average_rank(phone, "-avg_rank")
    assert table_rows(phone) == descending
    assert fits_the_screen(phone)
    screenshot("standings-avg-rank-descending")

    # The best average rank is last now; their page shows both charts.
    best = standings(season, "avg_rank")[0]
    link = phone.locator("table.standings tbody .name a", has_text=best["name"])
    with phone.expect_navigation():
        link.click()
    assert f"/c/mame/players/{best['member']}/" in phone.url
    check_player_charts(phone, best)
    assert fits_the_screen(phone)
    screenshot("player-detail-season")


def check_player_charts(page: Page, row: dict) -> None:
    # The cumulative score: one point at 0 before the first game, then one per game. (The page
    # has the rating's line chart too, further down: tests/browser/test_stats_on_the_phone.py.)
    path = page.locator("#score-chart svg.line-chart path.series")
    assert path.count() == 1
    commands = re.findall(r"[ML]", path.get_attribute("d") or "")
    assert commands == ["M"] + ["L"] * row["games"]
    drawn(page, "#score-chart svg.line-chart path.series")

    # The ranks: one bar per rank, as long as its count (the longest bar fills the room).
    counts = [row[key] for key in ("first", "second", "third", "fourth")]
    bars = page.locator("svg.bar-chart rect.bar")
    assert bars.count() == len(counts)
    room = charts.WIDTH - charts.BAR_LEFT - charts.BAR_TEXT
    widths = [float(bar.get_attribute("width") or "nan") for bar in bars.all()]
    for width, count in zip(widths, counts, strict=True):
        assert width == pytest.approx(room * count / max(counts), abs=0.1)
    boxes = [bar.bounding_box() for bar in bars.all()]
    longest = max(box["width"] for box in boxes)
    assert longest > 100  # readable at 390 px
    for box, count in zip(boxes, counts, strict=True):
        assert box["width"] == pytest.approx(longest * count / max(counts), abs=1)
    values = page.locator("svg.bar-chart text.value").all_text_contents()
    assert [v.split()[0] for v in values] == [str(c) for c in counts]


def test_season_race_draws_a_line_per_qualifying_player(
    phone, live_server, log_in, season, screenshot
):
    qualified = [r for r in standings(season, "position") if r["qualified"]]
    assert len(qualified) == len(NAMES) - 1

    log_in("organiser")
    open_page(phone, f"{live_server.url}/c/mame/seasons/{season.pk}/race/")
    lines = phone.locator("svg.line-chart path.series")
    assert lines.count() == len(qualified)
    for line in lines.all():
        assert re.match(r"M[\d.]+ [\d.]+( L[\d.]+ [\d.]+)+$", line.get_attribute("d") or "")
    drawn(phone, "svg.line-chart path.series")
    legend = [name.strip() for name in phone.locator("ol.legend li a").all_inner_texts()]
    assert legend == [r["name"] for r in qualified]  # the leaders first, 藤原 not among them
    assert fits_the_screen(phone)
    screenshot("season-race")
