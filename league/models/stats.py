"""Statistics kept at write time (league.standings.kept): head-to-head, seats, the rating.

Like `league.models.totals`, these hold only what the counted `Result` rows (and the current
revision's chip events) give, so that `manage.py rebuild_aggregates` can always recompute them.

- `PairTotal`: one member's games against one opponent over a scope (all time, or one season:
  a game counts in every season whose dates hold it). Both directions are kept, so a player's
  page reads its own rows and the season's matrix reads one scope's rows.
- `SeatTotal`: one member's games from one starting seat (0 = 起家) over a scope; the club's
  figures are the sums of its members' rows.
- `MemberGame`: one member's counted game in the club's order of games (date, then number on
  the day), with what is carried from game to game: the rating (openskill's Plackett–Luce) before
  and after it, the place the rating expected, and the runs of tops and of games without a last.
  An edit or void replays the club's games from the changed one on (league.standings.kept).
- `MemberRating`: a member's state after their latest game (the ranking reads these rows).
- `ClubChronicle`: one row per club, locked while games are replayed, so that two replays of
  one club queue up; it notes where a replay left to a worker starts.

Ratings are stored in millionths (μ 25.0 → 25_000_000) and every replay rounds to millionths
after each game, so that replaying from any game gives the very numbers a replay from the first
game gives.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class PairTotal(models.Model):
    club = models.ForeignKey("league.Club", on_delete=models.PROTECT, related_name="+")
    member = models.ForeignKey("league.Member", on_delete=models.PROTECT, related_name="+")
    opponent = models.ForeignKey("league.Member", on_delete=models.PROTECT, related_name="+")
    season = models.ForeignKey(
        "league.Season", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    games = models.IntegerField(default=0)  # games at one table together
    rank_sum = models.IntegerField(default=0)  # the member's ranks in those games
    opponent_rank_sum = models.IntegerField(default=0)  # the opponent's
    above = models.IntegerField(default=0)  # games the member finished above (a shared rank: no)
    net = models.IntegerField(default=0)  # Σ (member's score − opponent's score), tenths

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["member", "opponent", "season"],
                condition=Q(season__isnull=False),
                name="pair_total_once_per_season",
            ),
            models.UniqueConstraint(
                fields=["member", "opponent"],
                condition=Q(season__isnull=True),
                name="pair_total_once_all_time",
            ),
        ]
        indexes = [
            # A season's matrix: one scope's rows of a club.
            models.Index(fields=["club", "season", "member"], name="pair_total_scope"),
        ]

    def __str__(self) -> str:
        return f"{self.member_id}×{self.opponent_id} @ {self.season_id or 'all'}: {self.games}"


class SeatTotal(models.Model):
    club = models.ForeignKey("league.Club", on_delete=models.PROTECT, related_name="+")
    member = models.ForeignKey("league.Member", on_delete=models.PROTECT, related_name="+")
    season = models.ForeignKey(
        "league.Season", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    seat = models.PositiveSmallIntegerField()  # 0 = 起家
    games = models.IntegerField(default=0)
    rank_sum = models.IntegerField(default=0)
    total = models.IntegerField(default=0)  # sum of scores, tenths of 1,000 points
    first = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["member", "season", "seat"],
                condition=Q(season__isnull=False),
                name="seat_total_once_per_season",
            ),
            models.UniqueConstraint(
                fields=["member", "seat"],
                condition=Q(season__isnull=True),
                name="seat_total_once_all_time",
            ),
        ]
        indexes = [models.Index(fields=["club", "season", "seat"], name="seat_total_scope")]

    def __str__(self) -> str:
        return f"{self.member_id} seat {self.seat} @ {self.season_id or 'all'}: {self.games}"


class MemberGame(models.Model):
    club = models.ForeignKey("league.Club", on_delete=models.PROTECT, related_name="+")
    member = models.ForeignKey("league.Member", on_delete=models.PROTECT, related_name="+")
    game = models.ForeignKey("league.Game", on_delete=models.PROTECT, related_name="+")
    date = models.DateField()  # the game's date and number: the club's order of games
    number = models.PositiveIntegerField()
    n = models.PositiveIntegerField()  # the member's n-th counted game
    rank = models.PositiveSmallIntegerField()
    score = models.IntegerField()  # tenths of 1,000 points
    yakuman = models.PositiveSmallIntegerField(default=0)  # yakuman chips won in the game
    mu_before = models.BigIntegerField()  # millionths
    sigma_before = models.BigIntegerField()
    mu = models.BigIntegerField()
    sigma = models.BigIntegerField()
    expected = models.IntegerField()  # the expected place before the game, hundredths
    tops_before = models.IntegerField()  # consecutive tops up to the game before
    tops = models.IntegerField()  # … up to this game
    clean_before = models.IntegerField()  # consecutive games without a last, before
    clean = models.IntegerField()

    class Meta:
        ordering = ["date", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "member"], name="member_game_once"),
        ]
        indexes = [
            # A replay: the club's games from one on.
            models.Index(fields=["club", "date", "number"], name="member_game_order"),
            # A player's rating chart: their latest games.
            models.Index(fields=["member", "date", "number"], name="member_game_member"),
            # The records: the highest score, the longest runs, the yakuman.
            models.Index(fields=["club", "-score"], name="member_game_score"),
            models.Index(fields=["club", "-tops", "date", "number"], name="member_game_tops"),
            models.Index(fields=["club", "-clean", "date", "number"], name="member_game_clean"),
            models.Index(
                fields=["club", "-date", "-number"],
                condition=Q(yakuman__gt=0),
                name="member_game_yakuman",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.member_id} in {self.game_id}: #{self.n}"


class MemberRating(models.Model):
    club = models.ForeignKey("league.Club", on_delete=models.PROTECT, related_name="+")
    member = models.OneToOneField("league.Member", on_delete=models.PROTECT, related_name="+")
    games = models.IntegerField(default=0)
    mu = models.BigIntegerField()  # millionths
    sigma = models.BigIntegerField()
    ordinal = models.BigIntegerField()  # μ − 3σ, millionths: the ranking's order
    tops = models.IntegerField(default=0)  # the current runs
    clean = models.IntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["club", "-ordinal"], name="member_rating_ordinal")]

    def __str__(self) -> str:
        return f"{self.member_id}: {self.mu} ± {self.sigma}"


class ClubChronicle(models.Model):
    club = models.OneToOneField("league.Club", on_delete=models.PROTECT, related_name="+")
    replayed = models.BigIntegerField(default=0)  # member-games written by replays (a counter)
    # A replay too long for a request, left to a worker (league.standings.tasks): the game
    # (date, number) it starts from; None when the kept rows are up to date.
    pending_date = models.DateField(null=True, blank=True)
    pending_number = models.PositiveIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.club_id}: {self.replayed}"
