from __future__ import annotations

from django.urls import URLPattern, path

from league.public import views

# Included under s/<str:token>/ by league/urls.py: outside c/<slug>/, no login.
urlpatterns: list[URLPattern] = [
    path("", views.public_standings, name="public_standings"),
    path("seasons/<int:season_id>/", views.public_season, name="public_season"),
    path("seasons/<int:season_id>/race/", views.public_race, name="public_race"),
    path("seasons/<int:season_id>/head-to-head/", views.public_matrix, name="public_season_matrix"),
    path("rating/", views.public_rating, name="public_rating"),
    path("records/", views.public_records, name="public_records"),
    path("days/", views.public_days, name="public_days"),
    path("days/<date:date>/", views.public_day, name="public_day"),
]
