"""A photo of a game's scores, kept until the game read from it is saved or for a day
(league.recording.photos). Not business data: only its hash stays, in the game's audit log."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ScorePhoto(models.Model):
    """Whether it is being read, read or could not be read is its job's (league.jobs: the task's
    result; league.recording.photos.photo_state); what was read is here."""

    KINDS = [(k, k) for k in ("display", "sheet", "screen")]

    club = models.ForeignKey("league.Club", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10, choices=KINDS)
    players = models.PositiveSmallIntegerField()
    total = models.IntegerField()  # what the rows must add up to, from the club's rules
    image = models.BinaryField()
    sha256 = models.CharField(max_length=64)
    # The worker's job that reads it (read_score_photo, read_sheet_photo): deleted with it.
    job = models.OneToOneField("league.Job", null=True, on_delete=models.SET_NULL, related_name="+")
    rows = models.JSONField(default=list)  # league.core.photo.Row.to_json, each
    created = models.DateTimeField(default=timezone.now)
    expires = models.DateTimeField()

    class Meta:
        app_label = "league"
        indexes = [models.Index(fields=["club", "user"], name="score_photo_owner")]

    def __str__(self) -> str:
        return f"{self.kind} photo {self.sha256[:12]} ({self.club_id})"

    @property
    def valid(self) -> bool:
        return bool(self.rows) and all(r.get("checksum") for r in self.rows)
