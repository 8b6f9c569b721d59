"""Posting the club's books (league.models.books) at write time.

Every writer of a club's money calls `post` inside its transaction, after its own rows are
written and holding the club's lock (lock_club), so the kept rows move with the records or not
at all: game record, edit and void, bulk imports, re-settles, shūgi and attendance, every ledger
entry (payments, loans, deferrals, repayments, reversals and undos, closing a day, the pot's
payouts), member merges; restore and `manage.py rebuild_money` rebuild a whole club.

Posting a day settles that day alone (its games, attendees and shūgi under its rules version)
and replaces the day's kept rows; a debt's row is computed from the debt and its repayments.
This is the one derivation of the money: `manage.py check_books` (check_club) settles every day
again from scratch and holds the book and the kept rows equal to it, and the property test
(tests/league/books/test_books.py) runs it after random sequences of every writer.

What each entry kind does:

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
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import Q, Sum
from django.utils import timezone

import scoring
from league.models import (
    Account,
    BookLine,
    Day,
    DayAccount,
    DayShugi,
    DebtAccount,
    Game,
    LedgerEntry,
    Leg,
    Member,
    OpenTransfer,
    Result,
    RulesVersion,
    Transaction,
)
from league.models.games import stored_game_result

Party = int | None
NO_MONEY = scoring.rules_from_json({"preset": "takabari-kenko"})
DEBT_KINDS = (LedgerEntry.LOAN, LedgerEntry.DEFERRAL)
BATCH = 2000
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


class DayInputs:
    """What settling a day reads: its games (in order, each with its counted results by seat),
    attendees, shūgi and fill-ins; read as plain rows by _load, or taken from a day whose rows
    are prefetched (of_loaded). The day's ledger page and the book settle a day through these."""

    __slots__ = ("attendees", "day", "fill_ins", "games", "shugi")

    def __init__(self, day: Day) -> None:
        self.day = day
        self.games: list[tuple[Any, list[Any]]] = []  # (game row, its result rows)
        self.attendees: list[int] = []
        self.shugi: list[tuple[int, int]] = []
        self.fill_ins: list[str] = []  # players who are fill-ins (黒子), as the engine names them

    @classmethod
    def of_loaded(cls, day: Day) -> DayInputs:
        """From a day whose games, counted results (annotated `fill_in`), attendees and shūgi
        are prefetched (league.money.services._days_with_data): no query."""
        inputs = cls(day)
        for game in day.games.all():
            rows = list(game.results.all())
            inputs.games.append((game, rows))
            inputs.fill_ins += [str(r.member_id) for r in rows if r.fill_in]
        inputs.attendees = [m.pk for m in day.attendees.all()]
        inputs.shugi = [(x.winner_id, x.multiplier) for x in day.shugi.all()]
        return inputs


def _load(day_ids: Iterable[int]) -> list[DayInputs]:
    ids = list(day_ids)
    loaded = {d.pk: DayInputs(d) for d in Day.objects.filter(pk__in=ids).order_by("date")}
    results: dict[int, list[Any]] = {}
    day_of: dict[int, DayInputs] = {}
    for game in (
        Game.objects.filter(day_id__in=ids, voided=False)
        .order_by("day_id", "number")
        .values_list("pk", "day_id", "deposits", "rate", "rules_version_id", named=True)
    ):
        results[game.pk] = []
        day_of[game.pk] = loaded[game.day_id]
        day_of[game.pk].games.append((game, results[game.pk]))
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
            if row.member__fill_in:
                day_of[row.game_id].fill_ins.append(str(row.member_id))
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


def version_on(versions: Sequence[RulesVersion], date: datetime.date) -> RulesVersion | None:
    current = None
    for v in versions:
        if v.effective_from <= date:
            current = v
    return current


def day_version(inputs: DayInputs, versions: Sequence[RulesVersion]) -> RulesVersion | None:
    """The rules version a day's money is settled under.

    The day's own version once a re-settle has fixed it; else the version its first counted game
    was settled under; else (a day without games) the version in force on its date. Never a later
    version by itself: a back-dated version changes nothing recorded until it is applied
    (services.resettle_apply).
    """
    by_id = {v.pk: v for v in versions}
    day = inputs.day
    if day.rules_version_id is not None:
        return by_id.get(day.rules_version_id)
    for game, rows in inputs.games:
        if rows and game.rules_version_id in by_id:
            return by_id[game.rules_version_id]
    return version_on(versions, day.date)


