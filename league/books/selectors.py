"""Reading the kept books (league.models.books): sums over indexed rows, no settling.

The shapes mirror league.money.services' (Statement lines, Position, Debt) so that pages and
workbooks show the same things whichever they are given; every function here makes a fixed
number of queries, and reads rows of the member, the open days or the open debts only.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.functions import Coalesce

from league.models import (
    Account,
    BookLine,
    Club,
    Day,
    DayAccount,
    DebtAccount,
    LedgerEntry,
    Leg,
    Member,
    OpenTransfer,
)

OPEN = ~Q(outstanding=0)  # as the partial index dayaccount_open
STATEMENT_PAGE = 50


@dataclass(frozen=True)
class Line:
    """A statement line, as league.money.services.StatementLine."""

    date: datetime.date
    what: str
    yen: int
    day: Day | None = None
    entry: LedgerEntry | None = None
    parts: DayAccount | None = None  # games, score, game_yen, fees, shugi, rounding
    balance: int = 0
    reversed: bool = False  # an entry a later correction cancelled


@dataclass(frozen=True)
class OpenDay:
    day: Day
    yen: int  # + the member is owed, − owes on this day


@dataclass(frozen=True)
class Position:
    """As league.money.services.Position: open days and open debts, from kept rows."""

    open_days: list[OpenDay]
    debts: list[DebtAccount]
    member_pk: int

    @property
    def days_total(self) -> int:
        return sum(d.yen for d in self.open_days)

    @property
    def debts_total(self) -> int:
        return sum(
            d.remaining if d.debtor_id != self.member_pk else -d.remaining for d in self.debts
        )

    @property
    def total(self) -> int:
        return self.days_total + self.debts_total


@dataclass(frozen=True)
class Statement:
    member: Member
    lines: list[Line] = field(default_factory=list)  # oldest first
    debts: list[DebtAccount] = field(default_factory=list)
    position: Position | None = None
    page: int = 1
    older: bool = False  # lines older than this page exist (the next page)
    carried: int = 0  # the balance before the first line shown

    @property
    def balance(self) -> int:
        return self.position.total if self.position is not None else 0


def _debts(where: Q) -> list[DebtAccount]:
    return list(
        DebtAccount.objects.filter(where, remaining__gt=0)
        .select_related("entry", "entry__day", "debtor", "creditor")
        .order_by("since", "entry_id")
    )


def open_debts(*, club: Club) -> list[DebtAccount]:
    """Debts not yet paid in full, oldest first (one query over the open ones)."""
    return _debts(Q(club=club))


def position(*, member: Member) -> Position:
    """Where `member` stands: their open days and open debts (two queries)."""
    days = (
        DayAccount.objects.filter(OPEN, member=member)
        .select_related("day")
        .order_by("date")
        .only("day", "outstanding", "date")
    )
    open_days = [OpenDay(a.day, a.outstanding) for a in days]
    debts = _debts(Q(debtor=member) | Q(creditor=member))
    return Position(open_days, debts, member.pk)


def _lines(member: Member, rows: list[BookLine], balance_after: int) -> list[Line]:
    """`rows` oldest first, with the running balance ending at `balance_after`."""
    day_ids = [r.day_id for r in rows if r.kind == BookLine.DAY]
    parts = {a.day_id: a for a in DayAccount.objects.filter(member=member, day_id__in=day_ids)}
    running = balance_after - sum(r.yen for r in rows)
    out = []
    for r in rows:
        running += r.yen
        out.append(
            Line(
                r.date,
                r.kind,
                r.yen,
                day=r.day,
                entry=r.entry,
                parts=parts.get(r.day_id) if r.kind == BookLine.DAY else None,
                balance=running,
                reversed=_cancelled(r.entry),
            )
        )
    return out


def _cancelled(entry: LedgerEntry | None) -> bool:
    """Whether a later correction cancelled `entry` (its reversal loaded with it: no query)."""
    if entry is None:
        return False
    try:
        return entry.reversed_by is not None
    except ObjectDoesNotExist:
        return False


def _member_lines(member: Member):  # type: ignore[no-untyped-def]
    return BookLine.objects.filter(member=member).select_related(
        "day",
        "entry",
        "entry__payer",
        "entry__payee",
        "entry__borrower",
        "entry__day",
        "entry__reversed_by",
    )


def _by_pk(rows: QuerySet[Any], ids: set[int]) -> dict[int, Any]:
    """`rows` with these primary keys, by key: always one query, also for no keys (ids start
    at 1, so 0 matches nothing), so that a page's query count does not depend on what its
    lines hold."""
    return {row.pk: row for row in rows.filter(pk__in=sorted(ids) or [0])}


def _loaded(rows: list[BookLine]) -> list[BookLine]:
    """`rows` with their day and ledger entry, and the entry's day, parties and reversal, read by
    primary key in three queries. One query joining the nine tables took PostgreSQL 8 ms to
    plan on every statement page and My page (and 0.4 ms to run); these plan in a fraction of a
    millisecond."""
    entries = _by_pk(
        LedgerEntry.objects.select_related("reversed_by"),
        {r.entry_id for r in rows if r.entry_id is not None},
    )
    parties = {
        pk
        for e in entries.values()
        for pk in (e.payer_id, e.payee_id, e.borrower_id)
        if pk is not None
    }
    members = _by_pk(Member.objects.all(), parties)
    days = _by_pk(
        Day.objects.all(),
        {r.day_id for r in rows if r.day_id is not None}
        | {e.day_id for e in entries.values() if e.day_id is not None},
    )
    for e in entries.values():
        for name, found in (
            ("payer", members),
            ("payee", members),
            ("borrower", members),
            ("day", days),
        ):
            if (pk := getattr(e, f"{name}_id")) is not None:
                LedgerEntry._meta.get_field(name).set_cached_value(e, found[pk])
    for r in rows:
        for name, found in (("entry", entries), ("day", days)):
            if (pk := getattr(r, f"{name}_id")) is not None:
                BookLine._meta.get_field(name).set_cached_value(r, found[pk])
    return rows


def statement(*, member: Member, page: int = 1, per_page: int = STATEMENT_PAGE) -> Statement:
    """One page of `member`'s statement, the newest first (page 1), its lines oldest first with
    the balance carried over from the lines before it. A fixed number of queries; the first
    page reads only its own lines and the member's open rows (the balance after the last line
    is the member's position: tests/league/money/test_money_agreement.py), a later page also sums
    the newer lines it skips."""
    where = position(member=member)
    page = max(1, page)
    start = (page - 1) * per_page
    newest_first = BookLine.objects.filter(member=member).order_by("-date", "-seq")
    newer = sum(newest_first[:start].values_list("yen", flat=True)) if start else 0
    found = _loaded(list(newest_first[start : start + per_page + 1]))
    older = len(found) > per_page
    rows = found[:per_page][::-1]
    out = _lines(member, rows, where.total - newer)
    carried = out[0].balance - out[0].yen if out else where.total - newer
    return Statement(member, out, where.debts, where, page, older, carried)


def full_statement(*, member: Member) -> Statement:
    """Every line of `member`'s statement (the workbook), oldest first."""
    rows = list(_member_lines(member).order_by("date", "seq"))
    total = sum(r.yen for r in rows)
    where = position(member=member)
    return Statement(member, _lines(member, rows, total), where.debts, where)


