"""Accounts: sign-up, one's clubs, password change and reset, starting a club."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, path, reverse_lazy

from league.accounts.views import account as views
from league.accounts.views import login as views_auth

urlpatterns: list[URLPattern] = [
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/", views.account, name="account"),
    path(
        "accounts/password/change/",
        views_auth.ThrottledPasswordChangeView.as_view(
            template_name="registration/password_change_form.html"
        ),
        name="password_change",
    ),
    path(
        "accounts/password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="registration/password_change_done.html"
        ),
        name="password_change_done",
    ),
    path(
        "accounts/password/reset/",
        views.password_reset,
        name="password_reset",
    ),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(
            template_name="registration/password_reset_done.html"
        ),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="registration/password_reset_confirm.html",
            success_url=reverse_lazy("password_reset_complete"),
        ),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="registration/password_reset_complete.html"
        ),
        name="password_reset_complete",
    ),
    path("clubs/new/", views.club_new, name="club_new"),
    path("clubs/new/example/", views.club_new_example, name="club_new_example"),
    path("clubs/new/slug/", views.slug_check, name="slug_check"),
]

# Under c/<slug>/ (league/urls.py's club_patterns).
club_patterns: list[URLPattern] = [
    path("start/season/", views.club_first_season, name="club_first_season"),
    path("memberships/", views.memberships, name="memberships"),
    path("leave/", views.club_leave, name="club_leave"),
]
