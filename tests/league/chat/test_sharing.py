"""A day as text for the club's group chat: league.chat.sharing and its page."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from league import money
from league.chat import sharing
from league.models import Day, Member
from league.recording import selectors
from tests.support.clubs import make_user
from tests.support.exports import (
    DATE,
    injected_players,
    moneyless_played,
    play,
    play_day,
    settle_some,
)
from tests.support.sharing import share_url, text_of

# The demo day's message is pinned in test_loaddemo.py, which loads the demo once for every check.


@pytest.fixture
def players(club, members):
    return injected_players(club, members)


def test_paid_lent_and_deferred_transfers_say_so(member_client, club, players):
    play_day(club, players)
    day = Day.objects.get(club=club, date=DATE)
    ledger = settle_some(day)  # pays the first transfer, defers the second
    lines = sharing.payment_lines(club, ledger)
    assert lines[0].endswith("円（支払済み）")
    assert lines[1].endswith("円）") and "（後日払い＋割増" in lines[1]
    assert len(lines) == 2 + len(ledger.transfers)
    text = text_of(member_client.get(share_url(club, DATE)))
    assert text.endswith("\n".join(lines) + "\n")


def test_a_voided_game_keeps_its_number_and_nothing_else(member_client, club, players):
    play(club, DATE, players[0:4])
    void = play(club, DATE, players[0:4], table="B")
    from league.recording import services

    services.game_void(game=void, user=None, reason="入力ミス")
    text = text_of(member_client.get(share_url(club, DATE)))
    assert "■第1半荘" in text and "■第2半荘 B卓 レート 0.3 無効\n■この日の合計" in text


def test_a_club_without_money_shares_games_only(db):
    kenko, _people, client = moneyless_played()
    text = text_of(client.get(share_url(kenko, DATE)))
    assert "■第1半荘 A卓\n" in text and "精算" not in text and "円" not in text


def test_english_message(member_client, club, players):
    play_day(club, players)
    member_client.cookies["django_language"] = "en"
    text = text_of(member_client.get(share_url(club, DATE)))
    assert "■Game 1 table A rate 0.3\n1. " in text
    assert "■Payments\n" in text and " yen" in text


def test_the_day_page_and_the_ledger_link_to_it(member_client, club, players):
    play_day(club, players)
    for name in ("recording:day_detail", "money:day_ledger"):
        page = member_client.get(reverse(name, args=[club.slug, DATE])).content.decode()
        assert f'href="{share_url(club, DATE)}"' in page


def test_a_day_without_games_is_404(member_client, club):
    assert member_client.get(share_url(club, DATE)).status_code == 404


def test_query_count_does_not_grow_with_games(
    member_client,
    club,
    players,
    django_assert_num_queries,
):
    play_day(club, players)
    settle_some(Day.objects.get(club=club, date=DATE))
    # 16th: the draw's next tables, one read; 17th: the games held back (issue 42), one read;
    # 18th and 19th: the day's players' parts and open transfers, read from the book.
    with django_assert_num_queries(19) as small:
        member_client.get(share_url(club, DATE))
    play_day(club, players)
    play_day(club, players)
    with django_assert_num_queries(len(small.captured_queries)):
        member_client.get(share_url(club, DATE))


def test_the_message_matches_the_ledger(club, players):
    play_day(club, players)
    day = Day.objects.get(club=club, date=DATE)
    ledger = money.day_ledger(day=day)
    text = sharing.day_text(club=club, day=day, games=selectors.day_games(day=day), ledger=ledger)
    due = sum(t.yen for t in ledger.transfers)
    written = sum(
        int(line.rsplit(" ", 1)[1].removesuffix("円").replace(",", ""))
        for line in text.split("■精算\n")[1].splitlines()
    )
    assert written == due > 0


EVENING = datetime.date(2026, 11, 28)


def test_the_message_marks_chombo_chips_a_void_game_totals_and_a_deferral(club, members):
    """Issue 21, item 8, pinned: chombo and chips on the game lines, a voided game under its day
    page number, each player's day total with yen, and a deferral with its surcharge and total."""
    from league.models import Game
    from league.recording import services
    from league.recording.services import ChipInput, GameInput, SeatInput

    organiser = make_user("sharer", club, role="organiser")
    a, b, c, d = members[:4]

    def game(points, chombo=(0, 0, 0, 0), chips=(), table="A"):
        seats = [SeatInput(m, p, ch) for m, p, ch in zip((a, b, c, d), points, chombo, strict=True)]
        data = GameInput(
            date=EVENING, seats=seats, table=table, deposits=0, rate="0.3", chips=chips
        )
        return services.game_record(club=club, user=organiser, data=data)

    game((45000, 30000, 20000, 5000), chips=[ChipInput("ippatsu", a, c)])
    wrong = game((40000, 30000, 20000, 10000), table="B")
    services.game_void(game=wrong, user=organiser, reason="entered twice")
    game((20000, 25000, 35000, 20000), chombo=(0, 0, 0, 1))
    day = Day.objects.get(club=club, date=EVENING)
    first = money.day_ledger(day=day).transfers[0]
    money.transfer_defer(
        day=day, user=organiser, payer=money.party(first.payer), payee=money.party(first.payee)
    )
    day = Day.objects.get(pk=day.pk)
    ledger = money.day_ledger(day=day)
    text = sharing.day_text(club=club, day=day, games=selectors.day_games(day=day), ledger=ledger)
    assert Game.objects.filter(voided=True).count() == 1
    assert text == PINNED_EVENING, text


