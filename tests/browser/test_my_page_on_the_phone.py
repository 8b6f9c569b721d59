"""A member who plays every week, on a 390×844 phone: logs in, taps "マイページ" in the header, and
sees today's game, what they pay whom today, last week's deferred debt and their season standing,
with nothing wider than the screen. Screenshot: test-artifacts/screenshots/my-page.png."""

from __future__ import annotations

import datetime

import pytest

from league import money
from league.core import clock
from league.models import Member, Membership, Season
from tests.support.browser import fits_the_screen
from tests.support.clubs import make_club, make_user
from tests.support.money import ledger_case_day

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def chiba() -> Member:
    """マメの会 with last week's day (千葉 deferred what they owed 馬場) and today's day."""

    today = clock.today()
    club = make_club("mame", "mame-no-kai", "マメの会")
    make_user("organiser", club, Membership.ORGANISER)
    m = {
        n: Member.objects.create(club=club, name=n, kana=k)
        for n, k in [
            ("青木", "あおき"),
            ("馬場", "ばば"),
            ("千葉", "ちば"),
            ("土井", "どい"),
            ("江藤", "えとう"),
        ]
    }
    Season.objects.create(
        club=club,
        name="2026年後期",
        start=today - datetime.timedelta(days=90),
        end=today + datetime.timedelta(days=90),
        min_games=2,
    )
    last_week = ledger_case_day(club, m, today - datetime.timedelta(days=7))
    money.transfer_defer(day=last_week, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
    ledger_case_day(club, m, today)
    user = make_user("chiba", club)
    m["千葉"].user = user
    m["千葉"].save(update_fields=["user"])
    return m["千葉"]


def test_a_member_sees_their_game_and_what_they_owe_on_the_phone(
    phone, live_server, log_in, screenshot, chiba
):
    log_in("chiba")  # one club: the login lands on its home page
    nav_link = phone.locator("header.site nav a.mine")
    assert nav_link.inner_text() == "マイページ"
    box = nav_link.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390  # in view
    with phone.expect_navigation():
        nav_link.click()
    assert phone.url.endswith("/c/mame/me/")
    assert fits_the_screen(phone)

    # What 千葉 pays today, in words, first on the page.
    # Each line reads as one sentence (the heading's words are hidden on the line itself).
    lines = [
        " ".join(t.split())
        for t in phone.locator("#settlement .settle-lines li").all_text_contents()
    ]
    assert lines, "today's transfers"
    assert "本日の精算：あなたは 馬場さんに 1,140円 支払い" in lines
    assert all(
        line.startswith("本日の精算：あなたは ") and line.endswith("支払い") for line in lines
    )
    today_total = sum(
        int(li.get_attribute("data-yen"))
        for li in phone.locator("#settlement .settle-lines li").all()
    )
    assert today_total == 1650
    assert phone.locator("#settlement a", has_text="この日の精算表").count() == 1

    # Today's games are the newest rows of the games table.
    rows = phone.locator("#games tbody tr")
    assert rows.count() == 4  # two games a day, two days
    first = rows.first.inner_text()
    assert "第2半荘" in first

    # Last week's deferral: the 1,140 yen owed to 馬場 and its 10% surcharge.
    debt = phone.locator("#account .my-debts li").first.inner_text()
    assert "馬場さんに" in debt and "1,254円" in debt and "未払い" in debt

    # The season standing.
    assert phone.locator("#standing .rank-big").inner_text().endswith("位")

    screenshot("my-page")
    # The link to the day's ledger works.
    with phone.expect_navigation():
        phone.locator("#settlement a", has_text="この日の精算表").click()
    assert "/ledger/" in phone.url
