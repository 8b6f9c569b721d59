"""My page (c/<slug>/me/): a member sees their own games, season standing, account and what they pay
or receive on the day being settled; the numbers are those of the standings page, the statement
and the day's ledger; nobody else's data; a fixed number of queries at any history size."""

from __future__ import annotations

import datetime
import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from league import money
from league.books import selectors as book_selectors
from league.core import clock
from league.models import Member, Membership, Result, Season
from league.mypage import selectors
from league.standings import stats
from tests.support.clubs import make_club, make_user
from tests.support.isolation import SCRIPT
from tests.support.money import ledger_case_day, record


def earlier() -> datetime.date:
    return clock.today() - datetime.timedelta(days=14)


def by_name(members) -> dict[str, Member]:
    return {m.name: m for m in members}


def page_url(club) -> str:
    return reverse("mypage:my_page", args=[club.slug])


def text(response) -> str:
    return response.content.decode()


def link(member: Member, user) -> Member:
    member.user = user
    member.save(update_fields=["user"])
    return member


@pytest.fixture
def season(club) -> Season:
    return Season.objects.create(
        club=club,
        name="今期",
        start=clock.today() - datetime.timedelta(days=60),
        end=clock.today() + datetime.timedelta(days=60),
    )


@pytest.fixture
def m(members) -> dict[str, Member]:
    return by_name(members)


@pytest.fixture
def me(m, member_user) -> Member:
    """The plain member's login is 千葉's record."""
    return link(m["千葉"], member_user)


@pytest.fixture
def played(club, m, season) -> None:
    """ledger.json's first day two weeks ago (千葉 ▲1,650), and a game 千葉 sat out."""
    ledger_case_day(club, m, earlier())
    record(
        club,
        earlier(),
        [(m["青木"], 40000), (m["馬場"], 30000), (m["土井"], 20000), (m["江藤"], 10000)],
        rate="0.3",
    )


# --- who sees what ---------------------------------------------------------------------------


def test_a_member_sees_exactly_their_games_scores_and_yen(member_client, club, me, played):
    response = member_client.get(page_url(club))
    assert response.status_code == 200
    expected = list(
        Result.objects.filter(member=me, counted=True).order_by("-date", "-game__number")
    )
    assert len(expected) == 2
    games = response.context["games"]
    assert [r.pk for r in games] == [r.pk for r in expected]
    assert [(r.rank, r.score, r.yen) for r in games] == [(r.rank, r.score, r.yen) for r in expected]
    page = text(response)
    rows = re.findall(r'<tr data-game="(\d+)">(.*?)</tr>', page, re.S)
    assert [int(g) for g, _row in rows] == [r.game_id for r in expected]
    for (_game, row), result in zip(rows, expected, strict=True):
        assert reverse("recording:game_detail", args=[club.slug, result.game_id]) in row
        assert reverse("recording:day_detail", args=[club.slug, result.date]) in row
        yen = f"{'▲' if result.yen < 0 else ''}{abs(result.yen):,}"
        assert f">{yen}</td>" in row
    # The game 千葉 sat out is not listed.
    other = Result.objects.filter(counted=True).exclude(game__results__member=me).first()
    assert other is not None and f'data-game="{other.game_id}"' not in page
    assert reverse("standings:player_detail", args=[club.slug, me.pk]) in page


def test_the_season_standing_is_the_standings_pages_row(member_client, club, me, m, played, season):
    season.min_games = 3
    season.save()
    record(
        club,
        clock.today(),
        [(m["千葉"], 45000), (m["青木"], 30000), (m["馬場"], 15000), (m["土井"], 10000)],
        rate="0.3",
    )
    # 青木 and 馬場 have 4 games, 千葉 and 土井 3; 江藤 (2) is below the minimum.
    response = member_client.get(page_url(club))
    standing = response.context["standing"]
    assert response.context["season"] == season
    every = list(
        stats.standings(
            club=club,
            start=season.start,
            end=season.end,
            min_games=season.min_games,
            seasons=[season],
        )
    )
    mine = next(r for r in every if r["member"] == me.pk)
    for key in ("games", "total", "average", "avg_rank", "first", "second", "third", "fourth"):
        assert standing.row[key] == mine[key], key
    assert standing.row["yen"] == mine["yen"]
    assert standing.position == mine["position"]
    assert standing.qualified_players == sum(r["qualified"] for r in every) == 4
    # And the season's standings page shows 千葉's row with that position and total.
    standings_page = text(
        member_client.get(reverse("standings:season_standings", args=[club.slug, season.pk]))
    )
    assert escape(me.name) in standings_page
    page = text(response)
    assert f"{standing.position}位" in page


