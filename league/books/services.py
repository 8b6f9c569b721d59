"""Posting the club's books (league.models.books) at write time.

Every writer of a club's money calls `post` inside its transaction, after its own rows are
written and holding the club's lock (lock_club), so the kept rows move with the records or not
at all: game record, edit and void, bulk imports, re-settles, shūgi and attendance, every ledger
entry (payments, loans, deferrals, repayments, reversals and undos, closing a day, the pot's
payouts), member merges; restore and `manage.py rebuild_money` rebuild a whole club.

Posting a day settles that day alone (its games, attendees and shūgi under its rules version)
and replaces the day's kept rows; a debt's row is computed from the debt and its repayments.
This is a second implementation of the rules of league.money.services (the reference, which
derives everything from the whole history): `manage.py check_money` and the property test
(tests/league/test_books.py) hold the two to the yen.

What each entry kind does, as in the reference:

| kind | day (settles the day's totals) | balances (statements) |
|---|---|---|
| payment (same day) | payer +a, payee −a (`paid`) | payer +a, payee −a |
| payment of a debt | | payer +a, payee −a; the debt −a |
| loan | borrower +a, payee −a (`borrowed`) | lender +a, payee −a; borrower owes lender a |
| deferral (+ s) | borrower +a, payee −a (`deferred`) | borrower −s, payee +s; owes payee a+s |
| expense / prize | | (the club's account −a) |
| adjustment (a season's yen) | | borrower −a, payee +a (one is the club); owed until paid |
| reversal | the opposite of what it reverses | |
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import Q
from django.utils import timezone

import scoring
from league.core.bulk import bulk_insert
from league.models import (
    BookLine,
    Day,
    DayAccount,
    DayShugi,
    DebtAccount,
    Game,
    LedgerEntry,
    Member,
    OpenTransfer,
    Result,
    RulesVersion,
)
from league.models.games import stored_game_result

Party = int | None
NO_MONEY = scoring.rules_from_json({"preset": "takabari-kenko"})
DEBT_KINDS = (LedgerEntry.LOAN, LedgerEntry.DEFERRAL)
OWED_KINDS = (*DEBT_KINDS, LedgerEntry.ADJUSTMENT)  # entries that leave a debt until paid
SETTLED_BY = {  # which column of DayAccount an entry's day effect goes to
    LedgerEntry.PAYMENT: "paid",
    LedgerEntry.LOAN: "borrowed",
    LedgerEntry.DEFERRAL: "deferred",
}


def _base(entry: LedgerEntry) -> tuple[int, LedgerEntry]:
    """(sign, the entry whose kind counts): a reversal counts as its original, negated."""
    if entry.kind == LedgerEntry.REVERSAL:
        return -1, entry.reverses  # type: ignore[return-value]
    return 1, entry


def day_effects(entry: LedgerEntry) -> list[tuple[Party, int]]:
    """What `entry` settles of its day's totals, in the reference's order of parties."""
    sign, e = _base(entry)
    a = sign * e.amount
    if e.kind == LedgerEntry.PAYMENT and e.debt_id is None:
        return [(e.payer_id, a), (e.payee_id, -a)]
    if e.kind in DEBT_KINDS:
        return [(e.borrower_id, a), (e.payee_id, -a)]
    return []


def balance_effects(entry: LedgerEntry) -> dict[Party, int]:
    """What `entry` does to the parties' balances (a member's statement)."""
    sign, e = _base(entry)
    out: dict[Party, int] = {}
    if e.kind in (LedgerEntry.PAYMENT, LedgerEntry.LOAN):
        out[e.payer_id] = sign * e.amount
        out[e.payee_id] = out.get(e.payee_id, 0) - sign * e.amount
    elif e.kind == LedgerEntry.DEFERRAL:
        out[e.borrower_id] = -sign * e.surcharge
        out[e.payee_id] = out.get(e.payee_id, 0) + sign * e.surcharge
    elif e.kind == LedgerEntry.ADJUSTMENT:
        out[e.borrower_id] = -sign * e.amount
        out[e.payee_id] = out.get(e.payee_id, 0) + sign * e.amount
    return out


def club_line(entry: LedgerEntry) -> tuple[str, int] | None:
    """(kind, yen) of the club's own account for `entry`: a surcharge it is owed, a payout."""
    sign, e = _base(entry)
    if e.kind == LedgerEntry.DEFERRAL and e.payee_id is None and e.surcharge:
        return BookLine.SURCHARGE, sign * e.surcharge
    if e.kind in (LedgerEntry.EXPENSE, LedgerEntry.PRIZE):
        return entry.kind, -sign * e.amount
    if e.kind == LedgerEntry.ADJUSTMENT:  # the club is owed a penalty, owes a bonus
        return entry.kind, balance_effects(entry)[None]
    return None


