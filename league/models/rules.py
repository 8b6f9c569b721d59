"""A club's rules, versioned by the date they take effect from."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import models
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _

import scoring
from league.core.errors import ServiceError
from league.models.clubs import Club
from scoring.hand_options import HandOptions, default_hand_options, hand_options_from_json


class RulesVersion(models.Model):
    """A club's rules (settlement.md's full rules object) from a date on.

    A game settles under the version in force on its date; a new version never rewrites old games
    by itself (re-settling is an explicit action, see services.resettle_*).
    """

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="rules_versions")
    effective_from = models.DateField(_("takes effect on"))
    rules_json = models.JSONField(_("rules"))
    preset = models.CharField(_("based on preset"), max_length=50, blank=True)
    # The club's hand options (scoring.hand_options: 喰いタン, 後付け, 赤ドラ, 切り上げ満貫, 数え役満);
    # empty for a version made before they were kept: the hand preset's then.
    hand_options_json = models.JSONField(_("hand options"), default=dict, blank=True)
    note = models.CharField(_("note"), max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("rules version")
        verbose_name_plural = _("rules versions")
        ordering = ["-effective_from"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "effective_from"], name="rules_one_version_per_date"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club} {self.effective_from:%Y-%m-%d}"

    @cached_property
    def rules(self) -> scoring.Rules:
        return scoring.rules_from_json(self.rules_json)

    @cached_property
    def hand_options(self) -> HandOptions:
        defaults = default_hand_options(self.preset, self.rules.players)
        return hand_options_from_json(self.hand_options_json or None, defaults, self.rules.players)

    @classmethod
    def in_force(cls, club: Club, date: datetime.date) -> RulesVersion | None:
        return (
            cls.objects.filter(club=club, effective_from__lte=date)
            .order_by("-effective_from")
            .first()
        )


def rules_in_force(club: Club, date: datetime.date) -> RulesVersion:
    version = RulesVersion.in_force(club, date)
    if version is None:
        raise ServiceError.one("date", _("No rules are in force on %(date)s.") % {"date": date})
    return version


def club_has_money(*, club: Club) -> bool:
    """Whether any rules version of the club has money: its debts stay visible after a change."""
    versions = RulesVersion.objects.filter(club=club).order_by("effective_from")
    return any(v.rules.has_money for v in versions)
