"""A day as plain text for a group chat (LINE): each game's players and scores, then who pays whom.

Clubs used to type this into their LINE group by hand after the evening. The shape is compact,
one line a player, so that it reads on a phone without wrapping:

    マメの会 2026/11/15
    ■第1半荘 A卓 レート0.5
    1位 小林 誠 +46.3
    …
    ■精算
    松本 和也 → 山田 博 2,630円
    吉田 浩二 → 阿部 誠 2,015円（支払済み）

Voided games are left out; the scores are those of each game's current revision. Numbers are
written as on the screen (▲ for negatives in Japanese).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from league import money
from league.core.format import score, yen
from league.models import Club, Day, Game, LedgerEntry, Member

HEADING = "■"


def _party(club: Club, member: Member | None) -> str:
    return club.name if member is None else member.name


def game_lines(game: Game) -> list[str]:
    """One game: a heading with its number, table and rate, then its players by rank.

    `game` comes from league.recording.selectors (its `current_results` loaded, in seat order)."""
    heading = _("Game %(number)s") % {"number": game.number}
    if game.table:
        heading += " " + _("table %(table)s") % {"table": game.table}
    if game.rate:
        heading += " " + _("rate %(rate)s") % {"rate": game.rate}
    rows = sorted(game.current_results, key=lambda r: (r.rank, r.seat))  # type: ignore[attr-defined]
    # Translators: a player's rank in the chat message: 1位
    rank = _("%(rank)s.")
    players = [f"{rank % {'rank': r.rank}} {r.member.name} {score(r.score)}" for r in rows]
    return [HEADING + heading, *players]


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
        payer = _party(club, e.payer) if e.kind == LedgerEntry.PAYMENT else e.borrower.name
        lines.append(TransferLine(payer, _party(club, e.payee), e.amount, status[e.kind], e))
    for t in ledger.transfers:
        payer = _party(club, ledger.member(money.party(t.payer)))
        payee = _party(club, ledger.member(money.party(t.payee)))
        lines.append(TransferLine(payer, payee, t.yen, "due"))
    return lines


def payment_lines(club: Club, ledger: money.DayLedger) -> list[str]:
    """Who pays whom, one line each: "松本 → 山田 2,630円（支払済み）"."""
    notes = {"paid": _(" (paid)"), "deferred": _(" (later)"), "due": ""}
    lines = []
    for t in day_transfers(club, ledger):
        amount = _("%(amount)s yen") % {"amount": yen(t.yen)}
        if t.status == "loan":
            note = _(" (paid, lent by %(lender)s)") % {"lender": _party(club, t.entry.payer)}
        else:
            note = notes[t.status]
        lines.append(f"{t.payer} → {t.payee} {amount}{note}")
    return lines


def day_text(*, club: Club, day: Day, games: Sequence[Game], ledger: money.DayLedger | None) -> str:
    """The whole message: the club and date, every counted game, and (with money) the payments."""
    lines = [f"{club.name} {day.date:%Y/%m/%d}"]
    for game in games:
        if not game.voided:
            lines += game_lines(game)
    if ledger is not None:
        payments = payment_lines(club, ledger)
        lines.append(HEADING + _("Payments"))
        lines += payments or [_("Nothing to pay.")]
    return "\n".join(lines) + "\n"
