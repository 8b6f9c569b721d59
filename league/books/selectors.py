"""Reading the book (league.models.books): sums over indexed legs and the accounts' kept
balances, no settling.

A member's open days and open debts are their accounts of a day or a debt whose balance is not
zero (over the partial indexes account_open and account_member_open); a statement's lines are
their legs summed per line (the transaction's date and entry: a day's settlement and shūgi are
one line), in order over the index leg_member, with the parts of each day's line (games, fees,
shūgi, rounding) summed in the same query. Every function here makes a fixed number of queries.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import (
    Count,
    F,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    prefetch_related_objects,
)
from django.db.models.functions import Abs, Coalesce

import scoring
from league.books import services as books
from league.core import clock
from league.models import (
    Account,
    Club,
    Day,
    DayShugi,
    Game,
    LedgerEntry,
    Leg,
    Member,
    MemberDay,
    OpenTransfer,
    Result,
)

Party = int | None

STATEMENT_PAGE = 50
OPEN = ~Q(balance=0)  # as the partial indexes account_open and account_member_open
PARTS = (Leg.GAMES, Leg.FEES, Leg.SHUGI, Leg.ROUNDING)


def _day_player(
    member_id: int, games: int, score: int, chips: int, yen: dict[str, int]
) -> scoring.DayPlayer:
    """A member's day: their games, score and chips, and its yen by part (the book's legs)."""
    parts = [yen.get(part, 0) for part in PARTS]
    return scoring.DayPlayer(str(member_id), games, score, chips, *parts, sum(parts))


@dataclass(frozen=True)
class Line:
    """A statement line: a day (its settlement and shūgi, corrections included) or an entry,
    of a member's accounts or of the club's own; `what` is "day", the part of a day of the
    club's account (games, fees, rounding), "surcharge", or the entry's kind."""

    date: datetime.date
    what: str
    yen: int
    day: Day | None = None
    entry: LedgerEntry | None = None
    parts: scoring.DayPlayer | None = None  # a member's day line, in parts
    balance: int = 0
    reversed: bool = False  # an entry a later correction cancelled


@dataclass(frozen=True)
class Debt:
    """A loan, a deferral or an adjustment's yen, and what remains of it: the balance of its
    debtor's account of it (its creditor's when the club owes it)."""

    entry: LedgerEntry
    remaining: int

    @property
    def debtor(self) -> Member | None:
        return self.entry.borrower

    @property
    def debtor_id(self) -> int | None:
        return self.entry.borrower_id

    @property
    def creditor(self) -> Member | None:
        return self.entry.payer if self.entry.kind == LedgerEntry.LOAN else self.entry.payee

    @property
    def creditor_id(self) -> int | None:
        e = self.entry
        return e.payer_id if e.kind == LedgerEntry.LOAN else e.payee_id

    @property
    def since(self) -> datetime.date:
        return books.entry_date(self.entry)

    @property
    def principal(self) -> int:
        e = self.entry
        return e.amount + (e.surcharge if e.kind == LedgerEntry.DEFERRAL else 0)

    @property
    def repaid(self) -> int:
        return self.principal - self.remaining

    def age_days(self, today: datetime.date | None = None) -> int:
        return ((today or clock.today()) - self.since).days


@dataclass(frozen=True)
class OpenDay:
    day: Day
    yen: int  # + the member is owed, − owes on this day


@dataclass(frozen=True)
class Position:
    """A member's open days and open debts: their accounts whose balance is not zero, and what
    each kind's balances sum to (+ the member is owed, − owes)."""

    open_days: list[OpenDay]
    debts: list[Debt]
    days_total: int
    debts_total: int

    @property
    def total(self) -> int:
        return self.days_total + self.debts_total


@dataclass(frozen=True)
class Statement:
    member: Member
    lines: list[Line] = field(default_factory=list)  # oldest first
    debts: list[Debt] = field(default_factory=list)
    position: Position | None = None
    page: int = 1
    older: bool = False  # lines older than this page exist (the next page)
    carried: int = 0  # the balance before the first line shown

    @property
    def balance(self) -> int:
        return self.position.total if self.position is not None else 0


