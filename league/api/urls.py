"""The API tokens' pages, under c/<slug>/ (namespace `tokens`). The API itself is
league.api.routes, mounted at /api/ by league/urls.py under ninja's namespace `api`."""

from __future__ import annotations

from django.urls import URLPattern, path

from league.api.views import tokens

app_name = "tokens"

urlpatterns: list[URLPattern] = [
    path("tokens/", tokens.token_list, name="token_list"),
    path("tokens/<int:token_id>/revoke/", tokens.token_revoke, name="token_revoke"),
]
