"""The append-only audit log, and the one place that writes it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Required, TypedDict, Unpack

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import models

from league.models.clubs import Club
from league.models.games import Game

AUDIT_CHUNK = 1_000  # rows per INSERT (services.BULK_CHUNK, the same size)


class AuditLogQuerySet(models.QuerySet["AuditLog"]):
    def update(self, **kwargs: Any) -> int:
        raise PermissionError("the audit log is append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise PermissionError("the audit log is append-only")


class AuditLog(models.Model):
    """Every create, edit, void and re-settle: who, when, what, before and after. Append-only."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)
    action = models.CharField(max_length=50)  # namespaced: "game.create", "rules.create", ...
    game = models.ForeignKey(Game, null=True, on_delete=models.PROTECT, related_name="history")
    target = models.CharField(max_length=100)  # e.g. "game:12", "member:3"
    before = models.JSONField(null=True)
    after = models.JSONField(null=True)
    reason = models.CharField(max_length=200, blank=True)

    objects = AuditLogQuerySet.as_manager()

    class Meta:
        ordering = ["at", "id"]
        indexes = [
            # A club's log, newest first.
            models.Index(fields=["club", "-at"], name="audit_club_recent"),
            # Its newest entry: the club's data version (league.access.page_etag).
            models.Index(fields=["club", "-id"], name="audit_club_newest"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.target}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise PermissionError("the audit log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise PermissionError("the audit log is append-only")


User = AbstractBaseUser | AnonymousUser | None


def stored_user(user: User) -> AbstractBaseUser | None:
    """The user to store as who did something (None for anonymous or system writes)."""
    return user if getattr(user, "is_authenticated", False) else None  # type: ignore[return-value]


class AuditFields(TypedDict, total=False):
    """What an audit entry says: the club, who acted, the action (`game.record`, …), its target
    (`game:12`), and optionally the state before and after, the game, and a reason."""

    club: Required[Club]
    actor: Required[User]
    action: Required[str]
    target: Required[str]
    before: Any
    after: Any
    game: Game | None
    reason: str


def audit(**fields: Unpack[AuditFields]) -> AuditLog:
    """The one place that writes the audit log (audit_many: several entries in one insert)."""
    entry = audit_entry(**fields)
    entry.save()
    return entry


def save_audited(row: Any, changes: dict[str, Any], **fields: Unpack[AuditFields]) -> AuditLog:
    """Set `changes` on `row`, save just those fields, and write the audit entry that says so."""
    for name, value in changes.items():
        setattr(row, name, value)
    row.save(update_fields=list(changes))
    return audit(**fields)


def audit_entry(**fields: Unpack[AuditFields]) -> AuditLog:
    """An audit log entry, not saved yet: for `audit` and `audit_many`."""
    return AuditLog(**{**fields, "actor": stored_user(fields["actor"])})


def audit_many(entries: Sequence[AuditLog]) -> None:
    """Write entries made by `audit_entry`, in chunks (a bulk import's one per game)."""
    AuditLog.objects.bulk_create(entries, batch_size=AUDIT_CHUNK)
