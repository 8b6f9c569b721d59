"""The chats' addresses (namespace `chat`): the webhooks under hooks/ and the club's chat pages
under c/<slug>/ (with a day's text to share)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from league.access import CLUB_ROUTE
from league.chat import views

app_name = "chat"

hook_patterns: list[URLPattern] = [
    path("line/", views.line_hook, name="line_hook"),
    path("discord/", views.discord_hook, name="discord_hook"),
    path("telegram/", views.telegram_hook, name="telegram_hook"),
    path("slack/", views.slack_hook, name="slack_hook"),
]

club_patterns: list[URLPattern] = [
    path("chat/", views.chat_settings, name="chat_settings"),
    path("chat/me/", views.chat_me, name="chat_me"),
    path("days/<date:date>/share/", views.day_share, name="day_share"),
]

urlpatterns: list[URLPattern | URLResolver] = [
    path("hooks/", include(hook_patterns)),
    path(CLUB_ROUTE, include(club_patterns)),
]
