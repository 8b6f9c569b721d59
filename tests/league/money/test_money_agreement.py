"""One truth about money (issue 11, item 3): over random sequences of games, payments, loans,
deferrals, repayments, reversals, one-tap undos, voids, closings and back-dated rules versions,
the three money pages agree to the yen:

- a day's ledger (money.day_ledger: its open transfers),
- the open-debts page (league.books.selectors.club_books: open debts, the open transfers, each
  member's standing),
- each member's statement (league.books.selectors.full_statement: its headline balance and its
  running lines),

the book and the kept rows equal the records (league.books.services.check_club, what
`manage.py check_books` runs),

and each member's balance is the sum of their account's legs in the book. Runs on SQLite and on
PostgreSQL (DATABASE_URL=postgres://…).
"""

from __future__ import annotations

import datetime
from collections import defaultdict

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scoring
from league import money
from league.books import selectors as book_selectors
from league.books import services as books
from league.core.errors import ServiceError
from league.models import Account, Club, Day, Member, RulesVersion
from tests.support.db import as_test_case
from tests.support.money_agreement import NAMES, RULES, Runner

pytestmark = pytest.mark.django_db

Party = int | None


# --- the three pages agree -------------------------------------------------------------------


def nonzero(d: dict[Party, int]) -> dict[Party, int]:
    return {k: v for k, v in d.items() if v}


def check_agreement(club: Club, members: list[Member]) -> None:
    assert books.check_club(club.pk)[1] is None  # the book and the kept rows: manage.py check_books
    balances = books.club_booked(club.pk)  # every account's sum of legs
    assert sum(balances.values()) == 0
    # What is open of each day: the members' accounts of it, the club the rest.
    kept = defaultdict(dict)
    for a in Account.objects.filter(club=club, kind=Account.MEMBER, day__isnull=False):
        kept[a.day_id][a.member_id] = a.balance
    for day in kept.values():
        day[None] = -sum(day.values())
    pages = {day.pk: money.day_ledger(day=day) for day in Day.objects.filter(club=club)}
    for pk, page in pages.items():  # each day's ledger page, which settles its day again
        assert nonzero(page.outstanding) == nonzero(kept[pk]), page.day.date
        left = dict(page.outstanding)
        for t in page.transfers:  # the transfers settle exactly what is open
            assert t.yen > 0
            left[money.party(t.payer)] += t.yen
            left[money.party(t.payee)] -= t.yen
        assert not any(left.values())
    kept = book_selectors.club_books(club=club)  # the debts page
    assert kept.open_day_count == sum(1 for page in pages.values() if page.transfers)
    assert kept.open_transfers_total == sum(t.yen for p in pages.values() for t in p.transfers)
    debts = money.open_debts(club=club)  # the open-debts page's list
    assert all(d.remaining > 0 for d in debts)
    assert sorted((d.entry.pk, d.remaining) for d in kept.debts) == sorted(
        (d.entry.pk, d.remaining) for d in debts
    )
    standing = {s.member.pk: s.total for s in kept.standing}
    for member in members:
        member.club = club
        statement = book_selectors.full_statement(member=member)
        position = statement.position
        assert position is not None
        # The statement's headline is the debts page's figure for the member...
        assert statement.balance == standing.get(member.pk, 0)
        # ... which is the member's open transfers on the days' pages plus their open debts ...
        on_days = sum(p.outstanding.get(member.pk, 0) for p in pages.values())
        in_debts = sum(
            d.remaining if d.creditor_id == member.pk else -d.remaining
            for d in debts
            if member.pk in (d.debtor_id, d.creditor_id)
        )
        assert position.total == on_days + in_debts
        assert sorted((d.day.pk, d.yen) for d in position.open_days) == sorted(
            (pk, p.outstanding[member.pk])
            for pk, p in pages.items()
            if p.outstanding.get(member.pk)
        )
        # ... which is the member's account in the book, and the statement's last line.
        assert statement.balance == sum(
            yen
            for ((kind, member_id, _day, _debt), _part), yen in balances.items()
            if kind == Account.MEMBER and member_id == member.pk
        )
        running = statement.lines[-1].balance if statement.lines else 0
        assert running == statement.balance
        # Each day line and its parts are the member's on the day's ledger page.
        days = {li.day.pk: li for li in statement.lines if li.entry is None}
        for pk, page in pages.items():
            player = next((p for p in page.players if p.name == str(member.pk)), None)
            line = days.get(pk)
            if player is None:
                assert line is None or line.yen == 0
                continue
            assert line is not None and line.parts is not None
            parts = (player.yen, player.games, player.score, player.game_yen, player.fees)
            assert parts == (
                line.yen,
                line.parts.games,
                line.parts.score,
                *((line.parts.game_yen, line.parts.fees)),
            )
            assert (player.shugi, player.rounding) == (line.parts.shugi, line.parts.rounding)


# --- random sequences ------------------------------------------------------------------------

OPS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "game",
                "game",
                "game",
                "pay",
                "pay",
                "loan",
                "defer",
                "repay",
                "reverse",
                "undo",
                "void",
                "close",
                "close",
                "version",
                "resettle",
            ]
        ),
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
def test_the_three_pages_agree_to_the_yen(db, ops):
    with as_test_case():
        club = Club.objects.create(slug="agree", name="マメの会")
        RulesVersion.objects.create(
            club=club,
            effective_from=datetime.date(2026, 1, 1),
            rules_json=scoring.rules_from_json(RULES).to_json(),
        )
        user = get_user_model().objects.create_user(username="organiser", password="x")
        members = [Member.objects.create(club=club, name=n) for n in NAMES]
        runner = Runner(club, members, user)
        for op, a, b, c in ops:
            try:
                with as_test_case():
                    runner.run(op, a, b, c)
            except ServiceError:
                pass  # refused with a message (e.g. a debt with repayments): nothing stored
            check_agreement(club, members)
        transaction.set_rollback(True)
