"""The standings pages, under c/<slug>/: standings, a season's table and race, a player, and the
statistics (head-to-head, rating, seats, records)."""

from __future__ import annotations

from django.urls import URLPattern, path

from league.standings.views import players, standings, stats

app_name = "standings"

urlpatterns: list[URLPattern] = [
    path("seasons/<int:season_id>/", standings.season_standings, name="season_standings"),
    path("seasons/<int:season_id>/race/", players.season_race, name="season_race"),
    path("standings/", standings.standings, name="standings"),
    path("players/<int:member_id>/", players.player_detail, name="player_detail"),
    path("seasons/<int:season_id>/head-to-head/", stats.season_matrix, name="season_matrix"),
    path("rating/", stats.rating_list, name="rating_list"),
    path("seats/", stats.club_seats, name="club_seats"),
    path("records/", stats.records, name="records"),
]