DEBT_PARTIES = ("debt__day", "debt__borrower", "debt__payer", "debt__payee")


def open_debts(*, club: Club) -> list[Debt]:
    """Debts not yet paid in full, oldest first (one query over the open accounts), once each:
    from the debtor's account, or the creditor's when the club owes it."""
    accounts = Account.objects.filter(
        OPEN, club=club, kind=Account.MEMBER, debt__isnull=False
    ).select_related("debt", *DEBT_PARTIES)
    debts = {
        a.debt_id: Debt(a.debt, abs(a.balance))  # type: ignore[arg-type]
        for a in accounts
        if a.debt.borrower_id in (a.member_id, None)  # type: ignore[union-attr]
    }
    return sorted(debts.values(), key=lambda d: (d.since, d.entry.pk))


def position(*, member: Member) -> Position:
    """Where `member` stands: their open days and open debts (one query)."""
    accounts = list(
        Account.objects.filter(OPEN, member=member)
        .select_related("day", "debt", *DEBT_PARTIES)
        .order_by("date", "pk")
    )
    open_days = [OpenDay(a.day, a.balance) for a in accounts if a.day_id is not None]
    owed = [a for a in accounts if a.debt_id is not None]
    debts = [Debt(a.debt, abs(a.balance)) for a in owed]  # type: ignore[arg-type]
    return Position(open_days, debts, sum(d.yen for d in open_days), sum(a.balance for a in owed))


def _grouped(legs: QuerySet[Leg], *by: str) -> QuerySet[Any]:
    """`legs` summed per line (date, entry), newest first, with a day line's parts."""
    return (
        legs.values("date", "seq", *by)
        .annotate(
            yen_sum=Sum("yen"),
            **{f"{p}_sum": Coalesce(Sum("yen", filter=Q(part=p)), 0) for p in PARTS},
        )
        .order_by("-date", "-seq", *(f"-{b}" for b in by))
    )


def _member_lines(member_id: int) -> QuerySet[Any]:
    """A member's statement lines, newest first. A line whose every leg a correction cancelled
    (a day the member was taken out of, an entry moved to another member by a merge: every
    account and every part summing to zero, some leg not zero) is left out, as the book posted
    again from the records (restore, migration 0054) would not have it; a line of zeros that
    nothing cancelled (a day broken even, a prize's winner) stays, and so does a loan's line of
    its borrower (+ on the day, − on the debt). Every account sums to zero when the legs
    weighted by their account's id do (with two accounts, certainly)."""
    return (
        _grouped(Leg.objects.filter(member_id=member_id))
        .annotate(weighted=Sum(F("yen") * F("account_id")), biggest=Max(Abs("yen")))
        .exclude(yen_sum=0, weighted=0, biggest__gt=0, **{f"{p}_sum": 0 for p in PARTS})
    )


def _by_pk(rows: QuerySet[Any], ids: set[int]) -> dict[int, Any]:
    """`rows` with these primary keys, by key: always one query, also for no keys (ids start
    at 1, so 0 matches nothing), so that a page's query count does not depend on what its
    lines hold."""
    return {row.pk: row for row in rows.filter(pk__in=sorted(ids) or [0])}


