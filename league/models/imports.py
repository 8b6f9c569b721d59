"""Uploads waiting for confirmation: the parsed workbook, kept in the database so that any app
server can show the preview and confirm it (league.excel.imports reads the file once, on upload)."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone


class ImportUpload(models.Model):
    """One organiser's upload to one club, parsed, until confirmed, replaced or expired.

    Not business data: the games are recorded (and audited) by a worker after the organiser
    confirms (league.excel.tasks.import_run); the row then keeps what happened, for the status
    page, until a new upload replaces it or `expires`."""

    WAITING = "waiting"  # parsed and previewed: the organiser may confirm it
    QUEUED = "queued"  # confirmed: a worker will import it
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"  # nothing was stored; `outcome` says why, and it waits again
    STATUSES = [(s, s) for s in (WAITING, QUEUED, RUNNING, DONE, FAILED)]
    # A running import that has said nothing for this long was stopped with its worker: its
    # transaction was rolled back (nothing stored), and it may be confirmed again.
    STALLED_AFTER = datetime.timedelta(minutes=10)

    club = models.ForeignKey("league.Club", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    filename = models.CharField(max_length=200, blank=True)
    parsed = models.BinaryField()  # league.excel.imports.parsed_dump: zlib-compressed JSON
    games = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(default=timezone.now)
    expires = models.DateTimeField()
    # Set while a confirmation is under way: a second confirmation (a double tap, or the same
    # organiser on another server) finds nothing to confirm.
    claimed = models.BooleanField(default=False)
    # How far the worker has got: while it settles the preview, games checked of the games; while
    # it imports, days written of the days planned, each committed with its day's games
    # (league.excel.imports.import_stored), so that any server reads it on either database.
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    # The preview, settled once after upload by a worker (league.excel.tasks.import_preview,
    # league.excel.imports.preview_dump): every view of the preview page shows it, nothing is
    # settled again until the worker imports. Empty while the worker settles it (progress_*).
    preview = models.BinaryField(default=b"")
    # Every settled game of the preview, kept for the import (league.excel.imports.plan_dump): the
    # worker writes what the preview settled, and settles nothing again.
    plan = models.BinaryField(default=b"")
    # The import's batch once the worker has begun it: what the status page offers to void.
    batch = models.ForeignKey(
        "league.ImportBatch", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=10, choices=STATUSES, default=WAITING)
    choices = models.JSONField(default=dict)  # the confirmation: names mapped, readings, dups
    outcome = models.JSONField(default=dict)  # what the worker did, or the problems it met
    touched = models.DateTimeField(default=timezone.now)  # the worker's last word on it

    class Meta:
        app_label = "league"
        indexes = [models.Index(fields=["club", "user"], name="import_upload_owner")]

    def __str__(self) -> str:
        return f"{self.filename} ({self.club_id}, {self.user_id})"

    @property
    def preview_failed(self) -> bool:
        """Uploaded, but its preview was not made: the worker failed on it, or said nothing for
        STALLED_AFTER (stopped mid-way). The workbook is uploaded again."""
        if self.status != self.WAITING or self.preview:
            return False
        return bool((self.outcome or {}).get("preview_error")) or (
            self.touched < timezone.now() - self.STALLED_AFTER
        )

    @property
    def stalled(self) -> bool:
        """Confirmed, but the worker has said nothing for a while: it was stopped mid-way."""
        return (
            self.status in (self.QUEUED, self.RUNNING)
            and self.touched < timezone.now() - self.STALLED_AFTER
        )


class ImportBatch(models.Model):
    """One confirmed import of a workbook, as one thing: its games (Game.import_batch) are
    written day by day, each day in a transaction of its own (league.excel.imports.import_stored),
    and voided together (league.excel.imports.batch_void). Business data: never deleted."""

    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"  # stopped at `failed_day`: the days before it are imported
    STATUSES = [(s, s) for s in (RUNNING, DONE, FAILED)]

    club = models.ForeignKey("league.Club", on_delete=models.PROTECT, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    filename = models.CharField(max_length=200, blank=True)
    created = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=10, choices=STATUSES, default=RUNNING)
    days_planned = models.PositiveIntegerField(default=0)
    days_done = models.PositiveIntegerField(default=0)
    games = models.PositiveIntegerField(default=0)  # written so far
    failed_day = models.DateField(null=True, blank=True)
    touched = models.DateTimeField(default=timezone.now)  # the last day's commit
    voided = models.BooleanField(default=False)
    voided_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        app_label = "league"
        indexes = [models.Index(fields=["club", "status"], name="import_batch_club")]

    def __str__(self) -> str:
        return f"{self.filename} ({self.club_id}, {self.created:%Y-%m-%d})"
