"""Issue 42 part 4 on a 390×844 phone: a player of today's cup, after rounds 1 and 2 are recorded,
opens My page and reads where they sit next, 「次：第3回戦 B卓 西家」, first on the page and
within the screen. Screenshot: test-artifacts/screenshots/my-next-table.png."""

from __future__ import annotations

import pytest

from league.core import clock
from league.draw import selectors as sel
from league.draw import services as draw
from league.models import Member, Membership
from tests.support.browser import fits_the_screen
from tests.support.clubs import make_club, make_user
from tests.support.draw import check_in_all, people, record_drawn

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def seated() -> Member:
    """A cup of 12 today, 3 rounds drawn with seats; rounds 1 and 2 recorded. The member linked
    to the login `west` sits 西 at table B in round 3."""
    today = clock.today()
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    day = check_in_all(club, organiser, people(club, 12), today)
    draw.schedule_draw(club=club, user=organiser, date=today, rounds=3)
    for rv in sel.current_rounds(day)[:2]:
        for tv in rv.tables:
            record_drawn(club, organiser, today, tv)
    rounds = sel.current_rounds(day)
    assert all(tv.recorded for rv in rounds[:2] for tv in rv.tables)
    me = rounds[2].tables[1].players[2]  # round 3, table B, 西
    me.user = make_user("west", club)
    me.save(update_fields=["user"])
    return me


def test_my_page_says_where_i_sit_next(phone, live_server, log_in, screenshot, seated) -> None:
    log_in("west")
    with phone.expect_navigation():
        phone.locator("header.site nav a.mine").click()
    line = phone.locator("#next-table")
    assert " ".join(line.inner_text().split()) == "次：第3回戦 B卓 西家"
    box = line.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert box["y"] + box["height"] <= 844  # in the first screen, without scrolling
    assert fits_the_screen(phone)
    screenshot("my-next-table")
