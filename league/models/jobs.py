"""One record of a background job, whatever its kind (an export, an import's preview or run, a
re-settle, a photo of scores read): the task framework keeps the job's status, start, end and errors (its TaskResult,
read by `task_id`: league.jobs.job_state); this row keeps only what the framework does
not, how far the worker has got, for the page that any app server shows. What must outlive
the task's result (an export's file, an upload's plan, the rules version re-settled) stays on
the job's own model (ExportFile, ImportUpload, ResettleRun, ScorePhoto), which points here."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Job(models.Model):
    EXPORT = "export"
    IMPORT_PREVIEW = "import-preview"
    IMPORT = "import"
    RESETTLE = "resettle"
    PHOTO = "photo"  # a photo of scores read (league.recording.photos)
    KINDS = [(k, k) for k in (EXPORT, IMPORT_PREVIEW, IMPORT, RESETTLE, PHOTO)]

    club = models.ForeignKey("league.Club", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    kind = models.CharField(max_length=20, choices=KINDS)
    # The task's result id (TaskResult.id), kept once the task is enqueued (after the commit
    # of the action that wrote this row); empty until then.
    task_id = models.CharField(max_length=64, blank=True, default="")
    done = models.PositiveIntegerField(default=0)  # progress: steps done of `total`
    total = models.PositiveIntegerField(default=0)
    # A few named counts the page shows beside the bar (a re-settle's games moved and failed).
    message = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(default=timezone.now)
    touched = models.DateTimeField(default=timezone.now)  # the worker's last word on it

    class Meta:
        app_label = "league"
        indexes = [models.Index(fields=["club", "kind", "-touched"], name="job_club_kind")]

    def __str__(self) -> str:
        return f"{self.kind} job {self.pk} ({self.done}/{self.total})"
