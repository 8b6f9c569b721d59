"""/api/clubs/<slug>/standings: a season's or any range's standings, as the standings page."""

from __future__ import annotations

import datetime
from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Query

from league.api.base import (
    MAX_ID,
    NO_SUCH_SEASON,
    READ,
    START_AFTER_END,
    ApiErrors,
    Slug,
    Sort,
    Text20,
    api,
    api_results_club,
)
from league.api.schemas import (
    StandingsOut,
)
from league.api.teams import stage_out
from league.models import Season
from league.standings import stats
from league.teams import selectors as team_selectors
from league.teams.selectors import with_teams


@api.get("/clubs/{slug}/standings", response={200: StandingsOut, **READ})
def standings(
    request: HttpRequest,
    slug: Slug,
    season: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    start: datetime.date | None = None,
    end: datetime.date | None = None,
    rate: Annotated[Text20 | None, Query()] = None,
    sort: Sort = "position",
) -> dict[str, Any]:
    """stats.standings: a season's bounds and minimum games, or any date range and rate.

    `sort` is a column, ascending, or with "-" in front descending; ties go by the total.
    """
    club = api_results_club(request, slug)
    min_games = 0
    found = None
    if season is not None:
        found = with_teams(Season.objects.filter(club=club, pk=season)).first()
        if found is None:
            raise ApiErrors(422, {"season": [str(NO_SUCH_SEASON)]})
        start, end, min_games = start or found.start, end or found.end, found.min_games
    if start is not None and end is not None and start > end:
        raise ApiErrors(422, {"start": [str(START_AFTER_END)]})
    # An event ranks as its current stage does, as on its pages (event_standings).
    staged = found is not None and found.has_stages  # type: ignore[attr-defined]
    event = team_selectors.event_standings(season=found) if staged else None
    if found is not None and event is not None:
        stage, stage_rows = event
        return {
            "season": season,
            "kind": found.kind,
            "start": start,
            "end": end,
            "rate": rate or "",
            "min_games": min_games,
            "sort": sort,
            "rows": [],
            "stage": stage_out(stage, stage_rows),
        }
    rows = stats.standings(
        club=club,
        start=start,
        end=end,
        rate=rate,
        min_games=min_games,
        order=sort,
        seasons=[found] if found else (),
    )
    return {
        "season": season,
        "kind": found.kind if found is not None else "",
        "start": start,
        "end": end,
        "rate": rate or "",
        "min_games": min_games,
        "sort": sort,
        "rows": [{**row, "member_id": row["member"]} for row in rows],
    }
