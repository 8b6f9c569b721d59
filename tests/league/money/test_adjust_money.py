"""A season adjustment's yen reaches the member's money (issue 25): booked at a rate of the
season's rules, a penalty leaves the member owing the club and a bonus leaves the club owing the
member, as a debt until paid: the statement, My page's balance, the debts page, the club's
account; the reversing adjustment undoes it; `manage.py check_books` finds no difference
throughout. Team adjustments carry no yen (no one member pays it)."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from league import money
from league.books import selectors as book_selectors
from league.books import selectors as books
from league.books import services as book_services
from league.core.errors import ServiceError
from league.models import Adjustment, AuditLog, LedgerEntry, Season
from league.teams import services


@pytest.fixture
def season(club):
    return Season.objects.create(
        club=club, name="2026秋", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )


def _book(season, user, member, points, rate="0.3", kind=None):
    kind = kind or (Adjustment.BONUS if points > 0 else Adjustment.PENALTY)
    return services.adjustment_book(
        season=season, user=user, member=member, kind=kind, points=points, reason="遅刻", rate=rate
    )


def _balance(member):
    return books.position(member=member).total


def test_a_penalty_and_a_bonus_reach_the_books_and_a_reversal_undoes_them(
    club, members, organiser, season
):
    a, b, *_ = members
    penalty = _book(season, organiser, a, -200)  # ▲20.0 at 30 yen per 1,000: ▲600 yen
    bonus = _book(season, organiser, b, 105)  # +10.5: +315 yen
    assert (penalty.yen, bonus.yen) == (-600, 315)
    assert (penalty.entry.kind, penalty.entry.borrower, penalty.entry.payee) == (
        LedgerEntry.ADJUSTMENT,
        a,
        None,
    )
    assert (bonus.entry.borrower, bonus.entry.payee, bonus.entry.amount) == (None, b, 315)
    assert book_services.check_club(club.pk)[1] is None
    # Statements (kept and derived) and the balance on My page.
    assert _balance(a) == -600 and _balance(b) == 315
    assert book_selectors.full_statement(member=a).balance == -600
    assert [li.yen for li in books.statement(member=a).lines] == [-600]
    assert [li.yen for li in books.statement(member=b).lines] == [315]
    # The debts: a owes the club, the club owes b.
    debts = {(d.debtor_id, d.creditor_id, d.remaining) for d in books.open_debts(club=club)}
    assert debts == {(a.pk, None, 600), (None, b.pk, 315)}
    # The club's account: owed 600, owes 315.
    _lines, total, _older = books.club_account(club=club)
    assert total == 600 - 315
    assert {(li.what, li.yen) for li in books.club_account(club=club)[0]} == {
        ("adjustment", 600),
        ("adjustment", -315),
    }
    audit = AuditLog.objects.get(action="adjustment.create", target=f"adjustment:{penalty.pk}")
    assert audit.after["ledger"] == penalty.entry_id and audit.after["yen"] == -600

    # Paid in part: the debt goes down, the balance with it.
    money.debt_repay(debt_entry=penalty.entry, user=organiser, amount=200)
    money.debt_repay(debt_entry=bonus.entry, user=organiser)  # the club pays b
    assert _balance(a) == -400 and _balance(b) == 0
    assert book_services.check_club(club.pk)[1] is None
    # Paid yen cannot be undone with the points: the payments are corrected first.
    with pytest.raises(ServiceError):
        services.adjustment_reverse(entry=penalty, user=organiser)
    repayment = LedgerEntry.objects.get(debt=penalty.entry)
    money.entry_reverse(entry=repayment, user=organiser, note="間違い")
    reversal = services.adjustment_reverse(entry=penalty, user=organiser)
    assert reversal.entry.kind == LedgerEntry.REVERSAL
    assert reversal.entry.reverses_id == penalty.entry_id
    assert _balance(a) == 0
    assert not [d for d in books.open_debts(club=club) if d.debtor_id == a.pk]
    assert book_services.check_club(club.pk)[1] is None
    # The adjustment's ledger entry is not corrected on the money pages: its points go with it.
    with pytest.raises(ServiceError):
        money.entry_reverse(entry=bonus.entry, user=organiser, note="x")


def test_the_statement_page_and_my_page_show_the_adjustment(
    club, members, organiser, organiser_client, season
):
    a = members[0]
    _book(season, organiser, a, -200)
    page = organiser_client.get(reverse("money:member_statement", args=[club.slug, a.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "遅刻" in text and "600" in text
    debts = organiser_client.get(reverse("money:debt_list", args=[club.slug]))
    assert debts.status_code == 200 and a.name in debts.content.decode()
    _book(season, organiser, members[1], 100)  # the club owes: its row names the club
    assert organiser_client.get(reverse("money:debt_list", args=[club.slug])).status_code == 200
    pot = organiser_client.get(reverse("money:club_pot", args=[club.slug])).content.decode()
    assert "シーズン調整：遅刻" in pot  # the club's account names it
    mine = organiser_client.get(reverse("money:member_statement", args=[club.slug, a.pk]))
    assert "シーズン調整：遅刻" in mine.content.decode()


def test_no_rate_no_yen_and_a_team_gets_no_yen(club, members, organiser, season):
    plain = _book(season, organiser, members[0], -200, rate="")
    assert plain.yen is None and plain.entry_id is None
    assert not LedgerEntry.objects.exists()
    team = services.team_create(
        season=season,
        user=organiser,
        data=services.TeamInput("赤組", "赤", "#c53030", [members[0]], []),
    )
    with pytest.raises(ServiceError) as e:
        services.adjustment_book(
            season=season,
            user=organiser,
            team=team,
            kind="bonus",
            points=50,
            reason="x",
            rate="0.3",
        )
    assert "rate" in e.value.errors
    assert Adjustment.objects.count() == 1 and not LedgerEntry.objects.exists()
