"""Posting the club's book (league.models.books) at write time.

Every writer of a club's money calls `post` inside its transaction, after its own rows are
written and holding the club's lock (lock_club), so the book moves with the records or not at
all: game record, edit and void, bulk imports, re-settles, shūgi and attendance, every ledger
entry (payments, loans, deferrals, repayments, reversals and undos, closing a day, the pot's
payouts), member merges; restore and `manage.py rebuild_money` post a whole club.

Posting a day settles that day alone (its games, attendees and shūgi under its rules version),
posts the difference to the book (`post_book`) and replaces the day's open transfers (who still
pays whom: `OpenTransfer`, the one kept row besides the book). This is the one derivation of
the money: `manage.py check_books` (check_club) settles every day again from scratch and holds
the book and the open transfers equal to it, and the property test (tests/league/books/test_books.py)
runs it after random sequences of every writer.

What each entry kind does (`entry_legs`; a member's part of a day is what is open of it, their
part of a debt what remains of it):

| kind | members' parts of the day | members' parts of a debt | the club |
|---|---|---|---|
| payment (same day) | payer +a, payee −a | | |
| payment of a debt | | payer +a, payee −a | |
| loan | borrower +a, payee −a | borrower −a, lender +a | |
| deferral (+ s) | borrower +a, payee −a | borrower −(a+s), payee +(a+s) | +s owed to it |
| expense / prize | | | −a |
| adjustment (a season's yen) | | borrower −a, payee +a | the club's side |
| reversal | the opposite of what it reverses | | |
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from django.db.models import Q, QuerySet, Sum

import scoring
from league.core import clock
from league.models import (
    Account,
    Day,
    DayShugi,
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


def _base(entry: LedgerEntry) -> tuple[int, LedgerEntry]:
    """(sign, the entry whose kind counts): a reversal counts as its original, negated."""
    if entry.kind == LedgerEntry.REVERSAL:
        return -1, entry.reverses  # type: ignore[return-value]
    return 1, entry


def day_effects(entry: LedgerEntry) -> list[tuple[Party, int]]:
    """What `entry` settles of its day's totals, in the order of its parties."""
    sign, e = _base(entry)
    a = sign * e.amount
    if e.kind == LedgerEntry.PAYMENT and e.debt_id is None:
        return [(e.payer_id, a), (e.payee_id, -a)]
    if e.kind in DEBT_KINDS:
        return [(e.borrower_id, a), (e.payee_id, -a)]
    return []


def entry_date(entry: LedgerEntry) -> datetime.date:
    return entry.day.date if entry.day is not None else clock.today(entry.created_at)


ENTRIES = LedgerEntry.objects.select_related("reverses__day", "day").order_by("id")


# --- a day ------------------------------------------------------------------------------------


class DayInputs:
    """What settling a day reads: its games (in order, each with its counted results by seat),
    attendees, shūgi and fill-ins, read as plain rows by days_loaded. The book and a re-settle's
    preview settle a day through these."""

    __slots__ = ("attendees", "day", "fill_ins", "games", "shugi")

    def __init__(self, day: Day) -> None:
        self.day = day
        self.games: list[tuple[Any, list[Any]]] = []  # (game row, its result rows)
        self.attendees: list[int] = []
        self.shugi: list[tuple[int, int]] = []
        self.fill_ins: list[str] = []  # players who are fill-ins (黒子), as the engine names them


def days_loaded(days: Iterable[int] | QuerySet[Day]) -> list[DayInputs]:
    """These days (their ids, or a query of them) as DayInputs, in date order, in five queries
    whatever their size."""
    found = days if isinstance(days, QuerySet) else Day.objects.filter(pk__in=list(days))
    loaded = {d.pk: DayInputs(d) for d in found.order_by("date")}
    ids = list(loaded)
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


