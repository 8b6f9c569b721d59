"""Reads for the table draw: a day's attendance and rounds, in a constant number of queries."""

from __future__ import annotations

import datetime
import hashlib
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, Exists, Max, OuterRef, Subquery, Sum
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from league.core.tasks import TaskResultDoesNotExist, TaskResultStatus, default_task_backend
from league.draw import algorithm
from league.draw.algorithm import Pair, pair
from league.models import Club, Day, Member, Result, RulesVersion, Season, TableGame
from league.models import draw as draw_models
from league.models.draw import (  # noqa: F401 (the draw's readers find these here too)
    Attendance,
    DrawRound,
    DrawSeat,
    DrawTable,
    held_game_ids,
    held_games,
    held_round,
    hidden_games,
    results_held,
)
from league.models.teams import Team, TeamMember

WINDS = draw_models.WINDS


@dataclass
class TableView:
    table: DrawTable
    players: list[Member]  # seat order

    @property
    def recorded(self) -> bool:
        return self.table.game_id is not None

    @property
    def seated(self) -> list[tuple[str, Member]]:
        return list(zip(WINDS, self.players, strict=False))


@dataclass
class RoundView:
    round: DrawRound
    tables: list[TableView] = field(default_factory=list)
    sitting_out: list[Member] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every table of the round has its game recorded."""
        return bool(self.tables) and all(t.recorded for t in self.tables)


def table_size(club: Club, date: datetime.date) -> int:
    """The club's table: as many players as its rules in force on the day play with. The rules
    hold one player count, so a club never mixes 3- and 4-player tables on a day."""
    version = RulesVersion.in_force(club, date)
    return version.rules.players if version else 4


def day_attendance(day: Day | None) -> list[Attendance]:
    if day is None:
        return []
    return list(
        Attendance.objects.filter(day=day).select_related("member").order_by("member__kana")
    )


def current_rounds(day: Day | None) -> list[RoundView]:
    """Each round of the day at its latest revision, with its tables and seats (3 queries).
    Each table carries `running_table`: the key of the table game being scored hand by hand
    for it (league.table), not saved yet, or None."""
    if day is None:
        return []
    latest = {
        row["number"]: row["top"]
        for row in DrawRound.objects.filter(day=day).values("number").annotate(top=Max("revision"))
    }
    rounds = [
        r
        for r in DrawRound.objects.filter(day=day).order_by("number", "revision")
        if latest.get(r.number) == r.revision
    ]
    views = {r.pk: RoundView(r) for r in rounds}
    tables: dict[int, TableView] = {}
    running = TableGame.objects.filter(draw_table=OuterRef("pk"), game=None).order_by("-pk")
    found = DrawTable.objects.filter(round__in=rounds).annotate(
        running_table=Subquery(running.values("key")[:1])
    )
    for table in found.order_by("round", "position"):
        tables[table.pk] = TableView(table, [])
        views[table.round_id].tables.append(tables[table.pk])
    seats = DrawSeat.objects.filter(round__in=rounds).select_related("member")
    for seat in seats.order_by("round", "table", "seat", "member__kana"):
        if seat.table_id is None:
            views[seat.round_id].sitting_out.append(seat.member)
        else:
            tables[seat.table_id].players.append(seat.member)
    return list(views.values())


def current_round(rounds: list[RoundView]) -> RoundView | None:
    """The round being played: the last one drawn; on a day whose schedule was drawn in advance
    (a cup), the first with a table not recorded yet."""
    if not rounds:
        return None
    if not rounds[-1].round.scheduled:
        return rounds[-1]
    return next((rv for rv in rounds if not rv.complete), rounds[-1])


def day_pairs(rounds: list[RoundView], before: int) -> dict[Pair, int]:
    counts: dict[Pair, int] = defaultdict(int)
    for rv in rounds:
        if rv.round.number >= before:
            continue
        for tv in rv.tables:
            ids = [m.pk for m in tv.players]
            for i, a in enumerate(ids):
                for b in ids[i + 1 :]:
                    counts[pair(a, b)] += 1
    return dict(counts)


def missed_rounds(rounds: list[RoundView], before: int, players: list[int]) -> dict[int, int]:
    """Rounds before `before` in which each player did not play (sat out or was not there)."""
    earlier = [rv for rv in rounds if rv.round.number < before]
    missed = dict.fromkeys(players, len(earlier))
    for rv in earlier:
        for tv in rv.tables:
            for m in tv.players:
                if m.pk in missed:
                    missed[m.pk] -= 1
    return missed


def season_pairs(club: Club, date: datetime.date) -> dict[Pair, int]:
    """How often each pair met in the counted games of the day's season before the day (the
    calendar year when no season holds the day)."""
    return season_history(club, date).pairs


@dataclass(frozen=True)
class History:
    pairs: dict[Pair, int]  # how often each pair met
    seats: dict[int, list[int]]  # each member's games from each starting seat (0 = 東, 起家)
    teams: dict[int, int]  # each member's team, for a season with teams


def season_history(club: Club, date: datetime.date) -> History:
    """From the counted games of the day's season before the day (the calendar year when no
    season holds the day), in one read of their results: how often each pair met, and each
    member's games from each starting seat; and the season's teams (read only when it has
    any: their members are kept apart by the draw)."""
    season = (
        Season.objects.filter(club=club, start__lte=date, end__gte=date)
        .annotate(has_teams=Exists(Team.objects.filter(season=OuterRef("pk"))))
        .first()
    )
    start = season.start if season else date.replace(month=1, day=1)
    rows = Result.objects.filter(club=club, counted=True, date__gte=start, date__lt=date)
    by_game: dict[int, list[int]] = defaultdict(list)
    seats: dict[int, list[int]] = {}
    for game_id, member_id, seat in rows.values_list("game_id", "member_id", "seat"):
        by_game[game_id].append(member_id)
        seats.setdefault(member_id, [0, 0, 0, 0])[seat] += 1
    counts: dict[Pair, int] = defaultdict(int)
    for ids in by_game.values():
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                counts[pair(a, b)] += 1
    teams: dict[int, int] = {}
    if season is not None and season.has_teams:
        roster = TeamMember.objects.filter(team__season=season, removed_at__isnull=True)
        teams = dict(roster.values_list("member_id", "team_id"))
    return History(dict(counts), seats, teams)


def day_seats(
    rounds: list[RoundView], before: int
) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Each player's seats (0 = 東) and table numbers (0 = A) in the day's rounds before
    `before` (seats only of rounds whose seats were drawn)."""
    winds: dict[int, list[int]] = {}
    numbers: dict[int, list[int]] = defaultdict(list)
    for rv in rounds:
        if rv.round.number >= before:
            continue
        for tv in rv.tables:
            for seat, m in enumerate(tv.players):
                numbers[m.pk].append(tv.table.position)
                if rv.round.seats_drawn:
                    winds.setdefault(m.pk, [0, 0, 0, 0])[seat] += 1
    return winds, dict(numbers)