def _lines(
    club_id: int, rows: list[dict[str, Any]], balance_after: int, member: Member | None = None
) -> list[Line]:
    """Grouped `rows` oldest first as lines, with the running balance ending at
    `balance_after`, their ledger entries and days (with the entry's parties and reversal) and,
    for a member's day lines, the parts (four queries whatever the rows)."""
    entries = _by_pk(
        LedgerEntry.objects.select_related("reversed_by"), {r["seq"] for r in rows if r["seq"]}
    )
    parties = {
        pk
        for e in entries.values()
        for pk in (e.payer_id, e.payee_id, e.borrower_id)
        if pk is not None
    }
    members = _by_pk(Member.objects.all(), parties)
    dates = {r["date"] for r in rows if not r["seq"]}
    found = Day.objects.filter(
        Q(club_id=club_id, date__in=sorted(dates))
        | Q(pk__in=sorted({e.day_id for e in entries.values() if e.day_id is not None}) or [0])
    )
    days = {d.pk: d for d in found}
    day_on = {d.date: d for d in days.values() if d.club_id == club_id}
    for e in entries.values():
        for name, by in (("payer", members), ("payee", members), ("borrower", members)):
            if (pk := getattr(e, f"{name}_id")) is not None:
                LedgerEntry._meta.get_field(name).set_cached_value(e, by[pk])
        if e.day_id is not None:
            LedgerEntry._meta.get_field("day").set_cached_value(e, days[e.day_id])
    played: dict[datetime.date, tuple[int, int, int]] = {}
    if member is not None:
        played = {
            d: (g, s, c)
            for d, g, s, c in MemberDay.objects.filter(
                member=member, date__in=sorted(dates)
            ).values_list("date", "games", "score", "chips")
        }
    running = balance_after - sum(r["yen_sum"] for r in rows)
    out = []
    for r in rows:
        running += r["yen_sum"]
        entry = entries.get(r["seq"])
        parts = None
        if entry is None and member is not None:
            yen = {p: r[f"{p}_sum"] for p in PARTS}
            parts = _day_player(member.pk, *played.get(r["date"], (0, 0, 0)), yen)
        kind = r.get("part") or (entry.kind if entry is not None else "day")
        out.append(
            Line(
                r["date"],
                kind,
                r["yen_sum"],
                day=entry.day if entry is not None else day_on.get(r["date"]),
                entry=entry,
                parts=parts,
                balance=running,
                reversed=hasattr(entry, "reversed_by"),  # loaded with it: no query
            )
        )
    return out


def _page(
    grouped: QuerySet[Any], page: int, per_page: int
) -> tuple[list[dict[str, Any]], int, bool]:
    """One page of grouped lines, oldest first, the sum of the newer lines it skips, and
    whether older lines exist."""
    start = (max(1, page) - 1) * per_page
    newer = sum(r["yen_sum"] for r in grouped[:start]) if start else 0
    found = list(grouped[start : start + per_page + 1])
    return found[:per_page][::-1], newer, len(found) > per_page


def statement(*, member: Member, page: int = 1, per_page: int = STATEMENT_PAGE) -> Statement:
    """One page of `member`'s statement, the newest first (page 1), its lines oldest first with
    the balance carried over from the lines before it. A fixed number of queries; the first
    page reads only its own lines and the member's open accounts (the balance after the last
    line is the member's position), a later page also sums the newer lines it skips."""
    where = position(member=member)
    rows, newer, older = _page(_member_lines(member.pk), page, per_page)
    out = _lines(member.club_id, rows, where.total - newer, member)
    carried = out[0].balance - out[0].yen if out else where.total - newer
    return Statement(member, out, where.debts, where, max(1, page), older, carried)


def full_statement(*, member: Member) -> Statement:
    """Every line of `member`'s statement (the workbook), oldest first."""
    rows = list(_member_lines(member.pk))[::-1]
    where = position(member=member)
    total = sum(r["yen_sum"] for r in rows)
    return Statement(member, _lines(member.club_id, rows, total, member), where.debts, where)


def statement_lines(*, member_id: int) -> QuerySet[Any]:
    """A member's statement lines, one row each (to count them)."""
    return _member_lines(member_id).order_by()


def latest_lines(*, member: Member, count: int) -> tuple[list[Line], bool]:
    """The member's latest `count` lines, newest first, and whether older ones exist."""
    rows, _newer, older = _page(_member_lines(member.pk), 1, count)
    return _lines(member.club_id, rows, sum(r["yen_sum"] for r in rows), member)[::-1], older