def day_version(
    day: Day, games: Iterable[tuple[Any, Sequence[Any]]], versions: Sequence[RulesVersion]
) -> RulesVersion | None:
    """The rules version a day's money is settled under (`games`: its games in order, each with
    its counted results).

    The day's own version once a re-settle has fixed it; else the version its first counted game
    was settled under; else (a day without games) the version in force on its date. Never a later
    version by itself: a back-dated version changes nothing recorded until it is applied
    (league.rules.services.resettle_apply).
    """
    by_id = {v.pk: v for v in versions}
    if day.rules_version_id is not None:
        return by_id.get(day.rules_version_id)
    for game, rows in games:
        if rows and game.rules_version_id in by_id:
            return by_id[game.rules_version_id]
    return version_on(versions, day.date)


def settle(inputs: DayInputs, versions: Sequence[RulesVersion]) -> scoring.DayResult:
    """The day's result under its own rules version (day_version)."""
    version = day_version(inputs.day, inputs.games, versions)
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


def _transfers(
    day: Day, result: scoring.DayResult, entries: Sequence[LedgerEntry]
) -> list[OpenTransfer]:
    """Who still pays whom for the day, as kept rows: what settles each party's outstanding
    amount (+ is owed, − owes: its day total and what the day's entries settled of it), the
    players in the day's order, the club, then the entries' other parties."""
    outstanding: dict[Party, int] = {int(p.name): p.yen for p in result.players}
    outstanding[None] = result.house
    for entry in entries:
        for party, yen in day_effects(entry):
            outstanding[party] = outstanding.get(party, 0) + yen
    transfers = scoring.settle_transfers(
        (None if p is None else str(p), y) for p, y in outstanding.items()
    )
    return [
        OpenTransfer(
            club_id=day.club_id,
            day=day,
            date=day.date,
            position=i,
            payer_id=None if t.payer is None else int(t.payer),
            payee_id=None if t.payee is None else int(t.payee),
            yen=t.yen,
        )
        for i, t in enumerate(transfers)
    ]


def club_versions(club_id: int) -> list[RulesVersion]:
    return list(RulesVersion.objects.filter(club_id=club_id).order_by("effective_from"))


def _settled(
    part: Sequence[int], versions: Sequence[RulesVersion]
) -> tuple[list[OpenTransfer], list[tuple[Day, scoring.DayResult]], list[LedgerEntry]]:
    """These days settled from their records (not read): their open transfers, their results
    and their entries."""
    days = days_loaded(part)
    by_day: dict[int, list[LedgerEntry]] = {d.day.pk: [] for d in days}
    for e in ENTRIES.filter(day_id__in=part):
        by_day[e.day_id].append(e)  # type: ignore[index]
    transfers: list[OpenTransfer] = []
    settled = []
    for inputs in days:
        result = settle(inputs, versions)
        settled.append((inputs.day, result))
        transfers += _transfers(inputs.day, result, by_day[inputs.day.pk])
    return transfers, settled, [e for d in days for e in by_day[d.day.pk]]


def post_days(club_id: int, day_ids: Iterable[int], *, chunk: int = 500) -> None:
    """Post these days of one club (inside the writer's transaction): the book's difference
    and the days' open transfers."""
    ids = sorted(set(day_ids))
    if not ids:
        return
    versions = club_versions(club_id)
    for start in range(0, len(ids), chunk):
        part = ids[start : start + chunk]
        transfers, settled, entries = _settled(part, versions)
        OpenTransfer.objects.filter(day_id__in=part).delete()
        OpenTransfer.objects.bulk_create(transfers, batch_size=BATCH)
        post_book(club_id, settled, entries)


def post(*, club_id: int, days: Iterable[int] = (), entries: Sequence[LedgerEntry] = ()) -> None:
    """The one call of every writer: these days and entries posted again (an entry of a day
    with its day; one without a day, a repayment or the pot's payout, by itself)."""
    entries = list(entries)
    post_days(club_id, [*days, *(e.day_id for e in entries if e.day_id is not None)])
    dayless = [e.pk for e in entries if e.day_id is None]
    if dayless:
        post_book(club_id, entries=list(ENTRIES.filter(pk__in=dayless)))


