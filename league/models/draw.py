"""The table draw's records: who is present on a day, and each round's tables and seats.

A redraw is a new revision of the round (the earlier one stays); swaps and locks change the
current revision in place and are in the audit log with before and after.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from league.models.games import Day, Game
from league.models.members import Member


class Attendance(models.Model):
    """A player checked in on a day: from which round they can play, until which round."""

    day = models.ForeignKey(Day, on_delete=models.PROTECT, related_name="draw_attendance")
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    from_round = models.PositiveIntegerField(_("from round"), default=1)
    until_round = models.PositiveIntegerField(_("until round"), null=True, blank=True)
    checked_in_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["day", "checked_in_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["day", "member"], name="draw_attendance_once"),
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.member}"

    def present_in(self, number: int) -> bool:
        return self.from_round <= number and (
            self.until_round is None or number <= self.until_round
        )


class DrawRound(models.Model):
    day = models.ForeignKey(Day, on_delete=models.PROTECT, related_name="draw_rounds")
    number = models.PositiveIntegerField(_("round"))
    revision = models.PositiveIntegerField(default=1)
    seats_drawn = models.BooleanField(_("seats drawn"), default=True)
    scheduled = models.BooleanField(default=False)  # drawn in advance with a whole day's schedule
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["day", "number", "revision"]
        constraints = [
            models.UniqueConstraint(
                fields=["day", "number", "revision"], name="draw_round_revision_once"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="draw_round_from_1"),
        ]

    def __str__(self) -> str:
        return f"{self.day} R{self.number}.{self.revision}"


class DrawTable(models.Model):
    round = models.ForeignKey(DrawRound, on_delete=models.PROTECT, related_name="tables")
    position = models.PositiveSmallIntegerField()  # 0 = table A
    locked = models.BooleanField(_("locked"), default=False)
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.PROTECT, related_name="draw_tables"
    )

    class Meta:
        ordering = ["round", "position"]
        constraints = [
            models.UniqueConstraint(fields=["round", "position"], name="draw_table_position_once"),
        ]

    def __str__(self) -> str:
        return f"{self.round} {self.label}"

    @property
    def label(self) -> str:
        return table_label(self.position)


class DrawSeat(models.Model):
    """A player of a round: at a table in seat order (0 = 東), or sitting out (no table)."""

    round = models.ForeignKey(DrawRound, on_delete=models.PROTECT, related_name="seats")
    table = models.ForeignKey(
        DrawTable, null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    seat = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["round", "table", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["round", "member"], name="draw_seat_member_once"),
        ]

    def __str__(self) -> str:
        return f"{self.round} {self.member}"


class DrawRoom(models.Model):
    """The room of a day of the draw, as its projector page shows it: the countdown the organiser
    started (it ends at `timer_ends_at`; none when stopped) and whether the day's standings may be
    shown. Changed only by league.draw.services.room_timer / room_standings / room_hold_results
    and league.draw.tasks.draw_ask (a draw asked of the worker), audited."""

    day = models.OneToOneField(Day, on_delete=models.PROTECT, related_name="draw_room")
    timer_ends_at = models.DateTimeField(null=True, blank=True)
    timer_minutes = models.PositiveSmallIntegerField(default=0)
    show_standings = models.BooleanField(default=False)
    # Results held back (issue 42): while set, a round's games show to nobody but the organisers
    # on the day's pages, the share link and the API until every table of the round has its game
    # (held_games below: computed, so a complete round opens by itself).
    hold_results = models.BooleanField(default=False)
    # A draw of a large field asked of the worker (league.draw.tasks.draw_ask): when it was
    # asked, and the id of its task's result (Django Tasks: the backend keeps its status, so
    # the page reads it there); the id is empty until the task is enqueued.
    draw_asked_at = models.DateTimeField(null=True, blank=True)
    draw_task = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        indexes = [
            # The rooms holding results back, a handful across every club: with_held_round reads
            # them on every club page (and every 304).
            models.Index(fields=["day"], condition=Q(hold_results=True), name="drawroom_holding"),
        ]

    def __str__(self) -> str:
        return f"{self.day} room"


def table_label(position: int) -> str:
    """A, B, … Z, then AA, AB, …"""
    letters = ""
    n = position
    while True:
        letters = chr(ord("A") + n % 26) + letters
        n = n // 26 - 1
        if n < 0:
            return letters


WINDS = ("東", "南", "西", "北")


@dataclass(frozen=True)
class NextTable:
    """Where a checked-in player sits next: the first round (at its latest revision) in which they
    are seated at a table whose game is not recorded yet, the table and, when the round's seats
    were drawn, their wind."""

    member_id: int
    name: str
    round: int
    table: str
    wind: str | None  # 東南西北, None when the seats are left to the table

    @property
    def text(self) -> str:
        """「次：第3回戦 B卓 西家」"""
        values = {"round": self.round, "table": self.table, "wind": self.wind}
        if self.wind is None:
            return gettext("Next: round %(round)s, table %(table)s") % values
        return gettext("Next: round %(round)s, table %(table)s, %(wind)s seat") % values


def next_tables(
    *, club_id: int, date: datetime.date, member_id: int | None = None
) -> dict[int, NextTable]:
    """Each checked-in player's next table on the club's day at `date` (only `member_id`'s when
    given), by member id: one query whatever the number of rounds, tables or players. A player
    who left before that round, or sits out every round still to play, has none."""
    number = OuterRef("round__number")
    top = (
        DrawRound.objects.filter(day=OuterRef("round__day"), number=number)
        .order_by("-revision")
        .values("revision")[:1]
    )
    present = Attendance.objects.filter(
        day=OuterRef("round__day"), member=OuterRef("member"), from_round__lte=number
    ).filter(Q(until_round__isnull=True) | Q(until_round__gte=number))
    seats = DrawSeat.objects.filter(
        round__day__club_id=club_id,
        round__day__date=date,
        table__isnull=False,
        table__game__isnull=True,
        round__revision=Subquery(top),
    ).filter(Exists(present))
    if member_id is not None:
        seats = seats.filter(member_id=member_id)
    found: dict[int, NextTable] = {}
    rows = seats.order_by("round__number", "table__position", "seat").values_list(
        "member_id",
        "member__name",
        "round__number",
        "round__seats_drawn",
        "table__position",
        "seat",
    )
    for pk, name, rnd, drawn, position, seat in rows:
        if pk not in found:
            wind = WINDS[seat] if drawn else None
            found[pk] = NextTable(pk, name, rnd, table_label(position), wind)
    return found


# --- results held back (issue 42) ------------------------------------------------------------


def results_held(day: Day | None) -> bool:
    """Whether the day holds a round's results back until the round is complete (issue 42)."""
    return day is not None and DrawRoom.objects.filter(day=day, hold_results=True).exists()


