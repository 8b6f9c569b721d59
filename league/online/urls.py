from __future__ import annotations

from django.urls import URLPattern, path

from league.online import views

app_name = "online"

# Mounted under c/<slug>/ by league/urls.py.
urlpatterns: list[URLPattern] = [
    path("online/", views.online_import, name="online_import"),
]
