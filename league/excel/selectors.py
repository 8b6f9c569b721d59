"""Reads of uploads waiting for confirmation, and of how their jobs stand."""

from __future__ import annotations

import dataclasses

from django.utils import timezone

from league import jobs
from league.models import Club
from league.models.audit import User
from league.models.imports import ImportUpload


@dataclasses.dataclass(frozen=True)
class UploadState:
    """An upload as its pages show it, from its two jobs' task results (league.jobs).

    `status`: waiting (parsed, not confirmed; or confirmed, failed and waiting again: see
    `failed`), queued, running, done, failed (nothing more was stored; it waits to be confirmed
    again) or stalled (its worker stopped: it may be confirmed again)."""

    status: str
    preview_failed: bool = False  # the preview's worker failed or stopped: upload it again
    job: jobs.JobState | None = None  # the import's
    preview: jobs.JobState | None = None  # the preview's

    @property
    def again(self) -> bool:
        """Confirmed before, and free to be confirmed again (it failed or stalled)."""
        return self.status in (jobs.FAILED, jobs.STALLED)


def upload_state(upload: ImportUpload) -> UploadState:
    """How the upload stands: one query of its jobs' task results (none with the immediate
    backend); its jobs are read with it (select_related) or one query each."""
    states = jobs.job_states([upload.preview_job, upload.job])
    preview = states.get(upload.preview_job_id) if upload.preview_job_id else None
    job = states.get(upload.job_id) if upload.job_id else None
    preview_failed = not upload.preview and (preview is None or not preview.busy)
    if job is None:
        status = "waiting"
    elif upload.imported:
        status = jobs.DONE
    elif job.status in (jobs.QUEUED, jobs.RUNNING, jobs.STALLED):
        status = job.status
    else:  # the task failed, or ended with the problems it met (outcome)
        status = jobs.FAILED
    return UploadState(status, preview_failed, job, preview)


def upload_waiting(*, club: Club, user: User) -> ImportUpload | None:
    """The organiser's upload to this club that waits for confirmation, if any: not yet
    confirmed, or confirmed and failed (nothing was stored), or stopped with its worker. Its
    state is kept on it (`upload.state`, upload_state)."""
    upload = (
        ImportUpload.objects.filter(club=club, user=user, expires__gt=timezone.now())
        .select_related("job", "preview_job")
        .order_by("-created")
        .first()
    )
    if upload is None or upload.imported:
        return None
    upload.state = upload_state(upload)  # type: ignore[attr-defined]
    if upload.claimed and upload.state.status != jobs.STALLED:  # type: ignore[attr-defined]
        return None
    return upload


def upload_latest(*, club: Club, user: User) -> ImportUpload | None:
    """The organiser's latest upload to this club, whatever its state (the status page)."""
    return (
        ImportUpload.objects.filter(club=club, user=user)
        .select_related("batch", "job", "preview_job")
        .order_by("-pk")
        .first()
    )
