"""My page (マイページ): a member's own season standing, latest games, account and what they pay or
receive on the day being settled, without asking an organiser.

There is no member id in the address: the page is always the viewer's own (the member record the
user is linked to). A user of the club not linked to any record gets a page that says so. Each
part reads what its own page reads (the kept standings totals, the statement's derivation over
the member's latest days, the day's ledger), so the numbers agree with those pages, in a fixed
number of queries and a bounded amount of work at any history size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from league.access import club_for, club_page
from league.books import selectors as book_selectors
from league.core import clock
from league.models import Member, Season
from league.models.draw import next_tables
from league.models.rules import club_has_money
from league.money.views.statements import OpenDayRow, describe_entry, headline
from league.mypage import selectors, signs
from league.standings import stats
from league.standings.tables import Shown


@dataclass(frozen=True)
class DebtLine:
    debt: book_selectors.Debt
    other: Member | None  # whom the member owes, or who owes the member (None: the club)
    owes: bool
    remaining: int


def _debt_lines(position: book_selectors.Position, me: Member) -> list[DebtLine]:
    lines = []
    for debt in sorted(position.debts, key=lambda d: (d.since, d.entry.pk)):
        owes = debt.debtor_id == me.pk
        other = debt.creditor if owes else debt.debtor
        lines.append(DebtLine(debt, other, owes, debt.remaining))
    return lines


def _debt_lines_of(debts: list[book_selectors.Debt], me: Member) -> list[DebtLine]:
    return [
        DebtLine(
            d, d.creditor if d.debtor_id == me.pk else d.debtor, d.debtor_id == me.pk, d.remaining
        )
        for d in debts
    ]


def _money_context(me: Member, today: Any) -> dict[str, Any]:
    days = selectors.RECENT_MONEY_DAYS
    account = selectors.member_account(member=me, days=days)
    day = selectors.settlement_day(account, today)
    settlement = (
        selectors.day_settlement(day=day, member=me, today=today, debts=account.position.debts)
        if day
        else None
    )
    other_open_days = [
        OpenDayRow(d.day.date, abs(d.yen), d.yen < 0)
        for d in account.position.open_days
        if settlement is None or d.day.pk != settlement.day.pk
    ]
    return {
        "account": account,
        "days_counted": days,
        "headline": headline(account.balance),
        "debts": _debt_lines(account.position, me),
        "lines": [
            (
                line,
                describe_entry(line.entry, me) if line.entry is not None else "",
                signs.line_yen(line, me.pk),
            )
            for line in account.lines
        ],
        "settlement": settlement,
        "settled_lines": [
            (e, describe_entry(e.entry, me)) for e in (settlement.entries if settlement else [])
        ],
        "settlement_debts": _debt_lines_of(settlement.debts, me) if settlement else [],
        "other_open_days": sorted(other_open_days, key=lambda d: d.date, reverse=True),
    }


@require_safe
@club_page
def my_page(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    me = selectors.linked_member(club=club, user=request.user)
    context: dict[str, Any] = {"club": club, "me": me}
    if me is None:
        return render(request, "league/mypage/my_page.html", context)
    today = clock.today()
    seasons = list(Season.objects.filter(club=club))
    season = selectors.current_season(seasons, today)
    versions = stats.rules_versions(club=club)
    start, end = (season.start, season.end) if season else (None, None)
    shown = Shown.for_rules(stats.rules_between(versions, start, end))
    has_money = club_has_money(club=club)
    # While a round is held back (league.access.results_page), a member sees neither their
    # season (kept with the held games in it) nor a held game of their own among their latest.
    held = club.held is not None and not club.is_organiser  # type: ignore[attr-defined]
    context.update(
        next_table=next_tables(club_id=club.pk, date=today, member_id=me.pk).get(me.pk),
        season=season,
        held=held,
        standing=None if held else selectors.standing(club=club, member=me, season=season),
        games=selectors.recent_games(club=club, member=me, held_out=held),
        games_limit=selectors.RECENT_GAMES,
        shown=shown,
        show_yen=shown.yen and has_money,
        has_money=has_money,
    )
    if has_money:
        context.update(_money_context(me, today))
    return render(request, "league/mypage/my_page.html", context)
