"""Days, games and their settled results (one row per seat per revision), and chip events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

import scoring
from league.models.clubs import Club
from league.models.members import Member
from league.models.rules import RulesVersion


class Day(models.Model):
    """開催日: one session of the club on a date."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="days")
    date = models.DateField(_("date"))
    venue = models.CharField(_("venue"), max_length=100, blank=True)
    attendees = models.ManyToManyField(
        Member, blank=True, related_name="days_attended", verbose_name=_("attendees")
    )
    # 点数係 of the evening (league.table.services.scorers_set): members the organiser names to
    # enter hands at any table of the day, beside the players seated at a table.
    scorers = models.ManyToManyField(
        Member, blank=True, related_name="days_scoring", verbose_name=_("scorers")
    )
    # The rules version the day's money (fees, shūgi, yen unit, surcharge) is settled under, once
    # a re-settle has fixed it; until then the version of the day's games (league.money.day_rules).
    rules_version = models.ForeignKey(
        RulesVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # 締め: every transfer open at closing was marked paid or deferred (league.money.day_close).
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        verbose_name = _("day")
        verbose_name_plural = _("days")
        ordering = ["-date"]
        constraints = [
            models.UniqueConstraint(fields=["club", "date"], name="day_once_per_date"),
        ]

    def __str__(self) -> str:
        return f"{self.date:%Y/%m/%d}"


class Game(models.Model):
    """One hanchan. Its current settlement is the `Result` rows of its current `revision`."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="games")
    day = models.ForeignKey(Day, on_delete=models.PROTECT, related_name="games")
    date = models.DateField()  # the day's date, kept here so that date-range queries need no join
    table = models.CharField(_("table"), max_length=20, blank=True)
    number = models.PositiveIntegerField(_("game number"))
    rate = models.CharField(_("rate"), max_length=20, blank=True)
    deposits = models.IntegerField(_("deposits"), default=0)
    rules_version = models.ForeignKey(RulesVersion, on_delete=models.PROTECT, related_name="games")
    revision = models.PositiveIntegerField(default=1)
    submission_key = models.UUIDField(null=True, blank=True, editable=False)
    # The API's SHA-256 of the body sent with an Idempotency-Key: the key with another body is a 422.
    submission_hash = models.CharField(max_length=64, blank=True, editable=False)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    recorded_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    voided = models.BooleanField(default=False)
    void_reason = models.CharField(_("reason"), max_length=200, blank=True)
    # The import that wrote it (voided with it as a whole), or none.
    import_batch = models.ForeignKey(
        "league.ImportBatch", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["date", "number"]
        constraints = [
            models.UniqueConstraint(fields=["day", "number"], name="game_number_unique_in_day"),
            # A double tap on "save" (or a retried API call) records one game, not two.
            models.UniqueConstraint(fields=["club", "submission_key"], name="game_submission_once"),
            models.CheckConstraint(condition=Q(deposits__gte=0), name="game_deposits_not_negative"),
        ]
        indexes = [
            # Club home and day lists: a club's recent games.
            models.Index(fields=["club", "-date", "-number"], name="game_club_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.date:%Y/%m/%d} #{self.number}"


class Result(models.Model):
    """One player's line of one revision of a game, with its stored settlement.

    `counted` is true only for the current revision of a game that is not voided: rankings sum
    these rows and nothing else.
    """

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="results")
    revision = models.PositiveIntegerField()
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="results")
    seat = models.PositiveSmallIntegerField(_("seat"))  # 0 = 起家 (East)
    points = models.IntegerField(_("final points"))
    chombo = models.PositiveSmallIntegerField(_("chombo"), default=0)
    rank = models.PositiveSmallIntegerField(_("rank"))
    score = models.IntegerField(_("score"))  # tenths of 1,000 points
    chips = models.IntegerField(_("chips"), default=0)
    yen = models.IntegerField(_("yen"), null=True, blank=True)
    last = models.BooleanField(default=False)  # ラス: the game's lowest rank (shared under split)
    # 飛び賞 and 焼き鳥, where the club's rules have them: the seat of whoever busted this player
    # (None: not busted, or the rules do not ask), how many players this one busted in the game
    # (kept for the 飛ばした回数 statistic), and whether this player won no hand all game.
    busted_by_seat = models.PositiveSmallIntegerField(_("busted by"), null=True, blank=True)
    busts_caused = models.PositiveSmallIntegerField(_("players busted"), default=0)
    yakitori = models.BooleanField(_("yakitori"), default=False)
    # Copies of the game's, so that rankings are one scan of this table.
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    date = models.DateField()
    rate = models.CharField(max_length=20, blank=True)
    counted = models.BooleanField(default=True)

    class Meta:
        ordering = ["game", "revision", "seat"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "revision", "seat"], name="result_one_player_per_seat"
            ),
            models.UniqueConstraint(
                fields=["game", "revision", "member"], name="result_player_once_per_game"
            ),
            # Rankings sum counted rows: one current revision per game, whatever a service does.
            models.UniqueConstraint(
                fields=["game", "seat"],
                condition=Q(counted=True),
                name="result_one_counted_row_per_seat",
            ),
            models.CheckConstraint(condition=Q(seat__lte=3), name="result_seat_0_to_3"),
            models.CheckConstraint(
                condition=Q(rank__gte=1, rank__lte=4), name="result_rank_1_to_4"
            ),
        ]
        indexes = [
            # A club's counted rows by date: a period's standings aggregated live (a filter of
            # dates: league.standings.stats.standings) read the period's rows alone, whatever the
            # history around it, and a day's rows (the duplicate check of a new game, the day's
            # totals, the draw's room standings) are one range of it. Partial (counted only) and
            # covering every column the aggregate reads, so that it reads no row of the table.
            models.Index(
                fields=[
                    "club",
                    "date",
                    "member",
                    "score",
                    "rank",
                    "points",
                    "chombo",
                    "chips",
                    "yen",
                    "last",
                    "counted",
                ],
                condition=Q(counted=True),
                name="result_standings",
            ),
            # Player pages: one member's counted rows by date.
            models.Index(fields=["member", "counted", "date"], name="result_member_history"),
        ]

    def __str__(self) -> str:
        return f"{self.game} r{self.revision} seat {self.seat}"


class ChipEvent(models.Model):
    """一発・役満 etc.: who won it, from whom (none: tsumo), how many times over."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="chip_events")
    revision = models.PositiveIntegerField()
    kind = models.CharField(_("kind"), max_length=30)
    winner = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    discarder = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    multiplier = models.PositiveSmallIntegerField(default=1)

    class Meta:
        ordering = ["game", "revision", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(multiplier__gte=1), name="chip_multiplier_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.game} {self.kind}"


def stored_game_result(game: Game | Any, rows: Sequence[Result | Any]) -> scoring.GameResult:
    """A stored game back as the engine's value (it re-checks that the numbers add up). `game`
    and `rows` may be model instances or rows read with values_list(named=True): only the game's
    deposits and rate, and the results' member_id, points, rank, score, chips, yen and chombo
    are read."""
    players = tuple(
        scoring.PlayerResult(
            name=str(r.member_id),
            points=r.points,
            rank=r.rank,
            score=r.score,
            chips=r.chips,
            yen=r.yen,
            chombo=r.chombo,
        )
        for r in rows
    )
    return scoring.GameResult(
        players=players,
        total_score=sum(p.score for p in players),
        deposits=game.deposits,
        rate=(game.rate or None) if any(r.yen is not None for r in rows) else None,
    )