def latest_lines(*, member: Member, count: int) -> tuple[list[Line], bool]:
    """The member's latest `count` lines, newest first, and whether older ones exist."""
    newest_first = BookLine.objects.filter(member=member).order_by("-date", "-seq")
    rows = _loaded(list(newest_first[: count + 1]))
    shown = rows[:count][::-1]
    return _lines(member, shown, sum(r.yen for r in shown))[::-1], len(rows) > count


# --- the club -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenDayTransfers:
    """One open day as the debts page lists it: its date, whether it was closed, and its
    transfers as (payer's name, payee's name, yen), a name None for the club."""

    date: datetime.date
    closed_at: datetime.datetime | None
    transfers: list[tuple[str | None, str | None, int]]


@dataclass(frozen=True)
class Standing:
    member: Member
    days: int  # open days' total (+ owed to, − owes)
    debts: int  # open debts' total

    @property
    def total(self) -> int:
        return self.days + self.debts


@dataclass(frozen=True)
class Books:
    """The debts page: the newest open days with their transfers (OPEN_DAYS_SHOWN; the count and
    total of them all), open debts, each member's standing."""

    open_days: list[OpenDayTransfers]  # newest first, at most OPEN_DAYS_SHOWN
    debts: list[DebtAccount]
    standing: list[Standing]
    open_day_count: int = 0  # every open day, shown or not
    open_transfers_total: int = 0  # yen of every open day's transfers

    @property
    def open_days_hidden(self) -> int:
        return self.open_day_count - len(self.open_days)

    @property
    def debts_total(self) -> int:
        return sum(d.remaining for d in self.debts)


