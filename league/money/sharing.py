"""Who pays whom on a day, recorded or still due, as the payment sheet, the public day page and
the chat's day text (league.chat.sharing) list it."""

from __future__ import annotations

from dataclasses import dataclass

from league import money
from league.models import Club, LedgerEntry, Member


def party_name(club: Club, member: Member | None) -> str:
    return club.name if member is None else member.name


@dataclass(frozen=True)
class TransferLine:
    """One line of who pays whom on a day: recorded (paid, lent, deferred) or still due."""

    payer: str
    payee: str
    yen: int
    status: str  # "paid", "loan" (paid with a lender's money), "deferred" or "due"
    entry: LedgerEntry | None = None  # the recorded entry; None: still due


def day_transfers(club: Club, ledger: money.DayLedger) -> list[TransferLine]:
    """The day's recorded payments, loans and deferrals (not reversed), then what is still due:
    what the payment sheet and the chat message list."""
    cancelled = {e.reverses_id for e in ledger.entries if e.reverses_id is not None}
    status = {
        LedgerEntry.PAYMENT: "paid",
        LedgerEntry.LOAN: "loan",
        LedgerEntry.DEFERRAL: "deferred",
    }
    lines = []
    for e in ledger.entries:
        if e.kind not in status or e.pk in cancelled or e.debt_id is not None:
            continue
        payer = party_name(club, e.payer) if e.kind == LedgerEntry.PAYMENT else e.borrower.name
        lines.append(TransferLine(payer, party_name(club, e.payee), e.amount, status[e.kind], e))
    for t in ledger.transfers:
        payer = party_name(club, ledger.member(money.party(t.payer)))
        payee = party_name(club, ledger.member(money.party(t.payee)))
        lines.append(TransferLine(payer, payee, t.yen, "due"))
    return lines
