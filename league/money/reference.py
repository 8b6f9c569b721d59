"""The kept books (league.books) against the reference: the money derived from the whole history
by league.money.services (club_accounts, the statements' lines, the debts), as every page read
it before the books were kept. `manage.py check_money` and tests/league/test_books.py use it.

`drift(club)` lists every difference, in words; an empty list means every kept row equals the
reference to the yen.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.utils import timezone

from league.books import services as books
from league.models import BookLine, Club, DayAccount, DebtAccount, LedgerEntry, OpenTransfer
from league.money import services as money

Key = tuple[Any, ...]


def _reference(club: Club) -> dict[str, dict[Any, Any]]:
    accounts = money.club_accounts(club=club)
    entries = money._club_entries(club)
    days: dict[Key, Key] = {}
    transfers: dict[int, list[Key]] = {}
    lines: dict[int | None, list[Key]] = defaultdict(list)
    house: dict[int, int] = {}
    for ledger in accounts.ledgers:
        day = ledger.day
        parts = {money.party(p.name): p for p in ledger.result.players}
        for party, outstanding in ledger.outstanding.items():
            p = parts.get(party)
            yen = ledger.result.house if party is None else (p.yen if p else 0)
            detail = (p.games, p.game_yen, p.fees, p.shugi, p.rounding) if p else None
            days[(day.pk, party)] = (yen, outstanding, detail)
        if ledger.transfers:
            transfers[day.pk] = [
                (money.party(t.payer), money.party(t.payee), t.yen) for t in ledger.transfers
            ]
        for p in ledger.result.players:
            lines[money.party(p.name)].append((day.date, 0, "day", p.yen))
        house[day.pk] = ledger.result.house
    club_entries: list[Key] = []
    for e in entries:
        when = e.day.date if e.day else timezone.localdate(e.created_at)
        change = money._effects(e)[1]
        for m in dict.fromkeys(x for x in (e.payer_id, e.payee_id, e.borrower_id) if x):
            lines[m].append((when, e.pk, e.kind, change.get(m, 0)))
        base = e.reverses if e.kind == LedgerEntry.REVERSAL else e
        assert base is not None
        sign = -1 if e.kind == LedgerEntry.REVERSAL else 1
        if base.kind in (LedgerEntry.DEFERRAL, LedgerEntry.ADJUSTMENT) and change.get(None):
            club_entries.append((when, e.pk, change[None]))
        elif base.kind in (LedgerEntry.EXPENSE, LedgerEntry.PRIZE):
            club_entries.append((when, e.pk, -sign * base.amount))
    debts = {
        d.entry.pk: (d.debtor_id, d.creditor_pk, d.principal, d.repaid, d.remaining, d.since)
        for d in money._debts(entries)
    }
    return {
        "days": days,
        "transfers": transfers,
        "lines": {m: sorted(v, key=lambda x: (x[0], x[1])) for m, v in lines.items()},
        "house": house,
        "club": dict(enumerate(sorted(club_entries))),
        "debts": debts,
    }


def _kept(club: Club) -> dict[str, dict[Any, Any]]:
    days: dict[Key, Key] = {}
    players = set(
        BookLine.objects.filter(club=club, kind=BookLine.DAY).values_list("day_id", "member_id")
    )
    for a in DayAccount.objects.filter(club=club):
        player = (a.day_id, a.member_id) in players
        detail = (a.games, a.game_yen, a.fees, a.shugi, a.rounding) if player else None
        days[(a.day_id, a.member_id)] = (a.yen, a.outstanding, detail)
    transfers: dict[int, list[Key]] = defaultdict(list)
    for t in OpenTransfer.objects.filter(club=club).order_by("day_id", "position"):
        transfers[t.day_id].append((t.payer_id, t.payee_id, t.yen))
    lines: dict[int | None, list[Key]] = defaultdict(list)
    house: dict[int, int] = defaultdict(int)
    club_entries: list[Key] = []
    for line in BookLine.objects.filter(club=club).order_by("date", "seq", "id"):
        if line.member_id is not None:
            lines[line.member_id].append((line.date, line.seq, line.kind, line.yen))
        elif line.entry_id is None:
            house[line.day_id] += line.yen  # type: ignore[index]
        else:
            club_entries.append((line.date, line.seq, line.yen))
    debts = {
        d.entry_id: (d.debtor_id, d.creditor_id, d.principal, d.repaid, d.remaining, d.since)
        for d in DebtAccount.objects.filter(club=club)
    }
    return {
        "days": days,
        "transfers": dict(transfers),
        "lines": dict(lines),
        "house": dict(house),
        "club": dict(enumerate(sorted(club_entries))),
        "debts": debts,
    }


def drift(club: Club) -> list[str]:
    """Every difference between the kept books of `club` and the reference, in words."""
    want, have = _reference(club), _kept(club)
    out = []
    for part in want:
        w, h = want[part], have[part]
        if part == "house":  # a day without any club line is a day whose house is 0
            w = {k: v for k, v in w.items() if v}
            h = {k: v for k, v in h.items() if v}
        for key in sorted(set(w) | set(h), key=repr):
            if w.get(key) != h.get(key):
                out.append(f"{club.slug} {part} {key}: kept {h.get(key)!r}, derived {w.get(key)!r}")
    return out


def rebuild(club: Club) -> None:
    """Every kept row of `club` posted again from its records (manage.py rebuild_money)."""
    books.club_rebuild(club_id=club.pk)
