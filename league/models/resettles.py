"""A re-settle under a rules version, run by a worker in batches (league.rules.tasks): how far it
has got, for the page that any app server shows. Every game it moves is its own new revision,
audited; a game and its day keep their rules version until the batch that re-settles them."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone


class ResettleRun(models.Model):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    STATUSES = [(s, s) for s in (QUEUED, RUNNING, DONE, FAILED)]
    # Batches commit one by one: a run whose worker stopped says so after this long, and applying
    # the re-settle again carries on with the games not yet moved.
    STALLED_AFTER = datetime.timedelta(minutes=5)

    club = models.ForeignKey("league.Club", on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey("league.RulesVersion", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=10, choices=STATUSES, default=QUEUED)
    games_total = models.PositiveIntegerField(default=0)
    games_done = models.PositiveIntegerField(default=0)  # looked at (moved, skipped or failing)
    games_moved = models.PositiveIntegerField(default=0)  # re-settled as a new revision
    games_failed = models.PositiveIntegerField(default=0)  # cannot be settled: left as they are
    error = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)
    touched = models.DateTimeField(default=timezone.now)  # the worker's last word on it
    finished = models.DateTimeField(null=True)

    class Meta:
        app_label = "league"
        indexes = [models.Index(fields=["club", "-created"], name="resettle_run_club")]

    def __str__(self) -> str:
        return f"re-settle {self.version_id} ({self.status})"

    @property
    def active(self) -> bool:
        return self.status in (self.QUEUED, self.RUNNING) and not self.stalled

    @property
    def stalled(self) -> bool:
        return (
            self.status in (self.QUEUED, self.RUNNING)
            and self.touched < timezone.now() - self.STALLED_AFTER
        )
