"""The money side of a club: each day's ledger, payments, loans, deferred debts, the club pot.

The actions here write `LedgerEntry` rows (immutable: a correction is a reversal) and post them
to the book through league.books.services.post, whose docstring says what each entry kind does
to its day and to balances; pages read balances, open days, debts, statements and each day's
ledger from what is posted (league.books.selectors). A party is a member id, or None for the
club.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import scoring
from league import limits
from league.books import selectors as book_selectors
from league.core import changes, clock
from league.core.actions import action, as_action
from league.core.errors import NON_FIELD, ServiceError
from league.core.locks import for_update, lock_club
from league.models import (
    Club,
    Day,
    DayShugi,
    LedgerEntry,
    Member,
    Result,
    RulesVersion,
    Season,
)
from league.models.audit import User, audit, stored_user
from league.models.members import lock_live_members
from league.models.money import ledger_record
from league.standings.stats import season_champion

Party = int | None


# --- a day's ledger: read from the book (league.books.selectors) ------------------------------

DayLedger = book_selectors.DayLedger
day_ledger = book_selectors.day_ledger
day_rules = book_selectors.day_rules


def party(name: str | None) -> Party:
    return None if name is None else int(name)


# --- settling up (services) ------------------------------------------------------------------


def _lock_day(day: Day) -> Day:
    """Inside a transaction: the club's row first (lock_club, one global lock order), then the
    day's."""
    lock_club(day.club_id)
    return for_update(Day.objects).select_related("club").get(pk=day.pk)


def _due(day: Day, payer: Party, payee: Party) -> tuple[Day, DayLedger, scoring.Transfer]:
    """Inside a transaction: lock the day, re-derive its ledger, find the transfer still due."""
    day = _lock_day(day)
    ledger = day_ledger(day=day)
    for t in ledger.transfers:
        if party(t.payer) == payer and party(t.payee) == payee:
            return day, ledger, t
    raise ServiceError.one(
        NON_FIELD, _("This payment is no longer due: someone may have recorded it already.")
    )


def _amount(most: int, amount: int | None) -> int:
    """`amount` (all of `most` when None), from 1 to `most` yen."""
    amount = most if amount is None else amount
    if not 0 < amount <= most:
        raise ServiceError.one(
            "amount", _("Enter an amount from 1 to %(max)s yen.") % {"max": f"{most:,}"}
        )
    return amount


def _record(club: Club, user: User, action: str, **fields: object) -> LedgerEntry:
    entry = ledger_record(club_id=club.pk, user=user, **fields)  # posted to the kept books
    entry.club = club
    audit(
        club=club,
        actor=user,
        action=action,
        target=f"ledger:{entry.pk}",
        after=entry_snapshot(entry),
    )
    return entry


def entry_snapshot(entry: LedgerEntry) -> dict[str, object]:
    return {
        "kind": entry.kind,
        "day": entry.day.date.isoformat() if entry.day else None,
        "payer": entry.payer_id,
        "payee": entry.payee_id,
        "borrower": entry.borrower_id,
        "amount": entry.amount,
        "surcharge": entry.surcharge,
        "debt": entry.debt_id,
        "reverses": entry.reverses_id,
        "note": entry.note,
    }


def _pay(day: Day, user: User, payer: Party, payee: Party, amount: int) -> LedgerEntry:
    fields = {"payer_id": payer, "payee_id": payee, "amount": amount}
    return _record(day.club, user, "ledger.payment", day=day, kind=LedgerEntry.PAYMENT, **fields)


def _defer(
    day: Day, user: User, ledger: DayLedger, payer: Party, payee: Party, amount: int
) -> LedgerEntry:
    """`payer` pays `amount` later, with the club's surcharge (rounded up to its yen unit)."""
    surcharge = scoring.deferred_debt(ledger.rules, amount) - amount
    fields = {"payee_id": payee, "borrower_id": payer, "amount": amount, "surcharge": surcharge}
    return _record(day.club, user, "ledger.deferral", day=day, kind=LedgerEntry.DEFERRAL, **fields)


def transfer_pay(
    *, day: Day, user: User, payer: Party, payee: Party, amount: int | None = None
) -> LedgerEntry:
    """Mark (part of) one of the day's transfers paid. Twice at once records it once."""
    with action():
        day, _ledger, transfer = _due(day, payer, payee)
        return _pay(day, user, payer, payee, _amount(transfer.yen, amount))