def test_a_member_below_the_minimum_has_no_position(member_client, club, m, member_user, played):
    Season.objects.update(min_games=2)
    eto = link(m["江藤"], member_user)
    standing = member_client.get(page_url(club)).context["standing"]
    assert standing.row["member"] == eto.pk and standing.row["games"] == 2
    Season.objects.update(min_games=3)
    response = member_client.get(page_url(club))
    standing = response.context["standing"]
    assert standing.position is None and standing.games_to_qualify == 1
    assert "規定対局数まであと1半荘" in text(response)


def test_the_account_is_the_statement(member_client, club, me, m, played):
    response = member_client.get(page_url(club))
    statement = book_selectors.full_statement(member=me)
    assert response.context["account"].balance == statement.balance == -1650
    statement_page = member_client.get(reverse("money:member_statement", args=[club.slug, me.pk]))
    assert statement_page.context["statement"].balance == -1650
    page = text(response)
    assert 'data-balance="-1650"' in page
    assert reverse("money:member_statement", args=[club.slug, me.pk]) in page


def test_a_member_with_a_deferred_debt_sees_it(member_client, club, me, m, played):
    day = Result.objects.filter(member=me).first().game.day
    ledger = money.day_ledger(day=day)
    owed = next(t for t in ledger.transfers if t.payer == str(me.pk))
    entry = money.transfer_defer(day=day, user=None, payer=me.pk, payee=money.party(owed.payee))
    response = member_client.get(page_url(club))
    [debt] = response.context["debts"]
    assert debt.owes and debt.debt.entry == entry
    assert debt.remaining == entry.amount + entry.surcharge
    statement = book_selectors.full_statement(member=me)
    assert response.context["account"].balance == statement.balance
    page = text(response)
    assert f'data-entry="{entry.pk}"' in page
    creditor = ledger.member(money.party(owed.payee))
    name = creditor.name if creditor else club.name
    assert f'{name}さんに <strong class="minus">{debt.remaining:,}円</strong>' in page


def test_what_i_pay_today_is_the_day_ledgers_transfers(member_client, club, me, m, season):
    day = ledger_case_day(club, m, clock.today())
    response = member_client.get(page_url(club))
    settlement = response.context["settlement"]
    assert settlement.is_today and settlement.day == day
    expected = [
        (t.payer == str(me.pk), t.payee if t.payer == str(me.pk) else t.payer, t.yen)
        for t in money.day_ledger(day=day).transfers
        if str(me.pk) in (t.payer, t.payee)
    ]
    assert expected, "千葉 owes on the ledger case day"
    got = [
        (t.pays, None if t.other is None else str(t.other.pk), t.yen) for t in settlement.transfers
    ]
    assert got == expected
    assert sum(-y if pays else y for pays, _o, y in expected) == -1650
    page = text(response)
    assert "本日の精算" in page
    assert page.count("本日の精算：</span>") == len(expected)
    for pays, other, yen in expected:
        assert pays
        whom = f"{Member.objects.get(pk=other).name}さん" if other else f"{club.name}（クラブ）"
        assert f'あなたは {whom}に <strong class="minus">{yen:,}円</strong> 支払い' in page
    assert reverse("money:day_ledger", args=[club.slug, clock.today()]) in page