# Open days whose transfers the debts page lists; the rest are counted and summed (issue 39: a
# club that settles outside the app leaves every day open, and the page listed thousands).
OPEN_DAYS_SHOWN = 7


def club_books(*, club: Club) -> Books:
    """Six queries, and what Python reads is bounded by the members and OPEN_DAYS_SHOWN days,
    whatever the club's history or how many days are open: the newest open days' transfers,
    the count and sum of all open transfers, the open debts, and each member's standing
    summed in SQL."""
    open_transfers = OpenTransfer.objects.filter(club=club)
    summary = open_transfers.aggregate(
        days=Count("day", distinct=True), yen=Coalesce(Sum("yen"), 0)
    )
    newest = (
        list(
            open_transfers.order_by("-date")
            .values_list("day_id", flat=True)
            .distinct()[:OPEN_DAYS_SHOWN]
        )
        if summary["days"]
        else []
    )
    # Plain values, not model instances: a day's transfers are one per member who played.
    transfers = (
        open_transfers.filter(day_id__in=newest)
        .order_by("-date", "position")
        .values_list("day_id", "date", "day__closed_at", "payer__name", "payee__name", "yen")
    )
    by_day: dict[int, OpenDayTransfers] = {}
    for day_id, date, closed_at, payer, payee, yen in transfers:
        by_day.setdefault(day_id, OpenDayTransfers(date, closed_at, [])).transfers.append(
            (payer, payee, yen)
        )
    debts = open_debts(club=club)
    # Each member's open days summed in SQL; the club's own rows (member None) are left out in
    # Python: `member IS NOT NULL` would lead SQLite to the index of every row.
    days: dict[int, int] = {}
    summed = (
        DayAccount.objects.filter(OPEN, club=club)
        .order_by()
        .values("member_id")
        .annotate(yen=Sum("outstanding"))
        .values_list("member_id", "yen")
    )
    for member_id, yen in summed:
        if member_id is not None and yen:
            days[member_id] = yen
    owed: dict[int, int] = defaultdict(int)
    for d in debts:
        if d.debtor_id is not None:  # None: the club owes a season bonus
            owed[d.debtor_id] -= d.remaining
        if d.creditor_id is not None:
            owed[d.creditor_id] += d.remaining
    ids = set(days) | set(owed)
    members = Member.objects.filter(pk__in=ids).order_by("kana", "name")
    standing = [Standing(m, days.get(m.pk, 0), owed.get(m.pk, 0)) for m in members]
    return Books(
        list(by_day.values()),
        debts,
        standing,
        open_day_count=summary["days"],
        open_transfers_total=summary["yen"],
    )


@dataclass(frozen=True)
class AccountLine:
    line: BookLine
    balance: int


def club_account(
    *, club: Club, page: int = 1, per_page: int = STATEMENT_PAGE
) -> tuple[list[AccountLine], int, bool]:
    """The club's own account (クラブ積立), newest page first: its lines oldest first with the
    running total, the balance, and whether older lines exist. The balance is the sum of the
    legs of the club's own account in the book (over the index leg_account); the lines are the
    kept lines of that account, which check_books holds equal to it."""
    lines = BookLine.objects.filter(club=club, member__isnull=True)
    legs = Leg.objects.filter(account__club=club, account__kind=Account.CLUB)
    total = legs.aggregate(yen=Sum("yen"))["yen"] or 0
    start = (max(1, page) - 1) * per_page
    newest_first = lines.order_by("-date", "-seq")
    newer = sum(newest_first[:start].values_list("yen", flat=True)) if start else 0
    found = _loaded(list(newest_first[start : start + per_page + 1]))
    rows = found[:per_page][::-1]
    running = total - newer - sum(r.yen for r in rows)
    out = []
    for r in rows:
        running += r.yen
        out.append(AccountLine(r, running))
    return out, total, len(found) > per_page


@dataclass(frozen=True)
class DayHouse:
    day: Day
    house: int


def house_totals(*, club: Club, start: datetime.date, end: datetime.date) -> list[DayHouse]:
    """The club's total of each day from `start` to `end` (one query over those days)."""
    rows = (
        DayAccount.objects.filter(
            club=club, member__isnull=True, date__range=(start, end), day__isnull=False
        )
        .select_related("day")
        .order_by("date")
    )
    return [DayHouse(a.day, a.yen) for a in rows]
