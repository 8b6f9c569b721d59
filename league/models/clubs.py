"""A club: the unit every other record belongs to."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Club(models.Model):
    name = models.CharField(_("club name"), max_length=100)
    slug = models.SlugField(_("short name"), max_length=50, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The public share link (league.public): empty while it is off. A random
    # token, shown to organisers so they can pass the link on; rotating it makes the old link 404.
    share_token = models.CharField(max_length=64, blank=True, default="", editable=False)
    share_money = models.BooleanField(_("show money on the share link"), default=False)
    # The rating ranking lists players with at least this many counted games (league.standings).
    rating_min_games = models.PositiveIntegerField(
        _("minimum games for the rating ranking"), default=10
    )

    class Meta:
        verbose_name = _("club")
        verbose_name_plural = _("clubs")
        constraints = [
            models.UniqueConstraint(
                fields=["share_token"],
                condition=~Q(share_token=""),
                name="club_share_token_unique",
            ),
        ]

    def __str__(self) -> str:
        return self.name
