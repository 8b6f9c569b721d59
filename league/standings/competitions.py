"""Which games a season counts: the one owner of the rule, read by the kept totals when they move
(results_changed) and when they are rebuilt, and by the pages that aggregate a season's dates.

Beside its individual seasons (個人リーグ), a club may run a team league (チーム戦) or an event in
stages (大会), each a Season of its kind. Each counts its own games:

- a team league's own games are those recorded from its match tables (TeamMatch.game);
- an event's own games are those on its stages' days.

An individual season counts the club's games in its dates, except the own games of a team league
or event that was not created to count in it too (`Season.in_club_season`). A team league or an
event counts the games in its dates as before: its team standings and its stages pick theirs.
All time counts every game.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence

from django.db.models import Exists, OuterRef, Q

from league.models import Season, Stage, TeamMatch


def _kept_apart(prefix: str = "") -> Q:
    """Season.keeps_apart as a filter (on seasons, or through `prefix` on rows of a season)."""
    return Q(**{f"{prefix}in_club_season": False}) & ~Q(**{f"{prefix}kind": Season.INDIVIDUAL})


class Counting:
    """Which of `seasons` (a club's, all of them) count each game of a write (`game_ids`; None:
    any game, for a rebuild): loaded once per write, with one query for the event days and one for
    the team games only when the club has a team league or event apart (none for most clubs)."""

    def __init__(self, seasons: Sequence[Season], game_ids: Iterable[int] | None = None) -> None:
        self.seasons = seasons
        apart = [s for s in seasons if s.keeps_apart]
        self.event_days: list[tuple[datetime.date, datetime.date]] = []
        self.team_games: set[int] = set()
        if not apart:
            return
        ids = [s.pk for s in apart]
        self.event_days = list(
            Stage.objects.filter(season_id__in=ids).values_list("first_day", "last_day")
        )
        matches = TeamMatch.objects.filter(season_id__in=ids, game__isnull=False)
        if game_ids is not None:
            games = sorted(set(game_ids))
            if not games:
                return
            matches = matches.filter(game_id__in=games)
        self.team_games = set(matches.values_list("game_id", flat=True))

    def _apart(self, game_id: int, date: datetime.date) -> bool:
        return game_id in self.team_games or any(a <= date <= b for a, b in self.event_days)

    def holding(self, game_id: int, date: datetime.date) -> list[int]:
        """The ids of the seasons that count the game of `game_id` on `date`."""
        apart = self._apart(game_id, date)
        return [
            s.pk
            for s in self.seasons
            if s.start <= date <= s.end and not (apart and s.kind == Season.INDIVIDUAL)
        ]


def in_season(season: Season, game: str = "game") -> Q:
    """A filter on rows with a date and a `game` (Result, Hand…): the games `season` counts. For
    an individual season, two correlated EXISTS over the indexed match and stage rows."""
    q = Q(date__gte=season.start, date__lte=season.end)
    if season.kind != Season.INDIVIDUAL:
        return q
    apart = Q(season__club_id=season.club_id) & _kept_apart("season__")
    team = TeamMatch.objects.filter(apart, game=OuterRef(game))
    event = Stage.objects.filter(
        apart, first_day__lte=OuterRef("date"), last_day__gte=OuterRef("date")
    )
    return q & ~Exists(team) & ~Exists(event)


def apart_over(season: Season) -> bool:
    """Whether an individual season has games kept apart: a team league or event apart over its
    dates (one indexed query; False for other kinds, without one)."""
    if season.kind != Season.INDIVIDUAL:
        return False
    return Season.objects.filter(
        _kept_apart(), club_id=season.club_id, start__lte=season.end, end__gte=season.start
    ).exists()
