"""Uploads waiting for confirmation: the parsed workbook, kept in the database so that any app
server can show the preview and confirm it (league.excel.imports reads the file once, on upload)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ImportUpload(models.Model):
    """One organiser's upload to one club, parsed, until confirmed, replaced or expired.

    Not business data: the games are recorded (and audited) when the organiser confirms; then,
    or when a new upload replaces it, or after `expires`, the row is removed."""

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
    # How far a confirmation has got (league.excel.progress): written from a connection of its
    # own, so that any server can report it while the import's transaction is still open.
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)

    class Meta:
        app_label = "league"
        indexes = [models.Index(fields=["club", "user"], name="import_upload_owner")]

    def __str__(self) -> str:
        return f"{self.filename} ({self.club_id}, {self.user_id})"