def entry_date(entry: LedgerEntry) -> datetime.date:
    return entry.day.date if entry.day is not None else timezone.localdate(entry.created_at)


def _entry_lines(entry: LedgerEntry) -> list[BookLine]:
    effects = balance_effects(entry)
    date = entry_date(entry)
    lines = []
    parties = dict.fromkeys(p for p in (entry.payer_id, entry.payee_id, entry.borrower_id) if p)
    for member_id in parties:
        lines.append(
            BookLine(
                club_id=entry.club_id,
                member_id=member_id,
                date=date,
                seq=entry.pk,
                kind=entry.kind,
                yen=effects.get(member_id, 0),
                day_id=entry.day_id,
                entry=entry,
            )
        )
    club = club_line(entry)
    if club is not None:
        kind, yen = club
        lines.append(
            BookLine(
                club_id=entry.club_id,
                member_id=None,
                date=date,
                seq=entry.pk,
                kind=kind,
                yen=yen,
                day_id=entry.day_id,
                entry=entry,
            )
        )
    return lines


# --- a day ------------------------------------------------------------------------------------


class _DayInputs:
    """What settling a day reads: its games (in order, each with its counted results by seat),
    attendees and shūgi, read as plain rows (_load), not model instances."""

    __slots__ = ("attendees", "day", "games", "shugi")

    def __init__(self, day: Day) -> None:
        self.day = day
        self.games: list[tuple[Any, list[Any]]] = []  # (game row, its result rows)
        self.attendees: list[int] = []
        self.shugi: list[tuple[int, int]] = []


def _load(day_ids: Iterable[int]) -> list[_DayInputs]:
    ids = list(day_ids)
    loaded = {d.pk: _DayInputs(d) for d in Day.objects.filter(pk__in=ids).order_by("date")}
    results: dict[int, list[Any]] = {}
    for game in (
        Game.objects.filter(day_id__in=ids, voided=False)
        .order_by("day_id", "number")
        .values_list("pk", "day_id", "deposits", "rate", "rules_version_id", named=True)
    ):
        results[game.pk] = []
        loaded[game.day_id].games.append((game, results[game.pk]))
    for row in (
        Result.objects.filter(game__day_id__in=ids, counted=True)
        .order_by("game_id", "seat")
        .values_list(
            "game_id",
            "member_id",
            "points",
            "rank",
            "score",
            "chips",
            "yen",
            "chombo",
            "member__fill_in",
            named=True,
        )
    ):
        if row.game_id in results:
            results[row.game_id].append(row)
    member_order = [f"member__{name}" for name in Member._meta.ordering]
    for day_id, member_id in (
        Day.attendees.through.objects.filter(day_id__in=ids)
        .order_by("day_id", *member_order)
        .values_list("day_id", "member_id")
    ):
        loaded[day_id].attendees.append(member_id)
    for day_id, winner_id, multiplier in (
        DayShugi.objects.filter(day_id__in=ids, voided=False)
        .order_by("day_id", "id")
        .values_list("day_id", "winner_id", "multiplier")
    ):
        loaded[day_id].shugi.append((winner_id, multiplier))
    return list(loaded.values())


def _version_on(versions: Sequence[RulesVersion], date: datetime.date) -> RulesVersion | None:
    current = None
    for v in versions:
        if v.effective_from <= date:
            current = v
    return current


def _day_version(inputs: _DayInputs, versions: Sequence[RulesVersion]) -> RulesVersion | None:
    by_id = {v.pk: v for v in versions}
    day = inputs.day
    if day.rules_version_id is not None:
        return by_id.get(day.rules_version_id)
    for game, rows in inputs.games:
        if rows and game.rules_version_id in by_id:
            return by_id[game.rules_version_id]
    return _version_on(versions, day.date)


def settle(inputs: _DayInputs, versions: Sequence[RulesVersion]) -> scoring.DayResult:
    """The day's result from its loaded games, attendees and shūgi (_load)."""
    version = _day_version(inputs, versions)
    rules = version.rules if version is not None else NO_MONEY
    settled = scoring.settle_day(
        rules,
        [stored_game_result(game, rows) for game, rows in inputs.games if rows],
        attendees=[str(m) for m in inputs.attendees],
        shugi=[scoring.Shugi(str(winner), times) for winner, times in inputs.shugi],
    )
    # A fill-in's (黒子) money is the house's: they have no line in the books.
    fill_ins = [str(r.member_id) for _game, rows in inputs.games for r in rows if r.member__fill_in]
    return scoring.house_takes(settled, fill_ins)