def present_ids(attendance: list[Attendance], number: int) -> list[int]:
    return [a.member_id for a in attendance if a.present_in(number)]


def draw_seed(day: Day, number: int, revision: int) -> int:
    """The same inputs draw the same tables (a proposal shown is the draw stored)."""
    text = f"{day.pk}:{number}:{revision}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


def day_of(club: Club, date: datetime.date) -> Day | None:
    return Day.objects.filter(club=club, date=date).first()


def schedule_report(rounds: list[RoundView]) -> algorithm.Report | None:
    """A drawn schedule's figures (repeated pairs, winds, table numbers, common opponents of
    pairs that never meet), for a day of several rounds; common opponents up to
    algorithm.COMMON_MAX_PLAYERS players (every pair of the field is counted)."""
    if len(rounds) < 2:
        return None
    drawn = [
        algorithm.Round(
            tuple(tuple(m.pk for m in tv.players) for tv in rv.tables),
            tuple(m.pk for m in rv.sitting_out),
        )
        for rv in rounds
    ]
    field = {m.pk for rv in rounds for tv in rv.tables for m in tv.players}
    return algorithm.report(drawn, common=len(field) <= algorithm.COMMON_MAX_PLAYERS)


def _round_list(numbers: list[int]) -> str:
    return pgettext("a list of rounds", ", ").join(
        pgettext("a round in a list", "round %(n)s") % {"n": n} for n in numbers
    )


def unkept(rounds: list[RoundView], attendance: list[Attendance]) -> list[str]:
    """What the day's rounds so far could not keep of the balance, in players' words, from the
    rounds and attendance the draw pages read (no query): each pair seated together more than
    once today, each player whose count of a wind is off by more than one from rounds played /
    table size, each player back at a table number; why, where the day says it (joined in a
    later round, left, fewer tables than rounds played). Nothing when all is balanced."""
    if len(rounds) < 2:
        return []
    drawn = [
        algorithm.Round(
            tuple(tuple(m.pk for m in tv.players) for tv in rv.tables),
            tuple(m.pk for m in rv.sitting_out),
        )
        for rv in rounds
    ]
    found = algorithm.unkept(drawn, seats_drawn=[rv.round.seats_drawn for rv in rounds])
    names = {m.pk: m.name for rv in rounds for tv in rv.tables for m in tv.players}
    number = [rv.round.number for rv in rounds]
    seated_in: dict[int, list[int]] = defaultdict(list)  # player → tables in each round played
    for rv in rounds:
        for tv in rv.tables:
            for m in tv.players:
                seated_in[m.pk].append(len(rv.tables))
    came = {a.member_id: a for a in attendance}

    def why(player: int, *, tables: bool = False) -> list[str]:
        reasons = []
        a = came.get(player)
        if a is not None and a.from_round > 1:
            reasons.append(_("joined in round %(n)s") % {"n": a.from_round})
        if a is not None and a.until_round is not None:
            reasons.append(_("left after round %(n)s") % {"n": a.until_round})
        played = seated_in.get(player, [])
        if tables and played and len(played) > max(played):
            reasons.append(_("only %(n)s tables") % {"n": max(played)})
        return reasons

    def line(what: str, reasons: list[str]) -> str:
        if not reasons:
            return what
        joined = pgettext("list separator", ", ").join(reasons)
        return _("%(what)s — %(why)s") % {"what": what, "why": joined}

    lines = [
        _("%(a)s and %(b)s have met %(n)s times today (%(rounds)s)")
        % {
            "a": names[a],
            "b": names[b],
            "n": len(at),
            "rounds": _round_list([number[r] for r in at]),
        }
        for (a, b), at in found.repeats
    ]
    for player, counts, played in found.winds:
        winds = "・".join(f"{w}{c}" for w, c in zip(WINDS, counts, strict=False))
        what = _(
            "%(name)s is outside the wind balance: %(winds)s in %(n)s rounds (each wind within"
            " one of the rounds played ÷ %(size)s)"
        ) % {"name": names[player], "winds": winds, "n": played, "size": len(counts)}
        lines.append(line(what, why(player)))
    for player, table, at in found.returns:
        what = _("%(name)s is back at table %(table)s (%(rounds)s)") % {
            "name": names[player],
            "table": draw_models.table_label(table),
            "rounds": _round_list([number[r] for r in at]),
        }
        lines.append(line(what, why(player, tables=True)))
    return lines


