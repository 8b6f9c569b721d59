"""Spreadsheets made in the background (a club's whole game log over years): the file waits here
for its maker to download it until `expires`, when a task clears it. Not business data: the same
file can always be made again from the games."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ExportFile(models.Model):
    """A file being made or made: its status and progress are its job's (league.jobs), the
    finished file's name, size and expiry are here."""

    club = models.ForeignKey("league.Club", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20)  # "game-log"
    params = models.JSONField(default=dict)  # the period: start, end (ISO dates) and rate
    name = models.CharField(max_length=200)  # the download's file name, and its ASCII fallback
    fallback = models.CharField(max_length=200)
    # The job that makes it (its status and rows done of rows): cleared with the file.
    job = models.OneToOneField("league.Job", null=True, on_delete=models.SET_NULL, related_name="+")
    # The finished file's name in the "exports" storage (settings.STORAGES), written there a
    # chunk at a time; `data` held the whole file in the row before, and is read only for a file
    # finished before the change (until it expires).
    file_name = models.CharField(max_length=200, blank=True, default="", editable=False)
    data = models.BinaryField(null=True, editable=False)
    size = models.PositiveBigIntegerField(default=0)  # the finished file's bytes (the quota's)
    created = models.DateTimeField(default=timezone.now)
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
        return f"{self.kind} {self.name}"

    @property
    def ready(self) -> bool:
        """The file is made: in the storage (or, made before files were kept there, in `data`,
        whose size the migration to jobs wrote)."""
        return bool(self.file_name) or self.size > 0