def test_a_creditor_sees_what_they_receive(client, club, m, season):
    ledger_case_day(club, m, clock.today())
    user = make_user("aoki", club)
    link(m["青木"], user)
    client.force_login(user)
    response = client.get(page_url(club))
    transfers = response.context["settlement"].transfers
    assert transfers and not any(t.pays for t in transfers)
    assert sum(t.yen for t in transfers) == 2040
    assert 'さんから <strong class="plus">' in text(response)


def test_without_a_game_today_the_latest_open_day_is_shown(member_client, club, me, m, played):
    older = ledger_case_day(club, m, earlier() - datetime.timedelta(days=7))
    response = member_client.get(page_url(club))
    settlement = response.context["settlement"]
    assert not settlement.is_today and settlement.day.date == earlier()
    # The older open day is listed with its link.
    assert [d.date for d in response.context["other_open_days"]] == [older.date]
    page = text(response)
    assert f'data-open-day="{older.date:%Y-%m-%d}"' in page
    assert f"{earlier():%Y/%m/%d}の精算：</span>" in page


def test_a_settled_day_says_so(member_client, club, me, m, season):
    day = ledger_case_day(club, m, clock.today())
    for t in money.day_ledger(day=day).transfers:
        if t.payer is not None:
            money.transfer_pay(day=day, user=None, payer=int(t.payer), payee=money.party(t.payee))
    settlement = member_client.get(page_url(club)).context["settlement"]
    assert settlement.transfers == []
    assert "支払い・受け取りはありません" in text(member_client.get(page_url(club)))


def test_a_member_of_a_club_without_money_sees_no_money(client, db):
    club = make_club("kenko", "takabari-kenko", "健康麻雀")
    players = [Member.objects.create(club=club, name=n) for n in ("一", "二", "三", "四")]
    record(club, clock.today(), list(zip(players, (40000, 30000, 20000, 10000), strict=True)))
    user = make_user("kenko-member", club)
    link(players[0], user)
    client.force_login(user)
    response = client.get(page_url(club))
    assert response.status_code == 200
    assert response.context["has_money"] is False
    assert "account" not in response.context and "settlement" not in response.context
    page = text(response)
    assert 'id="account"' not in page and 'id="settlement"' not in page
    assert "収支" not in page  # no yen column or statistic
    assert len(response.context["games"]) == 1


def test_an_unlinked_member_gets_a_friendly_page(member_client, club, members, played):
    response = member_client.get(page_url(club))
    assert response.status_code == 200
    assert response.context["me"] is None
    page = text(response)
    assert 'id="not-linked"' in page and "幹事" in page and "招待リンク" in page
    assert 'class="mine"' not in page  # no My page in the nav for someone not linked
    home = text(member_client.get(reverse("recording:club_home", args=[club.slug])))
    assert page_url(club) not in home


def test_a_linked_member_has_my_page_in_the_nav_and_on_the_club_home(member_client, club, me):
    home = text(member_client.get(reverse("recording:club_home", args=[club.slug])))
    assert f'<a class="mine" href="{page_url(club)}">マイページ</a>' in home
    assert "data-my-page-link" in home
    standings = text(member_client.get(reverse("standings:standings", args=[club.slug])))
    assert f'class="mine" href="{page_url(club)}"' in standings


def test_a_merged_record_leads_to_the_surviving_one(client, club, m, member_user, played):
    survivor = m["千葉"]
    old = Member.objects.create(
        club=club, name="ちば（旧）", user=member_user, merged_into=survivor, is_active=False
    )
    assert old.user == member_user
    client.force_login(member_user)
    response = client.get(page_url(club))
    assert response.context["me"] == survivor
    assert len(response.context["games"]) == 2
    # A record in use comes before a merged one.
    link(m["江藤"], member_user)
    assert selectors.linked_member(club=club, user=member_user) == m["江藤"]