def transfer_borrow(
    *,
    day: Day,
    user: User,
    payer: int,
    payee: Party,
    lender: Member,
    amount: int | None = None,
) -> LedgerEntry:
    """マメの会 rule 3: short of money, borrow from another player; the lender is owed, no surcharge."""
    if lender.club_id != day.club_id or lender.pk in (payer, payee):
        raise ServiceError.one("lender", _("Choose another member of this club to lend."))
    with action():
        day, _ledger, transfer = _due(day, payer, payee)
        return _record(
            day.club,
            user,
            "ledger.loan",
            day=day,
            kind=LedgerEntry.LOAN,
            payer=lender,
            payee_id=payee,
            borrower_id=payer,
            amount=_amount(transfer.yen, amount),
        )


def transfer_defer(
    *, day: Day, user: User, payer: int, payee: Party, amount: int | None = None
) -> LedgerEntry:
    """マメの会 rule 4: pay later, with the club's surcharge added (rounded up to its yen unit)."""
    with action():
        day, ledger, transfer = _due(day, payer, payee)
        return _defer(day, user, ledger, payer, payee, _amount(transfer.yen, amount))


# --- debts -----------------------------------------------------------------------------------


open_debts = book_selectors.open_debts  # the book's open accounts of debts, one query


# Every cause of a debt the debts page shows, and so may be repaid from there: a loan, a deferral
# and a season adjustment's yen (a penalty owed to the club, a bonus the club owes).
DEBT_ENTRY_KINDS = (LedgerEntry.LOAN, LedgerEntry.DEFERRAL, LedgerEntry.ADJUSTMENT)


def debt_repay(*, debt_entry: LedgerEntry, user: User, amount: int | None = None) -> LedgerEntry:
    """The debtor pays (part of) a debt back: a loan, a deferred debt or an adjustment's yen."""
    with action():
        club = lock_club(debt_entry.club_id)  # one writer per club
        debt = next((d for d in open_debts(club=club) if d.entry.pk == debt_entry.pk), None)
        if debt is None:
            raise ServiceError.one(NON_FIELD, _("This debt is already paid."))
        return _record(
            club,
            user,
            "ledger.repayment",
            kind=LedgerEntry.PAYMENT,
            payer=debt.debtor,
            payee=debt.creditor,
            amount=_amount(debt.remaining, amount),
            debt=debt.entry,
        )


ALREADY_REVERSED = gettext_lazy("This entry is already reversed.")
UNDO_TOO_LATE = gettext_lazy(
    "It is too late to undo this with one tap: correct it with a reason instead."
)
UNDO_NOT_YOURS = gettext_lazy(
    "Only who recorded this can undo it with one tap: correct it instead."
)
UNDO_NOTE = gettext_lazy("Undone right after it was recorded")


def note_shown(note: str) -> str:
    """A correction's note in the reader's language. The note of an undo is stored in the
    language of whoever undid it; shown, it is the reader's own words for it."""
    if note and note in _undo_notes():
        return str(UNDO_NOTE)
    return note


def _undo_notes() -> set[str]:
    notes = set()
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            notes.add(str(UNDO_NOTE))
    return notes


CLOSE_CHANGED = gettext_lazy(
    "The transfers changed while you were closing the day (someone recorded a payment or a "
    "game). Check them again."
)
CLOSE_NOTHING = gettext_lazy("This day is already closed: nothing is left to settle.")
CLOSE_NO_MONEY = gettext_lazy("This day has no money to settle.")
UNDO_KINDS = (LedgerEntry.PAYMENT, LedgerEntry.LOAN, LedgerEntry.DEFERRAL)


def _reverse(entry: LedgerEntry, user: User, note: str, action: str) -> LedgerEntry:
    """Inside a transaction holding the club's lock: the reversal of `entry`, audited."""
    if entry.kind == LedgerEntry.REVERSAL:
        raise ServiceError.one(NON_FIELD, _("A correction cannot itself be reversed."))
    if entry.kind == LedgerEntry.ADJUSTMENT:
        raise ServiceError.one(
            NON_FIELD, _("Undo the adjustment on the season's teams page: its points go with it.")
        )
    if LedgerEntry.objects.filter(reverses=entry).exists():
        raise ServiceError.one(NON_FIELD, str(ALREADY_REVERSED))
    if LedgerEntry.objects.live_repayments(entry).exists():
        raise ServiceError.one(NON_FIELD, _("Reverse the repayments of this debt first."))
    return _record(
        entry.club,
        user,
        action,
        day=entry.day,
        kind=LedgerEntry.REVERSAL,
        payer_id=entry.payer_id,
        payee_id=entry.payee_id,
        borrower_id=entry.borrower_id,
        amount=entry.amount,
        surcharge=entry.surcharge,
        reverses=entry,
        note=note,
    )