def settle(inputs: DayInputs, versions: Sequence[RulesVersion]) -> scoring.DayResult:
    """The day's result under its own rules version (day_version)."""
    version = day_version(inputs, versions)
    return settle_under(inputs, version.rules if version is not None else NO_MONEY)


def settle_under(
    inputs: DayInputs, rules: scoring.Rules, moved: dict[int, Any] | None = None
) -> scoring.DayResult:
    """The day's result under `rules`, a game's result replaced by `moved`'s (a re-settle's
    preview). Raises scoring.InputError."""
    moved = moved or {}
    settled = scoring.settle_day(
        rules,
        [moved.get(g.pk) or stored_game_result(g, rows) for g, rows in inputs.games if rows],
        attendees=[str(m) for m in inputs.attendees],
        shugi=[scoring.Shugi(str(winner), times) for winner, times in inputs.shugi],
    )
    # A fill-in's (黒子) money is the house's: they have no line in the books.
    return scoring.house_takes(settled, inputs.fill_ins)


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


def _kept_rows(
    club_id: int, part: Sequence[int], versions: Sequence[RulesVersion]
) -> tuple[
    list[DayAccount],
    list[OpenTransfer],
    list[BookLine],
    list[tuple[Day, scoring.DayResult]],
    list[LedgerEntry],
]:
    """What the kept rows of these days are, from their records (settled here, not read)."""
    days = _load(part)
    by_day: dict[int, list[LedgerEntry]] = {d.day.pk: [] for d in days}
    for e in (
        LedgerEntry.objects.filter(day_id__in=part).select_related("reverses", "day").order_by("id")
    ):
        by_day[e.day_id].append(e)  # type: ignore[index]
    accounts: list[DayAccount] = []
    transfers: list[OpenTransfer] = []
    lines: list[BookLine] = []
    settled = []
    for inputs in days:
        result = settle(inputs, versions)
        settled.append((inputs.day, result))
        a, t, li = _post_day(inputs.day, result, by_day[inputs.day.pk])
        accounts += a
        transfers += t
        lines += li
    return accounts, transfers, lines, settled, [e for d in days for e in by_day[d.day.pk]]


def post_days(club_id: int, day_ids: Iterable[int], *, chunk: int = 500) -> None:
    """Post the kept rows of these days of one club (inside the writer's transaction)."""
    ids = sorted(set(day_ids))
    if not ids:
        return
    versions = _versions(club_id)
    for start in range(0, len(ids), chunk):
        part = ids[start : start + chunk]
        accounts, transfers, lines, settled, entries = _kept_rows(club_id, part, versions)
        DayAccount.objects.filter(day_id__in=part).delete()
        OpenTransfer.objects.filter(day_id__in=part).delete()
        BookLine.objects.filter(day_id__in=part).delete()
        DayAccount.objects.bulk_create(accounts, batch_size=BATCH)
        OpenTransfer.objects.bulk_create(transfers, batch_size=BATCH)
        BookLine.objects.bulk_create(lines, batch_size=BATCH)
        post_book(club_id, settled, entries)


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


def _debt_rows(club_id: int, ids: Sequence[int]) -> list[DebtAccount]:
    """What the kept rows of these loans and deferrals are, from them and their repayments."""
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
    return rows


def post_debts(club_id: int, debt_ids: Iterable[int]) -> None:
    """Post the kept rows of these loans and deferrals from them and their repayments."""
    ids = sorted(set(debt_ids))
    if not ids:
        return
    rows = _debt_rows(club_id, ids)
    DebtAccount.objects.filter(entry_id__in=ids).delete()
    DebtAccount.objects.bulk_create(rows, batch_size=BATCH)


def post_entries(club_id: int, entries: Sequence[LedgerEntry]) -> None:
    """Post what `entries` change besides their days: lines of entries without a day (debt
    repayments, the pot's payouts, their reversals), and the debts they make or pay."""
    dayless = [e for e in entries if e.day_id is None]
    if dayless:
        BookLine.objects.filter(entry__in=[e.pk for e in dayless]).delete()
        BookLine.objects.bulk_create([li for e in dayless for li in _entry_lines(e)])
        post_book(club_id, entries=dayless)
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