def post_members(*, club_id: int, member_ids: Sequence[int]) -> None:
    """Everything these members take part in, posted again (a merge renamed a party)."""
    played = Result.objects.filter(member_id__in=member_ids).values_list("game__day_id", flat=True)
    came = Day.attendees.through.objects.filter(member_id__in=member_ids).values_list(
        "day_id", flat=True
    )
    parties = Q(payer_id__in=member_ids) | Q(payee_id__in=member_ids)
    parties |= Q(borrower_id__in=member_ids)
    entries = list(ENTRIES.filter(club_id=club_id).filter(parties))
    won = DayShugi.objects.filter(winner_id__in=member_ids).values_list("day_id", flat=True)
    held = Account.objects.filter(member_id__in=member_ids, day__isnull=False)
    days = {*played, *came, *won, *held.values_list("day_id", flat=True)}
    days |= {e.day_id for e in entries if e.day_id is not None}
    post_days(club_id, days)  # type: ignore[arg-type]
    post_book(club_id, entries=[e for e in entries if e.day_id is None])


def club_post_book(club_id: int, *, chunk: int = 500) -> int:
    """Post to the book whatever of the club's days and entries it does not hold yet (the data
    migration 0054 that builds the book from what is stored; a no-op on a club whose book
    equals its records). Returns the number of transactions posted."""
    versions = club_versions(club_id)
    posted = 0
    for part in _club_days(club_id, chunk):
        posted += post_book(club_id, [(d.day, settle(d, versions)) for d in days_loaded(part)])
    entries = list(ENTRIES.filter(club_id=club_id))
    for start in range(0, len(entries), BATCH):
        posted += post_book(club_id, entries=entries[start : start + BATCH])
    return posted


def _club_days(club_id: int, chunk: int) -> Iterator[list[int]]:
    """The club's day ids, `chunk` at a time."""
    ids = list(Day.objects.filter(club_id=club_id).order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(ids), chunk):
        yield ids[start : start + chunk]


def club_rebuild(*, club_id: int) -> None:
    """A club posted again from its records (restore; `manage.py rebuild_money`): its open
    transfers, the book's difference, and its accounts' kept balances summed again."""
    OpenTransfer.objects.filter(club_id=club_id).delete()
    post_days(club_id, Day.objects.filter(club_id=club_id).values_list("pk", flat=True))
    post_book(club_id, entries=list(ENTRIES.filter(club_id=club_id, day__isnull=True)))
    stale = _stale_balances(club_id)
    for account, summed in stale:
        account.balance = summed
    Account.objects.bulk_update([a for a, _s in stale], ["balance"], batch_size=500)


# --- the book (league.models.books.Account, Transaction, Leg) ------------------------------------
#
# The one derivation: what the records say each cause's transactions hold (`day_legs`,
# `entry_legs`), and `post_book`, the one place money is posted: it posts, for each cause, the
# difference between that and what the book already holds for it (the first posting, or a
# correction after an edit, a void, a re-settle, a merge). Nothing in the book is updated or
# deleted but the accounts' kept balances. `manage.py check_books` compares the same derivation
# with the book's sums.

# (Account kind, member id, day id, debt id): a member's part of a day or of a debt, or the
# member's account without either; the club's own account; a day's clearing account; the cash.
Holder = tuple[str, int | None, int | None, int | None]
Key = tuple[Holder, str]  # a holder and the part of it a leg is (Leg.part, "" for none)
Cause = tuple[str, int]  # (Transaction.SETTLEMENT or .SHUGI, day id) or ("entry", entry id)
CLUB: Holder = (Account.CLUB, None, None, None)
CASH: Holder = (Account.CASH, None, None, None)