def _post_day(
    day: Day, result: scoring.DayResult, entries: Sequence[LedgerEntry]
) -> tuple[list[DayAccount], list[OpenTransfer], list[BookLine]]:
    club_id, date = day.club_id, day.date
    accounts: dict[Party, DayAccount] = {}
    for p in result.players:
        accounts[int(p.name)] = DayAccount(
            member_id=int(p.name),
            games=p.games,
            score=p.score,
            chips=p.chips,
            yen=p.yen,
            game_yen=p.game_yen,
            fees=p.fees,
            shugi=p.shugi,
            rounding=p.rounding,
        )
    players = list(accounts.values())
    accounts[None] = DayAccount(
        member_id=None,
        yen=result.house,
        game_yen=-sum(a.game_yen for a in players),
        fees=-sum(a.fees for a in players),
        shugi=-sum(a.shugi for a in players),
        rounding=-sum(a.rounding for a in players),
    )
    for entry in entries:
        column = SETTLED_BY.get(_base(entry)[1].kind)
        for party, yen in day_effects(entry):
            account = accounts.setdefault(party, DayAccount(member_id=party))
            setattr(account, column, getattr(account, column) + yen)  # type: ignore[arg-type]
    for i, account in enumerate(accounts.values()):
        account.club_id, account.day, account.date, account.position = club_id, day, date, i
        account.outstanding = account.yen + account.paid + account.borrowed + account.deferred
    transfers = scoring.settle_transfers(
        (None if p is None else str(p), a.outstanding) for p, a in accounts.items()
    )
    open_transfers = [
        OpenTransfer(
            club_id=club_id,
            day=day,
            date=date,
            position=i,
            payer_id=None if t.payer is None else int(t.payer),
            payee_id=None if t.payee is None else int(t.payee),
            yen=t.yen,
        )
        for i, t in enumerate(transfers)
    ]
    lines = [
        BookLine(
            club_id=club_id, member_id=a.member_id, date=date, kind=BookLine.DAY, yen=a.yen, day=day
        )
        for a in players
    ]
    house = accounts[None]
    for kind, yen in (
        (BookLine.GAMES, house.game_yen),
        (BookLine.FEES, house.fees),
        (BookLine.ROUNDING, house.rounding),
    ):
        if yen:
            lines.append(BookLine(club_id=club_id, date=date, kind=kind, yen=yen, day=day))
    for entry in entries:
        lines += _entry_lines(entry)
    return list(accounts.values()), open_transfers, lines


def _versions(club_id: int) -> list[RulesVersion]:
    return list(RulesVersion.objects.filter(club_id=club_id).order_by("effective_from"))


def post_days(club_id: int, day_ids: Iterable[int], *, chunk: int = 500) -> None:
    """Post the kept rows of these days of one club (inside the writer's transaction)."""
    ids = sorted(set(day_ids))
    if not ids:
        return
    versions = _versions(club_id)
    for start in range(0, len(ids), chunk):
        part = ids[start : start + chunk]
        days = _load(part)
        by_day: dict[int, list[LedgerEntry]] = {d.day.pk: [] for d in days}
        for e in (
            LedgerEntry.objects.filter(day_id__in=part)
            .select_related("reverses", "day")
            .order_by("id")
        ):
            by_day[e.day_id].append(e)  # type: ignore[index]
        accounts: list[DayAccount] = []
        transfers: list[OpenTransfer] = []
        lines: list[BookLine] = []
        for inputs in days:
            a, t, li = _post_day(inputs.day, settle(inputs, versions), by_day[inputs.day.pk])
            accounts += a
            transfers += t
            lines += li
        DayAccount.objects.filter(day_id__in=part).delete()
        OpenTransfer.objects.filter(day_id__in=part).delete()
        BookLine.objects.filter(day_id__in=part).delete()
        bulk_insert(DayAccount, accounts, batch_size=2000)
        bulk_insert(OpenTransfer, transfers, batch_size=2000)
        bulk_insert(BookLine, lines, batch_size=2000)


# --- debts and entries without a day ------------------------------------------------------------


def _debt_ids(entries: Iterable[LedgerEntry]) -> set[int]:
    ids = set()
    for entry in entries:
        _sign, e = _base(entry)
        if e.kind in OWED_KINDS:
            ids.add(e.pk)
        if e.debt_id is not None:
            ids.add(e.debt_id)
    return ids