def entry_reverse(*, entry: LedgerEntry, user: User, note: str) -> LedgerEntry:
    """Correct a mistaken entry with its reversal (nothing is deleted)."""
    note = note.strip()
    if not note:
        raise ServiceError.one("note", _("Give a reason for the correction."))
    if errors := limits.column_problems(LedgerEntry, note=note):
        raise ServiceError(errors)
    with action():
        return _reverse(_locked(entry), user, note, "ledger.reversal")


def _locked(entry: LedgerEntry) -> LedgerEntry:
    """Inside a transaction: the club's lock taken (one writer per club), `entry` read again."""
    club = lock_club(entry.club_id)
    entry = LedgerEntry.objects.select_related("reverses", "day").get(pk=entry.pk)
    entry.club = club
    return entry


def undoable(entry: LedgerEntry, user: User, now: datetime.datetime | None = None) -> bool:
    """Whether `user` may undo `entry` with one tap now (reversal state is checked on write)."""
    deadline = entry.created_at + datetime.timedelta(seconds=settings.PAYMENT_UNDO_SECONDS)
    return (
        entry.kind in UNDO_KINDS
        and entry.created_by_id is not None
        and entry.created_by_id == getattr(user, "pk", None)
        and (now or timezone.now()) <= deadline
    )


def entry_undo(*, entry: LedgerEntry, user: User) -> LedgerEntry:
    """A payment, loan or deferral marked by mistake, undone with one tap by whoever recorded it
    within settings.PAYMENT_UNDO_SECONDS: its reversal, audited as `ledger.undo`."""
    with action():
        entry = _locked(entry)
        mine = entry.created_by_id is not None and entry.created_by_id == getattr(user, "pk", None)
        if entry.kind in UNDO_KINDS and not mine:
            raise ServiceError.one(NON_FIELD, str(UNDO_NOT_YOURS))
        if not undoable(entry, user):
            raise ServiceError.one(NON_FIELD, str(UNDO_TOO_LATE))
        return _reverse(entry, user, str(UNDO_NOTE), "ledger.undo")


# --- closing a day (締め) ----------------------------------------------------------------------


def transfers_key(transfers: Iterable[scoring.Transfer]) -> str:
    """The open transfers as the confirmation screen showed them: closing checks they still are."""
    return ";".join(f"{t.payer or ''}>{t.payee or ''}={t.yen}" for t in transfers)


# Sent inside day_close's transaction with `day_id`: league.chat pushes the day's text once it
# commits, where an organiser turned that on.
day_closed = Signal()


def day_close_in(
    *, day: Day, user: User, defer: Iterable[tuple[Party, Party]], expected: str
) -> list[LedgerEntry]:
    """Inside the caller's action (day_close's, the demo's), 締め: every transfer still open
    becomes paid, or (those in `defer`, from a member) a deferred debt with the club's
    surcharge; the day is marked closed. One `day.close` audit entry, besides those of the
    entries it creates. `expected` is transfers_key() of the transfers the organiser confirmed:
    if they changed meanwhile, nothing is stored."""
    deferred = set(defer)
    with transaction.atomic():  # a savepoint inside the caller's action
        day = _lock_day(day)
        ledger = day_ledger(day=day)
        if not ledger.has_money and not ledger.entries:
            raise ServiceError.one(NON_FIELD, str(CLOSE_NO_MONEY))
        if transfers_key(ledger.transfers) != expected:
            raise ServiceError.one(NON_FIELD, str(CLOSE_CHANGED))
        if day.closed_at is not None and not ledger.transfers:
            raise ServiceError.one(NON_FIELD, str(CLOSE_NOTHING))
        created = []
        for t in ledger.transfers:
            payer, payee = party(t.payer), party(t.payee)
            if payer is not None and (payer, payee) in deferred:
                created.append(_defer(day, user, ledger, payer, payee, t.yen))
            else:
                created.append(_pay(day, user, payer, payee, t.yen))
        before = {"closed_at": day.closed_at.isoformat() if day.closed_at else None}
        day.closed_at = timezone.now()
        day.closed_by = stored_user(user)
        day.save(update_fields=["closed_at", "closed_by"])
        audit(
            club=day.club,
            actor=user,
            action="day.close",
            target=f"day:{day.pk}",
            before=before,
            after={
                "date": day.date.isoformat(),
                "closed_at": day.closed_at.isoformat(),
                "entries": [e.pk for e in created],
                "paid": sum(e.kind == LedgerEntry.PAYMENT for e in created),
                "deferred": sum(e.kind == LedgerEntry.DEFERRAL for e in created),
            },
        )
        day_closed.send(sender=Day, day_id=day.pk)
        return created


