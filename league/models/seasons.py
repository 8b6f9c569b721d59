"""A club's seasons: a range of dates, with the standings frozen when it closes."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from league.models.clubs import Club


class Season(models.Model):
    """A club's competition over a range of dates: its individual season (個人リーグ), a team
    league (チーム戦) or an event in stages (大会). Which games each counts:
    league.standings.competitions."""

    INDIVIDUAL, TEAM, EVENT = "individual", "team", "event"
    KINDS = [
        (INDIVIDUAL, _("individual season")),
        (TEAM, _("team league")),
        (EVENT, _("event in stages")),
    ]

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="seasons")
    name = models.CharField(_("name"), max_length=100)
    start = models.DateField(_("first day"))
    end = models.DateField(_("last day"))
    min_games = models.PositiveIntegerField(_("minimum games to qualify"), default=0)
    kind = models.CharField(_("kind"), max_length=12, choices=KINDS, default=INDIVIDUAL)
    # A team league's or event's own games count in the club's individual seasons too only when
    # the organiser says so (league.standings.competitions); an individual season ignores it.
    in_club_season = models.BooleanField(_("also counts in the individual season"), default=False)
    # Closing freezes the standings as the record of who won (`final_standings`: the rows as
    # shown when it closed); games in its dates stay correctable, with a warning.
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    final_standings = models.JSONField(null=True, blank=True, editable=False)
    # Team standings by match points (league.teams): the points a team's player earns by place
    # at a team match table, best first (e.g. [4, 2, 1, 0]); empty, by the members' scores.
    team_match_points = models.JSONField(default=list, blank=True)

    class Meta:
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        ordering = ["-start"]
        constraints = [
            models.CheckConstraint(condition=Q(end__gte=F("start")), name="season_end_after_start"),
        ]

    def __str__(self) -> str:
        return self.name
