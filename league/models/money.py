"""A day's money: session shūgi, and the ledger of who pays whom."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from league.core import changes
from league.models.audit import User, stored_user
from league.models.clubs import Club
from league.models.games import Day
from league.models.members import Member, lock_live_members


class DayShugi(models.Model):
    """Session-wide shūgi (花月杯: a yakuman pays 2,000 yen × multiplier from every attendee)."""

    day = models.ForeignKey(Day, on_delete=models.PROTECT, related_name="shugi")
    winner = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    multiplier = models.PositiveSmallIntegerField(_("multiplier"), default=1)
    voided = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["day", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(multiplier__gte=1), name="shugi_multiplier_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.winner} ×{self.multiplier}"


class LedgerEntryQuerySet(models.QuerySet["LedgerEntry"]):
    def live_repayments(self, debt: LedgerEntry) -> LedgerEntryQuerySet:
        """The payments of `debt` (a loan, a deferral, an adjustment's yen) not reversed: one
        of them, and the debt cannot be reversed before it is."""
        return self.filter(debt=debt).exclude(
            pk__in=LedgerEntry.objects.filter(reverses__debt=debt).values("reverses")
        )

    def update(self, **kwargs: Any) -> int:
        raise PermissionError("ledger entries are immutable: add a reversing entry")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise PermissionError("ledger entries are immutable: add a reversing entry")


class LedgerEntry(models.Model):
    """Money that changed hands, or a promise to pay: immutable, corrected by a reversal.

    A party that is `None` is the club. See league.books.services for what each kind posts to
    the book: to the parties' days, their debts and the club.
    """

    PAYMENT = "payment"  # payer paid payee, settling the day (or, with `debt`, paying a debt)
    LOAN = "loan"  # payer (lender) paid payee for `borrower`, who now owes the lender
    DEFERRAL = "deferral"  # `borrower` will pay payee later, with `surcharge` added
    EXPENSE = "expense"  # the club paid someone outside it (the venue) from its pot
    PRIZE = "prize"  # the club paid a champion from its pot
    REVERSAL = "reversal"  # undoes `reverses`
    # The yen of a season adjustment (league.models.teams.Adjustment) between a member and the
    # club, kept as a debt until paid: a penalty's `borrower` owes the club (payee None), a
    # bonus's club owes the `payee` (borrower None). No day; undone with its adjustment.
    ADJUSTMENT = "adjustment"
    KINDS = [
        (PAYMENT, _("payment")),
        (LOAN, _("loan")),
        (DEFERRAL, _("deferred")),
        (EXPENSE, _("expense")),
        (PRIZE, _("prize")),
        (REVERSAL, _("reversal")),
        (ADJUSTMENT, _("adjustment")),
    ]

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="ledger")
    day = models.ForeignKey(
        Day, null=True, blank=True, on_delete=models.PROTECT, related_name="ledger"
    )
    kind = models.CharField(max_length=20, choices=KINDS)
    payer = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    payee = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    borrower = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    amount = models.PositiveIntegerField(_("amount"))
    surcharge = models.PositiveIntegerField(_("surcharge"), default=0)
    debt = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="repayments"
    )
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by"
    )
    note = models.CharField(_("note"), max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = LedgerEntryQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="ledger_amount_positive"),
        ]
        indexes = [
            # A day's ledger page: the entries of one day.
            models.Index(fields=["day", "id"], name="ledger_day"),
            # Open debts and statements: a club's entries in order.
            models.Index(fields=["club", "kind", "id"], name="ledger_club_kind"),
            # A season's pot payouts (tagged by note): a few rows, found without reading the
            # club's whole ledger. Not a partial index: SQLite uses a partial index only when the
            # query repeats its condition with the same literal values, and Django binds them as
            # parameters, so the pot read every entry of the club (36 ms at 100,000 games).
            models.Index(fields=["club", "note"], name="ledger_note"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.amount}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise PermissionError("ledger entries are immutable: add a reversing entry")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise PermissionError("ledger entries are immutable: add a reversing entry")


def ledger_record(*, club_id: int, user: User, **fields: Any) -> LedgerEntry:
    """The one writer of ledger entries (league.money's every entry, league.teams' adjustment yen
    and its reversal), inside its caller's transaction holding the club's lock: the parties'
    rows locked as every money writer locks them (lock_live_members, shared: a merge waits, a
    merged party is refused), the entry created and posted to the kept books in the same
    transaction (`EntriesWritten`, league.core.changes: league.books posts it as the caller's
    action ends). The caller audits it."""
    parties = [
        fields.get(f"{party}_id", getattr(fields.get(party), "pk", None))
        for party in ("payer", "payee", "borrower")
    ]
    lock_live_members(parties, shared=True)
    entry = LedgerEntry.objects.create(club_id=club_id, created_by=stored_user(user), **fields)
    changes.record(changes.EntriesWritten(club_id, [entry]))
    return entry
