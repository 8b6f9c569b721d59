"""The standings pages: a season's table, and the table of any period (all time by default) with
every season's leader.

Each page is a fixed number of queries: the club and the user's role, the rules versions, the
seasons, the standings aggregate (one query per page of the table, LazyPaginator: no COUNT over
the grouped rows) and, on the all-time page, one query for every season's leader. The hand
columns, when asked for (?hands=1), add one query.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.core.paginator import EmptyPage
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_safe
from django_tables2 import LazyPaginator, RequestConfig

from league.access import club_for, club_page, results_page, shared_part
from league.models import Club, Season
from league.standings import selectors as aggregate_selectors
from league.standings import stats
from league.standings.filters import StandingsFilter
from league.standings.tables import (
    Shown,
    StandingsTable,
    hand_columns,
    wants_hands,
    with_adjust,
)
from league.teams import selectors as team_selectors
from league.teams.selectors import with_teams

PER_PAGE = 50
PARAMS = ("rate", "sort", "page", "hands")  # what a season's table reads of the query
MAX_PAGE = 100_000  # 5,000,000 players; a larger page number is a 404 before any query


@require_safe
@club_page
@results_page
def season_standings(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    club = club_for(request, slug)
    season = get_object_or_404(with_teams(Season.objects.filter(club=club)), pk=season_id)

    def body() -> str:
        rules = stats.rules_between(stats.rules_versions(club=club), season.start, season.end)
        filterset = StandingsFilter(request.GET, rates=stats.rate_names(rules), fields=["rate"])
        table = None
        # An event in stages ranks as its current stage does, carry-over included: its one
        # order (league.teams.selectors.event_standings), not the raw totals of its dates.
        event = team_selectors.event_standings(season=season) if season.has_stages else None
        if event is None and filterset.is_valid() and season.closed_at is None:  # closed: final
            table = _table(
                request,
                club=club,
                shown=Shown.for_rules(rules),
                season=season,
                start=season.start,
                end=season.end,
                rate=filterset.standings_args()["rate"],
                min_games=season.min_games,
                seasons=[season],
                hand_toggle=True,
            )
        context = {
            "club": club,
            "season": season,
            "filter": filterset,
            "table": table,
            # One more query only for a season with teams (league.teams).
            "team_rows": team_selectors.team_standings(season=season) if season.has_teams else [],
            "event": event,
        }
        return render_to_string("league/standings/_season_body.html", context, request)

    # The rules, the table and the teams: the same for every member, kept until the next write.
    shared = shared_part(request, club, "season", season.pk, params=PARAMS, build=body)
    context = {"club": club, "season": season, "body": shared}
    return render(request, "league/standings/season_standings.html", context)


@require_safe
@club_page
@results_page
def standings(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    seasons = list(with_teams(Season.objects.filter(club=club)).order_by("-start", "-pk"))
    versions = stats.rules_versions(club=club)
    every_rate = stats.rate_names([v.rules for v in versions])
    filterset = StandingsFilter(request.GET, seasons=seasons, rates=every_rate)
    table = period = None
    if filterset.is_valid():
        period = filterset.standings_args()
        rules = stats.rules_between(versions, period["start"], period["end"])
        table = _table(
            request,
            club=club,
            shown=Shown.for_rules(rules),
            seasons=seasons,
            hand_toggle=True,
            **period,
        )
    leaders = season_leaders(club=club, seasons=seasons)
    context = {
        "club": club,
        "filter": filterset,
        "table": table,
        "period": period,
        "season_leaders": [(s, leaders[s.pk]) for s in seasons],
    }
    return render(request, "league/standings/standings.html", context)


# --- helpers ---------------------------------------------------------------------------------


def _table(
    request: HttpRequest,
    *,
    club: Club,
    shown: Shown,
    season: Season | None = None,
    seasons: Sequence[Season] = (),
    links: bool = True,
    hand_toggle: bool = False,
    **period: Any,
) -> StandingsTable:
    """The table in the order of ?sort= (validated by tables2), one page of PER_PAGE rows. A
    season's members' adjustments get their column (調整) when there are any (one query). Where
    the page offers them (`hand_toggle`), ?hands=1 adds the hand columns (one query). With a
    `season`, its own kept rows, whichever other season has the same dates."""
    if season is not None:
        seasons = [season]
    shown = with_adjust(shown, seasons, period)
    shown, hands = hand_columns(
        shown, club=club, wanted=hand_toggle and wants_hands(request.GET), period=period
    )
    table = StandingsTable(
        club=club,
        shown=shown,
        season=season,
        min_games=period.get("min_games", 0),
        links=links,
        hands=hands,
        hand_toggle=hand_toggle,
        query=lambda order: stats.standings(club=club, order=order, seasons=seasons, **period),
    )
    RequestConfig(request, paginate=False).configure(table)
    try:
        page = max(1, int(request.GET.get("page", 1)))
    except ValueError:
        page = 1
    if page > MAX_PAGE:  # its offset would overflow the database's integers: a 500
        raise Http404
    try:
        table.paginate(paginator_class=LazyPaginator, per_page=PER_PAGE, page=page)
    except EmptyPage:
        raise Http404 from None
    return table


def season_leaders(
    *, club: Club, seasons: Sequence[Season]
) -> dict[int, list[dict[str, Any]] | None]:
    """Season id → its leaders: the highest total among players with the season's minimum games
    (several when tied, none when nobody qualified); None for an event in stages (`has_stages`,
    league.teams.selectors.with_teams), which its season page ranks as its current stage does.

    One query however many seasons: the totals kept for each season (league.standings.services). Seasons
    may overlap (a year and its halves), so a game counts in every season whose dates hold it, as
    on the season's own page.
    """
    if not seasons:
        return {}
    rows: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in aggregate_selectors.season_totals(club=club, seasons=seasons):
        rows[row["season"]].append(row)
    leaders: dict[int, list[dict[str, Any]] | None] = {}
    for season in seasons:
        if getattr(season, "has_stages", False):  # its stages rank it (event_standings)
            leaders[season.pk] = None
            continue
        if season.closed_at is not None and season.final_standings is not None:
            # Closed: the record of who won, whatever was corrected afterwards.
            leaders[season.pk] = sorted(
                (r for r in season.final_standings if r["qualified"] and r["position"] == 1),
                key=lambda r: r["name"],
            )
            continue
        qualified = [r for r in rows[season.pk] if r["games"] >= season.min_games]
        best = max((r["total"] for r in qualified), default=None)
        leaders[season.pk] = sorted(
            (r for r in qualified if r["total"] == best), key=lambda r: r["name"]
        )
    return leaders
