"""The book and the kept rows equal the records (issue 21, items 1, 2 and 6; issue 37).

After any random sequence of the writers (games recorded one by one and in bulk, edits, voids,
payments, loans, deferrals, repayments, reversals, undos, closings, back-dated versions,
re-settles, shūgi, attendance, merges), every transaction balances, the book equals the games and
entries re-settled from scratch, and every kept row (each day's totals and what is outstanding,
the open transfers, the debts, every statement line, the club's account) equals the same rows
derived again: league.books.services.check_club, what `manage.py check_books` runs. Runs on
SQLite and PostgreSQL (DATABASE_URL=postgres://…). Also: `manage.py check_books` names a kept
row that drifted and exits 1, `manage.py rebuild_money` repairs it, and the money pages' query
counts are pinned.
"""

from __future__ import annotations

import datetime

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.models import Sum
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league import money
from league.books import selectors as book_selectors
from league.books import services as books
from league.core.errors import ServiceError
from league.models import (
    Account,
    Club,
    Day,
    LedgerEntry,
    Leg,
    Member,
    OpenTransfer,
    Transaction,
)
from league.recording import services
from league.recording.services import GameInput
from tests.support.books import WRITERS, BooksRunner, make_club, run_script
from tests.support.db import as_test_case
from tests.support.money import kagetsu_season
from tests.support.money_agreement import DATES, RULES
from tests.support.seasons import make_season

pytestmark = pytest.mark.django_db

OPS = st.lists(
    st.tuples(
        st.sampled_from(WRITERS),
        st.integers(0, 10_000),
        st.integers(0, 10_000),
        st.integers(0, 10_000),
    ),
    min_size=1,
    max_size=14,
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=OPS)
def test_the_book_and_every_kept_row_equal_the_records(db, ops):
    with as_test_case():
        club, members, user = make_club()
        runner = BooksRunner(club, members, user)
        for op, a, b, c in ops:
            try:
                with as_test_case():
                    runner.run(op, a, b, c)
            except ServiceError:
                pass  # refused with a message: nothing stored, the books unchanged
            assert books.check_club(club.pk)[1] is None, op
        transaction.set_rollback(True)


# --- a known evening, by hand ----------------------------------------------------------------


def evening(club: Club, members: list[Member], user: object) -> Day:
    runner = BooksRunner(club, members, user)
    runner.game(0, 3, 1)
    runner.game(0, 5, 2)
    day = Day.objects.get(club=club, date=DATES[0])
    ledger = money.day_ledger(day=day)
    t = ledger.transfers[0]
    money.transfer_pay(day=day, user=user, payer=money.party(t.payer), payee=money.party(t.payee))
    t = next(t for t in money.day_ledger(day=day).transfers if t.payer is not None)
    money.transfer_defer(day=day, user=user, payer=money.party(t.payer), payee=money.party(t.payee))
    return day


def test_the_club_account_agrees_with_the_house_totals(db):
    club, members, user = make_club("house", RULES)
    day = evening(club, members, user)
    ledger = money.day_ledger(day=day)
    lines, total, _older = book_selectors.club_account(club=club)
    day_lines = [li for li in lines if li.entry is None]
    assert sum(li.yen for li in day_lines) == ledger.house
    fees = -sum(p.fees for p in ledger.players)
    assert [li.yen for li in day_lines if li.what == Leg.FEES] == [fees]
    house = book_selectors.house_totals(club=club, start=day.date, end=day.date)
    assert [(h.day, h.house) for h in house] == [(day, ledger.house)]
    surcharges = sum(
        e.surcharge
        for e in LedgerEntry.objects.filter(club=club, kind=LedgerEntry.DEFERRAL, payee=None)
    )
    assert total == ledger.house + surcharges
    assert lines[-1].balance == total  # the running total ends at the balance


@pytest.mark.parametrize("kept", ["balance", "transfer"])
def test_check_books_names_a_kept_row_that_drifted_and_rebuild_money_repairs_it(db, capsys, kept):
    club, members, user = make_club("drift")
    evening(club, members, user)
    call_command("check_books", "drift")  # no drift: returns
    assert capsys.readouterr().out.endswith("all balanced; the book equals the games\n")
    model, field, said = {
        "balance": (Account, "balance", "drift: account "),
        "transfer": (OpenTransfer, "yen", "drift: the kept transfer "),
    }[kept]
    row = model.objects.filter(club=club).order_by("pk").first()
    model.objects.filter(pk=row.pk).update(**{field: getattr(row, field) + 10})
    with pytest.raises(SystemExit) as exit_:
        call_command("check_books", "drift")
    assert exit_.value.code == 1
    assert capsys.readouterr().out.startswith(said)
    call_command("rebuild_money", "drift", verbosity=0)
    assert books.check_club(club.pk)[1] is None


