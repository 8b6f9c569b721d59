"""Online games (issue 23): a Tenhou or 雀魂 log recorded into the club's season, and the online
names the club has mapped to its members (asked once, then remembered)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from league.models.clubs import Club
from league.models.games import Game
from league.models.members import Member

SITES = [("tenhou", "Tenhou")]  # 雀魂 logs are read once converted to Tenhou's format


class OnlineName(models.Model):
    """A player's name on an online site, mapped to one of the club's members."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    site = models.CharField(max_length=20, choices=SITES, default="tenhou")
    name = models.CharField(max_length=64)
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="online_names")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        app_label = "league"
        constraints = [
            models.UniqueConstraint(
                fields=["club", "site", "name"], name="online_name_unique_in_club"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} → {self.member_id}"


class OnlineLog(models.Model):
    """One online game recorded once: its log id, the game it became, and the engine's hands.

    `hands` is `python -m scoring hands`'s output for the log (every hand's round, honba, sticks,
    deltas and scores, then the final points), kept as it was computed at write time."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    site = models.CharField(max_length=20, choices=SITES, default="tenhou")
    log_id = models.CharField(max_length=100)
    # The same game gives the same fingerprint in either format (scoring.online.fingerprint).
    fingerprint = models.CharField(max_length=80)
    log_format = models.CharField(max_length=20)  # "tenhou6-json" or "mjlog-xml"
    game = models.OneToOneField(Game, on_delete=models.PROTECT, related_name="online_log")
    names = models.JSONField()  # the online names in seat order from 起家
    hands = models.JSONField()
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        app_label = "league"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["club", "log_id"], name="online_log_once_per_club"),
            models.UniqueConstraint(
                fields=["club", "fingerprint"], name="online_game_once_per_club"
            ),
        ]

    def __str__(self) -> str:
        return self.log_id
