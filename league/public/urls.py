"""The share link's addresses (namespace `public`): its public pages under s/<token>/, outside
c/<slug>/ and without login, and the organisers' settings page under c/<slug>/sharing/."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from league.access import CLUB_ROUTE
from league.public import views

app_name = "public"

share_patterns: list[URLPattern] = [
    path("", views.public_standings, name="public_standings"),
    path("seasons/<int:season_id>/", views.public_season, name="public_season"),
    path("seasons/<int:season_id>/race/", views.public_race, name="public_race"),
    path("seasons/<int:season_id>/head-to-head/", views.public_matrix, name="public_season_matrix"),
    path("rating/", views.public_rating, name="public_rating"),
    path("records/", views.public_records, name="public_records"),
    path("days/", views.public_days, name="public_days"),
    path("days/<date:date>/", views.public_day, name="public_day"),
]

urlpatterns: list[URLPattern | URLResolver] = [
    path("s/<str:token>/", include(share_patterns)),
    path(CLUB_ROUTE + "sharing/", views.share_settings, name="share_settings"),
]