def club_post_book(club_id: int, *, chunk: int = 500) -> int:
    """Post to the book whatever of the club's days and entries it does not hold yet (the data
    migration 0050 that builds the book from what is stored; a no-op on a club whose book
    equals its records). Returns the number of transactions posted."""
    versions = _versions(club_id)
    ids = list(Day.objects.filter(club_id=club_id).order_by("pk").values_list("pk", flat=True))
    posted = 0
    for start in range(0, len(ids), chunk):
        days = _load(ids[start : start + chunk])
        posted += post_book(club_id, [(d.day, settle(d, versions)) for d in days])
    entries = list(
        LedgerEntry.objects.filter(club_id=club_id).select_related("reverses", "day").order_by("id")
    )
    for start in range(0, len(entries), BATCH):
        posted += post_book(club_id, entries=entries[start : start + BATCH])
    return posted


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
    BookLine.objects.bulk_create([li for e in entries for li in _entry_lines(e)], batch_size=BATCH)
    post_book(club_id, entries=entries)
    debts = LedgerEntry.objects.filter(club_id=club_id, kind__in=OWED_KINDS)
    post_debts(club_id, debts.values_list("pk", flat=True))


# --- the book (league.models.books.Account, Transaction, Leg) ------------------------------------
#
# The one derivation: what the records say each cause's transactions hold (`day_legs`,
# `entry_legs`), and `post_book`, the one place money is posted: it posts, for each cause, the
# difference between that and what the book already holds for it (the first posting, or a
# correction after an edit, a void, a re-settle, a merge). Nothing in the book is updated or
# deleted. `manage.py check_books` compares the same derivation with the book's sums.

Holder = tuple[str, int | None]  # (Account kind, the member's or the day's id)
Cause = tuple[str, int]  # (Transaction.SETTLEMENT or .SHUGI, day id) or ("entry", entry id)
CLUB: Holder = (Account.CLUB, None)
CASH: Holder = (Account.CASH, None)


class Unbalanced(ValueError):
    """A transaction whose legs do not sum to zero: the book refuses it (nothing is stored)."""


def _member(member_id: int) -> Holder:
    return (Account.MEMBER, member_id)


def _fill(legs: dict[Holder, int], other: Holder) -> dict[Holder, int]:
    """`legs` with `other` taking what balances them (the day's clearing account, the cash)."""
    rest = -sum(legs.values())
    if rest:
        legs[other] = legs.get(other, 0) + rest
    return legs


def day_legs(day: Day, result: scoring.DayResult) -> dict[Cause, dict[Holder, int]]:
    """A day's settlement and its shūgi, as legs: each player's yen (their statement's day
    line), the club's sticks, fees and rounding (its own account), the rest to the day's
    clearing account."""
    clearing: Holder = (Account.DAY, day.pk)
    games: dict[Holder, int] = {}
    shugi: dict[Holder, int] = {}
    club = 0
    for p in result.players:
        games[_member(int(p.name))] = p.yen - p.shugi
        if p.shugi:
            shugi[_member(int(p.name))] = p.shugi
        club -= p.game_yen + p.fees + p.rounding
    if club:
        games[CLUB] = club
    return {
        (Transaction.SETTLEMENT, day.pk): _fill(games, clearing),
        (Transaction.SHUGI, day.pk): _fill(shugi, clearing),
    }


def entry_cause(entry: LedgerEntry) -> str:
    if entry.kind == LedgerEntry.REVERSAL:
        return Transaction.REVERSAL
    if entry.kind == LedgerEntry.PAYMENT:
        return Transaction.REPAYMENT if entry.debt_id is not None else Transaction.PAYMENT
    if entry.kind in (LedgerEntry.EXPENSE, LedgerEntry.PRIZE):
        return Transaction.PAYOUT
    return entry.kind  # loan, deferral, adjustment


