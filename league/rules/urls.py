"""The rules pages, under c/<slug>/: the versions, a new one with its worked example, re-settling."""

from __future__ import annotations

from django.urls import URLPattern, path

from league.rules import views

app_name = "rules"

urlpatterns: list[URLPattern] = [
    path("rules/", views.rules_list, name="rules_list"),
    path("rules/new/", views.rules_new, name="rules_new"),
    path("rules/example/", views.rules_example, name="rules_example"),
    path("rules/<int:version_id>/resettle/", views.rules_resettle, name="rules_resettle"),
    path("rules/resettle/<int:run_id>/", views.rules_resettle_run, name="rules_resettle_run"),
]