class Unbalanced(ValueError):
    """A transaction whose legs do not sum to zero: the book refuses it (nothing is stored)."""


def _member(member_id: int, day_id: int | None = None, debt_id: int | None = None) -> Holder:
    return (Account.MEMBER, member_id, day_id, debt_id)


def _clearing(day_id: int) -> Holder:
    return (Account.DAY, None, day_id, None)


def _add(legs: dict[Key, int], holder: Holder, yen: int, part: str = "") -> None:
    legs[(holder, part)] = legs.get((holder, part), 0) + yen


def _fill(legs: dict[Key, int], other: Holder) -> dict[Key, int]:
    """`legs` with `other` taking what balances them (the day's clearing account, the cash)."""
    rest = -sum(legs.values())
    if rest:
        _add(legs, other, rest)
    return legs


def day_legs(day: Day, result: scoring.DayResult) -> dict[Cause, dict[Key, int]]:
    """A day's settlement and its shūgi, as legs: each player's part of the day (their games,
    fees and rounding; their shūgi), the club's sticks, fees and rounding (its own account), the
    rest to the day's clearing account."""
    games: dict[Key, int] = {}
    shugi: dict[Key, int] = {}
    for p in result.players:
        mine = _member(int(p.name), day.pk)
        parts = ((Leg.GAMES, p.game_yen), (Leg.FEES, p.fees), (Leg.ROUNDING, p.rounding))
        for part, yen in parts:
            if yen or part == Leg.GAMES:  # every player's day line, a zero one too
                _add(games, mine, yen, part)
            _add(games, CLUB, -yen, part)
        if p.shugi:
            _add(shugi, mine, p.shugi, Leg.SHUGI)
    games = {k: y for k, y in games.items() if y or k[0][0] == Account.MEMBER}
    return {
        (Transaction.SETTLEMENT, day.pk): _fill(games, _clearing(day.pk)),
        (Transaction.SHUGI, day.pk): _fill(shugi, _clearing(day.pk)),
    }


def entry_cause(entry: LedgerEntry) -> str:
    if entry.kind == LedgerEntry.REVERSAL:
        return Transaction.REVERSAL
    if entry.kind == LedgerEntry.PAYMENT:
        return Transaction.REPAYMENT if entry.debt_id is not None else Transaction.PAYMENT
    if entry.kind in (LedgerEntry.EXPENSE, LedgerEntry.PRIZE):
        return Transaction.PAYOUT
    return entry.kind  # loan, deferral, adjustment


def entry_legs(entry: LedgerEntry) -> dict[Key, int]:
    """An entry as legs (a reversal as its original's, negated). A member's legs go to their
    part of the entry's day (a payment that day, the day's side of a loan or deferral) or of a
    debt (a loan's, a deferral's or an adjustment's: what is owed; a repayment); the club's
    own account takes a surcharge, a payout, an adjustment; the rest goes to the entry's day's
    clearing account or, without a day, to the club's cash. Every party has a leg, a zero one
    too (a prize's winner)."""
    sign, e = _base(entry)
    a = sign * e.amount
    day = entry.day_id
    legs: dict[Key, int] = {}

    def member(party: int | None, yen: int, *, debt: int | None = None) -> None:
        if party is not None:
            _add(legs, _member(party, None if debt else day, debt), yen)

    if e.kind == LedgerEntry.PAYMENT and e.debt_id is not None:  # a repayment
        member(e.payer_id, a, debt=e.debt_id)
        member(e.payee_id, -a, debt=e.debt_id)
    elif e.kind == LedgerEntry.PAYMENT:
        member(e.payer_id, a)
        member(e.payee_id, -a)
    elif e.kind in DEBT_KINDS:  # the day's side, then what is owed
        member(e.borrower_id, a)
        member(e.payee_id, -a)
        owed = a + (sign * e.surcharge if e.kind == LedgerEntry.DEFERRAL else 0)
        creditor = e.payer_id if e.kind == LedgerEntry.LOAN else e.payee_id
        member(e.borrower_id, -owed, debt=e.pk)
        member(creditor, owed, debt=e.pk)
        if e.kind == LedgerEntry.DEFERRAL and creditor is None and e.surcharge:
            _add(legs, CLUB, sign * e.surcharge, Leg.SURCHARGE)
    elif e.kind == LedgerEntry.ADJUSTMENT:  # the borrower owes the payee (one is the club)
        member(e.borrower_id, -a, debt=e.pk)
        member(e.payee_id, a, debt=e.pk)
        _add(legs, CLUB, a if e.payee_id is None else -a)
    elif e.kind in (LedgerEntry.EXPENSE, LedgerEntry.PRIZE):
        _add(legs, CLUB, -a)
    for party in (entry.payer_id, entry.payee_id, entry.borrower_id):
        if party is not None and not any(k[0][1] == party for k in legs):
            _add(legs, _member(party, day), 0)
    return _fill(legs, _clearing(day) if day is not None else CASH)


