"""/api/clubs/<slug>/seasons and /days: the seasons, the days, a day's games, its draw and its ledger."""

from __future__ import annotations

import datetime
from typing import Annotated, Any

from django.db.models import Count, Q
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Query
from ninja.errors import HttpError

from league import money
from league.api.auth import api_club, api_is_organiser
from league.api.base import (
    HELD_BACK,
    MAX_PAGE,
    NO_DRAW,
    NO_MONEY,
    PAGE_SIZE,
    READ,
    Slug,
    api,
)
from league.api.schemas import (
    DayDetailOut,
    DayPage,
    DrawOut,
    LedgerOut,
    SeasonOut,
    _game_summary,
    _ledger_out,
)
from league.core.errors import ServiceError
from league.draw import selectors as draw_selectors
from league.models import Day, Member, Season
from league.models.draw import next_tables
from league.recording import selectors


@api.get("/clubs/{slug}/seasons", response={200: list[SeasonOut], **READ})
def season_list(request: HttpRequest, slug: Slug) -> list[dict[str, Any]]:
    club = api_club(request, slug)
    seasons = Season.objects.filter(club=club).order_by("-start", "-id")
    return [
        {"id": s.pk, "name": s.name, "start": s.start, "end": s.end, "min_games": s.min_games}
        for s in seasons
    ]


@api.get("/clubs/{slug}/days", response={200: DayPage, **READ})
def day_list(
    request: HttpRequest, slug: Slug, page: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 1
) -> dict[str, Any]:
    """The club's days, newest first, 20 to a page."""
    club = api_club(request, slug)
    days = Day.objects.filter(club=club)
    count = days.count()
    start = (page - 1) * PAGE_SIZE
    live = Count("games", filter=Q(games__voided=False))  # as every page counts a day's games
    rows = days.annotate(game_count=live).order_by("-date")[start : start + PAGE_SIZE]
    return {
        "items": [{"date": d.date, "venue": d.venue, "games": d.game_count} for d in rows],
        "count": count,
        "page": page,
        "pages": max(1, -(-count // PAGE_SIZE)),
    }


@api.get("/clubs/{slug}/days/{date}", response={200: DayDetailOut, **READ})
def day_detail(request: HttpRequest, slug: Slug, date: datetime.date) -> dict[str, Any]:
    club = api_club(request, slug)
    day = get_object_or_404(Day, club=club, date=date)
    # A round held back (issue 42): its games are left out for all but the organisers.
    hidden = draw_selectors.hidden_games(day, organiser=api_is_organiser(request, club))
    games = [g for g in selectors.day_games(day=day) if g.pk not in hidden]
    return {"date": day.date, "venue": day.venue, "games": [_game_summary(g) for g in games]}


@api.get("/clubs/{slug}/days/{date}/draw", response={200: DrawOut, **READ})
def day_draw(request: HttpRequest, slug: Slug, date: datetime.date) -> dict[str, Any]:
    """The day's current round of the table draw (for a bot to announce); 404 before any."""
    club = api_club(request, slug)
    rounds = draw_selectors.current_rounds(get_object_or_404(Day, club=club, date=date))
    current = draw_selectors.current_round(rounds)
    if current is None:
        raise HttpError(404, str(NO_DRAW))
    drawn = current.round.seats_drawn

    def player(m: Member, seat: int | None) -> dict[str, Any]:
        wind = draw_selectors.WINDS[seat] if drawn and seat is not None else None
        return {"member_id": m.pk, "name": m.name, "wind": wind}

    return {
        "round": current.round.number,
        "revision": current.round.revision,
        "seats_drawn": drawn,
        "tables": [
            {
                "label": tv.table.label,
                "recorded": tv.recorded,
                "game_id": tv.table.game_id,
                "players": [player(m, i) for i, m in enumerate(tv.players)],
            }
            for tv in current.tables
        ],
        "sitting_out": [player(m, None) for m in current.sitting_out],
        "next": [
            {
                "member_id": n.member_id,
                "name": n.name,
                "round": n.round,
                "table": n.table,
                "wind": n.wind,
                "text": n.text,
            }
            for n in next_tables(club_id=club.pk, date=date).values()  # by round, table, seat
        ],
    }


@api.get("/clubs/{slug}/days/{date}/ledger", response={200: LedgerOut, **READ})
def day_ledger(request: HttpRequest, slug: Slug, date: datetime.date) -> dict[str, Any]:
    """money.day_ledger; 404 when the club keeps no money (no rates, fees or shūgi)."""
    club = api_club(request, slug)
    day = get_object_or_404(Day.objects.select_related("club"), club=club, date=date)
    try:
        ledger = money.day_ledger(day=day)
    except ServiceError:  # no rules in force on that day: nothing to settle
        raise HttpError(404, str(NO_MONEY)) from None
    if not ledger.has_money:
        raise HttpError(404, str(NO_MONEY))
    if draw_selectors.hidden_games(day, organiser=api_is_organiser(request, club)):
        raise HttpError(404, str(HELD_BACK))
    return _ledger_out(club, ledger)
