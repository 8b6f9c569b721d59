"""The club's own pages, under c/<slug>/: members and seasons (lists, new, edit, merge, close),
the club's settings, and the progress of any background job."""

from __future__ import annotations

from django.urls import URLPattern, path

from league.club.views import jobs, manage, tidy

app_name = "club"

urlpatterns: list[URLPattern] = [
    path("members/", manage.member_list, name="member_list"),
    path("members/new/", manage.member_new, name="member_new"),
    path("seasons/", manage.season_list, name="season_list"),
    path("seasons/new/", manage.season_new, name="season_new"),
    path("settings/", tidy.club_settings, name="club_settings"),
    path("rating/settings/", tidy.club_rating_settings, name="rating_settings"),
    path("members/<int:member_id>/edit/", tidy.member_edit, name="member_edit"),
    path("members/<int:member_id>/merge/", tidy.member_merge, name="member_merge"),
    path("seasons/<int:season_id>/edit/", tidy.season_edit, name="season_edit"),
    path("seasons/<int:season_id>/close/", tidy.season_close, name="season_close"),
    path("jobs/<int:job_id>/", jobs.job_progress, name="job_progress"),
]
