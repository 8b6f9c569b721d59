"""The day's ledger: what each attendee wins or pays, and settling up at the table.

Members see the ledger; organisers mark transfers paid, borrowed or deferred, add attendees and
session shūgi, and correct entries (a reversal, never an edit). A club whose rules have no money
has no ledger: every URL here answers 404 for it, like a day that does not exist.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

import scoring
from league import money
from league.access import club_for, club_page, day_for, held_back, shared_part
from league.core.errors import ServiceError
from league.models import Club, Day, DayShugi, LedgerEntry, Member
from league.money.forms import (
    BORROW,
    PAY,
    AttendeesForm,
    DayCloseForm,
    EntryReverseForm,
    ShugiForm,
    ShugiVoidForm,
    TransferForm,
    party_key,
)
from league.money.sharing import party_name
from league.web import add_errors, show_errors

# --- what the page shows ---------------------------------------------------------------------


@dataclass(frozen=True)
class TransferRow:
    payer: str  # a member's name or the club's
    payee: str
    payer_key: str  # as the settle form sends it
    payee_key: str
    yen: int
    payer_is_member: bool  # only a member can borrow or defer
    surcharge: int  # what deferring the whole amount adds
    lender_options: str = ""  # the borrow form's <option>s (the ledger page, organisers)


@dataclass(frozen=True)
class EntryRow:
    entry: LedgerEntry
    payer: str
    payee: str
    borrower: str
    reversed: bool
    recorded_by: str
    undoable: bool = False  # its recorder may still undo it with one tap


def _club_day(club: Club, date: datetime.date) -> Day:
    day = day_for(club, date)
    day.club = club  # the services read day.club; this saves a query
    return day


def _money_rules(day: Day) -> scoring.Rules:
    """The rules the day's money is settled under; 404 when they have no money (健康麻雀 has no
    ledger) and nothing was ever recorded in it."""
    rules = money.day_rules(day=day)
    if rules is None or (not rules.has_money and not day.ledger.exists()):
        raise Http404
    return rules


def _transfer_rows(club: Club, ledger: money.DayLedger) -> list[TransferRow]:
    rows = []
    for t in ledger.transfers:
        payer, payee = money.party(t.payer), money.party(t.payee)
        rows.append(
            TransferRow(
                payer=party_name(club, ledger.member(payer)),
                payee=party_name(club, ledger.member(payee)),
                payer_key=party_key(payer),
                payee_key=party_key(payee),
                yen=t.yen,
                payer_is_member=payer is not None,
                surcharge=scoring.deferred_debt(ledger.rules, t.yen) - t.yen,
            )
        )
    return rows


def _entry_rows(club: Club, entries: Iterable[LedgerEntry], user: Any = None) -> list[EntryRow]:
    entries = list(entries)
    reversed_ids = {e.reverses_id for e in entries if e.reverses_id is not None}
    user_ids = {e.created_by_id for e in entries if e.created_by_id is not None}
    users = get_user_model().objects.in_bulk(user_ids) if user_ids else {}
    now = timezone.now()
    return [
        EntryRow(
            entry=e,
            payer=party_name(club, e.payer),
            payee=party_name(club, e.payee),
            borrower=e.borrower.name if e.borrower else "",
            reversed=e.pk in reversed_ids,
            recorded_by=users[e.created_by_id].get_username() if e.created_by_id else "",
            undoable=(
                user is not None
                and e.pk not in reversed_ids
                and e.day_id is not None
                and money.undoable(e, user, now)
            ),
        )
        for e in entries
    ]


def _rate_groups(day: Day) -> list[tuple[str, list[int]]]:
    """Which games were played at which rate (the games were loaded by money.day_ledger)."""
    groups: dict[str, list[int]] = {}
    for game in day.games.all():
        if game.rate and game.results.all():
            groups.setdefault(game.rate, []).append(game.number)
    return list(groups.items())


def _with_lenders(rows: list[TransferRow], lenders: list[Member]) -> list[TransferRow]:
    """Each transfer with its borrow form's lender <option>s: every active member but the payer
    and the payee. Built here once per member, not in the template's loop of members inside its
    loop of transfers (40 members × 40 transfers was most of the page's time)."""
    options = [
        (str(m.pk), format_html('<option value="{}">{}</option>', m.pk, m.name)) for m in lenders
    ]
    return [
        replace(
            row,
            lender_options=mark_safe(  # joined from format_html's escaped strings
                "".join(html for key, html in options if key not in (row.payer_key, row.payee_key))
            ),
        )
        for row in rows
    ]


def _ledger_context(club: Club, ledger: money.DayLedger, user: Any) -> dict[str, object]:
    rules, day = ledger.rules, ledger.day
    entries = _entry_rows(club, ledger.entries, user if club.is_organiser else None)  # type: ignore[attr-defined]
    players = [(ledger.members[int(p.name)], p) for p in ledger.players]  # (member, day parts)
    context: dict[str, object] = {
        "club": club,
        "day": day,
        "ledger": ledger,
        "players": players,
        "waiting": [member for member, parts in players if not parts.games],
        "transfers": _transfer_rows(club, ledger),
        "entries": entries,
        "undo": next((row for row in reversed(entries) if row.undoable), None),
        "closed": day.closed_at is not None,
        "close_key": money.transfers_key(ledger.transfers),
        "rate_groups": _rate_groups(day),
        "shugi": [(s, ledger.members[s.winner_id]) for s in day.shugi.all()],
        "show_game_yen": bool(rules.rates),
        "show_fees": bool(rules.place_fees),
        "show_shugi": bool(rules.session_shugi),
        "show_rounding": rules.yen_unit != 1 or any(p.rounding for p in ledger.players),
    }
    if club.is_organiser:  # type: ignore[attr-defined]
        active = list(Member.objects.filter(club=club, is_active=True))
        present = {member.pk for member, _parts in players}
        context["lenders"] = active
        context["transfers"] = _with_lenders(context["transfers"], active)  # type: ignore[arg-type]
        context["addable"] = [m for m in active if m.pk not in present]
        context["multipliers"] = range(1, money.MAX_SHUGI_MULTIPLIER + 1)
    return context


@require_safe
@club_page(moment=True)  # the undo button goes when its time is up
def day_ledger(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club = club_for(request, slug)
    day = _club_day(club, date)
    if (notice := held_back(request, club, day)) is not None:
        return notice

    def body() -> str:
        ledger = money.day_ledger(day=day)
        if not ledger.has_money and not ledger.entries:  # a day with entries always has its page
            raise Http404
        return render_to_string(
            "league/money/_ledger_body.html", _ledger_context(club, ledger, request.user), request
        )

    if club.is_organiser:  # type: ignore[attr-defined]  # forms, an undo of their own
        return render(
            request, "league/money/day_ledger.html", {"club": club, "day": day, "body": body()}
        )
    # A member's ledger has no form: the same for every member, kept until the next write.
    shared = shared_part(request, club, "ledger", day.pk, build=body)
    return render(
        request, "league/money/day_ledger.html", {"club": club, "day": day, "body": shared}
    )


# --- closing the day (締め) ---------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def day_close(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    """The confirmation screen: each open transfer paid (the default) or deferred, row by row;
    a day with nothing left open closes with one tap (the ledger's button posts here)."""
    club = club_for(request, slug, organiser=True)
    day = _club_day(club, date)
    ledger = money.day_ledger(day=day)
    if not ledger.has_money and not ledger.entries:
        raise Http404
    rows = _transfer_rows(club, ledger)
    form = DayCloseForm(
        request.POST if request.method == "POST" else None,
        transfers=[(r.payer_key, r.payee_key, r.payer_is_member) for r in rows],
        initial={"expected": money.transfers_key(ledger.transfers)},
    )
    if form.is_bound and form.is_valid():
        try:
            created = money.day_close(
                day=day,
                user=request.user,
                defer=form.deferred(),
                expected=form.cleaned_data["expected"],
            )
        except ServiceError as e:
            show_errors(request, e)
            return redirect("money:day_close", club.slug, day.date)
        deferred = sum(e.kind == LedgerEntry.DEFERRAL for e in created)
        messages.success(
            request,
            _("Day closed: %(paid)s paid, %(deferred)s deferred.")
            % {"paid": len(created) - deferred, "deferred": deferred},
        )
        return redirect("money:day_ledger", club.slug, day.date)
    context = {
        "club": club,
        "day": day,
        "ledger": ledger,
        "rows": [(row, form[f"t-{row.payer_key}-{row.payee_key}"]) for row in rows],
        "form": form,
    }
    return render(request, "league/money/day_close.html", context)


def _club_entry(request: HttpRequest, slug: str, entry_id: int) -> tuple[Club, LedgerEntry, str]:
    """The organiser's club, one of its ledger entries, and the page that lists the entry."""
    club = club_for(request, slug, organiser=True)
    entry = get_object_or_404(
        LedgerEntry.objects.select_related("day", "payer", "payee", "borrower"),
        pk=entry_id,
        club=club,
    )
    return club, entry, _entry_page(club, entry)


@require_POST
def entry_undo(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    """One tap, shortly after a mis-tap: the entry's reversal (money.entry_undo)."""
    club, entry, back = _club_entry(request, slug, entry_id)
    try:
        money.entry_undo(entry=entry, user=request.user)
    except ServiceError as e:
        show_errors(request, e)
    else:
        messages.success(
            request,
            _("Undone: %(payer)s → %(payee)s %(amount)s yen no longer counts.")
            % {
                "payer": party_name(club, entry.borrower if entry.borrower else entry.payer),
                "payee": party_name(club, entry.payee),
                "amount": f"{entry.amount:,}",
            },
        )
    return redirect(back)


# --- settling up -----------------------------------------------------------------------------


def _settle(request: HttpRequest, day: Day, data: dict[str, Any]) -> str:
    """Record one transfer as the form asks; the success message for it."""
    payer, payee, amount = data["payer"], data["payee"], data["amount"]
    names = {None: day.club.name} | {
        m.pk: m.name
        for m in Member.objects.filter(pk__in=[p for p in (payer, payee) if p is not None])
    }
    lender: Member | None = None
    if data["action"] == PAY:
        entry = money.transfer_pay(
            day=day, user=request.user, payer=payer, payee=payee, amount=amount
        )
        text = _("Paid: %(payer)s → %(payee)s %(amount)s yen")
    elif data["action"] == BORROW:
        lender = data["lender"]
        entry = money.transfer_borrow(
            day=day, user=request.user, payer=payer, payee=payee, lender=lender, amount=amount
        )
        text = _("Borrowed: %(lender)s paid %(payee)s %(amount)s yen for %(payer)s")
    else:
        entry = money.transfer_defer(
            day=day, user=request.user, payer=payer, payee=payee, amount=amount
        )
        text = _("Deferred: %(payer)s owes %(payee)s %(total)s yen (%(surcharge)s yen added)")
    # One set of values for the three messages (each names the ones it shows).
    return text % {
        "payer": names[payer],
        "payee": names[payee],
        "lender": lender.name if lender is not None else "",
        "amount": f"{entry.amount:,}",
        "total": f"{entry.amount + entry.surcharge:,}",
        "surcharge": f"{entry.surcharge:,}",
    }


def _ledger_post(
    request: HttpRequest,
    slug: str,
    date: datetime.date,
    form_class: type[TransferForm | AttendeesForm | ShugiForm | ShugiVoidForm],
    act: Callable[[Club, Day, dict[str, Any]], str],
    *,
    shugi: bool = False,
) -> HttpResponse:
    """A day ledger's form POST (organisers, a day with money; with `shugi`, session shūgi):
    the form's or the service's errors as messages, else the action's success message; back to
    the day's ledger."""
    club = club_for(request, slug, organiser=True)
    day = _club_day(club, date)
    if not _money_rules(day).session_shugi and shugi:
        raise Http404
    form = form_class(request.POST, club=club)
    if not form.is_valid():
        show_errors(request, ServiceError(form.errors))
    else:
        try:
            messages.success(request, act(club, day, form.cleaned_data))
        except ServiceError as e:
            show_errors(request, e)
    return redirect("money:day_ledger", club.slug, day.date)


@require_POST
def transfer_settle(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    return _ledger_post(
        request, slug, date, TransferForm, lambda _club, day, data: _settle(request, day, data)
    )


# --- who was there, session shūgi ------------------------------------------------------------


@require_POST
def day_attendees(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    def attend(club: Club, day: Day, data: dict[str, Any]) -> str:
        chosen = list(data["members"])
        money.day_attendees_add(club=club, user=request.user, date=day.date, members=chosen)
        return _("Attending: %(names)s") % {"names": "、".join(m.name for m in chosen)}

    return _ledger_post(request, slug, date, AttendeesForm, attend)


@require_POST
def day_shugi(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    """Add a session shūgi event, or void one (the form carries the shūgi's id)."""

    def add(_club: Club, day: Day, data: dict[str, Any]) -> str:
        winner, multiplier = data["winner"], data["multiplier"]
        money.shugi_add(day=day, user=request.user, winner=winner, multiplier=multiplier)
        return _("Shūgi: %(winner)s ×%(multiplier)s") % {
            "winner": winner.name,
            "multiplier": multiplier,
        }

    def void(_club: Club, day: Day, data: dict[str, Any]) -> str:
        shugi = get_object_or_404(
            DayShugi.objects.select_related("winner", "day"), pk=data["shugi"], day=day
        )
        money.shugi_void(shugi=shugi, user=request.user)
        return _("Shūgi voided: %(winner)s") % {"winner": shugi.winner.name}

    if "shugi" in request.POST:
        return _ledger_post(request, slug, date, ShugiVoidForm, void, shugi=True)
    return _ledger_post(request, slug, date, ShugiForm, add, shugi=True)


# --- corrections -----------------------------------------------------------------------------


def _entry_page(club: Club, entry: LedgerEntry) -> str:
    """Where an entry is listed: its day's ledger, the club's pot (a payout from it), or the
    club's debts (a repayment)."""
    if entry.day is not None:
        return reverse("money:day_ledger", args=[club.slug, entry.day.date])
    if entry.kind in (LedgerEntry.EXPENSE, LedgerEntry.PRIZE):
        return reverse("money:club_pot", args=[club.slug])
    return reverse("money:debt_list", args=[club.slug])


@require_http_methods(["GET", "POST"])
def entry_reverse(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    club, entry, back = _club_entry(request, slug, entry_id)
    if entry.kind == LedgerEntry.REVERSAL or LedgerEntry.objects.filter(reverses=entry).exists():
        messages.error(request, _("This entry is already corrected."))
        return redirect(back)
    form = EntryReverseForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        try:
            money.entry_reverse(entry=entry, user=request.user, note=form.cleaned_data["note"])
        except ServiceError as e:
            add_errors(form, e)
        else:
            messages.success(request, _("Entry corrected: it no longer counts."))
            return redirect(back)
    row = _entry_rows(club, [entry])[0]
    context = {"club": club, "entry": entry, "row": row, "form": form, "back": back}
    return render(request, "league/money/entry_reverse.html", context)
