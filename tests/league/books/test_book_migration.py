"""Migration 0050 builds the book from the money stored before it (issue 37, step 5).

A history is recorded through the app's writers (every kind of money action, tests/league/
test_books.py's SCRIPT), the database is migrated back to 0048 with MigrationExecutor (the book's
tables dropped: the history as it was stored before the book) and forward again (0049 makes the
book, 0050 posts it). Every balance the pages read before (each member's statement, the club's
own account: the kept lines of league.books) must then equal the sum of its account's legs, every
transaction balance, and check_books find the book equal to the games.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Sum

from league.books import services as books
from league.models import Account, BookLine, LedgerEntry, Leg, Transaction
from tests.support.books import BooksRunner, make_club, run_script

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


def test_the_book_is_built_exactly_from_what_was_stored():
    club, members, user = make_club("migrated")
    run_script(BooksRunner(club, members, user), members)
    before = _kept_balances(club)
    assert len(before) > 4 and any(before.values())
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
    assert books.check_club(club.pk)[1] is None
    unbalanced = Leg.objects.values("transaction_id").order_by().annotate(y=Sum("yen")).exclude(y=0)
    assert not unbalanced.exists()
    for reversal in Transaction.objects.filter(club=club, cause=Transaction.REVERSAL):
        assert reversal.reverses.entry_id == reversal.entry.reverses_id
    assert books.club_post_book(club.pk) == 0  # posting again adds nothing