def _accounts(
    club_id: int, holders: dict[Holder, datetime.date | None]
) -> dict[Holder, tuple[int, int]]:
    """These holders' accounts as (id, balance), the missing ones opened (three queries at
    most). `holders` gives each one's date (a day's, a debt's since), None when not known (a
    repayment's debt, read here if its account is missing)."""
    # By the days' and debts' indexes (a few accounts each), not the members' (every day
    # and debt of theirs): the accounts of these days and debts, then the members' own.
    days = {h[2] for h in holders if h[2] is not None}
    debts = {h[3] for h in holders if h[3] is not None}
    members = {h[1] for h in holders if h[1] is not None and h[2] is None and h[3] is None}
    found: dict[Holder, tuple[int, int]] = {}
    rows = Account.objects.filter(
        Q(club_id=club_id, kind=Account.CLUB)
        | Q(club_id=club_id, kind=Account.CASH)
        | Q(day_id__in=days)
        | Q(debt_id__in=debts)
        | Q(member_id__in=members, kind=Account.MEMBER, day__isnull=True, debt__isnull=True)
    ).values_list("pk", "kind", "member_id", "day_id", "debt_id", "balance")
    for pk, kind, member_id, day_id, debt_id, balance in rows:
        found[(kind, member_id, day_id, debt_id)] = (pk, balance)
    missing = sorted(set(holders) - set(found), key=repr)
    unknown = [h[3] for h in missing if holders[h] is None and h[3] is not None]
    since = {
        e.pk: entry_date(e)
        for e in LedgerEntry.objects.filter(pk__in=unknown).select_related("day")
        if unknown
    }
    made = Account.objects.bulk_create(
        [
            Account(
                club_id=club_id,
                kind=kind,
                member_id=member_id,
                day_id=day_id,
                debt_id=debt_id,
                date=holders[(kind, member_id, day_id, debt_id)] or since.get(debt_id),
            )
            for kind, member_id, day_id, debt_id in missing
        ],
        batch_size=BATCH,
    )
    for a in made:
        found[(a.kind, a.member_id, a.day_id, a.debt_id)] = (a.pk, 0)
    return found