def test_a_long_statement_is_paginated_with_the_balance_carried(db):
    club, members, user = make_club("pages")
    _grow(club, members, user, 8)
    member = members[0]
    full = book_selectors.full_statement(member=member)  # every line
    assert len(full.lines) > 7
    per = 3
    first = book_selectors.statement(member=member, page=1, per_page=per)
    assert first.older
    assert [li.balance for li in first.lines] == [li.balance for li in full.lines[-per:]]
    pages = -(-len(full.lines) // per)
    last = book_selectors.statement(member=member, page=pages, per_page=per)
    assert not last.older
    assert last.carried == 0
    assert [li.balance for li in last.lines] == [
        li.balance for li in full.lines[: len(full.lines) - per * (pages - 1)]
    ]
    second = book_selectors.statement(member=member, page=2, per_page=per)
    assert second.carried == full.lines[-2 * per - 1].balance
    assert first.balance == full.balance


# --- the money pages' query counts do not grow -------------------------------------------------


def _grow(club: Club, members: list[Member], user: object, days: int) -> None:
    runner = BooksRunner(club, members, user)
    for i in range(days):
        date = datetime.date(2026, 1, 4) + datetime.timedelta(days=7 * i)
        for g in range(2):
            data = runner._data(0, i * 5 + g, g)
            data = GameInput(date=date, seats=data.seats, rate=data.rate, deposits=data.deposits)
            services.game_record(club=club, user=user, data=data)
        day = Day.objects.get(club=club, date=date)
        t = money.day_ledger(day=day).transfers
        if t and t[0].payer is not None:
            money.transfer_defer(
                day=day, user=user, payer=money.party(t[0].payer), payee=money.party(t[0].payee)
            )


MONEY_PAGES = {
    # 10: the open days counted and summed, then the newest listed (issue 39)
    "debt_list": (lambda club, m: ("money:debt_list", [club.slug]), 10),
    "member_statement": (
        lambda club, m: ("money:member_statement", [club.slug, m.pk]),
        11,
    ),  # 8 + 3 by key (the open days and debts: one query over the member's open accounts)
    # My page: 24, and its latest days (the day box finds today among them): 25; the statement
    # lines' entries, their parties and days, read by key (league.books.selectors._lines), and
    # the days' games (MemberDay), the open days and debts in one query: 28; the player's next
    # table (league.models.draw.next_tables): 29, less one; the day's ledger read from the book
    # (its players' parts, its open transfers; league.books.selectors.day_ledger): 29; the
    # user's role read in the club's query (league.access): 28, as every club page one less.
    "my_page": (lambda club, m: ("mypage:my_page", [club.slug]), 28),
    # The day's ledger, its payment sheet: and the players' parts and the open transfers, read
    # from the book (league.books.selectors.day_ledger).
    "day_ledger": (lambda club, m: ("money:day_ledger", [club.slug, DATES[0]]), 16),
    "payment_sheet": (lambda club, m: ("excel:export_payment_sheet", [club.slug, DATES[0]]), 15),
    "club_pot": (lambda club, m: ("money:club_pot", [club.slug]), 15),
}


@pytest.mark.parametrize("page", sorted(MONEY_PAGES))
def test_the_money_pages_query_counts_are_pinned(
    db, client, page, django_assert_num_queries, django_assert_max_num_queries
):
    from django.urls import reverse

    from league.models import Membership

    club, members, user = make_club(f"q-{page.replace('_', '-')}")
    Membership.objects.create(user=user, club=club, role=Membership.ORGANISER)
    Member.objects.filter(pk=members[0].pk).update(user=user)
    make_season(
        club=club, name="2026", start=datetime.date(2026, 1, 1), end=datetime.date(2026, 12, 31)
    )
    evening(club, members, user)
    client.force_login(user)
    name, args = MONEY_PAGES[page][0](club, members[0])
    url = reverse(name, args=args)
    with django_assert_num_queries(MONEY_PAGES[page][1]) as small:
        assert client.get(url).status_code == 200
    _grow(club, members, user, 12)
    with django_assert_max_num_queries(len(small.captured_queries)):
        assert client.get(url).status_code == 200


# --- the book: transactions whose legs sum to zero (issue 37) ----------------------------------


def _unbalanced(club: Club) -> list[tuple[int, int]]:
    """Every transaction of `club` whose legs do not sum to zero, with the sum."""
    return list(
        Leg.objects.filter(transaction__club=club)
        .values("transaction_id")
        .order_by("transaction_id")
        .annotate(total=Sum("yen"))
        .exclude(total=0)
        .values_list("transaction_id", "total")
    )


def test_every_money_action_posts_balanced_transactions(db):
    club, members, user = make_club("ledger")

    def balanced(op: str) -> None:
        assert _unbalanced(club) == [], op
        assert books.check_club(club.pk)[1] is None, op

    posted = run_script(BooksRunner(club, members, user), members, balanced)
    moving = {"game", "bulk", "edit", "void", "shugi", "pay", "loan", "defer", "repay"}
    moving |= {"reverse", "undo", "close", "adjust", "unadjust", "merge"}
    assert {op for op, n in posted.items() if n} >= moving, posted
    causes = set(Transaction.objects.filter(club=club).values_list("cause", flat=True))
    assert causes >= {c for c, _label in Transaction.CAUSES} - {Transaction.PAYOUT}
    reversal = Transaction.objects.filter(club=club, cause=Transaction.REVERSAL).first()
    assert reversal.reverses.entry_id == reversal.entry.reverses_id
    assert Transaction.objects.filter(club=club, correction=True).exists()  # edits, voids


def test_the_pots_payout_posts_balanced_transactions(db):
    club, _m, season = kagetsu_season(10)
    before = Transaction.objects.filter(club=club).count()
    money.pot_pay_out(season=season, user=None, venue_cost=5000)
    payouts = Transaction.objects.filter(club=club, cause=Transaction.PAYOUT)
    assert Transaction.objects.filter(club=club).count() == before + 2 == before + len(payouts)
    assert _unbalanced(club) == []
    assert books.check_club(club.pk)[1] is None
    club_account = Account.objects.get(club=club, kind=Account.CLUB)
    assert (
        sum(Leg.objects.filter(account=club_account).values_list("yen", flat=True))
        == (book_selectors.club_account(club=club)[1])
    )


def test_posting_refuses_a_transaction_that_does_not_balance(db):
    club, members, user = make_club("refuse")
    day = evening(club, members, user)
    leg = Leg.objects.filter(
        transaction__day=day, transaction__cause=Transaction.SETTLEMENT, yen__gt=0
    ).first()
    with transaction.atomic():  # a savepoint: PostgreSQL checks the sum at commit
        Leg.objects.filter(pk=leg.pk).update(yen=leg.yen + 10)
        count = Transaction.objects.count()
        with pytest.raises(books.Unbalanced):
            books.post(club_id=club.pk, days=[day.pk])
        assert Transaction.objects.count() == count
        transaction.set_rollback(True)


def test_check_books_names_the_first_difference(db, capsys):
    club, members, user = make_club("check")
    evening(club, members, user)
    call_command("check_books", "check")
    out, err = capsys.readouterr()
    count = Transaction.objects.filter(club=club).count()
    assert count > 3
    assert out == f"{count} transactions in 1 clubs: all balanced; the book equals the games\n"
    assert "check" in err  # the progress line
    with transaction.atomic():  # a savepoint: PostgreSQL checks the sum at commit
        leg = Leg.objects.filter(transaction__club=club).order_by("id").first()
        Leg.objects.filter(pk=leg.pk).update(yen=leg.yen + 7)
        with pytest.raises(SystemExit) as exit_:
            call_command("check_books", "check")
        assert exit_.value.code == 1
        out = capsys.readouterr().out
        assert out == (
            f"check: transaction {leg.transaction_id} does not balance: its legs sum to 7\n"
        )
        transaction.set_rollback(True)
    # Balanced, but not what the games say: 100 yen moved from one member to another.
    one, two = Account.objects.filter(club=club, kind=Account.MEMBER).order_by("id")[:2]
    moved = Transaction.objects.create(
        club=club, date=DATES[0], cause=Transaction.PAYMENT, correction=True
    )
    Leg.objects.bulk_create(
        [
            Leg(transaction=moved, account=one, yen=-100, member=one.member, date=DATES[0]),
            Leg(transaction=moved, account=two, yen=100, member=two.member, date=DATES[0]),
        ]
    )
    with pytest.raises(SystemExit):
        call_command("check_books")
    out = capsys.readouterr().out
    assert out.startswith("check: the member account of member ")
    assert out.count("\n") == 1


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the database's own check is PostgreSQL's"
)
def test_postgresql_refuses_legs_that_do_not_sum_to_zero(db):
    club, members, user = make_club("pg")
    evening(club, members, user)
    leg = Leg.objects.filter(transaction__club=club).order_by("id").first()
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        Leg.objects.filter(pk=leg.pk).update(yen=leg.yen + 1)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with transaction.atomic():  # balanced again: accepted
        Leg.objects.filter(pk=leg.pk).update(yen=leg.yen)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_the_club_accounts_balance_is_the_sum_of_its_legs(db):
    club, members, user = make_club("legs", RULES)
    evening(club, members, user)
    _lines, total, _older = book_selectors.club_account(club=club)
    own = Account.objects.get(club=club, kind=Account.CLUB)
    assert total == sum(Leg.objects.filter(account=own).values_list("yen", flat=True)) != 0
    assert total == own.balance
    # A balanced transaction posted by hand, its balances not kept: check_books names the
    # kept balance, and rebuild_money sums it again.
    cash = Account.objects.create(club=club, kind=Account.CASH)
    moved = Transaction.objects.create(club=club, date=DATES[0], cause=Transaction.PAYOUT)
    Leg.objects.bulk_create(
        [
            Leg(transaction=moved, account=own, yen=-100, date=DATES[0]),
            Leg(transaction=moved, account=cash, yen=100, date=DATES[0]),
        ]
    )
    assert books.check_club(club.pk)[1] == (
        "the cash account: the book holds 100, the games and entries give 0"
    )
    assert book_selectors.club_account(club=club)[1] == total  # the kept balance
    books.club_rebuild(club_id=club.pk)  # sums it again
    assert book_selectors.club_account(club=club)[1] == total - 100
