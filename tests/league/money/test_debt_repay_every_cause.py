"""Every debt the debts page shows can be repaid from there, whatever its cause (issue 39): a loan,
a deferral, a season penalty's yen owed to the club and a season bonus the club owes. The
repay address of a season penalty answered 404 before."""

from __future__ import annotations

import datetime

import pytest
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league import money
from league.books import selectors as book_selectors
from league.books import services as book_services
from league.models import Adjustment, LedgerEntry, Season
from league.teams import services as teams
from tests.support.db import as_test_case
from tests.support.money import ledger_case_day, make_members

SETTINGS = settings(
    max_examples=12,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def debts_of_every_cause(club, organiser):
    """A loan, a deferral, a season penalty and a season bonus, all open."""
    m = make_members(club)
    day = ledger_case_day(club, m)
    money.transfer_borrow(
        day=day, user=None, payer=m["千葉"].pk, payee=m["青木"].pk, lender=m["江藤"]
    )
    money.transfer_defer(day=day, user=None, payer=m["土井"].pk, payee=m["青木"].pk)
    season = Season.objects.create(
        club=club, name="2026秋", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )
    for member, points, kind in ((m["馬場"], -200, Adjustment.PENALTY), (m["藤井"], 105, None)):
        teams.adjustment_book(
            season=season,
            user=organiser,
            member=member,
            kind=kind or Adjustment.BONUS,
            points=points,
            reason="遅刻",
            rate="0.3",
        )
    return m


def shown_debts(client, club):
    page = client.get(reverse("money:debt_list", args=[club.slug]))
    assert page.status_code == 200
    return [d for d, _age in page.context["debts"]]


def test_a_season_penaltys_yen_is_repaid_from_the_debts_page(organiser_client, organiser, club):
    debts_of_every_cause(club, organiser)
    penalty = LedgerEntry.objects.get(kind=LedgerEntry.ADJUSTMENT, borrower__isnull=False)
    url = reverse("money:debt_repay", args=[club.slug, penalty.pk])
    page = organiser_client.get(reverse("money:debt_list", args=[club.slug])).content.decode()
    assert url in page  # the page offers 返済 for it
    response = organiser_client.post(url, {"amount": "２００"})
    assert response.status_code == 302
    open_ = book_selectors.open_debts(club=club)
    assert next(d for d in open_ if d.entry == penalty).remaining == 400
    # Not a debt at all (a payment): still 404.
    payment = LedgerEntry.objects.filter(kind=LedgerEntry.PAYMENT).first()
    if payment is None:
        payment = money.debt_repay(debt_entry=penalty, user=organiser, amount=1)
    bad = organiser_client.post(
        reverse("money:debt_repay", args=[club.slug, payment.pk]), {"amount": "1"}
    )
    assert bad.status_code == 404


@SETTINGS
@given(parts=st.lists(st.integers(1, 100), min_size=1, max_size=6))
def test_every_open_debt_of_every_cause_is_repayable_to_zero(
    organiser_client, organiser, club, parts
):
    with as_test_case():  # each example's rows undone at its end
        repay_all(organiser_client, organiser, club, parts)
        transaction.set_rollback(True)


def repay_all(organiser_client, organiser, club, parts):
    debts_of_every_cause(club, organiser)
    debts = shown_debts(organiser_client, club)
    causes = {(d.entry.kind, d.debtor_id is None) for d in debts}
    assert causes == {
        (LedgerEntry.LOAN, False),
        (LedgerEntry.DEFERRAL, False),
        (LedgerEntry.ADJUSTMENT, False),  # a penalty: a member owes the club
        (LedgerEntry.ADJUSTMENT, True),  # a bonus: the club owes a member
    }
    # Each debt paid in parts (percent of what remains), then the rest, from the page.
    paid: dict[int, int] = {}
    while debts := shown_debts(organiser_client, club):
        for debt in debts:
            k = paid.get(debt.entry.pk, 0)
            assert k <= len(parts), debt
            amount = max(1, debt.remaining * parts[k] // 100) if k < len(parts) else debt.remaining
            response = organiser_client.post(
                reverse("money:debt_repay", args=[club.slug, debt.entry.pk]),
                {"amount": f"{amount:,}"},
            )
            assert response.status_code == 302
            paid[debt.entry.pk] = k + 1
    assert not book_selectors.open_debts(club=club)
    assert book_services.check_club(club.pk)[1] is None


@pytest.mark.parametrize("cause", ["penalty", "bonus"])
def test_the_adjustments_repayment_is_in_the_members_statement(
    organiser_client, organiser, club, cause
):
    m = debts_of_every_cause(club, organiser)
    member = m["馬場"] if cause == "penalty" else m["藤井"]
    entry = (
        LedgerEntry.objects.get(kind=LedgerEntry.ADJUSTMENT, borrower=member)
        if (cause == "penalty")
        else LedgerEntry.objects.get(kind=LedgerEntry.ADJUSTMENT, payee=member)
    )
    before = book_selectors.full_statement(member=member).balance
    organiser_client.post(reverse("money:debt_repay", args=[club.slug, entry.pk]))
    paid = book_selectors.full_statement(member=member).balance - before
    assert paid == (600 if cause == "penalty" else -315)
    assert not [d for d in book_selectors.open_debts(club=club) if d.entry == entry]
