from __future__ import annotations

from django.urls import URLPattern, path

from league.mypage import views

app_name = "mypage"

# Mounted under c/<slug>/ by league/urls.py. No member id: the page is always the viewer's own.
urlpatterns: list[URLPattern] = [
    path("me/", views.my_page, name="my_page"),
]