def entry_legs(entry: LedgerEntry) -> dict[Holder, int]:
    """An entry as legs: its parties' balances (their statement lines), the club's own account
    (a surcharge, a payout, an adjustment), the rest to its day's clearing account or, without
    a day, to the club's cash."""
    effects = balance_effects(entry)
    legs: dict[Holder, int] = {}
    for member_id in dict.fromkeys(
        p for p in (entry.payer_id, entry.payee_id, entry.borrower_id) if p
    ):
        legs[_member(member_id)] = effects.get(member_id, 0)
    club = club_line(entry)
    if club is not None and club[1]:
        legs[CLUB] = club[1]
    other: Holder = (Account.DAY, entry.day_id) if entry.day_id is not None else CASH
    return _fill(legs, other)


def _accounts(club_id: int, holders: Iterable[Holder]) -> dict[Holder, int]:
    """The ids of these holders' accounts, the missing ones opened (two queries at most)."""
    wanted = set(holders)
    members = [i for k, i in wanted if k == Account.MEMBER]
    days = [i for k, i in wanted if k == Account.DAY]
    found: dict[Holder, int] = {}
    rows = Account.objects.filter(
        Q(club_id=club_id, kind__in=[Account.CLUB, Account.CASH])
        | Q(kind=Account.MEMBER, member_id__in=members)
        | Q(kind=Account.DAY, day_id__in=days)
    ).values_list("pk", "kind", "member_id", "day_id")
    for pk, kind, member_id, day_id in rows:
        found[(kind, member_id if kind == Account.MEMBER else day_id)] = pk
    missing = [
        Account(
            club_id=club_id,
            kind=kind,
            member_id=i if kind == Account.MEMBER else None,
            day_id=i if kind == Account.DAY else None,
        )
        for kind, i in sorted(wanted - set(found), key=repr)
    ]
    for a in Account.objects.bulk_create(missing, batch_size=BATCH):
        found[(a.kind, a.member_id if a.kind == Account.MEMBER else a.day_id)] = a.pk
    return found


def holder_of(kind: str, member_id: int | None, day_id: int | None) -> Holder:
    return (kind, member_id if kind == Account.MEMBER else day_id)


def post_book(
    club_id: int,
    days: Sequence[tuple[Day, scoring.DayResult]] = (),
    entries: Sequence[LedgerEntry] = (),
) -> int:
    """Post to the book what these days' results and these entries hold and it does not yet:
    each cause's difference as one transaction (its legs summing to zero, or Unbalanced is
    raised and nothing is posted). Returns the number of transactions posted."""
    here = {e.pk for e in entries}
    later = {e.pk for e in entries if e.kind == LedgerEntry.REVERSAL and e.reverses_id in here}
    if later:  # a reversal after what it reverses, whose transaction it names
        first = post_book(club_id, days, [e for e in entries if e.pk not in later])
        return first + post_book(club_id, entries=[e for e in entries if e.pk in later])
    wanted: dict[Cause, dict[Holder, int]] = {}
    dates: dict[Cause, datetime.date] = {}
    sources: dict[Cause, tuple[str, Day | None, LedgerEntry | None]] = {}
    for day, result in days:
        for key, legs in day_legs(day, result).items():
            wanted[key], dates[key], sources[key] = legs, day.date, (key[0], day, None)
    for entry in entries:
        key = ("entry", entry.pk)
        wanted[key], dates[key] = entry_legs(entry), entry_date(entry)
        sources[key] = (entry_cause(entry), None, entry)
    if not wanted:
        return 0
    held, first = _book_held(
        [d.pk for d, _r in days], [e.pk for e in entries], [e.reverses_id for e in entries]
    )
    postings: list[tuple[Cause, dict[Holder, int], bool]] = []
    for key, legs in wanted.items():
        before = held.get(key)
        if before is None:  # the first posting: every party's leg, a zero one too
            diff = {h: y for h, y in legs.items() if y or h[0] == Account.MEMBER}
            if not any(legs.values()) and key[0] == Transaction.SHUGI:
                continue
            if not diff:
                continue
        else:
            diff = {
                h: legs.get(h, 0) - before.get(h, 0)
                for h in {*legs, *before}
                if legs.get(h, 0) != before.get(h, 0)
            }
            if not diff:
                continue
        if sum(diff.values()) != 0:
            raise Unbalanced(f"{key}: the legs sum to {sum(diff.values())}")
        postings.append((key, diff, before is not None))
    if not postings:
        return 0
    ids = _accounts(club_id, {h for _k, legs, _c in postings for h in legs})
    rows = []
    for key, _legs, correction in postings:
        cause, day, entry = sources[key]
        reverses = None
        if entry is not None and entry.reverses_id is not None:
            reverses = first.get(entry.reverses_id)
        rows.append(
            Transaction(
                club_id=club_id,
                date=dates[key],
                cause=cause,
                day=day if day is not None else (entry.day if entry is not None else None),
                entry=entry,
                reverses_id=reverses,
                correction=correction,
            )
        )
    made = Transaction.objects.bulk_create(rows, batch_size=BATCH)
    Leg.objects.bulk_create(
        [
            Leg(transaction_id=t.pk, account_id=ids[h], yen=y)
            for t, (_key, legs, _c) in zip(made, postings, strict=True)
            for h, y in legs.items()
        ],
        batch_size=BATCH,
    )
    return len(made)