day_close = as_action(day_close_in)


# --- session shūgi (services) ----------------------------------------------------------------

MAX_SHUGI_MULTIPLIER = 6


def _shugi_snapshot(shugi: DayShugi) -> dict[str, object]:
    return {
        "day": shugi.day.date.isoformat(),
        "winner": shugi.winner_id,
        "multiplier": shugi.multiplier,
        "voided": shugi.voided,
    }


def _present(day: Day, member: Member) -> bool:
    """At the day: in one of its counted games, or marked as attending."""
    played = Result.objects.filter(game__day=day, counted=True, member=member).exists()
    return played or day.attendees.filter(pk=member.pk).exists()


def shugi_add(*, day: Day, user: User, winner: Member, multiplier: int = 1) -> DayShugi:
    """花月杯: a yakuman winner receives the club's session shūgi × multiplier from every other
    attendee of the day."""
    rules = day_rules(day=day)
    if rules is None or not rules.session_shugi:
        raise ServiceError.one(NON_FIELD, _("The club's rules have no session shūgi."))
    if not 1 <= multiplier <= MAX_SHUGI_MULTIPLIER:
        raise ServiceError.one(
            "multiplier",
            _("Enter a multiplier from 1 to %(max)s.") % {"max": MAX_SHUGI_MULTIPLIER},
        )
    with action():
        day = _lock_day(day)
        lock_live_members([winner.pk], shared=True)
        if winner.club_id != day.club_id or not _present(day, winner):
            raise ServiceError.one("winner", _("Choose someone who was there on this day."))
        # The winner stays an attendee: voiding or editing their game later must not leave a
        # shūgi whose winner was never there (the day could no longer be settled).
        day.attendees.add(winner)
        shugi = DayShugi.objects.create(
            day=day,
            winner=winner,
            multiplier=multiplier,
            created_by=stored_user(user),
        )
        changes.record(changes.DaysChanged(day.club_id, frozenset([day.pk])))
        audit(
            club=day.club,
            actor=user,
            action="ledger.shugi",
            target=f"shugi:{shugi.pk}",
            after=_shugi_snapshot(shugi),
        )
    return shugi


def shugi_void(*, shugi: DayShugi, user: User) -> DayShugi:
    """Take back a shūgi entered by mistake: it is marked void, never deleted."""
    with action():
        day = _lock_day(shugi.day)
        shugi = for_update(DayShugi.objects).select_related("day").get(pk=shugi.pk)
        if shugi.voided:
            raise ServiceError.one(NON_FIELD, _("This shūgi is already void."))
        before = _shugi_snapshot(shugi)
        shugi.voided = True
        shugi.save(update_fields=["voided"])
        changes.record(changes.DaysChanged(day.club_id, frozenset([day.pk])))
        audit(
            club=day.club,
            actor=user,
            action="ledger.shugi_void",
            target=f"shugi:{shugi.pk}",
            before=before,
            after=_shugi_snapshot(shugi),
        )
    return shugi


# --- the club pot ----------------------------------------------------------------------------


def _pot_tag(season: Season) -> str:
    """Pot payouts have no day: the note ties them to their season."""
    return f"season:{season.pk}"


