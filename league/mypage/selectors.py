"""The reads of a member's own page: which member record the user is, their season's standings row
(from the kept totals, as the standings page reads it), their latest games, and what they pay or
receive on the day being settled. Each is a fixed number of queries whatever the history's size.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Exists, F, OuterRef, Q

from league import money
from league.books import selectors as book_selectors
from league.models import Club, Day, LedgerEntry, Member, Result, Season
from league.models.draw import held_game_ids
from league.models.totals import MemberDay, MemberTotal
from league.mypage import signs

# The money derivation's own steps (league.money.services): the same code as the statement's,
# over the member's latest days instead of all of them.
from league.standings import selectors as aggregate_selectors
from league.standings import stats

RECENT_GAMES = 10  # the latest games listed; the player's page lists more
RECENT_MONEY_DAYS = 20  # the member's latest days settled for the page (the statement has all)
STATEMENT_LINES = 5  # the latest lines of the account
MAX_MERGE_HOPS = 10  # a record merged into one merged later: follow, but never forever


def linked_member(*, club: Club, user: AbstractBaseUser) -> Member | None:
    """The club's member record linked to `user`, or None.

    A record still in use comes first; a record merged into another (Member.merged_into) leads to
    the record that survived it, which is where its results and entries went. One query, and one
    more per merge hop only when the user is linked to a merged record alone.
    """
    member = (
        Member.objects.filter(club=club, user=user)
        .order_by(F("merged_into").asc(nulls_first=True), "pk")
        .first()
    )
    for _hop in range(MAX_MERGE_HOPS):
        if member is None or member.merged_into_id is None:
            break
        member = Member.objects.filter(club=club, pk=member.merged_into_id).first()
    if member is not None and member.merged_into_id is not None:
        return None  # a merge cycle or an endless chain: no record to show
    if member is not None:
        member.club = club
    return member


def current_season(seasons: Sequence[Season], today: datetime.date) -> Season | None:
    """The season running today (the latest started if several overlap), else the latest one
    started, else the first to come (as the club pot's page chooses)."""
    ordered = sorted(seasons, key=lambda s: (s.start, s.pk), reverse=True)
    running = [s for s in ordered if s.start <= today <= s.end]
    started = [s for s in ordered if s.start <= today]
    upcoming = sorted((s for s in ordered if s.start > today), key=lambda s: (s.start, s.pk))
    return next(iter(running or started or upcoming), None)


@dataclass(frozen=True)
class Standing:
    """The member's row of a standings page (league.standings.selectors.standings' keys), and
    where it puts them: `position` among the qualified players (as the standings table numbers
    them), None while below the season's minimum games."""

    row: dict[str, Any]
    season: Season | None
    position: int | None
    qualified_players: int
    final: bool = False  # a closed season's frozen row (Season.final_standings)

    @property
    def games_to_qualify(self) -> int:
        minimum = self.season.min_games if self.season is not None else 0
        return max(0, minimum - self.row["games"])


def standing(*, club: Club, member: Member, season: Season | None) -> Standing | None:
    """The member's standings row for `season` (None: all time) from the kept totals, and their
    position: two queries whatever the number of games or players."""
    if season is not None and season.closed_at is not None and season.final_standings is not None:
        return _final_standing(season, member)
    min_games = season.min_games if season is not None else 0
    row = (
        aggregate_selectors.standings(club=club, season=season, min_games=min_games)
        .filter(member=member.pk)
        .first()
    )
    if row is None:
        return None
    # The row's own `position` ranked it alone (the filter runs before the window): count the
    # qualified players ahead of it instead, which is the standings table's Rank() by total.
    scope = MemberTotal.objects.filter(club=club, games__gt=0, games__gte=min_games)
    scope = scope.filter(season__isnull=True) if season is None else scope.filter(season=season)
    scope = aggregate_selectors.with_season_total(scope, season)  # adjustments count
    counts = scope.aggregate(
        ahead=Count("pk", filter=Q(season_total__gt=row["total"])), of=Count("pk")
    )
    position = counts["ahead"] + 1 if row["qualified"] else None
    return Standing(row, season, position, counts["of"])


def recent_games(
    *, club: Club, member: Member, limit: int = RECENT_GAMES, held_out: bool = False
) -> list[Result]:
    """The member's latest counted results with their games, newest first (one query); with
    `held_out`, without the games of rounds held back (league.models.draw.held_game_ids)."""
    rows = stats.counted_results(club=club).filter(member=member)
    if held_out:
        rows = rows.exclude(game_id__in=held_game_ids(round__day__club=club))
    return list(rows.select_related("game").order_by("-date", "-game__number")[:limit])


# --- the day being settled ---------------------------------------------------------------------


@dataclass(frozen=True)
class MyTransfer:
    """One transfer of the day's ledger that the member makes or receives."""

    pays: bool  # the member pays (else receives)
    other: Member | None  # the other party: None is the club
    yen: int


@dataclass(frozen=True)
class MyEntry:
    """One live entry of the day that involves the member (a reversed one and its reversal
    cancel out and are left out)."""

    entry: LedgerEntry
    flow: int  # signs.flow: + received, − paid
    later: int  # signs.later: + to receive later, − to pay later


@dataclass(frozen=True)
class DaySettlement:
    ledger: money.DayLedger
    transfers: list[MyTransfer]
    is_today: bool
    total: int | None = None  # the member's day total (+ receives, − pays); None: not a player
    entries: list[MyEntry] = field(default_factory=list)  # what is recorded for them, oldest first
    debts: list[book_selectors.Debt] = field(
        default_factory=list
    )  # open debts of theirs from this day

    @property
    def nothing_left(self) -> bool:
        """Nothing for the member to pay or receive, today or later, from this day."""
        return not self.transfers and not self.debts

    @property
    def day(self) -> Any:
        return self.ledger.day

    @property
    def closed(self) -> bool:
        return self.ledger.day.closed_at is not None


@dataclass(frozen=True)
class Account:
    """The member's money as their statement derives it, over their latest RECENT_MONEY_DAYS days
    (days played, attended or with an entry of theirs) and every entry of theirs: the days still
    open among those, every open debt, and the latest lines. Settling every day of a long history
    is what makes the full statement slow; a day older than those is left out (`older_left_out`),
    so the balance is the statement's whenever no older day is still open."""

    position: book_selectors.Position
    lines: list[book_selectors.Line]  # the latest, newest first, without running balance
    older_left_out: bool
    days: list[Day] = field(default_factory=list)  # the member's latest days, oldest first

    @property
    def balance(self) -> int:
        return self.position.total


def member_account(*, member: Member, days: int = RECENT_MONEY_DAYS) -> Account:
    """The member's position and latest lines from the kept books (league.books), and their
    latest days: a fixed number of queries over the member's own rows, whatever the club's
    history. The position counts every open day and debt (`older_left_out` is False)."""
    lines, _older = book_selectors.latest_lines(member=member, count=STATEMENT_LINES)
    position = book_selectors.position(member=member)
    return Account(position, lines, False, _latest_days(member, days))  # type: ignore[arg-type]


def _latest_days(member: Member, days: int) -> list[Day]:
    """The member's latest `days` days (played, came or with an entry of theirs), oldest first:
    one query over indexed rows (whether they played: their kept MemberDay row of the date, one
    index probe, not a search among all their results)."""
    played = MemberDay.objects.filter(member=member, date=OuterRef("date"), games__gt=0)
    came = Day.attendees.through.objects.filter(day=OuterRef("pk"), member=member)
    theirs = LedgerEntry.objects.filter(day=OuterRef("pk")).filter(
        Q(payer=member) | Q(payee=member) | Q(borrower=member)
    )
    latest = list(
        Day.objects.filter(club_id=member.club_id)
        .filter(Exists(played) | Exists(came) | Exists(theirs))
        .order_by("-date")[:days]
    )
    for day in latest:
        day.club = member.club
    return sorted(latest, key=lambda d: d.date)


def settlement_day(account: Account, today: datetime.date) -> Any:
    """The day to show what the member pays or receives: today's if they played, came or have an
    entry today (among all their latest days, however many lines each has), else the latest day
    still open for them. No query."""
    for day in account.days:
        if day.date == today:
            return day
    open_days = [d.day for d in account.position.open_days]
    return max(open_days, key=lambda d: d.date, default=None)


def day_settlement(
    *, day: Any, member: Member, today: datetime.date, debts: Sequence[book_selectors.Debt] = ()
) -> DaySettlement:
    """The day's ledger (money.day_ledger: a fixed number of queries), its transfers that involve
    the member in the ledger's order, the member's day total, every live entry of the day that
    involves them, and their open `debts` (their Position's) that started on this day."""
    ledger = money.day_ledger(day=day)
    me = str(member.pk)
    mine = []
    for t in ledger.transfers:
        if t.payer == me:
            mine.append(MyTransfer(True, ledger.member(money.party(t.payee)), t.yen))
        elif t.payee == me:
            mine.append(MyTransfer(False, ledger.member(money.party(t.payer)), t.yen))
    total = next((p.yen for p in ledger.players if p.name == me), None)
    cancelled = {e.reverses_id for e in ledger.entries if e.reverses_id is not None}
    entries = [
        MyEntry(e, signs.flow(e, member.pk), signs.later(e, member.pk))
        for e in ledger.entries
        if e.kind != LedgerEntry.REVERSAL
        and e.pk not in cancelled
        and member.pk in (e.payer_id, e.payee_id, e.borrower_id)
    ]
    from_day = [d for d in debts if d.entry.day_id == ledger.day.pk]
    return DaySettlement(ledger, mine, ledger.day.date == today, total, entries, from_day)


def _final_standing(season: Season, member: Member) -> Standing | None:
    """A closed season: the member's row as it was frozen, the record of who won (no query)."""
    rows = season.final_standings or []
    row = next((dict(r) for r in rows if r["member"] == member.pk), None)
    if row is None:
        return None
    games = row["games"]
    # As league.standings.stats computes it: hundredths of a percent, truncated.
    row["top_two_rate"] = (row["first"] + row["second"]) * 10000 // games if games else None
    position = row["position"] if row["qualified"] else None
    qualified = sum(1 for r in rows if r["qualified"])
    return Standing(row, season, position, qualified, final=True)
