"""Teams in a season, and adjustments outside any game (league.teams writes both).

A `Team` belongs to one season of a club: a name, a short name for narrow tables, a colour, and
its roster (`TeamMember` rows, captains marked). A member is on at most one team per season (a
partial unique constraint over the rows still on a roster): leaving a roster sets `removed_at`,
nothing is deleted, so that the audit log and old links keep resolving.

An `Adjustment` is a penalty or bonus booked outside any game, to a member or to a team in a
season (M.League books a chombo so: it counts in the season total, not in the game's result). It
is immutable: undoing one books a reversing entry (`reverses`) with the opposite amounts, so
sums over a season's adjustments are what counts.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from league.models.clubs import Club
from league.models.members import Member
from league.models.seasons import Season
from scoring import stages

TEAM_NAME_LENGTH = 50
TEAM_SHORT_LENGTH = 8


class Team(models.Model):
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    season = models.ForeignKey(Season, on_delete=models.PROTECT, related_name="teams")
    name = models.CharField(_("team name"), max_length=TEAM_NAME_LENGTH)
    short_name = models.CharField(_("short name"), max_length=TEAM_SHORT_LENGTH)
    colour = models.CharField(_("colour"), max_length=7, default="#2b6cb0")  # "#rrggbb"
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["season", "id"]
        constraints = [
            models.UniqueConstraint(fields=["season", "name"], name="team_name_once_per_season"),
            models.CheckConstraint(
                condition=Q(colour__regex=r"^#[0-9a-f]{6}$"), name="team_colour_hex"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class TeamMember(models.Model):
    """A member on a team's roster for the team's season; `removed_at` once they left it."""

    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="roster")
    season = models.ForeignKey(Season, on_delete=models.PROTECT, related_name="+")  # team's
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="team_places")
    is_captain = models.BooleanField(_("captain"), default=False)
    added_at = models.DateTimeField(auto_now_add=True)
    removed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["team", "-is_captain", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["season", "member"],
                condition=Q(removed_at__isnull=True),
                name="one_team_per_season",
            ),
        ]
        indexes = [models.Index(fields=["team", "removed_at"], name="team_roster")]

    def __str__(self) -> str:
        return f"{self.member_id} @ {self.team_id}"


class AdjustmentQuerySet(models.QuerySet["Adjustment"]):
    def update(self, **kwargs: Any) -> int:
        raise PermissionError("adjustments are immutable: book a reversing entry")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise PermissionError("adjustments are immutable: book a reversing entry")


class Adjustment(models.Model):
    PENALTY = "penalty"
    BONUS = "bonus"
    CHOMBO = "chombo"
    REVERSAL = "reversal"
    KINDS = [
        (PENALTY, _("penalty")),
        (BONUS, _("bonus")),
        (CHOMBO, _("chombo")),
        (REVERSAL, _("reversal")),
    ]

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    season = models.ForeignKey(Season, on_delete=models.PROTECT, related_name="adjustments")
    member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="adjustments"
    )
    team = models.ForeignKey(
        Team, null=True, blank=True, on_delete=models.PROTECT, related_name="adjustments"
    )
    kind = models.CharField(_("kind"), max_length=20, choices=KINDS)
    points = models.IntegerField(_("points"))  # tenths of 1,000 points, as Result.score
    rate = models.CharField(_("rate"), max_length=50, blank=True)  # a rules rate's name
    yen = models.BigIntegerField(_("yen"), null=True, blank=True)  # points at the rate
    # A member's yen in the books: the ledger entry (kind adjustment, or the reversal of it)
    entry = models.OneToOneField(
        "league.LedgerEntry",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="adjustment",
    )
    reason = models.CharField(_("reason"), max_length=200)
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AdjustmentQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(member__isnull=True) & Q(team__isnull=False))
                | (Q(member__isnull=False) & Q(team__isnull=True)),
                name="adjustment_member_or_team",
            ),
        ]
        indexes = [models.Index(fields=["season", "id"], name="adjustment_season")]

    def __str__(self) -> str:
        return f"{self.kind} {self.points}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise PermissionError("adjustments are immutable: book a reversing entry")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise PermissionError("adjustments are immutable: book a reversing entry")


class TeamMatch(models.Model):
    """A table of a team match day: one slot per team (`TeamSlot`), the season's fixture round
    it plays (scoring.fixtures), and its game once recorded from it."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    season = models.ForeignKey(Season, on_delete=models.PROTECT, related_name="team_matches")
    date = models.DateField(_("date"))
    round = models.PositiveIntegerField(_("round"))  # the season's fixture round, from 1
    position = models.PositiveSmallIntegerField()  # 0 = table A
    game = models.OneToOneField(
        "league.Game", null=True, blank=True, on_delete=models.PROTECT, related_name="team_match"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["season", "round", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["season", "round", "position"], name="team_match_table_once"
            ),
        ]
        indexes = [models.Index(fields=["season", "date"], name="team_match_day")]

    def __str__(self) -> str:
        return f"{self.season_id} R{self.round} {self.position}"


