"""One sign convention for money seen by a member (issue 21, item 7): what they receive is plain
or +, what they pay is ▲ (red on the pages, through the `sign_class` filter).

A statement's *balance* says what the member is owed (+) or owes (▲) overall; a ledger entry's
*flow* says what moved in the member's own hands: a payment they received is +, one they made is
▲, whatever it does to the balance (receiving 12 yen they were owed takes the balance from +12
to 0, and is shown as +12, never as ▲12). My page shows its entries and latest lines so; the
statement (league.money) shows each line as the balance's change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from league.books.services import entry_legs
from league.models import Account, LedgerEntry

if TYPE_CHECKING:
    from league.books.selectors import Line as StatementLine


def flow(entry: LedgerEntry, member_pk: int) -> int:
    """The yen that `entry` put in (+) or took out of (−) the member's hands; 0 for an entry that
    moved no money of theirs (a deferral: they pay later; a loan they took: the lender paid). A
    reversal is its original's flow, negated."""
    if entry.kind == LedgerEntry.REVERSAL:
        original = entry.reverses
        return -flow(original, member_pk) if original is not None else 0
    if entry.kind in (LedgerEntry.PAYMENT, LedgerEntry.LOAN, LedgerEntry.PRIZE):
        if entry.payee_id == member_pk:
            return entry.amount
        if entry.payer_id == member_pk:
            return -entry.amount
    return 0


def later(entry: LedgerEntry, member_pk: int) -> int:
    """What `entry` leaves to move on a later day, + to receive, − to pay: the member's leg on
    their account of the debt it makes (a deferral's amount with its surcharge, a loan's amount
    owed to the lender, a season adjustment's yen). 0 for anything else."""
    debt = entry.reverses if entry.kind == LedgerEntry.REVERSAL else entry
    if debt is None:
        return 0
    mine = (Account.MEMBER, member_pk, None, debt.pk)
    return sum(yen for (holder, _part), yen in entry_legs(entry).items() if holder == mine)


def line_yen(line: StatementLine, member_pk: int) -> int:
    """A statement line's yen in the member's own view: a day's result as it is (+ won, ▲ lost);
    an entry as what it moved in their hands (received +, paid ▲), or for a deferral or a loan
    what it leaves them to receive or pay later. The statement's balance column keeps what they
    are owed (+) or owe (▲) overall."""
    if line.entry is None:
        return line.yen
    return flow(line.entry, member_pk) or later(line.entry, member_pk)
