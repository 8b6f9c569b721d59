"""Members' statements, the open debts with their repay forms, and the club pot: what they show,
who may see and change what, and query counts that do not grow with the data."""

from __future__ import annotations

import datetime

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

import scoring
from league import money
from league.books.selectors import STATEMENT_PAGE
from league.models import LedgerEntry, Member, Membership
from tests.support.clubs import make_club, make_user
from tests.support.money import DATE, kagetsu_season, ledger_case_day, make_members
from tests.support.seasons import make_season


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def text(response) -> str:
    return response.content.decode()


def by_name(members) -> dict[str, Member]:
    return {m.name: m for m in members}


@pytest.fixture
def day(club, members):
    """ledger.json's first day: 千葉 owes 馬場 1,140 among others."""
    return ledger_case_day(club, by_name(members))


@pytest.fixture
def deferral(day, members) -> LedgerEntry:
    m = by_name(members)
    return money.transfer_defer(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)


def statement_url(club, member) -> str:
    return reverse("money:member_statement", args=[club.slug, member.pk])


def repay_url(club, entry) -> str:
    return reverse("money:debt_repay", args=[club.slug, entry.pk])


# --- a member's statement --------------------------------------------------------------------


def test_statement_shows_the_days_entries_balance_and_debts(
    organiser_client, club, members, deferral
):
    m = by_name(members)
    money.transfer_pay(
        day=deferral.day, user=None, payer=m["千葉"].pk, payee=m["江藤"].pk, amount=300
    )
    response = english(organiser_client).get(statement_url(club, m["千葉"]))
    assert response.status_code == 200
    page = text(response)
    assert "Day's result" in page and "2 games" in page
    assert reverse("money:day_ledger", args=[club.slug, DATE]) in page
    assert "Paid 江藤" in page and "Deferred paying 馬場" in page and "surcharge 114" in page
    # ▲1,650 for the day, +300 paid, ▲114 of surcharge: owes 1,464 (English minus).
    assert response.context["statement"].balance == -1464
    assert "Owes" in page and "-1,464" in page
    [debt] = response.context["debts"]
    assert (debt.text, debt.debt.remaining, debt.owes, debt.debt.principal) == (
        "Owes 馬場",
        1254,
        True,
        1254,
    )
    assert "incl. surcharge 114" in page
    # Organisers may correct an entry.
    assert reverse("money:entry_reverse", args=[club.slug, deferral.pk]) in page


def test_statement_of_the_creditor(member_client, club, members, deferral):
    m = by_name(members)
    response = english(member_client).get(statement_url(club, m["馬場"]))
    assert response.status_code == 200
    page = text(response)
    assert "千葉 deferred" in page and "Owed by 千葉" in page and "Is owed" in page
    assert response.context["statement"].balance == 1140 + 114
    assert (
        reverse("money:entry_reverse", args=[club.slug, deferral.pk]) not in page
    )  # not an organiser


def test_statement_marks_a_cancelled_entry(organiser_client, club, members, day):
    m = by_name(members)
    paid = money.transfer_pay(day=day, user=None, payer=m["土井"].pk, payee=m["青木"].pk)
    money.entry_reverse(entry=paid, user=None, note="wrong player")
    response = english(organiser_client).get(statement_url(club, m["土井"]))
    rows = response.context["rows"]
    assert [(r.line.what, r.line.reversed) for r in rows] == [
        ("day", False),
        ("payment", True),
        ("reversal", False),
    ]
    assert rows[2].text == "Correction: Paid 青木 (cancelled)"
    assert "wrong player" in text(response)
    assert response.context["statement"].balance == -1860


def test_statement_of_a_member_without_anything(member_client, club, members):
    response = english(member_client).get(statement_url(club, members[0]))
    assert response.status_code == 200
    assert "Settled" in text(response) and "Nothing yet." in text(response)


def test_statement_permissions(
    client, member_client, stranger_client, club, other_club, members, stranger
):
    url = statement_url(club, members[0])
    assert member_client.get(url).status_code == 200
    assert stranger_client.get(url).status_code == 404
    assert client.get(url).status_code == 404  # logged out
    assert member_client.post(url).status_code == 405
    theirs = Member.objects.create(club=other_club, name="他人")
    assert member_client.get(statement_url(club, theirs)).status_code == 404
    assert (
        member_client.get(reverse("money:member_statement", args=[club.slug, 99999])).status_code
        == 404
    )


@pytest.fixture
def kenko(db):
    """A club without money (健康麻雀) and its organiser's client."""
    club = make_club("kenko", "takabari-kenko")
    user = make_user("kenko-org", club, Membership.ORGANISER)
    client = Client()
    client.force_login(user)
    member = Member.objects.create(club=club, name="健康")
    return club, client, member