def _book_held(
    day_ids: Sequence[int], entry_ids: Sequence[int], reversed_ids: Sequence[int | None]
) -> tuple[dict[Cause, dict[Holder, int]], dict[int, int]]:
    """What the book holds for these days' settlements and shūgi and these entries (the sum of
    each cause's legs per account), and the first transaction of each reversed entry (a
    reversal's `reverses`). Two queries at most."""
    held: dict[Cause, dict[Holder, int]] = {}
    where = Q(transaction__entry_id__in=list(entry_ids)) | Q(
        transaction__day_id__in=list(day_ids),
        transaction__cause__in=[Transaction.SETTLEMENT, Transaction.SHUGI],
    )
    rows = (
        Leg.objects.filter(where)
        .values(
            "transaction__cause",
            "transaction__day_id",
            "transaction__entry_id",
            "account__kind",
            "account__member_id",
            "account__day_id",
        )
        .order_by()
        .annotate(total=Sum("yen"))
    )
    for r in rows:
        entry_id = r["transaction__entry_id"]
        key: Cause = (
            ("entry", entry_id)
            if entry_id is not None
            else (r["transaction__cause"], r["transaction__day_id"])
        )
        holder = holder_of(r["account__kind"], r["account__member_id"], r["account__day_id"])
        held.setdefault(key, {})[holder] = r["total"]
    first: dict[int, int] = {}
    reversed_ = [i for i in reversed_ids if i is not None]
    if reversed_:
        for entry_id, pk in (
            Transaction.objects.filter(entry_id__in=reversed_, correction=False)
            .order_by("id")
            .values_list("entry_id", "pk")
        ):
            first.setdefault(entry_id, pk)
    return held, first


# --- checking the book --------------------------------------------------------------------------


def club_derived(club_id: int, *, chunk: int = 500) -> dict[Holder, int]:
    """Every account's balance as the records say (day_legs of each day re-settled from scratch,
    entry_legs of each entry), computed in memory a chunk of days at a time."""
    totals: dict[Holder, int] = defaultdict(int)
    versions = _versions(club_id)
    ids = list(Day.objects.filter(club_id=club_id).order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(ids), chunk):
        for inputs in _load(ids[start : start + chunk]):
            for legs in day_legs(inputs.day, settle(inputs, versions)).values():
                for holder, yen in legs.items():
                    totals[holder] += yen
    entries = (
        LedgerEntry.objects.filter(club_id=club_id)
        .select_related("reverses", "day")
        .order_by("id")
        .iterator(chunk_size=BATCH)
    )
    for entry in entries:
        for holder, yen in entry_legs(entry).items():
            totals[holder] += yen
    return totals


def club_booked(club_id: int) -> dict[Holder, int]:
    """Every account's balance in the book: the sum of its legs (one query)."""
    rows = (
        Leg.objects.filter(account__club_id=club_id)
        .values("account__kind", "account__member_id", "account__day_id")
        .order_by()
        .annotate(total=Sum("yen"))
    )
    return {
        holder_of(r["account__kind"], r["account__member_id"], r["account__day_id"]): r["total"]
        for r in rows
    }