def post_book(
    club_id: int,
    days: Sequence[tuple[Day, scoring.DayResult]] = (),
    entries: Sequence[LedgerEntry] = (),
) -> int:
    """Post to the book what these days' results and these entries hold and it does not yet:
    each cause's difference as one transaction (its legs summing to zero, or Unbalanced is
    raised and nothing is posted), and the accounts' balances moved by it. Returns the number
    of transactions posted."""
    here = {e.pk for e in entries}
    later = {e.pk for e in entries if e.kind == LedgerEntry.REVERSAL and e.reverses_id in here}
    if later:  # a reversal after what it reverses, whose transaction it names
        first = post_book(club_id, days, [e for e in entries if e.pk not in later])
        return first + post_book(club_id, entries=[e for e in entries if e.pk in later])
    wanted: dict[Cause, dict[Key, int]] = {}
    # Each cause's transaction (not saved yet) and its legs' seq (its entry's id, 0 for a day).
    sources: dict[Cause, tuple[Transaction, int]] = {}
    dates: dict[Holder, datetime.date | None] = {}
    for day, result in days:
        for key, legs in day_legs(day, result).items():
            wanted[key] = legs
            sources[key] = (Transaction(club_id=club_id, date=day.date, cause=key[0], day=day), 0)
            for holder, _part in legs:
                dates[holder] = day.date
    for entry in entries:
        key = ("entry", entry.pk)
        wanted[key] = entry_legs(entry)
        cause, date = entry_cause(entry), entry_date(entry)
        t = Transaction(club_id=club_id, date=date, cause=cause, day=entry.day, entry=entry)
        sources[key] = (t, entry.pk)
        _sign, base = _base(entry)
        for holder, _part in wanted[key]:
            if holder[2] is not None:
                dates[holder] = entry.day.date  # type: ignore[union-attr]
            elif holder[3] == base.pk:
                dates[holder] = entry_date(base)
            else:
                dates.setdefault(holder, None)
    if not wanted:
        return 0
    held, first = _book_held(
        [d.pk for d, _r in days], [e.pk for e in entries], [e.reverses_id for e in entries]
    )
    postings: list[tuple[Cause, dict[Key, int], bool]] = []
    for key, legs in wanted.items():
        before = held.get(key)
        if before is None:  # the first posting: every party's leg, a zero one too
            diff = {k: y for k, y in legs.items() if y or k[0][0] == Account.MEMBER}
            if not any(legs.values()) and key[0] == Transaction.SHUGI:
                continue
        else:
            diff = {
                k: legs.get(k, 0) - before.get(k, 0)
                for k in {*legs, *before}
                if legs.get(k, 0) != before.get(k, 0)
            }
        if not diff:
            continue
        if sum(diff.values()) != 0:
            raise Unbalanced(f"{key}: the legs sum to {sum(diff.values())}")
        postings.append((key, diff, before is not None))
    if not postings:
        return 0
    ids = _accounts(club_id, {h: dates.get(h) for _k, legs, _c in postings for h, _p in legs})
    rows = []
    for key, _legs, correction in postings:
        t = sources[key][0]
        t.correction = correction
        if t.entry is not None and t.entry.reverses_id is not None:
            t.reverses_id = first.get(t.entry.reverses_id)
        rows.append(t)
    made = Transaction.objects.bulk_create(rows, batch_size=BATCH)
    moved: dict[int, int] = defaultdict(int)
    legs_made = []
    for t, (key, legs, _c) in zip(made, postings, strict=True):
        seq = sources[key][1]
        for (holder, part), yen in legs.items():
            account = ids[holder][0]
            moved[account] += yen
            legs_made.append(
                Leg(
                    transaction_id=t.pk,
                    account_id=account,
                    yen=yen,
                    member_id=holder[1],
                    date=t.date,
                    seq=seq,
                    part=part,
                )
            )
    Leg.objects.bulk_create(legs_made, batch_size=BATCH)
    balances = dict(ids.values())
    Account.objects.bulk_update(
        [Account(pk=pk, balance=balances[pk] + yen) for pk, yen in moved.items() if yen],
        ["balance"],
        batch_size=500,
    )
    return len(made)


HOLDER_FIELDS = ("account__kind", "account__member_id", "account__day_id", "account__debt_id")


def _holder(row: dict[str, Any]) -> Holder:
    return tuple(row[f] for f in HOLDER_FIELDS)  # type: ignore[return-value]


