"""A member on a 390×844 phone turns on the hand columns of the season's standings (和了率 …
平均放銃, with 局記録 and 局数), scrolls the table sideways to them, sorts by 和了率, and sees them
on the all-time standings too, with nothing wider than the screen.
Screenshots: test-artifacts/screenshots/standings-hands-*.png."""

from __future__ import annotations

import datetime
import uuid

import pytest

from league.models import Member, Membership, Season
from league.recording.services import GameInput, SeatInput, game_record
from league.table import services as table
from tests.support.browser import fits_the_screen
from tests.support.clubs import MEMBER_NAMES, make_club, make_user
from tests.support.hand_totals import HAND_HEADERS

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def club_with_hands():
    club = make_club("mame", "mame-no-kai", "マメの会")
    make_user("member", club, Membership.MEMBER)
    organiser = make_user("organiser", club, Membership.ORGANISER)
    a, b, c, d, e = people = [
        Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES
    ]
    start = datetime.date(2026, 10, 1)
    season = Season.objects.create(
        club=club, name="2026年10月", start=start, end=datetime.date(2026, 10, 31)
    )

    def hand_game(day: int, seated: list[Member], hands: list[dict]) -> None:
        tg = table.table_start(
            club=club,
            user=organiser,
            key=uuid.uuid4(),
            date=datetime.date(2026, 10, day),
            members=seated,
            rate="0.3",
        )
        for i, event in enumerate(hands):
            table.hand_record(
                tg=tg, user=organiser, index=i, key=uuid.uuid4(), event=event, marks={}
            )
        table.table_game_save(tg=tg, user=organiser)

    ia, ib, ic, id_, ie = (str(m.pk) for m in people)
    hand_game(
        3,
        [a, b, c, d],
        [
            {"result": "ron", "from": ic, "winners": [{"player": ib, "han": 3, "fu": 40}]},
            {"result": "ron", "from": ia, "winners": [{"player": id_, "yakuman": 1}]},
        ],
    )
    hand_game(
        10,
        [b, c, d, e],
        [
            {"result": "tsumo", "winner": ic, "han": 5, "riichi": [ic]},
            {"result": "ron", "from": ie, "winners": [{"player": ib, "yakuman": 1}]},
        ],
    )
    game_record(  # without hands
        club=club,
        user=None,
        data=GameInput(
            date=datetime.date(2026, 10, 17),
            seats=[
                SeatInput(m, p)
                for m, p in zip([a, c, d, e], [40000, 30000, 20000, 10000], strict=True)
            ],
            rate="0.3",
        ),
    )
    return club, season


def test_hand_columns_on_the_phone(phone, live_server, log_in, screenshot, club_with_hands):
    _club, season = club_with_hands
    log_in("member")
    phone.goto(f"{live_server.url}/c/mame/seasons/{season.pk}/")
    assert phone.locator("table.standings thead th", has_text="和了率").count() == 0
    with phone.expect_navigation():
        phone.get_by_role("link", name="局の成績を表示").click()
    assert "hands=1" in phone.url
    heads = phone.locator("table.standings thead th:visible").all_inner_texts()
    assert heads[-8:] == HAND_HEADERS, heads  # shown on a phone without "every column"
    assert "局ごとに記録した対局だけ" in phone.locator("[data-hand-columns]").inner_text()
    assert fits_the_screen(phone)
    screenshot("standings-hands-season")

    wrap = phone.locator(".standings-wrap")
    wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    # The position and the name stay while the numbers scroll under them.
    name = phone.locator("table.standings thead th.name").bounding_box()
    last = phone.locator("table.standings thead th", has_text="平均放銃").bounding_box()
    assert name is not None and last is not None
    assert last["x"] >= name["x"] + name["width"] - 1 and last["x"] + last["width"] <= 390
    screenshot("standings-hands-season-scrolled")
    # 千葉: 2 games, 4 hands; won 1 (8,000) with riichi, dealt in 1 (5,200).
    rows = phone.locator("table.standings tbody tr:not(.divider)")
    texts = {r.locator("th").inner_text(): r.locator("td").all_inner_texts() for r in rows.all()}
    assert texts["千葉"][-8:] == ["2", "4", "25.0%", "25.0%", "25.0%", "0.0%", "8,000", "5,200"]

    with phone.expect_navigation():
        phone.locator("table.standings thead th a", has_text="和了率").click()
    assert "sort=-win_rate" in phone.url and "hands=1" in phone.url
    # 和了率: 馬場 won 2 of 4 hands (50.0%), 千葉 and 土井 1 of 4, 青木 and 江藤 none.
    assert rows.first.locator("th").inner_text() == "馬場"
    assert rows.first.locator("td").all_inner_texts()[-6] == "50.0%"
    assert fits_the_screen(phone)
    screenshot("standings-hands-sorted")

    phone.goto(f"{live_server.url}/c/mame/standings/?hands=1")
    heads = phone.locator("table.standings thead th:visible").all_inner_texts()
    assert heads[-8:] == HAND_HEADERS
    assert fits_the_screen(phone)
    screenshot("standings-hands-all-time")
