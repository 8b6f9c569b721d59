"""Migrations 0049–0054 build the book from the money stored before it (issue 37).

A history is recorded through the app's writers (every kind of money action, tests/league/
test_books.py's SCRIPT), the database is migrated back to 0048 with MigrationExecutor (the book's
tables dropped: the history as it was stored before the book) and forward again (0049 makes the
book, 0053 gives it a member's parts, 0054 posts it). Every figure the pages read before (each
member's statement and the club's own account, each member's open days and each day's parts,
each open debt: the kept rows of league.books) must then equal the sums of the book's legs,
every transaction balance, and check_books find the book equal to the games.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Sum

from league.books import services as books
from league.models import (
    Account,
    BookLine,
    DayAccount,
    DebtAccount,
    LedgerEntry,
    Leg,
    Transaction,
)
from tests.league.test_books import BooksRunner, make_club, run_script

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE_THE_BOOK = [("league", "0048_import_batch")]


def _migrate(targets: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def _latest() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def _kept_balances(club) -> dict[int | None, int]:
    rows = BookLine.objects.filter(club=club).values("member_id").order_by().annotate(y=Sum("yen"))
    return {r["member_id"]: r["y"] for r in rows}


def _book_balances(club) -> dict[int | None, int]:
    rows = (
        Leg.objects.filter(account__club=club, account__kind__in=[Account.MEMBER, Account.CLUB])
        .values("account__member_id")
        .order_by()
        .annotate(y=Sum("yen"))
    )
    return {r["account__member_id"]: r["y"] for r in rows}


def _kept_open(club) -> tuple[dict, dict, dict]:
    """Open days, each day's parts and open debts as the kept rows had them."""
    days = DayAccount.objects.filter(club=club, member__isnull=False)
    open_days = {(a.member_id, a.day_id): a.outstanding for a in days if a.outstanding}
    parts = {
        (a.member_id, a.day_id, part): getattr(a, "game_yen" if part == "games" else part)
        for a in days
        for part in ("games", "fees", "shugi", "rounding")
        if getattr(a, "game_yen" if part == "games" else part)
    }
    debts = {
        d.entry_id: d.remaining for d in DebtAccount.objects.filter(club=club, remaining__gt=0)
    }
    return open_days, parts, debts


def _book_open(club) -> tuple[dict, dict, dict]:
    """The same from the book: the accounts' kept balances, and the day legs' parts summed."""
    accounts = Account.objects.filter(club=club, kind=Account.MEMBER).exclude(balance=0)
    open_days = {(a.member_id, a.day_id): a.balance for a in accounts if a.day_id}
    debts = {}
    for a in accounts.filter(debt__isnull=False).select_related("debt"):
        debtor = a.debt.borrower_id
        if a.member_id == debtor or debtor is None:
            debts[a.debt_id] = abs(a.balance)
    rows = (
        Leg.objects.filter(account__club=club, seq=0, member__isnull=False)
        .values("member_id", "account__day_id", "part")
        .order_by()
        .annotate(y=Sum("yen"))
    )
    parts = {(r["member_id"], r["account__day_id"], r["part"]): r["y"] for r in rows if r["y"]}
    return open_days, parts, debts


def test_the_book_is_built_exactly_from_what_was_stored():
    club, members, user = make_club("migrated")
    run_script(BooksRunner(club, members, user), members)
    before = _kept_balances(club)
    assert len(before) > 4 and any(before.values())
    open_before = _kept_open(club)
    assert all(open_before), open_before  # open days, parts and open debts to compare
    assert LedgerEntry.objects.filter(club=club, kind=LedgerEntry.REVERSAL).exists()
    latest = _latest()
    try:
        _migrate(BEFORE_THE_BOOK)
        with connection.cursor() as cursor:
            assert "league_leg" not in connection.introspection.table_names(cursor)
        _migrate(latest)  # 0049 makes the book, 0050 posts what is stored
    finally:
        _migrate(latest)
    assert _book_balances(club) == before
    assert _book_open(club) == open_before
    assert books.check_club(club.pk)[1] is None
    unbalanced = Leg.objects.values("transaction_id").order_by().annotate(y=Sum("yen")).exclude(y=0)
    assert not unbalanced.exists()
    for reversal in Transaction.objects.filter(club=club, cause=Transaction.REVERSAL):
        assert reversal.reverses.entry_id == reversal.entry.reverses_id
    assert books.club_post_book(club.pk) == 0  # posting again adds nothing
