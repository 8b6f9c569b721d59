"""Uploads waiting for confirmation (league.models.imports.ImportUpload): keep, find, claim."""

from __future__ import annotations

import datetime

from django.db import transaction
from django.utils import timezone

from league.models import Club
from league.models.audit import User
from league.models.imports import ImportUpload

KEEP = datetime.timedelta(hours=24)


def upload_keep(
    *, club: Club, user: User, filename: str, parsed: bytes, games: int
) -> ImportUpload:
    """Keep a parsed upload for its organiser, replacing their earlier one for this club and
    removing every expired upload."""
    now = timezone.now()
    with transaction.atomic():
        ImportUpload.objects.filter(expires__lt=now).delete()
        ImportUpload.objects.filter(club=club, user=user).delete()
        return ImportUpload.objects.create(
            club=club,
            user=user,
            filename=filename[:200],
            parsed=parsed,
            games=games,
            created=now,
            expires=now + KEEP,
        )


def upload_claim(*, upload: ImportUpload) -> bool:
    """Take the upload for confirming; False when another confirmation has it already."""
    return ImportUpload.objects.filter(pk=upload.pk, claimed=False).update(claimed=True) == 1


def upload_release(*, upload: ImportUpload) -> None:
    """Give a claimed upload back (confirming failed: the preview can be shown again)."""
    ImportUpload.objects.filter(pk=upload.pk).update(claimed=False)


def upload_discard(*, upload: ImportUpload) -> None:
    ImportUpload.objects.filter(pk=upload.pk).delete()
