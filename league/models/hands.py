"""A hanchan recorded hand by hand at the table (点数係, league.table): the running game, its
hands, and each player's hand statistics per game, kept at write time.

A `TableGame` is started on one phone with four players and the club's rules version; its hands
are `Hand` rows played by the engine (scoring.play_hand) on the server, whatever the phone showed.
When the engine ends the game it is saved as an ordinary `Game` (league.recording) and linked here.
Nothing is deleted: an undone hand stays with `live` false; an edit of the saved game writes its
hands again at the game's new revision and the old rows stop being live.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from league.models.clubs import Club
from league.models.games import Game
from league.models.members import Member, club_member_name
from league.models.rules import RulesVersion


class TableGame(models.Model):
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="table_games")
    # Made by the phone that starts the game: a retried start is the same game.
    key = models.UUIDField(editable=False)
    date = models.DateField(_("date"))
    table = models.CharField(_("table"), max_length=20, blank=True)
    rate = models.CharField(_("rate"), max_length=20, blank=True)
    rules_version = models.ForeignKey(RulesVersion, on_delete=models.PROTECT, related_name="+")
    # The hand rules (docs/hands.md's full object) fixed when the game started.
    hand_rules = models.JSONField()
    # Member primary keys in seat order from 起家.
    seats = models.JSONField()
    game = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.PROTECT, related_name="table_game"
    )
    draw_table = models.PositiveIntegerField(null=True, blank=True)  # the draw's card, if any
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["club", "key"], name="table_game_key_once"),
        ]

    def __str__(self) -> str:
        return f"{self.date:%Y/%m/%d} {self.table} ({self.key})"


class Hand(models.Model):
    """One hand (局) as recorded, with what the engine made of it."""

    table_game = models.ForeignKey(TableGame, on_delete=models.PROTECT, related_name="hands")
    index = models.PositiveIntegerField()  # 0: the first hand of the game
    revision = models.PositiveIntegerField(default=1)  # the game's revision these hands belong to
    live = models.BooleanField(default=True)  # false: undone, or an earlier revision's
    key = models.UUIDField(editable=False)  # the phone's idempotency key for this hand
    # docs/hands.md's hand object, players named by member primary key (as strings).
    event = models.JSONField()
    # Per winner (member pk as a string): ippatsu, ura, aka, called, yaku — for chips and stats.
    marks = models.JSONField(default=dict, blank=True)
    round = models.CharField(max_length=4)
    honba = models.PositiveSmallIntegerField()
    sticks = models.PositiveSmallIntegerField()
    dealer = models.PositiveSmallIntegerField()
    deltas = models.JSONField()  # per seat
    scores = models.JSONField()  # per seat, after the hand
    ended = models.CharField(max_length=20, blank=True)  # how the game ended after this hand
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table_game", "revision", "index", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table_game", "index"], condition=Q(live=True), name="hand_live_once"
            ),
            models.UniqueConstraint(fields=["table_game", "key"], name="hand_key_once"),
        ]

    def __str__(self) -> str:
        return f"{self.table_game_id} #{self.index} {self.round}"


def recorder_annotations() -> dict[str, Any]:
    """Annotations for a `Hand` queryset naming who entered each hand, read in the same query:
    `recorder_member`, the name of the table's club's member whose login it is (None if the
    login is linked to none), and `recorder_username`. `recorder_name` gives what is shown."""
    return {
        "recorder_member": club_member_name(user="recorded_by_id", club="table_game__club_id"),
        "recorder_username": F("recorded_by__username"),
    }


def recorder_name(hand: Any) -> str:
    """Who entered a hand as people see it: their member's name in the club, else their login's
    name ("" when unknown). `hand` was read with recorder_annotations()."""
    return getattr(hand, "recorder_member", None) or getattr(hand, "recorder_username", None) or ""


class HandStat(models.Model):
    """One player's hand statistics in one revision of a game recorded hand by hand, counted like
    `Result` (only the current revision of a game that is not void): the player page sums them."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="hand_stats")
    revision = models.PositiveIntegerField()
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="hand_stats")
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    date = models.DateField()  # the game's, so that a period needs no join
    counted = models.BooleanField(default=True)
    hands = models.PositiveIntegerField(default=0)  # hands dealt (chombo replays not counted)
    wins = models.PositiveIntegerField(default=0)
    called_wins = models.PositiveIntegerField(default=0)  # wins with an open hand
    deal_ins = models.PositiveIntegerField(default=0)
    riichi = models.PositiveIntegerField(default=0)
    win_points = models.IntegerField(default=0)  # the hands' value received (honba in, sticks out)
    deal_in_points = models.IntegerField(default=0)  # paid on deal-ins (honba in)
    draws = models.PositiveIntegerField(default=0)  # exhaustive draws played
    draw_tenpai = models.PositiveIntegerField(default=0)
    ippatsu = models.PositiveIntegerField(default=0)
    yakuman = models.PositiveIntegerField(default=0)
    yaku = models.JSONField(default=dict, blank=True)  # yaku name -> count

    class Meta:
        ordering = ["game", "revision", "member"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "revision", "member"], name="hand_stat_once_per_revision"
            ),
        ]
        indexes = [
            # A member's rows of a period (the player page; the standings sorted by a hand
            # column) and a club's (the standings' hand columns: a season's, summed per member),
            # read without the rest of the history. The date before `counted`: SQLite reads a
            # boolean filter (WHERE counted) as no equality, and would stop at the first column.
            models.Index(fields=["member", "date", "counted"], name="hand_stat_member_date"),
            models.Index(fields=["club", "date", "counted"], name="hand_stat_club_date"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} r{self.revision} {self.member_id}"


HAND_SUMS = (
    "hands",
    "wins",
    "called_wins",
    "deal_ins",
    "riichi",
    "win_points",
    "deal_in_points",
    "draws",
    "draw_tenpai",
    "ippatsu",
    "yakuman",
)


class HandStatTotal(models.Model):
    """A member's hand statistics over all time: the counted HandStat rows summed (`games` of
    them, each field, the yaku by name), kept at write time (league.standings.hand_totals) so
    that the player page reads one row however long the history; `manage.py
    rebuild_aggregates` recomputes them. A season is a bounded span: its page sums the rows."""

    member = models.OneToOneField(
        Member, on_delete=models.PROTECT, primary_key=True, related_name="+"
    )
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    games = models.IntegerField(default=0)
    hands = models.IntegerField(default=0)
    wins = models.IntegerField(default=0)
    called_wins = models.IntegerField(default=0)
    deal_ins = models.IntegerField(default=0)
    riichi = models.IntegerField(default=0)
    win_points = models.BigIntegerField(default=0)
    deal_in_points = models.BigIntegerField(default=0)
    draws = models.IntegerField(default=0)
    draw_tenpai = models.IntegerField(default=0)
    ippatsu = models.IntegerField(default=0)
    yakuman = models.IntegerField(default=0)
    yaku = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"{self.member_id}: {self.games}"


NAME_FIELDS = ("from", "winner", "player")
NAME_LISTS = ("riichi", "tenpai", "nagashi")


def renamed_event(event: Any, names: dict[str, str]) -> Any:
    """A hand object (docs/hands.md) with every player named by `names` (e.g. online name →
    member pk, or one member's pk → another's); names not in `names` stay."""
    if isinstance(event, list):
        return [renamed_event(e, names) for e in event]
    if not isinstance(event, dict):
        return event
    out: dict[str, Any] = {}
    for k, v in event.items():
        if k in NAME_FIELDS and isinstance(v, str):
            out[k] = names.get(v, v)
        elif k in NAME_LISTS and isinstance(v, list):
            out[k] = [names.get(p, p) if isinstance(p, str) else p for p in v]
        elif k in ("winners", "pao"):
            out[k] = renamed_event(v, names)
        else:
            out[k] = v
    return out
