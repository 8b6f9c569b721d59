"""The tidy-up pages' addresses, inside a club (league.urls club_patterns includes them)."""

from __future__ import annotations

from django.urls import path

from league.club.views import tidy as views

urlpatterns = [
    path("settings/", views.club_settings, name="club_settings"),
    path("rating/settings/", views.club_rating_settings, name="rating_settings"),
    path("members/<int:member_id>/edit/", views.member_edit, name="member_edit"),
    path("members/<int:member_id>/merge/", views.member_merge, name="member_merge"),
    path("seasons/<int:season_id>/edit/", views.season_edit, name="season_edit"),
    path("seasons/<int:season_id>/close/", views.season_close, name="season_close"),
]
