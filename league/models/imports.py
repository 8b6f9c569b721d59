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
    page, until a new upload replaces it or `expires`. Its preview's settling and its import are
    two jobs (league.jobs): their task results say whether each waits, runs, is done or failed,
    and their rows how far they have got (league.excel.selectors.upload_state)."""

    # A job of an upload that has said nothing for this long was stopped with its worker: an
    # import's transaction of the day was rolled back, and it may be confirmed again.
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
    # The job that settles the preview after upload (league.excel.tasks.import_preview): games
    # checked of the games.
    preview_job = models.OneToOneField(
        "league.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The job of the import once confirmed (league.excel.tasks.import_run): days written of the
    # days planned, each committed with its day's games (league.excel.imports.import_stored).
    job = models.OneToOneField(
        "league.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The preview, settled once after upload by a worker (league.excel.tasks.import_preview,
    # league.excel.imports.preview_dump): every view of the preview page shows it, nothing is
    # settled again until the worker imports. Empty while the worker settles it.
    preview = models.BinaryField(default=b"")
    # Every settled game of the preview, kept for the import (league.excel.imports.plan_dump): the
    # worker writes what the preview settled, and settles nothing again.
    plan = models.BinaryField(default=b"")
    # The import's batch once the worker has begun it: what the status page offers to void.
    batch = models.ForeignKey(
        "league.ImportBatch", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    choices = models.JSONField(default=dict)  # the confirmation: names mapped, readings, dups
    # What the worker did: its counts once imported ("games"), or the problems it met.
    outcome = models.JSONField(default=dict)

    class Meta:
        app_label = "league"
        indexes = [models.Index(fields=["club", "user"], name="import_upload_owner")]

    def __str__(self) -> str:
        return f"{self.filename} ({self.club_id}, {self.user_id})"

    @property
    def imported(self) -> bool:
        return "games" in (self.outcome or {})


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