def post_debts(club_id: int, debt_ids: Iterable[int]) -> None:
    """Post the kept rows of these loans and deferrals from them and their repayments."""
    ids = sorted(set(debt_ids))
    if not ids:
        return
    related = list(
        LedgerEntry.objects.filter(
            Q(pk__in=ids)
            | Q(debt_id__in=ids)
            | Q(reverses_id__in=ids)
            | Q(reverses__debt_id__in=ids)
        )
        .select_related("day")
        .order_by("id")
    )
    reversed_ids = {e.reverses_id for e in related if e.reverses_id is not None}
    live = [e for e in related if e.pk not in reversed_ids and e.kind != LedgerEntry.REVERSAL]
    repaid: dict[int, int] = {}
    for e in live:
        if e.kind == LedgerEntry.PAYMENT and e.debt_id is not None:
            repaid[e.debt_id] = repaid.get(e.debt_id, 0) + e.amount
    rows = []
    for e in live:
        if e.pk in ids and e.kind in OWED_KINDS:
            loan = e.kind == LedgerEntry.LOAN
            principal = e.amount + (e.surcharge if e.kind == LedgerEntry.DEFERRAL else 0)
            paid = repaid.get(e.pk, 0)
            rows.append(
                DebtAccount(
                    entry=e,
                    club_id=club_id,
                    debtor_id=e.borrower_id,
                    creditor_id=e.payer_id if loan else e.payee_id,
                    since=entry_date(e),
                    principal=principal,
                    repaid=paid,
                    remaining=principal - paid,
                )
            )
    DebtAccount.objects.filter(entry_id__in=ids).delete()
    DebtAccount.objects.bulk_create(rows, batch_size=2000)


def post_entries(club_id: int, entries: Sequence[LedgerEntry]) -> None:
    """Post what `entries` change besides their days: lines of entries without a day (debt
    repayments, the pot's payouts, their reversals), and the debts they make or pay."""
    dayless = [e for e in entries if e.day_id is None]
    if dayless:
        BookLine.objects.filter(entry__in=[e.pk for e in dayless]).delete()
        BookLine.objects.bulk_create([li for e in dayless for li in _entry_lines(e)])
    post_debts(club_id, _debt_ids(entries))


def post(*, club_id: int, days: Iterable[int] = (), entries: Sequence[LedgerEntry] = ()) -> None:
    """The one call of every writer: the kept rows of these days and entries, posted again."""
    entries = list(entries)
    post_days(club_id, [*days, *(e.day_id for e in entries if e.day_id is not None)])
    if entries:
        ids = [e.pk for e in entries]
        loaded = list(
            LedgerEntry.objects.filter(pk__in=ids).select_related("reverses", "day").order_by("id")
        )
        post_entries(club_id, loaded)


def post_members(*, club_id: int, member_ids: Sequence[int]) -> None:
    """Everything these members take part in, posted again (a merge renamed a party)."""
    played = Result.objects.filter(member_id__in=member_ids).values_list("game__day_id", flat=True)
    came = Day.attendees.through.objects.filter(member_id__in=member_ids).values_list(
        "day_id", flat=True
    )
    parties = Q(payer_id__in=member_ids) | Q(payee_id__in=member_ids)
    parties |= Q(borrower_id__in=member_ids)
    entries = list(
        LedgerEntry.objects.filter(club_id=club_id)
        .filter(parties)
        .select_related("reverses", "day")
        .order_by("id")
    )
    won = DayShugi.objects.filter(winner_id__in=member_ids).values_list("day_id", flat=True)
    stale = BookLine.objects.filter(member_id__in=member_ids).values_list("day_id", flat=True)
    days = {*played, *came, *won, *(d for d in stale if d is not None)}
    days |= {e.day_id for e in entries if e.day_id is not None}
    days |= set(
        DayAccount.objects.filter(member_id__in=member_ids).values_list("day_id", flat=True)
    )
    post_days(club_id, days)
    BookLine.objects.filter(member_id__in=member_ids, day__isnull=True).delete()
    post_entries(club_id, entries)


def club_rebuild(*, club_id: int) -> None:
    """Every kept row of a club from its records (restore; `manage.py rebuild_money`)."""
    DayAccount.objects.filter(club_id=club_id).delete()
    OpenTransfer.objects.filter(club_id=club_id).delete()
    BookLine.objects.filter(club_id=club_id).delete()
    DebtAccount.objects.filter(club_id=club_id).delete()
    post_days(club_id, Day.objects.filter(club_id=club_id).values_list("pk", flat=True))
    entries = list(
        LedgerEntry.objects.filter(club_id=club_id, day__isnull=True)
        .select_related("reverses", "day")
        .order_by("id")
    )
    BookLine.objects.bulk_create([li for e in entries for li in _entry_lines(e)], batch_size=2000)
    debts = LedgerEntry.objects.filter(club_id=club_id, kind__in=OWED_KINDS)
    post_debts(club_id, debts.values_list("pk", flat=True))