def held_games(day: Day | None) -> set[int]:
    """The games of the day that nobody but an organiser sees yet: when the day holds results
    back, those of each round (at its latest revision) with a table whose game is not recorded
    yet. A round opens by itself when its last table is recorded: nothing is stored for that.
    One query; none without a day."""
    if day is None:
        return set()
    return set(held_game_ids(round__day=day))


def held_game_ids(**day: Any) -> QuerySet[DrawTable, int]:
    """held_games' ids as a query (to use inside another), for the day chosen by `day`
    (filters of DrawTable: round__day=…, or round__day__club=… and round__day__date=…)."""
    return _held_tables(**day).values_list("game_id", flat=True)


@dataclass(frozen=True)
class HeldRound:
    """The first round of a club's that holds its results back now (its day and number)."""

    date: datetime.date
    number: int


def with_held_round(clubs: QuerySet[Any]) -> QuerySet[Any]:
    """Clubs annotated with whether one of their days holds results back at all (`holds_results`:
    one EXISTS, cheap for the database to plan), which held_of reads: the held round itself is
    read only for such a club, in a query of its own. League.access and the share link run this
    on every request, and the round's two subqueries took PostgreSQL 3 ms to plan (12 ms on a
    busy machine), the EXISTS 0.15 ms: most clubs never hold results back, and pay nothing for
    it.
    While a round is held, the pages of a club's results over many days (standings, statistics,
    ratings, records, a player's page, My page's season) are not shown to members: those totals
    are kept at write time with the held games in them."""
    # From the holding rooms (drawroom_holding) to their day's club, never from the club's days
    # to their rooms: a join the planner may take either way, and without fresh statistics
    # PostgreSQL walked every day of the club, on every page (1,800 buffers at 10,000 games).
    club_of_day = Day.objects.filter(pk=OuterRef("day_id")).order_by().values("club_id")[:1]
    holding = (
        DrawRoom.objects.filter(hold_results=True)
        .annotate(club_of_day=Subquery(club_of_day))
        .filter(club_of_day=OuterRef("pk"))
    )
    return clubs.annotate(holds_results=Exists(holding))


def held_of(club: Any) -> HeldRound | None:
    """The held round of a club read through with_held_round, None when nothing is held (one
    query when one of the club's days holds results back, none otherwise)."""
    return held_round(club.pk) if club.holds_results else None


def held_round(club_id: int) -> HeldRound | None:
    """held_round_of for one club, in one query (the API and the share link, which read the
    club without league.access)."""
    holding = DrawRoom.objects.filter(day__club=club_id, hold_results=True)
    first = (
        _held_tables(round__day__in=holding.values("day"))
        .order_by("round__day__date", "round__number")
        .values_list("round__day__date", "round__number")
        .first()
    )
    return HeldRound(*first) if first else None


def _held_tables(**day: Any) -> QuerySet[DrawTable]:
    """The recorded tables of held rounds (held_games) of the days chosen by `day`."""
    top = (
        DrawRound.objects.filter(day=OuterRef("round__day"), number=OuterRef("round__number"))
        .order_by("-revision")
        .values("revision")[:1]
    )
    open_table = DrawTable.objects.filter(round=OuterRef("round"), game__isnull=True)
    return DrawTable.objects.filter(
        **day,
        round__day__draw_room__hold_results=True,
        game__isnull=False,
        round__revision=Subquery(top),
    ).filter(Exists(open_table))


def hidden_games(day: Day | None, *, organiser: bool) -> set[int]:
    """The day's games a viewer may not see yet (held_games), none for an organiser, who sees
    all. Every reader of a day's results for players (the day's pages, the share link, the
    API, the ledger) leaves these out."""
    return set() if organiser else held_games(day)
