"""Spreadsheets made in the background (a club's whole game log over years): the file waits here
for its maker to download it until `expires`, when a task clears it. Not business data: the same
file can always be made again from the games."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone


class ExportFile(models.Model):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    STATUSES = [(s, s) for s in (QUEUED, RUNNING, DONE, FAILED)]

    club = models.ForeignKey("league.Club", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20)  # "game-log"
    params = models.JSONField(default=dict)  # the period: start, end (ISO dates) and rate
    name = models.CharField(max_length=200)  # the download's file name, and its ASCII fallback
    fallback = models.CharField(max_length=200)
    STALLED_AFTER = datetime.timedelta(minutes=5)

    status = models.CharField(max_length=10, choices=STATUSES, default=QUEUED)
    rows_done = models.PositiveIntegerField(default=0)  # progress, written as the worker goes
    rows_total = models.PositiveIntegerField(default=0)
    touched = models.DateTimeField(default=timezone.now)  # the worker's last word on it
    # The finished file's name in the "exports" storage (settings.STORAGES), written there a
    # chunk at a time; `data` held the whole file in the row before, and is read only for a file
    # finished before the change (until it expires).
    file_name = models.CharField(max_length=200, blank=True, default="", editable=False)
    data = models.BinaryField(null=True, editable=False)
    size = models.PositiveBigIntegerField(default=0)  # the finished file's bytes (the quota's)
    created = models.DateTimeField(default=timezone.now)
    finished = models.DateTimeField(null=True)
    expires = models.DateTimeField()

    class Meta:
        app_label = "league"
        indexes = [
            # The club's exports page lists one user's files, newest first.
            models.Index(fields=["club", "user", "-created"], name="export_owner"),
            # The clearing task finds the expired files.
            models.Index(fields=["expires"], name="export_expires"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.name} ({self.status})"

    @property
    def stalled(self) -> bool:
        """Running, but the worker has said nothing for a while: it was stopped mid-way."""
        return self.status == self.RUNNING and self.touched < timezone.now() - self.STALLED_AFTER
