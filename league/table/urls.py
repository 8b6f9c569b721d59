from __future__ import annotations

from django.urls import URLPattern, path

from league.table import views

app_name = "table"

# Mounted under c/<slug>/ by league/urls.py.
urlpatterns: list[URLPattern] = [
    path("table/new/", views.table_new, name="table_new"),
    path("table/scorers/", views.table_scorers, name="table_scorers"),
    path("table/<uuid:key>/", views.table_play, name="table_play"),
    path("table/<uuid:key>/finish/", views.table_finish, name="table_finish"),
    path("table/<uuid:key>/edit/", views.table_edit, name="table_edit"),
    path("table/<uuid:key>/photo/", views.table_photo_new, name="table_photo_new"),
    path(
        "table/<uuid:key>/photo/<int:photo_id>/",
        views.table_photo_status,
        name="table_photo_status",
    ),
]
