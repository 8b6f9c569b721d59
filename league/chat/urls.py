"""The chats' addresses: the webhooks at the top (league.urls includes `hook_patterns` under
hooks/) and the club's chat pages under c/<slug>/ (`urlpatterns`)."""

from __future__ import annotations

from django.urls import URLPattern, path

from league.chat import views

hook_patterns: list[URLPattern] = [
    path("line/", views.line_hook, name="line_hook"),
    path("discord/", views.discord_hook, name="discord_hook"),
    path("telegram/", views.telegram_hook, name="telegram_hook"),
    path("slack/", views.slack_hook, name="slack_hook"),
]

urlpatterns: list[URLPattern] = [
    path("chat/", views.chat_settings, name="chat_settings"),
    path("chat/me/", views.chat_me, name="chat_me"),
]