@dataclass(frozen=True)
class RoomLine:
    """A line of the day's standings on the projector: the day's counted games so far."""

    rank: int
    name: str
    games: int
    total: int  # tenths of 1,000 points, as Result.score


def room_of(day: Day) -> draw_models.DrawRoom | None:
    return draw_models.DrawRoom.objects.filter(day=day).first()


def room_standings(club: Club, date: datetime.date) -> list[RoomLine]:
    """The day's standings by total score (one query): counted results only, so a game that
    counts for nobody is in no line."""
    rows = (
        Result.objects.filter(club=club, date=date, counted=True, member__fill_in=False)
        .exclude(game_id__in=held_game_ids(round__day__club=club, round__day__date=date))
        .values("member_id", "member__name")
        .annotate(games=Count("pk"), total=Sum("score"))
        .order_by("-total", "member__name")
    )
    lines: list[RoomLine] = []
    for i, row in enumerate(rows):
        ahead = lines[-1] if lines else None
        rank = ahead.rank if ahead is not None and ahead.total == row["total"] else i + 1
        lines.append(RoomLine(rank, row["member__name"], row["games"], row["total"]))
    return lines


# --- a draw made by the worker (league.draw.tasks) -------------------------------------------

# A draw asked of the worker that has waited for one, or run, this long has stalled (no worker
# running, or it stopped mid-way): the search itself stops within 30 s.
DRAW_STALLED_AFTER = datetime.timedelta(minutes=3)


@dataclass(frozen=True)
class DrawJob:
    """The day's draw asked of the worker, as its task's result says (Django Tasks' own status):
    `waiting` for a worker, `running`, `failed` (`error`: why, when the draw said so), `stalled`
    (waited or ran past DRAW_STALLED_AFTER), or `done`. `rounds`: 0 for the next round (or a
    redraw of the current one), else a schedule of that many rounds; `number`: the round."""

    state: str
    number: int = 0
    rounds: int = 0
    redraw: bool = False
    error: str = ""

    @property
    def busy(self) -> bool:
        return self.state in ("waiting", "running")

    @property
    def asked_again(self) -> bool:
        """Whether the organiser may ask for the draw again (it failed or stalled)."""
        return self.state in ("failed", "stalled")


def draw_job(room: draw_models.DrawRoom | None) -> DrawJob | None:
    """The day's worker draw (DrawRoom.draw_task), None when none was asked or the backend
    keeps no results (the immediate backend of the tests has run it by then). One query (the
    task's result row) when a draw was asked, none otherwise."""
    if room is None or room.draw_asked_at is None:
        return None
    now = timezone.now()
    if not room.draw_task:  # asked, not enqueued yet (the commit's callback stores the id)
        late = now - room.draw_asked_at > DRAW_STALLED_AFTER
        return DrawJob("stalled" if late else "waiting")
    if not default_task_backend.supports_get_result:
        return None
    try:
        result = default_task_backend.get_result(room.draw_task)
    except TaskResultDoesNotExist:  # pruned from the queue's table: long finished
        return None
    asked = result.kwargs
    facts = {
        "number": int(asked.get("number") or 0),
        "rounds": int(asked.get("rounds") or 0),
        "redraw": bool(asked.get("redraw")),
    }
    status = result.status
    if status == TaskResultStatus.READY:
        since = result.enqueued_at or room.draw_asked_at
        return DrawJob("stalled" if now - since > DRAW_STALLED_AFTER else "waiting", **facts)
    if status == TaskResultStatus.RUNNING:
        since = result.started_at or room.draw_asked_at
        return DrawJob("stalled" if now - since > DRAW_STALLED_AFTER else "running", **facts)
    if status == TaskResultStatus.FAILED:
        return DrawJob("failed", **facts)
    value = result.return_value if status == TaskResultStatus.SUCCESSFUL else None
    if isinstance(value, dict) and value.get("error"):
        return DrawJob("failed", error=str(value["error"]), **facts)
    return DrawJob("done", **facts)
