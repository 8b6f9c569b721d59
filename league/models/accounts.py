"""API tokens and login attempts (the throttle's memory)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from league.models.clubs import Club


class ApiToken(models.Model):
    """An organiser's token for the JSON API. Only a SHA-256 of the secret is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="api_tokens")
    name = models.CharField(_("name"), max_length=100)
    prefix = models.CharField(max_length=12)  # shown to tell tokens apart; not secret enough alone
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class LoginAttempt(models.Model):
    """Failed logins, to throttle guessing per user name and per address (see league.throttle)."""

    # What is counted: failed logins, or sign-ups and reset mails (league.accounts), each kept
    # apart so that no one of them can be made to block another.
    kind = models.CharField(max_length=10, default="login")
    username = models.CharField(max_length=150)  # lower-cased
    address = models.GenericIPAddressField()
    device = models.CharField(max_length=64, blank=True, default="")  # a trusted device's id
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            # Throttle checks: recent failures for a user name, and for an address.
            models.Index(fields=["username", "at"], name="login_attempt_user"),
            models.Index(fields=["address", "at"], name="login_attempt_address"),
            models.Index(fields=["device", "at"], name="login_attempt_device"),
        ]

    def __str__(self) -> str:
        return f"{self.username} @ {self.address}"