def test_the_latest_lines_are_the_statements(member_client, club, me, m, played):
    day = Result.objects.filter(member=me).first().game.day
    owed = next(t for t in money.day_ledger(day=day).transfers if t.payer == str(me.pk))
    paid = money.transfer_pay(day=day, user=None, payer=me.pk, payee=money.party(owed.payee))
    money.entry_reverse(entry=paid, user=None, note="wrong player")
    response = member_client.get(page_url(club))
    statement = book_selectors.full_statement(member=me)
    expected = [(line.date, line.what, line.yen) for line in statement.lines][::-1]
    got = [(line.date, line.what, line.yen) for line, _text, _shown in response.context["lines"]]
    assert got == expected[: selectors.STATEMENT_LINES]
    assert response.context["account"].balance == statement.balance
    page = text(response)
    assert "訂正" in page  # the reversal's words, as on the statement


def pay_all(day, member: Member) -> None:
    """The member pays what they still owe on the day, one transfer at a time."""
    while True:
        owed = [t for t in money.day_ledger(day=day).transfers if t.payer == str(member.pk)]
        if not owed:
            return
        money.transfer_pay(day=day, user=None, payer=member.pk, payee=money.party(owed[0].payee))


def test_a_long_history_counts_every_day(member_client, club, me, m, season, monkeypatch):
    """The position is read from the kept books (league.books): every open day and debt counts,
    however long the history, and the balance is the statement's to the yen."""
    monkeypatch.setattr(selectors, "RECENT_MONEY_DAYS", 2)
    days = [
        ledger_case_day(club, m, clock.today() - datetime.timedelta(days=7 * i)) for i in range(4)
    ]
    oldest = days[-1]
    money.transfer_defer(day=oldest, user=None, payer=me.pk, payee=m["馬場"].pk)
    pay_all(oldest, me)  # the rest of 千葉's oldest day
    response = member_client.get(page_url(club))
    account = response.context["account"]
    assert not account.older_left_out
    assert 'id="older-left-out"' not in text(response)
    assert [d.day.date for d in account.position.open_days] == [
        days[2].date,
        days[1].date,
        days[0].date,
    ]
    assert [d.debt.entry.day for d in response.context["debts"]] == [oldest]
    assert account.balance == book_selectors.full_statement(member=me).balance
    pay_all(days[2], me)
    account = member_client.get(page_url(club)).context["account"]
    assert account.balance == book_selectors.full_statement(member=me).balance


def test_a_chain_of_merges_is_followed_to_its_end(club, member_user, members):
    first, second, last = members[0], members[1], members[2]
    Member.objects.filter(pk=first.pk).update(user=member_user, merged_into=second)
    Member.objects.filter(pk=second.pk).update(merged_into=last)
    assert selectors.linked_member(club=club, user=member_user) == last
    Member.objects.filter(pk=last.pk).update(merged_into=first)  # a cycle: nothing to show
    assert selectors.linked_member(club=club, user=member_user) is None


def test_the_current_season_is_the_one_running_today(club):
    def season(name: str, start: int, end: int) -> Season:
        return Season(
            club=club,
            name=name,
            start=clock.today() + datetime.timedelta(days=start),
            end=clock.today() + datetime.timedelta(days=end),
        )

    year, half, past, future = (
        season("year", -200, 100),
        season("half", -20, 100),
        season("past", -400, -300),
        season("next", 10, 100),
    )
    assert selectors.current_season([year, half, past, future], clock.today()) == half
    assert selectors.current_season([past, future], clock.today()) == past
    assert selectors.current_season([future], clock.today()) == future
    assert selectors.current_season([], clock.today()) is None


# --- isolation -------------------------------------------------------------------------------


def test_outsiders_and_logged_out_visitors_get_404(client, club, other_club, stranger, me):
    # The stranger is linked to a record of their own club: still nothing here.
    Member.objects.create(club=other_club, name="余所者", user=stranger)
    assert client.get(page_url(club)).status_code == 404
    client.force_login(stranger)
    assert client.get(page_url(club)).status_code == 404
    assert client.post(page_url(club)).status_code == 405
    assert client.get(page_url(other_club)).status_code == 200


def test_a_member_only_ever_sees_their_own_data(member_client, club, me, m, played):
    """No member id in the address; a query string naming another member changes nothing."""
    assert reverse("mypage:my_page", kwargs={"slug": club.slug}).endswith("/me/")
    response = member_client.get(page_url(club), {"member": m["青木"].pk, "member_id": 1})
    assert response.context["me"] == me
    assert response.context["standing"].row["member"] == me.pk
    assert {r.member_id for r in response.context["games"]} == {me.pk}


