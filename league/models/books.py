"""The club's book, posted at write time (by league.books in the writer's transaction).

Balances are read from it, never re-settled from the history: it is a posting of the records
(games' counted results, attendance, shūgi, the immutable `LedgerEntry` rows) that
`manage.py check_books` compares with the records re-settled from scratch. Nothing here is a
record, and nothing of the book is updated or deleted but the accounts' kept balances: a change
of the records posts a correcting transaction.

- `Account`, `Transaction`, `Leg`: the book, double entry (below).
- `OpenTransfer`: who still pays whom for a day (only days not settled have any), kept beside
  the book and posted again with its day.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from league.models.clubs import Club
from league.models.games import Day
from league.models.members import Member
from league.models.money import LedgerEntry


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
            # One each per club; a constraint each, so that a query of the club's own account
            # (kind = 'club') finds it by its index, not among every account of the club.
            models.UniqueConstraint(
                fields=["club"], condition=Q(kind="club"), name="account_club_once"
            ),
            models.UniqueConstraint(
                fields=["club"], condition=Q(kind="cash"), name="account_cash_once"
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
            models.Index(
                fields=["member", "date", "seq", "part", "yen", "account"], name="leg_member"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.transaction_id} {self.account_id} {self.yen}"
