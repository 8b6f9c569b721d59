"""Uploads waiting for confirmation (league.models.imports.ImportUpload): keep, find, claim."""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from league.core.actions import action
from league.core.errors import ServiceError
from league.core.locks import lock_club
from league.models import Club
from league.models.audit import User
from league.models.imports import ImportUpload

KEEP = datetime.timedelta(hours=24)


def upload_keep(
    *, club: Club, user: User, filename: str, parsed: bytes, games: int, preview: bytes = b""
) -> ImportUpload:
    """Keep a parsed upload and its preview for its organiser, replacing their earlier one for
    this club and removing every expired upload."""
    now = timezone.now()
    with transaction.atomic():  # a savepoint inside the caller's action (import_preview_start)
        lock_club(club.pk)  # the counts below hold until the new row is in
        ImportUpload.objects.filter(expires__lt=now).delete()
        busy = _busy_uploads(club, now)
        if busy.filter(user=user).exists():
            raise ServiceError.one(
                "workbook",
                _(
                    "Your earlier workbook is still being imported or checked. Wait until it is "
                    "done, then upload the next one."
                ),
            )
        if busy.count() >= settings.IMPORT_QUEUE_PER_CLUB:
            raise ServiceError.one(
                "workbook",
                _(
                    "%(n)s workbooks of the club are being checked or imported. Try again in a "
                    "few minutes."
                )
                % {"n": settings.IMPORT_QUEUE_PER_CLUB},
            )
        ImportUpload.objects.filter(club=club, user=user).delete()
        return ImportUpload.objects.create(
            club=club,
            user=user,
            filename=filename[:200],
            parsed=parsed,
            preview=preview,
            games=games,
            created=now,
            expires=now + KEEP,
        )


def _busy_uploads(club: Club, now: Any) -> Any:
    """The club's uploads a worker has still to finish (issue 39: bounded queues): a preview
    being made, or a confirmed import queued or running; one whose worker stopped
    (STALLED_AFTER without a word) no longer counts."""
    fresh = now - ImportUpload.STALLED_AFTER
    previewing = Q(status=ImportUpload.WAITING, preview=b"") & ~Q(outcome__has_key="preview_error")
    confirmed = Q(status__in=[ImportUpload.QUEUED, ImportUpload.RUNNING])
    return ImportUpload.objects.filter(previewing | confirmed, club=club, touched__gte=fresh)


def upload_claim(*, upload: ImportUpload) -> bool:
    """Take the upload for confirming; False when another confirmation has it already (one
    whose worker was stopped mid-way no longer has it, ImportUpload.stalled)."""
    free = Q(claimed=False) | Q(
        status__in=[ImportUpload.QUEUED, ImportUpload.RUNNING],
        touched__lt=timezone.now() - ImportUpload.STALLED_AFTER,
    )
    with action():
        claimed = ImportUpload.objects.filter(free, pk=upload.pk).update(
            claimed=True, touched=timezone.now()
        )
    return claimed == 1


def upload_release(*, upload: ImportUpload) -> None:
    """Give a claimed upload back (confirming failed: the preview can be shown again)."""
    with action():
        ImportUpload.objects.filter(pk=upload.pk).update(claimed=False)


def upload_queue(*, upload: ImportUpload, choices: dict[str, Any]) -> None:
    """A claimed upload confirmed with these choices: waiting for a worker (import_run). Inside
    the caller's action (league.excel.tasks.import_start)."""
    ImportUpload.objects.filter(pk=upload.pk).update(
        status=ImportUpload.QUEUED,
        choices=choices,
        outcome={},
        progress_done=0,
        progress_total=0,
        touched=timezone.now(),
    )


def upload_discard(*, upload: ImportUpload) -> None:
    ImportUpload.objects.filter(pk=upload.pk).delete()
