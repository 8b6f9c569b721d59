from __future__ import annotations

from django.urls import URLPattern, path

from league.draw import views

app_name = "draw"

# Mounted under c/<slug>/ by league/urls.py.
urlpatterns: list[URLPattern] = [
    path("draw/", views.draw_start, name="draw_start"),
    path("record/", views.record_start, name="record_start"),
    path("days/<date:date>/draw/", views.draw_day, name="draw_day"),
    path("days/<date:date>/draw/check-in/", views.draw_check_in, name="draw_check_in"),
    path("days/<date:date>/draw/leave/", views.draw_leave, name="draw_leave"),
    path("days/<date:date>/draw/round/", views.draw_round, name="draw_round"),
    path("days/<date:date>/draw/swap/", views.draw_swap, name="draw_swap"),
    path("days/<date:date>/draw/lock/", views.draw_lock, name="draw_lock"),
    path("days/<date:date>/draw/fill-ins/", views.draw_fill_ins, name="draw_fill_ins"),
    path("days/<date:date>/draw/schedule/", views.draw_schedule, name="draw_schedule"),
    path("days/<date:date>/draw/projector/", views.draw_projector, name="draw_projector"),
    path("days/<date:date>/draw/room/", views.draw_room, name="draw_room"),
    path(
        "days/<date:date>/draw/schedule/export/",
        views.draw_schedule_export,
        name="draw_schedule_export",
    ),
]
