"""A re-settle under a rules version, run by a worker a day a step
(league.rules.tasks): the version it applies and who asked, for the page that any app server
shows. Its status and progress are its job's (league.models.jobs.Job, league.jobs). Every
game it moves is its own new revision, audited; a game and its day keep their rules version
until the step that re-settles them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ResettleRun(models.Model):
    club = models.ForeignKey("league.Club", on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey("league.RulesVersion", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    job = models.OneToOneField("league.Job", on_delete=models.PROTECT, related_name="+")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        app_label = "league"
        indexes = [models.Index(fields=["club", "-created"], name="resettle_run_club")]

    def __str__(self) -> str:
        return f"re-settle {self.version_id}"