PINNED_EVENING = """\
マメの会 2026/11/28
■第1半荘 A卓 レート 0.3
1位 青木 +55.0 チップ+3
2位 馬場 +10.0
3位 千葉 ▲20.0 チップ▲3
4位 土井 ▲45.0
■第2半荘 B卓 レート 0.3 無効
■第3半荘 A卓 レート 0.3
1位 千葉 +65.0
2位 馬場 +5.0
3位 青木 ▲20.0
4位 土井 ▲50.0 チョンボ1回
■この日の合計
青木 +35.0 1,320円
千葉 +45.0 1,080円
馬場 +15.0 450円
土井 ▲95.0 ▲2,850円
■精算
土井 → 青木 1,320円（後日払い＋割増132円＝1,452円）
土井 → 千葉 1,080円
土井 → 馬場 450円
"""


def test_an_attendee_who_played_no_game_and_owes_nothing_is_not_listed(club, players):
    """Checked in for the draw but never seated: 「江藤 0円」 in the day's message was noise
    (found by a phone walkthrough)."""
    from league.draw import services as draw_services
    from tests.support.clubs import make_user

    play_day(club, players)
    day = Day.objects.get(club=club, date=DATE)
    idle = Member.objects.create(club=club, name="見学 太郎")
    draw_services.attendance_check_in(
        club=club, user=make_user("drawer", club, role="organiser"), date=DATE, member=idle
    )
    day = Day.objects.get(pk=day.pk)
    ledger = money.day_ledger(day=day)
    assert str(idle.pk) in {p.name for p in ledger.players}  # an attendee of the ledger
    text = sharing.day_text(club=club, day=day, games=selectors.day_games(day=day), ledger=ledger)
    assert idle.name not in text
    assert all(p.name in text.split("■この日の合計")[1] for p in players)


def test_the_message_names_what_went_to_the_club(club, members, organiser):
    """Issue 37, item 4: the sticks left on the table went to the club (マメの会's rules give the
    house the deposits): the message says so after the day's totals, as the ledger's club row
    and the pot page's account do; a day that left the club nothing says nothing."""
    from league.recording import services
    from league.recording.services import GameInput, SeatInput

    def game(points, deposits, table):
        seats = [SeatInput(m, p) for m, p in zip(members[:4], points, strict=True)]
        data = GameInput(date=EVENING, seats=seats, table=table, deposits=deposits, rate="0.3")
        return services.game_record(club=club, user=organiser, data=data)

    game((45000, 30000, 20000, 5000), 0, "A")
    day = Day.objects.get(club=club, date=EVENING)
    ledger = money.day_ledger(day=day)
    assert ledger.house == 0 and sharing.club_line(club, ledger) is None
    text = sharing.day_text(club=club, day=day, games=selectors.day_games(day=day), ledger=ledger)
    assert "クラブへ" not in text

    game((44000, 30000, 20000, 5000), 1000, "B")
    day = Day.objects.get(pk=day.pk)
    ledger = money.day_ledger(day=day)
    text = sharing.day_text(club=club, day=day, games=selectors.day_games(day=day), ledger=ledger)
    house = ledger.house
    assert house > 0
    line = f"クラブへ（マメの会） {house:,}円（クラブに残った供託・リーチ棒 {house:,}円）"
    assert f"\n{line}\n■精算\n" in text, text


def test_the_club_line_in_english_and_with_its_parts(club, players):
    from types import SimpleNamespace

    from django.utils import translation

    import scoring

    play_day(club, players)
    ledger = money.day_ledger(day=Day.objects.get(club=club, date=DATE))
    with translation.override("en"):
        line = sharing.club_line(club, ledger)
    assert line == "To the club (マメの会) 110 yen (Sticks and deposits left to the club 110 yen)"

    # A day with place fees and rounding too (each part named only when not zero).
    def player(name, game_yen, fees, rounding):
        yen = game_yen + fees + rounding
        return scoring.DayPlayer(name, 1, 0, 0, game_yen, fees, 0, rounding, yen)

    people = (player("1", 1200, -300, 0), player("2", -1500, -300, -20))
    house = -sum(p.yen for p in people)
    assert sharing.club_line(club, SimpleNamespace(players=people, house=house)) == (
        "クラブへ（マメの会） 920円（クラブに残った供託・リーチ棒 300円、順位ごとの場代 600円、"
        "端数処理 20円）"
    )