@dataclass(frozen=True)
class Pot:
    season: Season
    rules: scoring.Rules | None  # in force on the season's last day
    days: list[book_selectors.DayHouse]
    payouts: list[LedgerEntry]  # the season's live expense and prize entries, oldest first
    champion: Member | None  # position 1 among the season's qualified players

    @property
    def has_pot(self) -> bool:
        rules = self.rules
        return rules is not None and (rules.prize_cap is not None or bool(rules.place_fees))

    @property
    def income(self) -> int:
        return sum(d.house for d in self.days)

    @property
    def paid_out(self) -> int:
        return sum(e.amount for e in self.payouts)

    @property
    def balance(self) -> int:
        return self.income - self.paid_out

    def payout(self, venue_cost: int) -> scoring.PotPayout:
        """What paying `venue_cost` from what is left would give (the venue first, then the prize)."""
        assert self.rules is not None
        return scoring.pot_payout(self.rules, max(self.balance, 0), venue_cost)


def season_pot(*, season: Season) -> Pot:
    """A season's pot: the house totals of its days, less what it paid out (constant queries)."""
    club = season.club
    last = RulesVersion.in_force(club, season.end)
    payouts = list(
        LedgerEntry.objects.filter(
            club=club,
            kind__in=[LedgerEntry.EXPENSE, LedgerEntry.PRIZE],
            note=_pot_tag(season),
            reversed_by__isnull=True,
        )
        .select_related("payee")
        .order_by("id")
    )
    return Pot(
        season=season,
        rules=last.rules if last is not None else None,
        days=book_selectors.house_totals(club=club, start=season.start, end=season.end),
        payouts=payouts,
        champion=season_champion(season),
    )


def pot_pay_out(*, season: Season, user: User, venue_cost: int) -> list[LedgerEntry]:
    """花月杯: the pot pays the venue, then the champion up to the prize cap; the club keeps the
    rest. Once per season (a reversal of the payout allows it again)."""
    if venue_cost < 0:
        raise ServiceError.one("venue_cost", _("Enter zero or more yen."))
    with action():
        club = lock_club(season.club_id)  # one payout at a time
        season.club = club
        pot = season_pot(season=season)
        if not pot.has_pot:
            raise ServiceError.one(NON_FIELD, _("This club has no pot."))
        if clock.today() < season.end:
            raise ServiceError.one(
                NON_FIELD, _("The season is not over yet: pay out on or after its last day.")
            )
        if pot.payouts:
            raise ServiceError.one(NON_FIELD, _("This season's pot is already paid out."))
        payout = pot.payout(venue_cost)
        if payout.prize and pot.champion is None:
            raise ServiceError.one(NON_FIELD, _("No player qualifies as the champion."))
        if not payout.venue and not payout.prize:
            raise ServiceError.one(NON_FIELD, _("The pot is empty: there is nothing to pay out."))
        paid = [
            ("ledger.expense", LedgerEntry.EXPENSE, None, payout.venue),
            ("ledger.prize", LedgerEntry.PRIZE, pot.champion, payout.prize),
        ]
        return [
            _record(club, user, what, kind=kind, payee=payee, amount=amount, note=_pot_tag(season))
            for what, kind, payee, amount in paid
            if amount
        ]


def day_attendees_add_in(
    *, club: Club, user: User, date: datetime.date, members: Iterable[Member]
) -> Day:
    """Inside the caller's action (a check-in's, the demo's), mark members as present on a day
    (players waiting for a table included)."""
    members = list(members)
    if any(m.club_id != club.pk for m in members):
        raise ServiceError.one("attendees", _("Choose a member of this club."))
    if (problem := limits.date_problem(date)) is not None:
        raise ServiceError.one("date", problem)
    with transaction.atomic():  # a savepoint inside the caller's action
        lock_club(club.pk)  # first, as every writer of the club's days (lock_club)
        # A record merged into another is refused; one being merged waits for this (or this
        # for the merge, which then moves the attendance): see lock_live_members.
        lock_live_members([m.pk for m in members], shared=True)
        day, _created = Day.objects.get_or_create(club=club, date=date)
        present = set(day.attendees.values_list("pk", flat=True))
        new = [m for m in members if m.pk not in present]
        if new:
            day.attendees.add(*new)
            changes.record(changes.DaysChanged(club.pk, frozenset([day.pk])))
            audit(
                club=club,
                actor=user,
                action="day.attendees",
                target=f"day:{day.pk}",
                before={"attendees": sorted(present)},
                after={"attendees": sorted(present | {m.pk for m in new})},
            )
    return day


day_attendees_add = as_action(day_attendees_add_in)
