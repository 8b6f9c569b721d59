"""Members' account statements, the club's open debts, and its pot (sums of the book:
league.books.selectors).

Members see every statement, the debts and the pot (clubs settle in the open); only organisers
record repayments and pot payouts. A club without money has none of these pages: 404.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from league import limits, money
from league.access import club_for, club_page
from league.books import selectors as book_selectors
from league.core import clock
from league.core.errors import ServiceError
from league.core.format import yen
from league.models import Club, LedgerEntry, Member, Season
from league.models.rules import club_has_money
from league.recording.forms import NumberField
from league.web import add_errors, show_errors

# --- forms -----------------------------------------------------------------------------------


class RepayForm(forms.Form):
    """Blank pays the whole remaining debt."""

    amount = NumberField(label=gettext_lazy("Amount (yen)"), required=False)


class PotForm(forms.Form):
    venue_cost = NumberField(label=gettext_lazy("Venue cost (yen)"))

    def clean_venue_cost(self) -> int:
        cost = self.cleaned_data["venue_cost"]
        if cost < 0:
            raise forms.ValidationError(_("Enter zero or more yen."))
        return cost


def _money_club(request: HttpRequest, slug: str, *, organiser: bool = False) -> Club:
    """club_for, and 404 for a club that has no money in any of its rules (健康麻雀)."""
    club = club_for(request, slug, organiser=organiser)
    if not club_has_money(club=club):
        raise Http404
    return club


# --- a member's statement --------------------------------------------------------------------


def _name(member: Member | None) -> str:
    return member.name if member is not None else _("the club")


def describe_entry(entry: LedgerEntry, me: Member) -> str:
    """One entry as seen by `me`. A reversal has its original's parties, so this names those."""
    original = entry.reverses if entry.kind == LedgerEntry.REVERSAL else entry
    assert original is not None
    kind, payer, payee, borrower = original.kind, entry.payer, entry.payee, entry.borrower
    names = {"payer": _name(payer), "payee": _name(payee), "borrower": _name(borrower)}
    names["note"] = original.note
    if kind == LedgerEntry.PAYMENT and original.debt_id is not None:
        text = _("Repaid %(payee)s") if payer == me else _("%(payer)s repaid a debt")
    elif kind == LedgerEntry.PAYMENT:
        text = _("Paid %(payee)s") if payer == me else _("Received from %(payer)s")
    elif kind == LedgerEntry.LOAN:
        if payer == me:
            text = _("Lent %(borrower)s the money to pay %(payee)s")
        elif borrower == me:
            text = _("Borrowed from %(payer)s to pay %(payee)s")
        else:
            text = _("Paid by %(payer)s for %(borrower)s")
    elif kind == LedgerEntry.DEFERRAL:
        text = _("Deferred paying %(payee)s") if borrower == me else _("%(borrower)s deferred")
    elif kind == LedgerEntry.ADJUSTMENT:
        text = _("Season adjustment: %(note)s")
    elif kind == LedgerEntry.PRIZE:
        text = _("Champion's prize from the club pot")
    else:
        text = _("Paid from the club pot")
    text %= names
    if entry.kind == LedgerEntry.REVERSAL:
        return _("Correction: %(what)s (cancelled)") % {"what": text}
    return text


@dataclass(frozen=True)
class StatementRow:
    line: book_selectors.Line
    text: str  # what happened, for entries


@dataclass(frozen=True)
class DebtRow:
    debt: book_selectors.Debt
    text: str  # whom the member owes, or who owes the member
    owes: bool  # the member owes it (else the member is owed it): debt.remaining is positive


@dataclass(frozen=True)
class OpenDayRow:
    date: datetime.date
    yen: int  # always positive: `owes` says which way
    owes: bool


@dataclass(frozen=True)
class Headline:
    """A balance in words, never a double negative: "owes 6,886 yen", "is owed 300 yen"."""

    yen: int  # always positive
    owes: bool
    settled: bool


def headline(balance: int) -> Headline:
    return Headline(abs(balance), balance < 0, balance == 0)


def _statement_rows(statement: book_selectors.Statement) -> list[StatementRow]:
    return [
        StatementRow(
            line,  # type: ignore[arg-type]
            describe_entry(line.entry, statement.member) if line.entry is not None else "",
        )
        for line in statement.lines
    ]


def _debt_rows(statement: book_selectors.Statement) -> list[DebtRow]:
    rows = []
    for debt in sorted(statement.debts, key=lambda d: (d.since, d.entry.pk)):
        owes = debt.debtor == statement.member
        if owes:
            text = _("Owes %(name)s") % {"name": _name(debt.creditor)}
        else:
            text = _("Owed by %(name)s") % {"name": _name(debt.debtor)}
        rows.append(DebtRow(debt, text, owes))
    return rows


