"""The accounts' pages (namespace `accounts`): logging in and out, sign-up, one's account,
password change and reset, starting a club, the invitation link (join/<secret>/), and under
c/<slug>/ a club's memberships, leaving it, its first season and its invitations."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path, reverse_lazy

from league.access import CLUB_ROUTE
from league.accounts.views import account, invitations, login

app_name = "accounts"

# Under c/<slug>/.
club_patterns: list[URLPattern] = [
    path("start/season/", account.club_first_season, name="club_first_season"),
    path("memberships/", account.memberships, name="memberships"),
    path("leave/", account.club_leave, name="club_leave"),
    path("invitations/", invitations.invitation_list, name="invitation_list"),
    path(
        "invitations/<int:invitation_id>/mail/",
        invitations.invitation_mail_again,
        name="invitation_mail_again",
    ),
    path(
        "invitations/<int:invitation_id>/revoke/",
        invitations.invitation_revoke,
        name="invitation_revoke",
    ),
]

urlpatterns: list[URLPattern | URLResolver] = [
    path("accounts/login/", login.login, name="login"),
    path("join/<str:secret>/", invitations.invitation_join, name="invitation_join"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", account.signup, name="signup"),
    path("accounts/", account.account, name="account"),
    path(
        "accounts/password/change/",
        login.ThrottledPasswordChangeView.as_view(
            template_name="registration/password_change_form.html",
            success_url=reverse_lazy("accounts:password_change_done"),
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
        account.password_reset,
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
            success_url=reverse_lazy("accounts:password_reset_complete"),
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
    path("clubs/new/", account.club_new, name="club_new"),
    path("clubs/new/example/", account.club_new_example, name="club_new_example"),
    path("clubs/new/slug/", account.slug_check, name="slug_check"),
    path(CLUB_ROUTE, include(club_patterns)),
]