DAY_FIELDS = (
    *("day_id", "member_id", "date", "position", "games", "score", "chips", "yen", "game_yen"),
    *("fees", "shugi", "rounding", "paid", "borrowed", "deferred", "outstanding"),
)
TRANSFER_FIELDS = ("day_id", "position", "date", "payer_id", "payee_id", "yen")
LINE_FIELDS = ("member_id", "date", "seq", "kind", "yen", "day_id", "entry_id")
DEBT_FIELDS = ("entry_id", "debtor_id", "creditor_id", "since", "principal", "repaid", "remaining")


def _rows_differ(what: str, kept: Any, wanted: list[Any], names: Sequence[str]) -> str | None:
    """The first row where the kept rows (a queryset) and the `wanted` instances differ, in
    words, or None (both compared as sorted tuples of the fields `names`)."""
    have = sorted(kept.values_list(*names), key=repr)
    want = sorted((tuple(getattr(r, n) for n in names) for r in wanted), key=repr)
    for h, w in zip([*have, None], [*want, None], strict=False):
        if h != w:
            shown = [None if row is None else dict(zip(names, row, strict=True)) for row in (h, w)]
            return f"the kept {what} {shown[0]}, the records give {shown[1]}"
    return None


def kept_difference(club_id: int, *, chunk: int = 500) -> str | None:
    """The first difference between the kept rows (DayAccount, OpenTransfer, BookLine,
    DebtAccount) and the same rows derived again from the records, or None."""
    versions = _versions(club_id)
    ids = list(Day.objects.filter(club_id=club_id).order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(ids), chunk):
        part = ids[start : start + chunk]
        accounts, transfers, lines, _settled, _entries = _kept_rows(club_id, part, versions)
        found = (
            _rows_differ(
                "day account",
                DayAccount.objects.filter(day_id__in=part),
                accounts,
                DAY_FIELDS,
            )
            or _rows_differ(
                "transfer",
                OpenTransfer.objects.filter(day_id__in=part),
                transfers,
                TRANSFER_FIELDS,
            )
            or _rows_differ(
                "statement line",
                BookLine.objects.filter(day_id__in=part),
                lines,
                LINE_FIELDS,
            )
        )
        if found:
            return found
    dayless = list(
        LedgerEntry.objects.filter(club_id=club_id, day__isnull=True)
        .select_related("reverses", "day")
        .order_by("id")
    )
    kept = BookLine.objects.filter(club_id=club_id, day__isnull=True)
    wanted = [li for e in dayless for li in _entry_lines(e)]
    found = _rows_differ("statement line", kept, wanted, LINE_FIELDS)
    owed = LedgerEntry.objects.filter(club_id=club_id, kind__in=OWED_KINDS).order_by("pk")
    ids = list(owed.values_list("pk", flat=True))
    debts = DebtAccount.objects.filter(club_id=club_id)
    for start in range(0, len(ids), chunk):  # a chunk of debts at a time: bounded IN lists
        part = ids[start : start + chunk]
        found = found or _rows_differ(
            "debt", debts.filter(entry_id__in=part), _debt_rows(club_id, part), DEBT_FIELDS
        )
    return found or _rows_differ("debt", debts.exclude(entry__kind__in=OWED_KINDS), [], DEBT_FIELDS)


def check_club(club_id: int) -> tuple[int, str | None]:
    """(the club's transactions, its first difference in words or None): every transaction's
    legs sum to zero, and every account's sum equals the records re-settled from scratch."""
    count = Transaction.objects.filter(club_id=club_id).count()
    unbalanced = (
        Leg.objects.filter(transaction__club_id=club_id)
        .values("transaction_id")
        .order_by("transaction_id")
        .annotate(total=Sum("yen"))
        .exclude(total=0)
        .first()
    )
    if unbalanced is not None:
        return count, (
            f"transaction {unbalanced['transaction_id']} does not balance: "
            f"its legs sum to {unbalanced['total']}"
        )
    booked, derived = club_booked(club_id), club_derived(club_id)
    for holder in sorted(set(booked) | set(derived), key=repr):
        if booked.get(holder, 0) != derived.get(holder, 0):
            kind, pk = holder
            name = f"{kind} account" + (f" of {kind} {pk}" if pk is not None else "")
            return count, (
                f"the {name}: the book holds {booked.get(holder, 0)}, "
                f"the games and entries give {derived.get(holder, 0)}"
            )
    return count, kept_difference(club_id)
