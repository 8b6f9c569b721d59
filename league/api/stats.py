"""/api/clubs/<slug>/…: head-to-head and seats of a player, the club by seat, the rating ranking
and a player's rating history, read from the rows kept at write time (league.models.stats)."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Path, Query
from ninja.errors import HttpError

from league.api.base import MAX_ID, NO_SUCH_SEASON, READ, ApiErrors, Slug, api, api_results_club
from league.api.schemas import ClubSeatsOut, PlayerStatsOut, RatingHistoryOut, RatingsOut
from league.models import Club, Member, Season
from league.standings import selectors as kept

SeasonId = Annotated[int | None, Query(ge=1, le=MAX_ID)]
MemberId = Annotated[int, Path(ge=1, le=MAX_ID)]


def _season(club: Club, season: int | None) -> Season | None:
    if season is None:
        return None
    found = Season.objects.filter(club=club, pk=season).first()
    if found is None:
        raise ApiErrors(422, {"season": [str(NO_SUCH_SEASON)]})
    return found


def _member(club: Club, member_id: int) -> Member:
    # A fill-in (黒子) has no statistics: as no member here.
    member = Member.objects.filter(club=club, pk=member_id, fill_in=False).first()
    if member is None:
        raise HttpError(404, _("No such member."))
    return member


@api.get("/clubs/{slug}/players/{member_id}/stats", response={200: PlayerStatsOut, **READ})
def player_stats(
    request: HttpRequest, slug: Slug, member_id: MemberId, season: SeasonId = None
) -> dict[str, Any]:
    """A player's head-to-head (every opponent met) and games by starting seat, all time or in a
    season."""
    club = api_results_club(request, slug)
    found = _season(club, season)
    member = _member(club, member_id)
    return {
        "member_id": member.pk,
        "season": season,
        "head_to_head": [
            {
                **{k: v for k, v in r.items() if k != "opponent"},
                "opponent_id": r["opponent"].pk,
                "opponent": r["opponent"].name,
            }
            for r in kept.head_to_head(member=member, season=found)
        ],
        "seats": kept.seat_rows(club=club, season=found, member=member),
    }


@api.get("/clubs/{slug}/seats", response={200: ClubSeatsOut, **READ})
def club_seats(request: HttpRequest, slug: Slug, season: SeasonId = None) -> dict[str, Any]:
    """The club's games by starting seat, all time or in a season."""
    club = api_results_club(request, slug)
    found = _season(club, season)
    return {"season": season, "seats": kept.seat_rows(club=club, season=found)}


@api.get("/clubs/{slug}/ratings", response={200: RatingsOut, **READ})
def ratings(request: HttpRequest, slug: Slug) -> dict[str, Any]:
    """Every member with games: the ranked ones (the club's minimum games) by ordinal, then the
    others by games."""
    club = api_results_club(request, slug)
    ranked, others = kept.rating_ranking(club=club)
    return {
        "min_games": club.rating_min_games,
        "rows": [
            {
                "member_id": r.member_id,
                "name": r.member.name,
                "games": r.games,
                "ranked": r in ranked,
                "mu": r.mu,
                "sigma": r.sigma,
                "ordinal": r.ordinal,
            }
            for r in [*ranked, *others]
        ],
    }


@api.get("/clubs/{slug}/players/{member_id}/rating", response={200: RatingHistoryOut, **READ})
def rating_history(request: HttpRequest, slug: Slug, member_id: MemberId) -> dict[str, Any]:
    """A player's latest 300 games with the rating after each and the expected place before."""
    club = api_results_club(request, slug)
    member = _member(club, member_id)
    return {
        "member_id": member.pk,
        "games": [
            {
                "game_id": g.game_id,
                "date": g.date,
                "number": g.number,
                "n": g.n,
                "rank": g.rank,
                "expected": g.expected,
                "mu": g.mu,
                "sigma": g.sigma,
            }
            for g in kept.rating_history(member=member)
        ],
    }
