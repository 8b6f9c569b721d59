"""/api/clubs/<slug>/seasons/<id>/teams, /fixtures and /stages: a season's teams with their
standings and rosters, its team match tables with the named players, and its stages with their
standings and who went through. Read-only, from the rows kept at write time; a fixed number of
queries each (a season has at most league.teams.services.MAX_STAGES stages)."""

from __future__ import annotations

import datetime
from typing import Annotated, Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Path
from ninja.errors import HttpError

from league.api.auth import api_club
from league.api.base import MAX_ID, READ, Slug, api, api_results_club
from league.api.schemas import FixturesOut, StagesOut, TeamsOut
from league.models import Club, Season, Stage, TeamSlot
from league.models.draw import table_label
from league.teams import selectors

SeasonPath = Annotated[int, Path(ge=1, le=MAX_ID)]


def _season(club: Club, season_id: int) -> Season:
    season = Season.objects.filter(club=club, pk=season_id).first()
    if season is None:
        raise HttpError(404, _("No such season."))
    return season


@api.get("/clubs/{slug}/seasons/{season_id}/teams", response={200: TeamsOut, **READ})
def season_teams(request: HttpRequest, slug: Slug, season_id: SeasonPath) -> dict[str, Any]:
    """The season's teams, best first, each with its roster now (captains first)."""
    club = api_results_club(request, slug)
    season = _season(club, season_id)
    rosters = selectors.team_rosters(season=season)
    return {
        "season": season.pk,
        "teams": [
            {
                **{k: row[k] for k in ("name", "short_name", "colour", "position", "games")},
                **{k: row[k] for k in ("scores", "adjust", "total", "match_points")},
                "id": row["pk"],
                "members": [
                    {
                        "member_id": m["member"],
                        "name": m["name"],
                        "captain": m["is_captain"],
                        "games": m["games"],
                        "total": m["total"],
                    }
                    for m in rosters.get(row["pk"], [])
                ],
            }
            for row in selectors.team_standings(season=season)
        ],
    }


@api.get("/clubs/{slug}/seasons/{season_id}/fixtures", response={200: FixturesOut, **READ})
def season_fixtures(
    request: HttpRequest,
    slug: Slug,
    season_id: SeasonPath,
    date: datetime.date | None = None,
) -> dict[str, Any]:
    """The season's team match tables (one day's with `date`), by round and table: each slot's
    team, the player named for it, and the game once recorded."""
    club = api_club(request, slug)
    season = _season(club, season_id)
    slots = TeamSlot.objects.filter(match__season=season).select_related("match", "member")
    if date is not None:
        slots = slots.filter(match__date=date)
    matches: dict[int, dict[str, Any]] = {}
    for s in slots.order_by("match__round", "match__position", "seat"):
        m = s.match
        out = matches.setdefault(
            m.pk,
            {
                "id": m.pk,
                "round": m.round,
                "date": m.date,
                "table": table_label(m.position),
                "game_id": m.game_id,
                "slots": [],
            },
        )
        out["slots"].append(
            {
                "seat": s.seat,
                "team_id": s.team_id,
                "member_id": s.member_id,
                "member": s.member.name if s.member else None,
                "substitute": s.substitute,
            }
        )
    return {"season": season.pk, "date": date, "matches": list(matches.values())}


@api.get("/clubs/{slug}/seasons/{season_id}/stages", response={200: StagesOut, **READ})
def season_stages(request: HttpRequest, slug: Slug, season_id: SeasonPath) -> dict[str, Any]:
    """The season's stages in order, each with its standings and who went through (or, while
    it is open, who would)."""
    club = api_results_club(request, slug)
    season = _season(club, season_id)
    rosters = selectors.season_rosters(season)
    out = []
    for stage in Stage.objects.filter(season=season).order_by("number"):
        stage.season = season
        rows = selectors.stage_standings(stage=stage, rosters=rosters)
        out.append(
            {
                **{
                    k: getattr(stage, k)
                    for k in ("number", "name", "first_day", "last_day", "entrants", "advance")
                },
                **{
                    k: getattr(stage, k)
                    for k in ("carry", "bonus", "ties", "fixed_table", "seating")
                },
                "advance_share": stage.advance_share,
                "through_count": selectors.stage_cut(stage=stage, rows=rows)["count"],
                "closed": stage.closed_at is not None,
                "tables": [
                    {
                        "label": t["label"],
                        "drawn": t["drawn"],
                        "games": t["games"],
                        "seats": [
                            {
                                "member_id": p["member"],
                                **{k: p[k] for k in ("name", "wind", "place")},
                            }
                            for p in t["seats"]
                        ],
                    }
                    for t in (
                        selectors.final_tables(stage=stage, rows=rows)
                        if stage.fixed_table and stage.entrants == Stage.MEMBERS
                        else []
                    )
                ],
                "rows": [
                    {
                        "id": r["key"],
                        **{
                            k: r[k]
                            for k in (
                                "name",
                                "position",
                                "games",
                                "carried",
                                "score",
                                "total",
                                "through",
                            )
                        },
                    }
                    for r in rows
                ],
            }
        )
    return {"season": season.pk, "stages": out}
