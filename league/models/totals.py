"""The standings and chart series kept up to date at write time (see league.standings.services).

`MemberTotal` is one member's standings row over one scope: all time (`season` is None) or one
season (a game counts in every season whose dates hold it, as on the season's page);
`MemberRateTotal` the same over one rate tier's games (the standings filtered by rate). `MemberDay`
is one member's totals on one date: the race chart, the day's running totals and the player's
long-history chart read it. Both hold only sums and counts of `Result(counted=True)` rows (and
`best`, their highest score), so that `manage.py rebuild_aggregates` can always recompute them.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models
from django.db.models import Q


class Totals(models.Model):
    """A member's standings sums over one scope (the fields MemberTotal and MemberRateTotal share)."""

    club = models.ForeignKey("league.Club", on_delete=models.PROTECT, related_name="+")
    member = models.ForeignKey("league.Member", on_delete=models.PROTECT, related_name="+")
    season = models.ForeignKey(
        "league.Season", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    games = models.IntegerField(default=0)
    total = models.IntegerField(default=0)  # sum of scores, tenths of 1,000 points
    rank_sum = models.IntegerField(default=0)
    first = models.IntegerField(default=0)
    second = models.IntegerField(default=0)
    third = models.IntegerField(default=0)
    fourth = models.IntegerField(default=0)
    lasts = models.IntegerField(default=0)
    best = models.IntegerField(null=True)  # None while games is 0
    busts = models.IntegerField(default=0)
    chombo = models.IntegerField(default=0)
    chips = models.IntegerField(default=0)
    yen = models.BigIntegerField(default=0)

    class Meta:
        abstract = True


class MemberTotal(Totals):
    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["member", "season"],
                condition=Q(season__isnull=False),
                name="member_total_once_per_season",
            ),
            models.UniqueConstraint(
                fields=["member"],
                condition=Q(season__isnull=True),
                name="member_total_once_all_time",
            ),
        ]
        indexes = [
            # A standings page: one scope's rows of a club, best total first.
            models.Index(fields=["club", "season", "total"], name="member_total_scope"),
        ]

    def __str__(self) -> str:
        return f"{self.member_id} @ {self.season_id or 'all'}: {self.games}"


class MemberRateTotal(Totals):
    """MemberTotal's sums over the games of one rate tier (`rate`, a name of the rules' rates;
    games without a rate have none): the standings filtered by rate, for all time or a season.

    A season's row of rate `ADJUSTED` ("", the rate no game is kept under) is all zero: the
    member has adjustments in the season, and is listed in its every rate's standings, with 0
    games where they played none at that rate (as MemberTotal's zero row lists them without a
    rate). Written with it: `list_adjusted`."""

    ADJUSTED = ""

    rate = models.CharField(max_length=20)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["member", "season", "rate"],
                condition=Q(season__isnull=False),
                name="member_rate_total_once_per_season",
            ),
            models.UniqueConstraint(
                fields=["member", "rate"],
                condition=Q(season__isnull=True),
                name="member_rate_total_once_all_time",
            ),
        ]
        indexes = [
            # The standings filtered by rate: one scope's rows of a club and rate.
            models.Index(
                fields=["club", "rate", "season", "total"], name="member_rate_total_scope"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.member_id} @ {self.season_id or 'all'} {self.rate}: {self.games}"


class MemberDay(models.Model):
    club = models.ForeignKey("league.Club", on_delete=models.PROTECT, related_name="+")
    member = models.ForeignKey("league.Member", on_delete=models.PROTECT, related_name="+")
    date = models.DateField()
    games = models.IntegerField(default=0)
    score = models.IntegerField(default=0)
    chips = models.IntegerField(default=0)
    yen = models.BigIntegerField(default=0)
    yen_games = models.IntegerField(default=0)  # games with a yen amount (none: yen is "no rate")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["member", "date"], name="member_day_once"),
        ]
        indexes = [
            # The race (a season's dates) and a day's running totals (one date).
            models.Index(fields=["club", "date"], name="member_day_club_date"),
            # The records: the biggest day in yen.
            models.Index(fields=["club", "-yen"], name="member_day_club_yen"),
        ]

    def __str__(self) -> str:
        return f"{self.member_id} {self.date}: {self.games}"


def list_adjusted(club_id: int, season_id: int, member_ids: Iterable[int]) -> None:
    """Members with adjustments in a season listed in its standings, with 0 games if they have
    none: their zero kept rows (MemberTotal's, and MemberRateTotal's of rate ADJUSTED for every
    rate's), where they have none yet. Two queries (league.teams' booking, every rebuild)."""
    ids = sorted(set(member_ids))
    MemberTotal.objects.bulk_create(
        (MemberTotal(club_id=club_id, member_id=m, season_id=season_id) for m in ids),
        batch_size=1000,
        ignore_conflicts=True,
    )
    MemberRateTotal.objects.bulk_create(
        (
            MemberRateTotal(
                club_id=club_id, member_id=m, season_id=season_id, rate=MemberRateTotal.ADJUSTED
            )
            for m in ids
        ),
        batch_size=1000,
        ignore_conflicts=True,
    )
