"""Reads of uploads waiting for confirmation."""

from __future__ import annotations

from django.utils import timezone

from league.models import Club
from league.models.audit import User
from league.models.imports import ImportUpload


def upload_waiting(*, club: Club, user: User) -> ImportUpload | None:
    """The organiser's upload to this club that waits for confirmation, if any."""
    return (
        ImportUpload.objects.filter(club=club, user=user, claimed=False, expires__gt=timezone.now())
        .order_by("-created")
        .first()
    )
