from __future__ import annotations

from django.urls import path

from league.teams import views

app_name = "teams"

urlpatterns = [
    path("seasons/<int:season_id>/teams/", views.season_teams, name="season_teams"),
    path("seasons/<int:season_id>/teams/new/", views.team_new, name="team_new"),
    path("seasons/<int:season_id>/teams/<int:team_id>/", views.team_edit, name="team_edit"),
    path(
        "seasons/<int:season_id>/adjustments/new/",
        views.adjustment_new,
        name="adjustment_new",
    ),
    path(
        "seasons/<int:season_id>/adjustments/<int:adjustment_id>/undo/",
        views.adjustment_undo,
        name="adjustment_undo",
    ),
    path("seasons/<int:season_id>/teams/days/new/", views.team_day_new, name="team_day_new"),
    path("seasons/<int:season_id>/teams/days/<date:date>/", views.team_day, name="team_day"),
    path(
        "seasons/<int:season_id>/teams/slots/<int:slot_id>/",
        views.slot_name,
        name="team_slot_name",
    ),
    path("seasons/<int:season_id>/stages/", views.season_stages, name="season_stages"),
    path("seasons/<int:season_id>/stages/new/", views.stage_new, name="stage_new"),
    path(
        "seasons/<int:season_id>/stages/<int:stage_id>/close/",
        views.stage_close,
        name="stage_close",
    ),
    path(
        "seasons/<int:season_id>/stages/<int:stage_id>/seat/",
        views.stage_seat,
        name="stage_seat",
    ),
    path("seasons/<int:season_id>/teams/points/", views.team_points, name="team_points"),
]