def _book_held(
    day_ids: Sequence[int], entry_ids: Sequence[int], reversed_ids: Sequence[int | None]
) -> tuple[dict[Cause, dict[Key, int]], dict[int, int]]:
    """What the book holds for these days' settlements and shūgi and these entries (the sum of
    each cause's legs per account and part), and the first transaction of each reversed entry
    (a reversal's `reverses`). Two queries at most."""
    held: dict[Cause, dict[Key, int]] = {}
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
            "part",
            *HOLDER_FIELDS,
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
        held.setdefault(key, {})[(_holder(r), r["part"])] = r["total"]
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


def club_derived(club_id: int, *, chunk: int = 500) -> dict[Key, int]:
    """Every account's balance, by part, as the records say (day_legs of each day re-settled
    from scratch, entry_legs of each entry), computed in memory a chunk of days at a time."""
    totals: dict[Key, int] = defaultdict(int)
    versions = club_versions(club_id)
    for part in _club_days(club_id, chunk):
        for inputs in days_loaded(part):
            for legs in day_legs(inputs.day, settle(inputs, versions)).values():
                for key, yen in legs.items():
                    totals[key] += yen
    for entry in ENTRIES.filter(club_id=club_id).iterator(chunk_size=BATCH):
        for key, yen in entry_legs(entry).items():
            totals[key] += yen
    return totals


def club_booked(club_id: int) -> dict[Key, int]:
    """Every account's balance in the book, by part: the sum of its legs (one query)."""
    rows = (
        Leg.objects.filter(account__club_id=club_id)
        .values(*HOLDER_FIELDS, "part")
        .order_by()
        .annotate(total=Sum("yen"))
    )
    return {(_holder(r), r["part"]): r["total"] for r in rows}


def _stale_balances(club_id: int) -> list[tuple[Account, int]]:
    """The club's accounts whose kept balance is not the sum of their legs, with that sum."""
    summed = dict(
        Leg.objects.filter(account__club_id=club_id)
        .values("account_id")
        .order_by()
        .annotate(total=Sum("yen"))
        .values_list("account_id", "total")
    )
    accounts = Account.objects.filter(club_id=club_id).order_by("pk").only("pk", "balance")
    return [(a, summed.get(a.pk, 0)) for a in accounts if a.balance != summed.get(a.pk, 0)]


TRANSFER_FIELDS = ("day_id", "position", "date", "payer_id", "payee_id", "yen")


def transfers_difference(club_id: int, *, chunk: int = 500) -> str | None:
    """The first difference between the kept open transfers and the same rows derived again
    from the records, in words, or None."""
    versions = club_versions(club_id)
    for part in _club_days(club_id, chunk):
        kept = OpenTransfer.objects.filter(day_id__in=part).values_list(*TRANSFER_FIELDS)
        have = sorted(kept, key=repr)
        wanted = _settled(part, versions)[0]
        want = sorted((tuple(getattr(t, n) for n in TRANSFER_FIELDS) for t in wanted), key=repr)
        for h, w in zip([*have, None], [*want, None], strict=False):
            if h != w:
                shown = [
                    None if row is None else dict(zip(TRANSFER_FIELDS, row, strict=True))
                    for row in (h, w)
                ]
                return f"the kept transfer {shown[0]}, the records give {shown[1]}"
    return None


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
    for key in sorted(set(booked) | set(derived), key=repr):
        if booked.get(key, 0) != derived.get(key, 0):
            (kind, member_id, day_id, debt_id), part = key
            name = f"{kind} account" + "".join(
                f" of {what} {pk}"
                for what, pk in (("member", member_id), ("day", day_id), ("debt", debt_id))
                if pk is not None
            )
            return count, (
                f"the {name}{f' ({part})' if part else ''}: the book holds "
                f"{booked.get(key, 0)}, the games and entries give {derived.get(key, 0)}"
            )
    for account, summed in _stale_balances(club_id)[:1]:
        return count, (
            f"account {account.pk} keeps the balance {account.balance}, its legs sum to {summed}"
        )
    return count, transfers_difference(club_id)
