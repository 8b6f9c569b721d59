"""API tokens, login attempts (the throttle's memory) and user names' keys."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import IntegrityError, models
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from django.utils.translation import gettext_lazy as _

from league.core.names import username_key
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


class UsernameKey(models.Model):
    """One account per user name whatever its case or width (Zed6504, ZED6504, ｚｅｄ６５０４):
    the name's key (league.core.names.username_key), unique in the database.

    Written by the signals below on every save of a user that can change its name, in the
    transaction of that save (sign-up, the admin and restore save inside one): of two sign-ups
    racing with twin names, the second waits on the unique index and fails with IntegrityError,
    and its user is rolled back with it. Twins from before (migration 0018) have their key
    marked with their id, as 0007 marked twin members, and keep their logins.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    key = models.CharField(max_length=64, unique=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.key[:12]}…"


def _names_changed(kwargs: dict[str, Any]) -> bool:
    fields = kwargs.get("update_fields")
    return fields is None or "username" in fields  # a login saves last_login only


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="league.username_twin")
def _username_twin(sender: Any, instance: Any, **kwargs: Any) -> None:
    """Refuse a twin before its row is written, on paths that save outside a transaction too."""
    if kwargs.get("raw") or not _names_changed(kwargs):
        return
    twins = UsernameKey.objects.filter(key=username_key(instance.get_username()))
    if instance.pk is not None:
        twins = twins.exclude(user_id=instance.pk)
    if twins.exists():
        raise IntegrityError(
            f"a user named {instance.get_username()!r} in another case or width exists"
        )


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="league.username_key")
def _username_key(sender: Any, instance: Any, **kwargs: Any) -> None:
    if not _names_changed(kwargs):
        return
    UsernameKey.objects.update_or_create(
        user_id=instance.pk, defaults={"key": username_key(instance.get_username())}
    )
