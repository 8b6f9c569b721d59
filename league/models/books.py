"""The club's books, kept at write time (posted by league.books in the writer's transaction).

Balances are read from these rows, never re-settled from the history: each is a projection of
the records (games' counted results, attendance, shūgi, the immutable `LedgerEntry` rows) that
`manage.py rebuild_money` can always compute again and `manage.py check_money` compares with
the derivation in league.money.services (the reference). Nothing here is a record: the records
are never deleted; when a day's money changes its kept rows are posted again.

- `DayAccount`: one party's money of one day (the club's when `member` is None): the day's
  total, what was paid, lent and deferred against it, and what is still to settle.
- `OpenTransfer`: who still pays whom for a day (only days not settled have any).
- `DebtAccount`: a loan or a deferred payment, and what remains of it.
- `BookLine`: a line of a member's statement, or of the club's own account (クラブ積立) when
  `member` is None; balances are sums of `yen` in (date, seq) order.
"""

from __future__ import annotations

import datetime

from django.db import models
from django.db.models import Q
from django.utils import timezone

from league.models.clubs import Club
from league.models.games import Day
from league.models.members import Member
from league.models.money import LedgerEntry


class DayAccount(models.Model):
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    day = models.ForeignKey(Day, on_delete=models.PROTECT, related_name="accounts")
    date = models.DateField()
    member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    position = models.PositiveIntegerField(default=0)  # the day's order of players, the club last
    games = models.IntegerField(default=0)
    score = models.IntegerField(default=0)
    chips = models.IntegerField(default=0)
    # The day's total (+ receives) and its parts; for the club, what its players' parts gave it.
    yen = models.BigIntegerField(default=0)
    game_yen = models.BigIntegerField(default=0)
    fees = models.BigIntegerField(default=0)
    shugi = models.BigIntegerField(default=0)
    rounding = models.BigIntegerField(default=0)
    # What the day's entries settled of it (the day effects of league.money.services._effects).
    paid = models.BigIntegerField(default=0)
    borrowed = models.BigIntegerField(default=0)
    deferred = models.BigIntegerField(default=0)
    outstanding = models.BigIntegerField(default=0)  # + still to receive, − still to pay

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["day", "member"],
                condition=Q(member__isnull=False),
                name="dayaccount_member_once",
            ),
            models.UniqueConstraint(
                fields=["day"], condition=Q(member__isnull=True), name="dayaccount_club_once"
            ),
        ]
        indexes = [
            models.Index(fields=["member", "date"], name="dayaccount_member"),
            models.Index(fields=["club", "member", "date"], name="dayaccount_club"),
            # The days not settled: a handful among thousands.
            models.Index(
                fields=["club", "date"], condition=~Q(outstanding=0), name="dayaccount_open"
            ),
            # A member's days not settled (My page, a statement): not every day they played.
            models.Index(
                fields=["member", "date"],
                condition=~Q(outstanding=0),
                name="dayaccount_member_open",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.date} {self.member_id or 'club'} {self.outstanding}"


class OpenTransfer(models.Model):
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    day = models.ForeignKey(Day, on_delete=models.PROTECT, related_name="open_transfers")
    date = models.DateField()
    position = models.PositiveIntegerField()
    payer = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    payee = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    yen = models.BigIntegerField()

    class Meta:
        indexes = [
            models.Index(fields=["club", "date"], name="opentransfer_club"),
            models.Index(fields=["day", "position"], name="opentransfer_day"),
        ]

    def __str__(self) -> str:
        return f"{self.date} {self.payer_id or 'club'}→{self.payee_id or 'club'} {self.yen}"


class DebtAccount(models.Model):
    entry = models.OneToOneField(LedgerEntry, on_delete=models.PROTECT, related_name="kept_debt")
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    debtor = models.ForeignKey(  # None: the club (a season bonus's yen it owes a member)
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    creditor = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    since = models.DateField()
    principal = models.BigIntegerField()  # with any surcharge
    repaid = models.BigIntegerField(default=0)
    remaining = models.BigIntegerField()

    class Meta:
        indexes = [
            models.Index(
                fields=["club", "since"], condition=Q(remaining__gt=0), name="debtaccount_open"
            ),
            models.Index(
                fields=["debtor"], condition=Q(remaining__gt=0), name="debtaccount_debtor"
            ),
            models.Index(
                fields=["creditor"], condition=Q(remaining__gt=0), name="debtaccount_creditor"
            ),
        ]

    def __str__(self) -> str:
        return f"debt {self.entry_id}: {self.remaining}/{self.principal}"

    @property
    def creditor_pk(self) -> int | None:
        return self.creditor_id

    def age_days(self, today: datetime.date | None = None) -> int:
        return ((today or timezone.localdate()) - self.since).days


class BookLine(models.Model):
    DAY = "day"
    # The club's account (member None): what each day gave it, and what it paid out.
    GAMES = "games"  # sticks and deposits left to the club, oka to the house, penalties
    FEES = "fees"  # place fees
    ROUNDING = "rounding"  # rounding of the day's totals to the club's yen unit
    SURCHARGE = "surcharge"  # a deferral's surcharge owed to the club
    # otherwise a LedgerEntry kind (payment, loan, deferral, expense, prize, reversal)

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    date = models.DateField()
    seq = models.BigIntegerField(default=0)  # the entry's id, 0 for a day's line: the order
    kind = models.CharField(max_length=20)
    yen = models.BigIntegerField()  # the change to the member's balance, or to the club's account
    day = models.ForeignKey(Day, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    entry = models.ForeignKey(
        LedgerEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        indexes = [
            models.Index(fields=["member", "date", "seq", "yen"], name="bookline_member"),
            # The club's own account. `member` (always null here) is in the key so that SQLite,
            # which has no statistics, sees two matched columns and prefers it to the club's
            # foreign-key index over every line.
            models.Index(
                fields=["club", "member", "date", "seq", "yen"],
                condition=Q(member__isnull=True),
                name="bookline_club",
            ),
            models.Index(fields=["day"], name="bookline_day"),
            models.Index(fields=["entry"], name="bookline_entry"),
        ]

    def __str__(self) -> str:
        return f"{self.date} {self.member_id or 'club'} {self.kind} {self.yen}"