class TeamSlot(models.Model):
    """A team's seat at a match table (0 = 東), and the player its captain or an organiser named
    for it: from the roster, or a substitute (a member on no team of the season)."""

    match = models.ForeignKey(TeamMatch, on_delete=models.PROTECT, related_name="slots")
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="slots")
    seat = models.PositiveSmallIntegerField()
    member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    substitute = models.BooleanField(_("substitute"), default=False)
    named_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    named_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "team"], name="team_slot_team_once"),
            models.UniqueConstraint(fields=["match", "seat"], name="team_slot_seat_once"),
            models.UniqueConstraint(
                fields=["match", "member"],
                condition=Q(member__isnull=False),
                name="team_slot_member_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match_id} {self.seat} {self.team_id}"


class Stage(models.Model):
    """A stage of an event (a season with a cut, or a cup): its own games (those in its dates),
    how many go through to the next stage (`advance`, a number, or `advance_share`, a whole
    percent of the stage's entries rounded up, at least 1; neither for the last), the tie order
    at the cut, and what they carry (scoring.stages). Its entrants are everyone for the first stage,
    members or teams; for a later one, the `StageEntry` rows written when the stage before it
    closed. A fixed table: the stage is one table of those through, no draw; for members, they
    are seated at final tables (`FinalSeat`) when the stage before closes, `seating` saying how
    the seats go (the places' order, or drawn)."""

    MEMBERS = "members"
    TEAMS = "teams"
    ENTRANTS = [(MEMBERS, _("members")), (TEAMS, _("teams"))]
    CARRY = [
        ("all", _("all points")),
        ("half", _("half the points")),
        ("none", _("none")),
        ("bonus", _("a bonus by place")),
    ]
    TIES = [("seat", _("exactly N (tie order)")), ("split", _("everyone tied at the cut"))]
    SEATING = [("order", _("by place (the top qualifier is East)")), ("draw", _("drawn"))]

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    season = models.ForeignKey(Season, on_delete=models.PROTECT, related_name="stages")
    number = models.PositiveSmallIntegerField(_("stage"))  # 1, 2, … in order of play
    name = models.CharField(_("name"), max_length=50)
    first_day = models.DateField(_("first day"))
    last_day = models.DateField(_("last day"))
    entrants = models.CharField(_("entrants"), max_length=10, choices=ENTRANTS, default=MEMBERS)
    advance = models.PositiveIntegerField(_("going through"), null=True, blank=True)
    advance_share = models.PositiveSmallIntegerField(
        _("going through (percent)"), null=True, blank=True
    )
    carry = models.CharField(_("carried"), max_length=10, choices=CARRY, default="all")
    bonus = models.JSONField(_("bonus by place"), default=list, blank=True)  # tenths, by place
    ties = models.CharField(_("ties at the cut"), max_length=10, choices=TIES, default="seat")
    fixed_table = models.BooleanField(_("fixed table"), default=False)
    seating = models.CharField(_("seats"), max_length=10, choices=SEATING, default="order")
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["season", "number"]
        constraints = [
            models.UniqueConstraint(fields=["season", "number"], name="stage_number_once"),
            models.CheckConstraint(
                condition=Q(last_day__gte=models.F("first_day")), name="stage_days_in_order"
            ),
            models.CheckConstraint(
                condition=Q(advance__isnull=True) | Q(advance_share__isnull=True),
                name="stage_cut_number_or_share",
            ),
            models.CheckConstraint(
                condition=Q(advance_share__isnull=True)
                | Q(advance_share__gte=1, advance_share__lte=99),
                name="stage_cut_share_percent",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def sends_on(self) -> bool:
        """The stage has a cut (a number or a share): it is not the last."""
        return self.advance is not None or self.advance_share is not None

    def cut_count(self, entries: int) -> int | None:
        """How many go through with `entries` entrants: the number, or the share of them
        (rounded up, at least 1); None for the last stage."""
        if self.advance_share is not None:
            return stages.share_count(entries, self.advance_share)
        return self.advance


class StageEntry(models.Model):
    """Who entered a later stage (a member or a team), its place in the stage before and the
    points it carries in: written once, when the stage before closed."""

    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="entries")
    member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    team = models.ForeignKey(
        Team, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    place = models.PositiveIntegerField()  # in the stage before
    total_before = models.IntegerField()  # tenths, its total in the stage before
    carried = models.IntegerField()  # tenths

    class Meta:
        ordering = ["stage", "place", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["stage", "member"],
                condition=Q(member__isnull=False),
                name="stage_entry_member_once",
            ),
            models.UniqueConstraint(
                fields=["stage", "team"],
                condition=Q(team__isnull=False),
                name="stage_entry_team_once",
            ),
            models.CheckConstraint(
                condition=(Q(member__isnull=True) & Q(team__isnull=False))
                | (Q(member__isnull=False) & Q(team__isnull=True)),
                name="stage_entry_member_or_team",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.stage_id}: {self.member_id or self.team_id}"


class FinalSeat(models.Model):
    """A finalist's seat at a fixed-table stage of members: the table (0 = A; the places in
    blocks, the top ones at A), the seat of its first hanchan (0 = 東, 起家) and the place they
    went through in. A seating is a revision of the stage's rows: seating again (a new draw)
    writes a new revision and marks the rows before it `current=False`; nothing is deleted."""

    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="final_seats")
    revision = models.PositiveIntegerField(default=1)
    table = models.PositiveSmallIntegerField()
    seat = models.PositiveSmallIntegerField()
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    place = models.PositiveIntegerField()  # the order they went through in, from 1
    drawn = models.BooleanField(default=False)  # the seats were drawn, not by place
    current = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["stage", "revision", "table", "seat"]
        constraints = [
            models.UniqueConstraint(
                fields=["stage", "revision", "member"], name="final_seat_member_once"
            ),
            models.UniqueConstraint(
                fields=["stage", "revision", "table", "seat"], name="final_seat_once"
            ),
        ]
        indexes = [models.Index(fields=["stage", "current"], name="final_seat_current")]

    def __str__(self) -> str:
        return f"{self.stage_id}.{self.revision} {self.table}/{self.seat}: {self.member_id}"
