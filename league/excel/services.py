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
from league.excel.selectors import upload_state
from league.jobs import STALLED, busy_jobs
from league.models import Club, Job
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
        _uploads_delete(ImportUpload.objects.filter(expires__lt=now))
        busy = _busy_uploads(club)
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
        _uploads_delete(ImportUpload.objects.filter(club=club, user=user))
        previewing = None
        if not preview:  # a worker settles it (league.excel.tasks.import_preview)
            previewing = Job.objects.create(club=club, user=user, kind=Job.IMPORT_PREVIEW)
        return ImportUpload.objects.create(
            club=club,
            user=user,
            filename=filename[:200],
            parsed=parsed,
            preview=preview,
            preview_job=previewing,
            games=games,
            created=now,
            expires=now + KEEP,
        )


def _uploads_delete(uploads: Any) -> None:
    """Uploads replaced or expired, and their jobs with them."""
    rows = list(uploads.values_list("pk", "job_id", "preview_job_id"))
    if not rows:
        return
    ImportUpload.objects.filter(pk__in=[pk for pk, _j, _p in rows]).delete()
    Job.objects.filter(pk__in=[j for _pk, *ids in rows for j in ids if j]).delete()


def _busy_uploads(club: Club) -> Any:
    """The club's uploads a worker has still to finish (issue 39: bounded queues): a preview
    being made, or a confirmed import queued or running, by their jobs' task results
    (league.jobs.busy_jobs); one whose worker stopped no longer counts."""
    busy = busy_jobs(Job.objects.filter(club=club, kind__in=[Job.IMPORT, Job.IMPORT_PREVIEW]))
    ids = [state.job.pk for state in busy]
    return ImportUpload.objects.filter(Q(job__in=ids) | Q(preview_job__in=ids), club=club)


def upload_claim(*, upload: ImportUpload) -> bool:
    """Take the upload for confirming; False when another confirmation has it already (one
    whose worker was stopped mid-way no longer has it: its job stalled). Taken as it was read
    (claimed or not, and with which job), so that of two confirmations at once one wins."""
    if upload.claimed and upload_state(upload).status != STALLED:
        return False
    with action():
        claimed = ImportUpload.objects.filter(
            pk=upload.pk, claimed=upload.claimed, job_id=upload.job_id
        ).update(claimed=True)
    return claimed == 1


def upload_release(*, upload: ImportUpload) -> None:
    """Give a claimed upload back (confirming failed: the preview can be shown again)."""
    with action():
        ImportUpload.objects.filter(pk=upload.pk).update(claimed=False)


def upload_queue(*, upload: ImportUpload, choices: dict[str, Any]) -> Job:
    """A claimed upload confirmed with these choices: a new job waiting for a worker
    (import_run), whose task the caller enqueues. Inside the caller's action
    (league.excel.tasks.import_start)."""
    job = Job.objects.create(club_id=upload.club_id, user_id=upload.user_id, kind=Job.IMPORT)
    ImportUpload.objects.filter(pk=upload.pk).update(job=job, choices=choices, outcome={})
    return job


def upload_discard(*, upload: ImportUpload) -> None:
    _uploads_delete(ImportUpload.objects.filter(pk=upload.pk))