# --- the club -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenDayTransfers:
    """One open day as the debts page lists it: its date, whether it was closed, and its
    transfers as (payer's name, payee's name, yen), the club by its name."""

    date: datetime.date
    closed_at: datetime.datetime | None
    transfers: list[tuple[str, str, int]]


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
    debts: list[Debt]
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
    the count and sum of all open transfers, the open debts, and each member's open days and
    open debts summed in SQL (the balances of their open accounts of a day, of a debt)."""
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
            (payer or club.name, payee or club.name, yen)
        )
    summed = (
        Account.objects.filter(OPEN, club=club, kind=Account.MEMBER)
        .order_by()
        .values("member_id")
        .annotate(
            days=Coalesce(Sum("balance", filter=Q(day__isnull=False)), 0),
            debts=Coalesce(Sum("balance", filter=Q(debt__isnull=False)), 0),
        )
        .values_list("member_id", "days", "debts")
    )
    totals = {member_id: (days, debts) for member_id, days, debts in summed}
    members = Member.objects.filter(pk__in=totals).order_by("kana", "name")
    return Books(
        list(by_day.values()),
        open_debts(club=club),
        [Standing(m, *totals[m.pk]) for m in members],
        open_day_count=summary["days"],
        open_transfers_total=summary["yen"],
    )


def club_account(
    *, club: Club, page: int = 1, per_page: int = STATEMENT_PAGE
) -> tuple[list[Line], int, bool]:
    """The club's own account (クラブ積立), newest page first: its lines oldest first with the
    running total, the balance (the account's), and whether older lines exist. A line is the
    account's legs of one day's part (games, fees, rounding) or of one entry, summed."""
    own = Account.objects.filter(club=club, kind=Account.CLUB).first()
    legs = Leg.objects.filter(account=own.pk if own is not None else 0)
    grouped = _grouped(legs, "part").exclude(yen_sum=0)
    rows, newer, older = _page(grouped, page, per_page)
    total = own.balance if own is not None else 0
    return _lines(club.pk, rows, total - newer), total, older


@dataclass(frozen=True)
class DayHouse:
    day: Day
    house: int


def house_totals(*, club: Club, start: datetime.date, end: datetime.date) -> list[DayHouse]:
    """What each day from `start` to `end` left to the club: the day's settlement and shūgi
    less what its members received, i.e. the legs of its settlement and shūgi on the club's
    own account and the day's clearing account (one query over those days)."""

    def day_legs(**account: Any) -> Subquery:
        legs = Leg.objects.filter(seq=0, date=OuterRef("date"), **account)
        return Subquery(legs.values("date").annotate(s=Sum("yen")).values("s")[:1])

    rows = (
        Day.objects.filter(club=club, date__range=(start, end))
        .annotate(
            own=Coalesce(
                day_legs(account__club_id=OuterRef("club_id"), account__kind=Account.CLUB), 0
            ),
            clearing=Coalesce(
                day_legs(account__day_id=OuterRef("pk"), account__kind=Account.DAY), 0
            ),
        )
        .order_by("date")
    )
    return [DayHouse(d, d.own + d.clearing) for d in rows]


# --- a day's ledger -------------------------------------------------------------------------


@dataclass(frozen=True)
class DayLedger:
    """A day's money as the book holds it: each player's day in parts (their day's legs by part,
    their games, score and chips from the day's counted results), what the club kept, what is
    still open (the day's accounts) and who still pays whom (the day's open transfers). Nothing
    is settled here: the book was posted when the day's records were written."""

    day: Day
    rules: scoring.Rules
    players: tuple[
        scoring.DayPlayer, ...
    ]  # in the day's order: as they first played, then the rest
    house: int  # what the club keeps of the day (its settlement and shūgi; negative: pays)
    members: dict[int, Member]
    entries: list[LedgerEntry]  # this day's entries, oldest first
    outstanding: dict[Party, int]  # still to settle today: + is owed, − owes; None the club
    transfers: tuple[scoring.Transfer, ...]  # who still pays whom

    @property
    def has_money(self) -> bool:
        return self.rules.has_money

    def member(self, party: Party) -> Member | None:
        return None if party is None else self.members[party]

    @property
    def settled(self) -> bool:
        return not self.transfers


def day_loaded(day: Day) -> Day:
    """`day` with its games (not void, in order), their counted results by seat (annotated
    `fill_in`), its attendees and shūgi prefetched: four queries."""
    getattr(day, "_prefetched_objects_cache", {}).clear()  # a day loaded before shows new games
    # fill_in: a fill-in's (黒子) money is the house's (scoring.house_takes).
    counted = Result.objects.filter(counted=True).annotate(fill_in=F("member__fill_in"))
    games = Game.objects.filter(voided=False).order_by("number")
    games = games.prefetch_related(Prefetch("results", queryset=counted.order_by("seat")))
    prefetch_related_objects(
        [day],
        Prefetch("games", queryset=games),
        "attendees",
        Prefetch("shugi", queryset=DayShugi.objects.filter(voided=False)),
    )
    return day


def day_rules(*, day: Day) -> scoring.Rules | None:
    """The rules `day`'s money is settled under (books.day_version), None without any rules;
    `day` is left loaded (day_loaded)."""
    day_loaded(day)
    games = [(game, game.results.all()) for game in day.games.all()]
    version = books.day_version(day, games, books.club_versions(day.club_id))
    return version.rules if version is not None else None


def day_ledger(*, day: Day) -> DayLedger:
    """Everything the day's ledger page, its payment sheet and its LINE text show, read from
    the book in a constant number of queries."""
    rules = day_rules(day=day) or books.NO_MONEY
    entries = list(
        LedgerEntry.objects.filter(day=day)
        .select_related("reverses", "payer", "payee", "borrower")
        .prefetch_related("reversed_by")
        .order_by("id")
    )
    played: dict[int, list[int]] = {}  # games, score, chips; in the order they first played
    fill_ins = set()
    for game in day.games.all():
        for r in game.results.all():
            if r.fill_in:
                fill_ins.add(r.member_id)
                continue
            mine = played.setdefault(r.member_id, [0, 0, 0])
            mine[0] += 1
            mine[1] += r.score
            mine[2] += r.chips
    parts: dict[int, dict[str, int]] = defaultdict(dict)
    for row in (
        Leg.objects.filter(account__day=day, account__kind=Account.MEMBER, seq=0)
        .values("member_id", "part")
        .annotate(yen=Sum("yen"))
        .order_by()
    ):
        parts[row["member_id"]][row["part"]] = row["yen"]
    order = list(played)
    order += [m.pk for m in day.attendees.all() if m.pk not in played and m.pk not in fill_ins]
    order += sorted(pk for pk, p in parts.items() if pk not in order and any(p.values()))
    players = [_day_player(pk, *played.get(pk, (0, 0, 0)), parts.get(pk, {})) for pk in order]
    house = -sum(p.yen for p in players)
    transfers = tuple(
        scoring.Transfer(
            None if t.payer_id is None else str(t.payer_id),
            None if t.payee_id is None else str(t.payee_id),
            t.yen,
        )
        for t in OpenTransfer.objects.filter(day=day).order_by("position")
    )
    # What is open of the day is what its open transfers move (they settle it exactly), as its
    # accounts' balances hold it: the players in the day's order, the club, then the others.
    outstanding: dict[Party, int] = {**dict.fromkeys(order, 0), None: 0}
    for t in transfers:
        for name, yen in ((t.payer, -t.yen), (t.payee, t.yen)):
            key = None if name is None else int(name)
            outstanding[key] = outstanding.get(key, 0) + yen
    ids = set(outstanding) | fill_ins  # the payment sheet names a fill-in's seats
    ids |= {m for e in entries for m in (e.payer_id, e.payee_id, e.borrower_id)}
    members = Member.objects.in_bulk({pk for pk in ids if pk is not None})
    return DayLedger(day, rules, tuple(players), house, members, entries, outstanding, transfers)
