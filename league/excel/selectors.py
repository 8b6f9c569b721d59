"""Reads of uploads waiting for confirmation."""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone

from league.models import Club
from league.models.audit import User
from league.models.imports import ImportUpload


def upload_waiting(*, club: Club, user: User) -> ImportUpload | None:
    """The organiser's upload to this club that waits for confirmation, if any: not yet
    confirmed, or confirmed and failed (nothing was stored), or stopped with its worker."""
    now = timezone.now()
    stalled = Q(
        status__in=[ImportUpload.QUEUED, ImportUpload.RUNNING],
        touched__lt=now - ImportUpload.STALLED_AFTER,
    )
    return (
        ImportUpload.objects.filter(club=club, user=user, expires__gt=now)
        .filter(Q(claimed=False) | stalled)
        .exclude(status=ImportUpload.DONE)
        .order_by("-created")
        .first()
    )


def upload_latest(*, club: Club, user: User) -> ImportUpload | None:
    """The organiser's latest upload to this club, whatever its state (the status page)."""
    return (
        ImportUpload.objects.filter(club=club, user=user)
        .select_related("batch")
        .order_by("-pk")
        .first()
    )
