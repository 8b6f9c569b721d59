"""The club's books, kept at write time (posted by league.books in the writer's transaction).

Balances are read from these rows, never re-settled from the history: each is a projection of
the records (games' counted results, attendance, shūgi, the immutable `LedgerEntry` rows) that
`manage.py rebuild_money` can always compute again and `manage.py check_books` compares with
the records re-settled from scratch. Nothing here is a record: the records
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


# --- the book: accounts, transactions and their legs (double entry, integer yen) -----------------


class Account(models.Model):
    """An account of a club's book. A leg's `yen` is the change to what the account's holder has
    (or is owed): + receives, − pays. The legs of every transaction sum to zero, so the balances
    of a club's accounts sum to zero too.

    - `member`: a member's money, in parts whose sum is their balance (their statement: + the
      club or others owe them): with `day`, what is open of that day (+ still to receive, − still
      to pay: the day's total and what was paid, lent or deferred against it); with `debt`, their
      side of a loan, a deferral or an adjustment's yen (− what they still owe, + what they are
      still owed); with neither, the zero legs of an entry without a day or debt (a prize's payee).
    - `club`: the club's own account (積立: sticks and deposits left to the club, fees, rounding,
      a deferral's surcharge, adjustments, less its payouts).
    - `day`: the day's clearing account (精算): what the club took or paid at that day's table,
      beside its own account (a payment to the club, a loan paying the club).
    - `cash`: the club's cash outside any day (a debt repaid to the club, a payout from the pot).

    `balance` is the sum of the account's legs, kept by the one posting function in the same
    transaction (check_books holds it equal to the sum): open days and open debts are the
    accounts whose balance is not zero, read over a partial index.
    """

    MEMBER = "member"
    CLUB = "club"
    DAY = "day"
    CASH = "cash"
    KINDS = [(MEMBER, "member"), (CLUB, "club"), (DAY, "day"), (CASH, "cash")]

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=10, choices=KINDS)
    member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    day = models.ForeignKey(Day, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    debt = models.ForeignKey(
        LedgerEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    date = models.DateField(null=True, blank=True)  # the day's, or the debt's since
    balance = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["member"],
                condition=Q(kind="member", day__isnull=True, debt__isnull=True),
                name="account_member_once",
            ),
            models.UniqueConstraint(
                fields=["member", "day"],
                condition=Q(kind="member", day__isnull=False),
                name="account_member_day_once",
            ),
            models.UniqueConstraint(
                fields=["member", "debt"],
                condition=Q(kind="member", debt__isnull=False),
                name="account_member_debt_once",
            ),
            models.UniqueConstraint(
                fields=["day"], condition=Q(kind="day"), name="account_day_once"
            ),
            models.UniqueConstraint(
                fields=["club", "kind"],
                condition=Q(kind__in=["club", "cash"]),
                name="account_club_once",
            ),
            models.CheckConstraint(
                condition=(
                    Q(kind="member", member__isnull=False, day__isnull=True)
                    | Q(kind="member", member__isnull=False, debt__isnull=True)
                    | Q(kind="day", member__isnull=True, day__isnull=False, debt__isnull=True)
                    | Q(
                        kind__in=["club", "cash"],
                        member__isnull=True,
                        day__isnull=True,
                        debt__isnull=True,
                    )
                ),
                name="account_holder",
            ),
        ]
        indexes = [
            # What is open: a club's open days and debts (the debts page), a member's (their
            # statement, My page). A handful among thousands of settled ones.
            models.Index(
                fields=["club", "kind", "date"], condition=~Q(balance=0), name="account_open"
            ),
            models.Index(
                fields=["member", "date"], condition=~Q(balance=0), name="account_member_open"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.member_id or self.day_id or self.club_id} {self.balance}"


class Transaction(models.Model):
    """Money moved in a club's book, tied to its cause; its legs sum to zero. Never updated or
    deleted: when a cause's money changes (a game edited or voided, a day re-settled, a member
    merged), a `correction` of the same cause posts the difference."""

    SETTLEMENT = "settlement"  # a day's games: players' yen, the club's sticks, fees, rounding
    SHUGI = "shugi"  # a day's session shūgi
    PAYMENT = "payment"  # settling a day's transfer
    REPAYMENT = "repayment"  # paying a loan, a deferral or an adjustment's yen
    LOAN = "loan"
    DEFERRAL = "deferral"  # with its surcharge
    ADJUSTMENT = "adjustment"  # a season adjustment's yen
    PAYOUT = "payout"  # the club's expense or prize (the pot's payout)
    REVERSAL = "reversal"  # a ledger entry's reversal (or undo)
    CAUSES = [
        (SETTLEMENT, "settlement"),
        (SHUGI, "shugi"),
        (PAYMENT, "payment"),
        (REPAYMENT, "repayment"),
        (LOAN, "loan"),
        (DEFERRAL, "deferral"),
        (ADJUSTMENT, "adjustment"),
        (PAYOUT, "payout"),
        (REVERSAL, "reversal"),
    ]

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    date = models.DateField()
    cause = models.CharField(max_length=20, choices=CAUSES)
    day = models.ForeignKey(Day, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    entry = models.ForeignKey(
        LedgerEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reverses = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    correction = models.BooleanField(default=False)  # the difference to what was posted before
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["club", "id"], name="transaction_club"),
            models.Index(fields=["day", "cause"], name="transaction_day"),
            models.Index(fields=["entry"], name="transaction_entry"),
        ]

    def __str__(self) -> str:
        return f"{self.date} {self.cause} {self.day_id or self.entry_id}"


class Leg(models.Model):
    """One account's part of a transaction, in integer yen (+ the account receives).

    `member`, `date` and `seq` repeat the account's member, the transaction's date and its
    entry's id (0 for a day's settlement and shūgi) so that a statement's lines are sums over
    one index, in order; `part` says which part of a day's total a leg is (`games`: points,
    chips and sticks, `fees`, `shugi`, `rounding`; `surcharge`: a deferral's, to the club)."""

    GAMES = "games"
    FEES = "fees"
    SHUGI = "shugi"
    ROUNDING = "rounding"
    SURCHARGE = "surcharge"

    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="legs")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="legs")
    yen = models.BigIntegerField()
    member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    date = models.DateField()
    seq = models.BigIntegerField(default=0)
    part = models.CharField(max_length=10, blank=True, default="")

    class Meta:
        indexes = [
            # A balance is a sum over an account's legs, and the club's own account's lines
            # are its legs in order: read from the index alone.
            models.Index(fields=["account", "date", "seq", "part", "yen"], name="leg_account"),
            # A member's statement: their legs in order, summed per line.
            models.Index(fields=["member", "date", "seq", "part", "yen"], name="leg_member"),
        ]

    def __str__(self) -> str:
        return f"{self.transaction_id} {self.account_id} {self.yen}"
