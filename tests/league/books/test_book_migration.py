"""Migrations 0049–0055 build the book from the money stored before it (issue 37).

A history is recorded through the app's writers (every kind of money action, tests/league/
test_books.py's SCRIPT), the database is migrated back to 0048 with MigrationExecutor (the book's
tables dropped: the history as it was stored before the book) and forward again (0049 makes the
book, 0053 gives it a member's parts, 0054 posts it, 0055 drops the kept rows it replaced).
Every figure the pages read (each member's balance, statement lines and their parts, open days
and open debts; the club's own account and each day's house total) must be the same before and
after, every transaction balance, and check_books find the book equal to the games.

When 0054 was written the pages still read the kept rows (DayAccount, BookLine, DebtAccount),
and this test compared those with the book posted by 0054 (commit "The book in a member's
parts"): every balance, open day, day's part and open debt was equal. Those rows are gone (0055);
the book the writers post is now the figure to keep.
"""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.db.models import Sum

from league.books import selectors as book_selectors
from league.books import services as books
from league.models import Club, LedgerEntry, Leg, Member, Transaction
from tests.support.books import BooksRunner, make_club, run_script
from tests.support.migrations import migrated_back

pytestmark = pytest.mark.django_db(transaction=True)


def _figures(club: Club) -> dict[str, object]:
    """Every money figure the pages show, read as the pages read it."""
    out: dict[str, object] = {}
    for member in Member.objects.filter(club=club).order_by("pk"):
        member.club = club
        statement = book_selectors.full_statement(member=member)
        position = statement.position
        assert position is not None
        out[f"member {member.pk}"] = (
            statement.balance,
            [
                (li.date, li.what, li.yen, li.balance, li.day, li.entry, li.parts, li.reversed)
                for li in statement.lines
            ],
            [(d.day.pk, d.yen) for d in position.open_days],
            [(d.entry.pk, d.remaining, d.principal, d.since) for d in position.debts],
        )
    lines, total, _older = book_selectors.club_account(club=club, per_page=1000)
    out["club"] = (total, [(li.date, li.what, li.yen, li.balance) for li in lines])
    out["debts"] = [(d.entry.pk, d.remaining) for d in book_selectors.open_debts(club=club)]
    days = book_selectors.house_totals(
        club=club, start=datetime.date(2000, 1, 1), end=datetime.date(2100, 1, 1)
    )
    out["house"] = [(h.day.pk, h.house) for h in days]
    return out


def test_the_book_is_built_exactly_from_what_was_stored():
    club, members, user = make_club("migrated")
    run_script(BooksRunner(club, members, user), members)
    before = _figures(club)
    balances = [v[0] for k, v in before.items() if k.startswith("member")]
    assert len(balances) > 4 and any(balances)
    assert before["debts"] and before["house"] and before["club"][1]
    assert any(v[2] for k, v in before.items() if k.startswith("member"))  # open days
    assert LedgerEntry.objects.filter(club=club, kind=LedgerEntry.REVERSAL).exists()
    with migrated_back("0048_import_batch"), connection.cursor() as cursor:
        assert "league_leg" not in connection.introspection.table_names(cursor)
    # forward again: 0049 makes the book, 0053 its parts, 0054 posts what is stored
    assert _figures(club) == before
    assert books.check_club(club.pk)[1] is None
    unbalanced = Leg.objects.values("transaction_id").order_by().annotate(y=Sum("yen")).exclude(y=0)
    assert not unbalanced.exists()
    for reversal in Transaction.objects.filter(club=club, cause=Transaction.REVERSAL):
        assert reversal.reverses.entry_id == reversal.entry.reverses_id
    assert books.club_post_book(club.pk) == 0  # posting again adds nothing
