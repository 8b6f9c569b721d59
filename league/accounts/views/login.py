"""Logging in, with failed attempts throttled (see league.throttle for the limits).

The admin's login page is throttled by the same rule (league/urls.py gives it
`ThrottledAdminAuthenticationForm`): otherwise it would be a way round the limits.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm
from django.contrib.auth.views import LoginView, PasswordChangeView
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _

from league import throttle

THROTTLED = _(
    "Too many failed logins. For your security, logging in is paused: try again in 15 minutes."
)
PASSWORD_THROTTLED = _(
    "Too many wrong passwords. For your security, checking it is paused: try again in 15 minutes."
)
TOO_MANY_REQUESTS = 429


def request_address(request: HttpRequest | None) -> str:
    """The sender as the login counts it: an IPv6 client by its /64."""
    if not request:
        return throttle.UNKNOWN_ADDRESS
    return throttle.address_block(throttle.client_address(request))


def password_checked(request: HttpRequest | None, user: Any, password: str) -> bool:
    """user.check_password, throttled like the login (the same counts: a guess here is a guess
    there): ValidationError `throttled` before the password is looked at while they are over."""
    username = user.get_username()
    attempt = throttle.attempt_begin(
        username=username,
        address=request_address(request),
        device=throttle.device_for(request, username),
    )
    if attempt is None:
        raise forms.ValidationError(PASSWORD_THROTTLED, code="throttled")
    if user.check_password(password):
        throttle.attempt_succeeded(attempt)
        return True
    throttle.attempt_failed(attempt)
    return False


class ThrottleMixin:
    """For an AuthenticationForm: refuses a throttled login before the password is looked at, and
    stores each failure."""

    request: HttpRequest | None
    cleaned_data: dict[str, Any]
    throttled = False

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        if username is None:
            return super().clean()  # type: ignore[misc]
        attempt = throttle.attempt_begin(
            username=username,
            address=self._address(),
            device=throttle.device_for(self.request, username),
        )
        if attempt is None:
            self.throttled = True
            raise forms.ValidationError(THROTTLED, code="throttled")
        try:
            cleaned = super().clean()  # type: ignore[misc]
        except forms.ValidationError:
            throttle.attempt_failed(attempt)
            raise
        throttle.attempt_succeeded(attempt)
        return cleaned

    def _address(self) -> str:
        """The sender as sign-up and reset count it: an IPv6 client by its /64."""
        return request_address(self.request)


class ThrottledAuthenticationForm(ThrottleMixin, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(ThrottleMixin, AdminAuthenticationForm):
    pass


class ThrottledLoginView(LoginView):
    form_class = ThrottledAuthenticationForm
    http_method_names = ["get", "head", "post"]  # FormView would take PUT as POST

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {
            **super().get_context_data(**kwargs),
            "signup_enabled": settings.SIGNUP,
            "reset_by_mail": settings.PASSWORD_RESET_BY_MAIL,
        }

    def form_valid(self, form: ThrottledAuthenticationForm) -> HttpResponse:  # type: ignore[override]
        response = super().form_valid(form)
        # This device is now trusted for this user: see league.throttle, "Device cookies".
        throttle.device_cookie_set(
            response, request=self.request, username=form.cleaned_data["username"]
        )
        return response

    def form_invalid(self, form: ThrottledAuthenticationForm) -> HttpResponse:  # type: ignore[override]
        response = super().form_invalid(form)
        if form.throttled:
            response.status_code = TOO_MANY_REQUESTS
        return response


login = ThrottledLoginView.as_view()


class ThrottledPasswordChangeForm(PasswordChangeForm):
    """The password change: the old password checked as the login checks one (throttled)."""

    request: HttpRequest | None = None

    def clean_old_password(self) -> str:
        old_password = self.cleaned_data["old_password"]
        if not password_checked(self.request, self.user, old_password):
            raise forms.ValidationError(
                self.error_messages["password_incorrect"], code="password_incorrect"
            )
        return old_password


class ThrottledPasswordChangeView(PasswordChangeView):
    form_class = ThrottledPasswordChangeForm
    http_method_names = ["get", "head", "post"]

    def get_form(self, form_class: Any = None) -> Any:
        form = super().get_form(form_class)
        form.request = self.request
        return form
