"""Recording's pages, under c/<slug>/: the club's home, a day, a game, the record form and the
photo of a score sheet."""

from __future__ import annotations

from django.urls import URLPattern, path

from league.recording.views import days, photos, record

app_name = "recording"

urlpatterns: list[URLPattern] = [
    path("", days.club_home, name="club_home"),
    path("days/<date:date>/", days.day_detail, name="day_detail"),
    path("games/new/", record.game_new, name="game_new"),
    path("games/photo/", photos.photo_new, name="photo_new"),
    path("games/photo/<int:photo_id>/", photos.photo_status, name="photo_status"),
    path("games/<int:game_id>/", days.game_detail, name="game_detail"),
    path("games/<int:game_id>/edit/", record.game_edit, name="game_edit"),
    path("games/<int:game_id>/void/", record.game_void, name="game_void"),
]