def test_a_club_without_money_has_no_money_pages(kenko):
    club, client, member = kenko
    assert client.get(statement_url(club, member)).status_code == 404
    assert client.get(reverse("money:debt_list", args=[club.slug])).status_code == 404
    assert client.get(reverse("money:club_pot", args=[club.slug])).status_code == 404
    assert client.post(reverse("money:club_pot", args=[club.slug])).status_code == 404
    assert client.post(reverse("money:debt_repay", args=[club.slug, 1])).status_code == 404


def _statement_data(club, n_days: int) -> Member:
    m = make_members(club)
    for i in range(n_days):
        day = ledger_case_day(club, m, DATE - datetime.timedelta(days=i))
        entry = money.transfer_defer(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
        money.debt_repay(debt_entry=entry, user=None, amount=100)
        money.transfer_pay(day=day, user=None, payer=m["千葉"].pk, payee=m["江藤"].pk)
    return m["千葉"]


def test_statement_query_count_does_not_grow(db, django_assert_num_queries):
    small, big = make_club("small"), make_club("big")
    user = make_user("both", small)
    Membership.objects.create(user=user, club=big)
    client = Client()
    client.force_login(user)
    few, many = _statement_data(small, 2), _statement_data(big, 20)
    client.get(statement_url(small, few))
    # the book (league.books): the member's open accounts, their lines summed, the lines'
    # entries, parties and days by key, their days' games and score
    with django_assert_num_queries(11) as captured:
        assert len(client.get(statement_url(small, few)).context["rows"]) == 2 * 4
    with django_assert_num_queries(len(captured.captured_queries)):
        rows = client.get(statement_url(big, many)).context["rows"]
        assert len(rows) == min(20 * 4, STATEMENT_PAGE)  # the first page of a long statement


# --- open debts ------------------------------------------------------------------------------


def test_debt_list_shows_open_debts_oldest_first_with_the_total(
    organiser_client, club, members, deferral
):
    m = by_name(members)
    later = ledger_case_day(club, m, DATE + datetime.timedelta(days=7))
    loan = money.transfer_borrow(
        day=later, user=None, payer=m["土井"].pk, payee=m["青木"].pk, lender=m["江藤"]
    )
    money.debt_repay(debt_entry=loan, user=None, amount=60)
    response = english(organiser_client).get(reverse("money:debt_list", args=[club.slug]))
    assert response.status_code == 200
    assert [(d.entry, age) for d, age in response.context["debts"]] == [
        (deferral, (timezone.localdate() - DATE).days),
        (loan, (timezone.localdate() - DATE).days - 7),
    ]
    assert response.context["total"] == 1254 + 1800
    page = text(response)
    assert "3,054" in page and "1,254" in page and "1,800" in page
    assert repay_url(club, deferral) in page and repay_url(club, loan) in page
    assert statement_url(club, m["千葉"]) in page and statement_url(club, m["江藤"]) in page


def test_debt_list_for_a_member_has_no_repay_forms(member_client, club, deferral):
    response = english(member_client).get(reverse("money:debt_list", args=[club.slug]))
    assert response.status_code == 200
    assert "千葉" in text(response) and repay_url(club, deferral) not in text(response)


def test_debt_list_without_debts(member_client, club):
    response = english(member_client).get(reverse("money:debt_list", args=[club.slug]))
    assert response.status_code == 200 and "No open debts." in text(response)


def test_debt_list_permissions(client, member_client, stranger_client, club):
    url = reverse("money:debt_list", args=[club.slug])
    assert member_client.get(url).status_code == 200
    assert stranger_client.get(url).status_code == 404
    assert client.get(url).status_code == 404
    assert member_client.post(url).status_code == 405


def test_debt_list_query_count_does_not_grow(db, django_assert_num_queries):
    small, big = make_club("small"), make_club("big")
    user = make_user("both", small, Membership.ORGANISER)
    Membership.objects.create(user=user, club=big, role=Membership.ORGANISER)
    client = Client()
    client.force_login(user)
    _statement_data(small, 2)
    _statement_data(big, 20)
    client.get(reverse("money:debt_list", args=[small.slug]))
    # the kept books' rows (league.books): the open days counted and summed, the newest listed
    with django_assert_num_queries(10) as captured:
        assert len(client.get(reverse("money:debt_list", args=[small.slug])).context["debts"]) == 2
    with django_assert_num_queries(len(captured.captured_queries)):
        assert len(client.get(reverse("money:debt_list", args=[big.slug])).context["debts"]) == 20


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_organiser_repays_part_then_the_rest(organiser_client, club, members, deferral):
    english(organiser_client)
    response = organiser_client.post(repay_url(club, deferral), {"amount": "５００"}, follow=True)
    assert response.redirect_chain == [(reverse("money:debt_list", args=[club.slug]), 302)]
    assert _messages(response) == ["千葉 repaid 500 yen to 馬場."]
    [repayment] = LedgerEntry.objects.filter(debt=deferral)
    assert (repayment.kind, repayment.payer.name, repayment.payee.name, repayment.amount) == (
        LedgerEntry.PAYMENT,
        "千葉",
        "馬場",
        500,
    )
    response = organiser_client.post(repay_url(club, deferral), {"amount": ""}, follow=True)
    assert _messages(response) == ["千葉 repaid 754 yen to 馬場."]
    assert money.open_debts(club=club) == []


@pytest.mark.parametrize("amount", ["abc", "0", "1,255", "-5"])
def test_a_bad_repayment_is_refused_with_a_message(organiser_client, club, deferral, amount):
    response = organiser_client.post(repay_url(club, deferral), {"amount": amount}, follow=True)
    assert response.status_code == 200
    assert [m.level_tag for m in response.context["messages"]] == ["error"]
    assert not LedgerEntry.objects.filter(debt=deferral).exists()


def test_a_paid_debt_cannot_be_repaid_again(organiser_client, club, deferral):
    money.debt_repay(debt_entry=deferral, user=None)
    response = english(organiser_client).post(repay_url(club, deferral), follow=True)
    assert _messages(response) == ["This debt is already paid."]
    assert LedgerEntry.objects.filter(debt=deferral).count() == 1


def test_debt_repay_permissions(
    client, member_client, stranger_client, organiser_client, club, other_club, members, deferral
):
    url = repay_url(club, deferral)
    assert member_client.post(url).status_code == 403
    assert stranger_client.post(url).status_code == 404
    assert client.post(url).status_code == 404
    assert organiser_client.get(url).status_code == 405
    # Only loans and deferrals of this club can be repaid.
    paid = LedgerEntry.objects.get(
        pk=money.transfer_pay(
            day=deferral.day,
            user=None,
            payer=by_name(members)["土井"].pk,
            payee=by_name(members)["青木"].pk,
        ).pk
    )
    assert organiser_client.post(repay_url(club, paid)).status_code == 404
    assert stranger_client.post(repay_url(other_club, deferral)).status_code == 404
    assert not LedgerEntry.objects.filter(debt=deferral).exists()


# --- the club pot ----------------------------------------------------------------------------


@pytest.fixture
def kagetsu(db):
    """花月杯 with a ten-day season (20,000 yen of 4th-place fees), an organiser and a member."""
    club, m, season = kagetsu_season(10)
    clients = {}
    for role in (Membership.ORGANISER, Membership.MEMBER):
        client = english(Client())
        client.force_login(make_user(f"kagetsu-{role}", club, role))
        clients[role] = client
    return club, m, season, clients[Membership.ORGANISER], clients[Membership.MEMBER]


def pot_url(club, season=None) -> str:
    url = reverse("money:club_pot", args=[club.slug])
    return f"{url}?season={season.pk}" if season else url


def test_pot_shows_income_and_champion(kagetsu):
    club, m, season, organiser, _member = kagetsu
    response = organiser.get(pot_url(club))  # the latest season by default
    assert response.status_code == 200
    assert response.context["season"] == season
    pot = response.context["pot"]
    assert (pot.income, pot.balance, pot.champion) == (20_000, 20_000, m["青木"])
    page = text(response)
    assert "20,000" in page and "青木" in page and "champion's prize up to 10,000 yen" in page
    assert reverse("money:day_ledger", args=[club.slug, DATE]) in page
    assert 'name="venue_cost"' in page and response.context["preview"] is None


def test_pot_previews_the_split_then_pays_out(kagetsu):
    club, m, season, organiser, _member = kagetsu
    response = organiser.get(pot_url(club, season) + "&venue_cost=5,000")
    assert response.context["preview"] == scoring.PotPayout(5000, 10_000, 5000)
    assert not LedgerEntry.objects.exists()
    response = organiser.post(pot_url(club, season), {"venue_cost": "5000"}, follow=True)
    assert response.redirect_chain == [(pot_url(club, season), 302)]
    assert _messages(response) == ["Paid out 15,000 yen."]
    assert [(e.kind, e.amount, e.payee) for e in LedgerEntry.objects.order_by("id")] == [
        (LedgerEntry.EXPENSE, 5000, None),
        (LedgerEntry.PRIZE, 10_000, m["青木"]),
    ]
    page = text(response)
    assert "Champion's prize to 青木" in page and 'name="venue_cost"' not in page
    assert response.context["pot"].balance == 5000
    # Paying out twice is refused.
    response = organiser.post(pot_url(club, season), {"venue_cost": "0"})
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == ["This season's pot is already paid out."]
    assert LedgerEntry.objects.count() == 2


def test_pot_form_errors(kagetsu):
    club, _m, season, organiser, _member = kagetsu
    for bad in ["", "abc", "-1"]:
        response = organiser.post(pot_url(club, season), {"venue_cost": bad})
        assert response.status_code == 200
        assert response.context["form"].errors["venue_cost"]
    assert organiser.get(pot_url(club, season) + "&venue_cost=x").context["preview"] is None
    assert not LedgerEntry.objects.exists()


def test_pot_permissions(kagetsu, client, stranger_client):
    club, _m, season, organiser, member = kagetsu
    url = pot_url(club, season)
    response = member.get(url)
    assert response.status_code == 200 and 'name="venue_cost"' not in text(response)
    assert member.post(url, {"venue_cost": "0"}).status_code == 403
    assert stranger_client.get(url).status_code == 404
    assert client.get(url).status_code == 404
    assert organiser.put(url).status_code == 405
    other = make_club("other", "kagetsu-cup")
    theirs = make_season(club=other, name="x", start=DATE, end=DATE)
    assert organiser.get(pot_url(club, theirs)).status_code == 404
    assert organiser.get(pot_url(club) + "?season=abc").status_code == 404
    assert not LedgerEntry.objects.exists()


def test_a_club_without_a_pot_says_so(organiser_client, club, day):
    make_season(club=club, name="s", start=DATE, end=DATE)
    response = english(organiser_client).get(pot_url(club))
    assert response.status_code == 200
    assert "This club has no pot" in text(response)


def test_pot_without_seasons(organiser_client, club):
    response = english(organiser_client).get(pot_url(club))
    assert response.status_code == 200 and "add a season first" in text(response)


def test_pot_query_count_does_not_grow(db, django_assert_num_queries):
    _club, _m, small = kagetsu_season(2)
    _club, _m, big = kagetsu_season(15, slug="big")
    user = make_user("both", small.club, Membership.ORGANISER)
    Membership.objects.create(user=user, club=big.club, role=Membership.ORGANISER)
    client = Client()
    client.force_login(user)
    client.get(pot_url(small.club))
    # the kept books' rows (league.books), the lines' entries, parties and days by key
    with django_assert_num_queries(15) as captured:
        assert client.get(pot_url(small.club)).context["pot"].income == 4000
    with django_assert_num_queries(len(captured.captured_queries)):
        assert client.get(pot_url(big.club)).context["pot"].income == 30_000


def test_the_debts_page_lists_the_newest_open_days_and_sums_them_all(
    organiser_client, club, django_assert_num_queries
):
    # Issue 39: a club that settles outside the app leaves every day open; the page listed
    # every open day's transfers (2.7–3.3 s of CPU at 10,000 games). Now the newest
    # OPEN_DAYS_SHOWN, and each member's share of them all in the standing.
    from league.books.selectors import OPEN_DAYS_SHOWN, club_books
    from league.models import OpenTransfer

    m = make_members(club)
    days = OPEN_DAYS_SHOWN + 5
    for i in range(days):
        ledger_case_day(club, m, DATE - datetime.timedelta(days=i))
    assert OpenTransfer.objects.filter(club=club).values("day").distinct().count() == days
    url = reverse("money:debt_list", args=[club.slug])
    organiser_client.get(url)
    with django_assert_num_queries(10):  # as test_debt_list_query_count_does_not_grow's
        response = organiser_client.get(url, HTTP_ACCEPT_LANGUAGE="ja")
    shown = response.context["open_days"]
    assert len(shown) == OPEN_DAYS_SHOWN
    assert [d.date for d, _t in shown] == [
        DATE - datetime.timedelta(days=i) for i in range(OPEN_DAYS_SHOWN)
    ]
    page = response.content.decode()
    assert "ほかに5日" in page
    books = club_books(club=club)
    everything = sum(t.yen for t in OpenTransfer.objects.filter(club=club))
    assert books.open_transfers_total == everything == response.context["open_total"]
    # Each member's standing sums every open day, shown or not.
    from league.books import selectors as book_selectors
    from league.models import Account

    for row in books.standing:
        assert row.days == sum(
            a.balance for a in Account.objects.filter(member=row.member, day__isnull=False)
        )
        assert row.days == sum(d.yen for d in book_selectors.position(member=row.member).open_days)