def test_another_clubs_record_linked_to_the_user_is_not_theirs_here(
    member_client, club, other_club, member_user, members
):
    Membership.objects.create(user=member_user, club=other_club, role=Membership.MEMBER)
    Member.objects.create(club=other_club, name="余所の私", user=member_user)
    response = member_client.get(page_url(club))
    assert response.context["me"] is None
    assert "余所の私" not in text(response)


# --- cost ------------------------------------------------------------------------------------


def _history(club, m, days: int, has_money: bool) -> None:
    """`days` weekly days of two games each (with money: the ledger case, with a deferral and a
    payment each), and one more day today."""
    dates = [earlier() - datetime.timedelta(days=7 * i) for i in range(days)] + [clock.today()]
    for date in dates:
        if not has_money:
            for _game in range(2):
                seats = zip((m["青木"], m["馬場"], m["千葉"], m["土井"]), POINTS, strict=True)
                record(club, date, list(seats))
            continue
        day = ledger_case_day(club, m, date)
        if date != clock.today():
            money.transfer_defer(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
            money.transfer_pay(day=day, user=None, payer=m["土井"].pk, payee=m["青木"].pk)


POINTS = (40000, 30000, 20000, 10000)
# session + user, the club with the role, the member, then the page's own reads; with money, the
# member's kept books (league.books), their latest days and the day's ledger (money.day_ledger,
# with its players' parts and open transfers read from the book).
# The statement lines' entries, their parties and days: three reads by key (league.books).
# The member's next table of today's draw: one read (league.models.draw.next_tables).
QUERIES = {"mame-no-kai": 27, "takabari-kenko": 11}


@pytest.mark.parametrize("preset", ["mame-no-kai", "takabari-kenko"])
def test_the_query_count_does_not_grow_with_the_history(db, preset, django_assert_num_queries):
    for slug, days in (("small", 1), ("big", 12)):
        club = make_club(slug, preset)
        Season.objects.create(
            club=club,
            name="今期",
            start=clock.today() - datetime.timedelta(days=400),
            end=clock.today() + datetime.timedelta(days=1),
        )
        m = {
            n: Member.objects.create(club=club, name=n)
            for n in ("青木", "馬場", "千葉", "土井", "江藤")
        }
        _history(club, m, days, preset == "mame-no-kai")
        user = make_user(f"{slug}-chiba", club)
        link(m["千葉"], user)
        client = Client()
        client.force_login(user)
        with django_assert_num_queries(QUERIES[preset]):
            response = client.get(page_url(club))
        assert response.status_code == 200
        assert len(response.context["games"]) == min(selectors.RECENT_GAMES, 2 * days + 2)
        if preset == "mame-no-kai":
            assert response.context["settlement"].is_today
            assert len(response.context["debts"]) == days


# --- words -----------------------------------------------------------------------------------


def test_the_page_in_english(member_client, club, me, m, season):
    ledger_case_day(club, m, clock.today())
    member_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    page = text(member_client.get(page_url(club)))
    assert "My page" in page and "Today's settlement" in page
    assert 'You pay 馬場 <strong class="minus">1,140 yen</strong>' in page
    assert 'You pay the club (マメの会) <strong class="minus">30 yen</strong>' in page


def test_names_with_html_are_escaped(client, club, m, season):
    bad = Member.objects.create(club=club, name=SCRIPT, kana="あ")
    user = make_user("bad", club)
    link(m["青木"], user)
    record(
        club,
        clock.today(),
        [(m["青木"], 45000), (m["馬場"], 30000), (m["土井"], 15000), (bad, 10000)],
        rate="0.3",
    )
    client.force_login(user)
    page = text(client.get(page_url(club)))
    assert SCRIPT not in page
    assert escape(SCRIPT) in page  # 青木 receives from the player with the hostile name