@require_GET
@club_page
def member_statement(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    club = _money_club(request, slug)
    member = get_object_or_404(Member, pk=member_id, club=club)
    try:
        page = int(request.GET.get("page", "1"))
    except ValueError:
        page = 1
    if page > limits.MAX_PAGE:  # its offset would overflow the database's integers: a 500
        raise Http404
    # The kept lines (league.books), one page with the balance carried over.
    statement = book_selectors.statement(member=member, page=page)
    return render(
        request,
        "league/money/member_statement.html",
        {
            "club": club,
            "member": member,
            "statement": statement,
            "rows": _statement_rows(statement),  # type: ignore[arg-type]
            "debts": _debt_rows(statement),  # type: ignore[arg-type]
            "headline": headline(statement.balance),
            "position": statement.position,
            "open_days": [  # a statement's position is always there
                OpenDayRow(d.day.date, abs(d.yen), d.yen < 0) for d in statement.position.open_days
            ],
        },
    )


# --- open debts ------------------------------------------------------------------------------


@require_GET
@club_page
def debt_list(request: HttpRequest, slug: str) -> HttpResponse:
    """Open debts, the days not yet settled, and where each member stands: the kept books
    (league.books), the same rows as the statements and My page read."""
    club = _money_club(request, slug)
    today = clock.today()
    books = book_selectors.club_books(club=club)
    standing = [(s, headline(s.total)) for s in books.standing if s.total or s.days or s.debts]
    return render(
        request,
        "league/money/debt_list.html",
        {
            "club": club,
            "debts": [(d, d.age_days(today)) for d in books.debts],
            "total": books.debts_total,
            "open_days": [(d, d.transfers) for d in books.open_days],
            "open_total": books.open_transfers_total,
            "open_days_hidden": books.open_days_hidden,
            "standing": standing,
        },
    )


@require_POST
def debt_repay(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    club = _money_club(request, slug, organiser=True)
    entry = get_object_or_404(LedgerEntry, pk=entry_id, club=club, kind__in=money.DEBT_ENTRY_KINDS)
    # The forms sit in the rows of the debt list: errors come back there as messages.
    form = RepayForm(request.POST)
    try:
        if not form.is_valid():
            raise ServiceError({k: list(v) for k, v in form.errors.items()})
        repayment = money.debt_repay(
            debt_entry=entry, user=request.user, amount=form.cleaned_data["amount"]
        )
    except ServiceError as e:
        show_errors(request, e)
        return redirect("money:debt_list", club.slug)
    names = {"debtor": _name(repayment.payer), "creditor": _name(repayment.payee)}
    messages.success(
        request,
        _("%(debtor)s repaid %(amount)s yen to %(creditor)s.")
        % {**names, "amount": yen(repayment.amount)},
    )
    return redirect("money:debt_list", club.slug)


# --- the club pot ----------------------------------------------------------------------------


def _season(request: HttpRequest, club: Club) -> tuple[Season | None, list[Season]]:
    """`?season=` of this club (404 for another's), else the one running today, else the latest."""
    seasons = list(Season.objects.filter(club=club).order_by("-start", "-pk"))
    wanted = request.GET.get("season")
    if wanted:
        chosen = next((s for s in seasons if str(s.pk) == wanted), None)
        if chosen is None:
            raise Http404
        return chosen, seasons
    today = clock.today()
    running = [s for s in seasons if s.start <= today <= s.end]
    started = [s for s in seasons if s.start <= today]
    return next(iter(running or started or seasons), None), seasons


@require_http_methods(["GET", "POST"])
def club_pot(request: HttpRequest, slug: str) -> HttpResponse:
    club = _money_club(request, slug, organiser=request.method == "POST")
    season, seasons = _season(request, club)
    context: dict[str, Any] = {"club": club, "season": season, "seasons": seasons}
    # The club's own account (クラブ積立): its latest lines with the running total.
    lines, total, older = book_selectors.club_account(club=club)
    context.update(account_lines=lines, account_total=total, account_older=older)
    if season is None:
        return render(request, "league/money/club_pot.html", context)
    season.club = club
    pot = money.season_pot(season=season)
    # A GET with the venue cost previews the split; the POST records it.
    if request.method == "POST":
        form = PotForm(request.POST)
    else:
        form = PotForm(request.GET if "venue_cost" in request.GET else None)
    if request.method == "POST" and form.is_valid():
        try:
            entries = money.pot_pay_out(
                season=season, user=request.user, venue_cost=form.cleaned_data["venue_cost"]
            )
        except ServiceError as e:
            add_errors(form, e)
        else:
            paid = sum(e.amount for e in entries)
            messages.success(request, _("Paid out %(amount)s yen.") % {"amount": yen(paid)})
            return redirect(f"{reverse('money:club_pot', args=[club.slug])}?season={season.pk}")
    preview = None
    if pot.has_pot and not pot.payouts and form.is_bound and form.is_valid():
        preview = pot.payout(form.cleaned_data["venue_cost"])
    context.update(pot=pot, form=form, preview=preview)
    return render(request, "league/money/club_pot.html", context)
