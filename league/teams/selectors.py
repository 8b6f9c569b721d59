"""Reads of a season's teams: a fixed number of queries, whatever the length of the history.

Team standings are sums of the season's kept member totals (league.models.totals.MemberTotal,
kept at write time by league.standings.services) over each team's roster, plus the booked
adjustments. A member counts for the team they are on now, for the whole season; a member's
adjustments count for them and for their team. The one exception: a game played at a team match
slot by a substitute counts for that slot's team, and for no other.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from typing import Any

from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from league.models import (
    Adjustment,
    FinalSeat,
    Member,
    Result,
    Season,
    Stage,
    StageEntry,
    Team,
    TeamMatch,
    TeamMember,
    TeamSlot,
)
from league.models.draw import table_label
from league.models.totals import MemberDay, MemberTotal
from scoring import lineup, stages

_INT = IntegerField()


def _sum(rows: Any, field: str, by: str = "season") -> Coalesce:
    grouped = rows.order_by().values(by).annotate(s=Sum(field)).values("s")[:1]
    return Coalesce(Subquery(grouped, output_field=_INT), Value(0), output_field=_INT)


def _count(rows: Any, by: str = "counted") -> Coalesce:
    grouped = rows.order_by().values(by).annotate(n=Count("pk")).values("n")[:1]
    return Coalesce(Subquery(grouped, output_field=_INT), Value(0), output_field=_INT)


_PLAYED = "match__game__results__score"  # a substitute slot's player's score in its game


def _substitute_slots(season: Season, *checks: Any, **games: Any) -> QuerySet[TeamSlot]:
    """The season's team match slots played by a substitute, each joined to its player's counted
    result (`checks`: more conditions on the slot; `games`: on the slot's game, in the same
    join)."""
    return TeamSlot.objects.filter(
        *checks,
        match__season=season,
        substitute=True,
        match__game__results__counted=True,
        match__game__results__member=F("member"),
        **{f"match__game__{k}": v for k, v in games.items()},
    )


def with_teams(seasons: QuerySet[Season]) -> QuerySet[Season]:
    """Seasons with `has_teams`, read in the same query: a page shows team standings only for a
    season that has teams, without a query for the others; and `has_adjustments` (any member's
    adjustment: the individual standings show their column, league.standings.tables); and
    `has_stages` (an event in stages: its standings are its current stage's, event_standings)."""
    return seasons.annotate(
        has_teams=Exists(Team.objects.filter(season=OuterRef("pk"))),
        has_stages=Exists(Stage.objects.filter(season=OuterRef("pk"))),
        has_adjustments=Exists(
            Adjustment.objects.filter(season=OuterRef("pk"), member__isnull=False)
        ),
    )


def running_seasons(*, club_id: int, date: datetime.date) -> list[Season]:
    """The club's seasons, team leagues and events whose dates hold `date`, with_teams'
    annotations: the club home's way to each, its stages and its teams (one query)."""
    return list(
        with_teams(Season.objects.filter(club_id=club_id, start__lte=date, end__gte=date)).order_by(
            "start", "pk"
        )
    )


def event_standings(*, season: Season) -> tuple[Stage, list[dict[str, Any]]] | None:
    """An event's standings: those of its current stage (the first not closed, else the last),
    as its stage page ranks them, carry-over included (stage_standings). They are the event's one
    order: on its season page, in its Excel file and in the API. None for a season without
    stages. A fixed number of queries: the stages, the rosters and stage_standings'."""
    stages = list(Stage.objects.filter(season=season).order_by("number"))
    if not stages:
        return None
    stage = next((s for s in stages if s.closed_at is None), stages[-1])
    stage.season = season
    return stage, stage_standings(stage=stage, rosters=season_rosters(season))


def season_rosters(season: Season) -> dict[int, int]:
    """Member id → team id of the season's rosters now (a stage of teams adds up its members)."""
    return dict(
        TeamMember.objects.filter(season=season, removed_at__isnull=True).values_list(
            "member", "team"
        )
    )


def team_standings(*, season: Season) -> list[dict[str, Any]]:
    """The season's teams, best first: games, the members' total (and the games its substitutes
    played at its team match slots), adjustments, total and position (ties share a position),
    with the team's colour and names. One query."""
    on_team = {
        "member__team_places__team": OuterRef("pk"),
        "member__team_places__removed_at__isnull": True,
    }
    member_totals = MemberTotal.objects.filter(season=season, **on_team)
    member_adjust = Adjustment.objects.filter(season=season, **on_team)
    team_adjust = Adjustment.objects.filter(season=season, team=OuterRef("pk"))
    # A substitute's games at the team's slot count for the team (their stored results).
    substitute = Result.objects.filter(
        counted=True,
        game__team_match__season=season,
        game__team_match__slots__team=OuterRef("pk"),
        game__team_match__slots__substitute=True,
        game__team_match__slots__member=F("member"),
    )
    # ... and only for it: a roster member who played a slot as a substitute (named while on no
    # team, then put on a team, or merged into a record on one) has that game in their season
    # total, which counts for their team; it comes off here.
    # Read from the season's substitute slots (a few), never from the members' results: the
    # roster is checked for each slot (Exists), not joined in, or a database may start there.
    on_roster = TeamMember.objects.filter(
        team=OuterRef(OuterRef("pk")), member=OuterRef("member"), removed_at__isnull=True
    )
    roster_substitute = _substitute_slots(season, Exists(on_roster))
    rows = list(
        Team.objects.filter(season=season)
        .annotate(
            games=_sum(member_totals, "games")
            - _count(roster_substitute, "substitute")
            + _count(substitute),
            scores=_sum(member_totals, "total")
            - _sum(roster_substitute, _PLAYED, "substitute")
            + _sum(substitute, "score", "counted"),
            adjust=_sum(member_adjust, "points") + _sum(team_adjust, "points"),
        )
        .annotate(total=F("scores") + F("adjust"), match_points=_match_points(season))
        .values(
            "pk",
            "name",
            "short_name",
            "colour",
            "games",
            "scores",
            "adjust",
            "total",
            "match_points",
        )
        .order_by(F("match_points").desc(nulls_last=True), "-total", "name", "pk")
    )
    position, previous = 0, None
    for i, row in enumerate(rows, start=1):
        key = (row["match_points"], row["total"])
        if key != previous:
            position, previous = i, key
        row["position"] = position
    return rows


def _match_points(season: Season) -> Any:
    """Where the season ranks teams by match points: the points by place (Result.rank, kept
    at write time) of the team's players at its team match tables, current revisions only;
    else None."""
    points = [int(p) for p in season.team_match_points or []]
    if not points:
        return Value(None, output_field=_INT)
    played = Result.objects.filter(
        counted=True,
        game__team_match__season=season,
        game__team_match__slots__team=OuterRef("pk"),
        game__team_match__slots__member=F("member"),
    ).annotate(
        mp=Case(
            *(When(rank=place, then=Value(p)) for place, p in enumerate(points, start=1)),
            default=Value(0),
            output_field=_INT,
        )
    )
    return _sum(played, "mp", "counted")


def team_rosters(*, season: Season) -> dict[int, list[dict[str, Any]]]:
    """Team id → its members now (captains first): name, captain, games, score, adjustments,
    total. One query."""
    member = OuterRef("member")
    total = MemberTotal.objects.filter(season=season, member=member)
    adjust = Adjustment.objects.filter(season=season, member=member)
    rows = (
        TeamMember.objects.filter(season=season, removed_at__isnull=True)
        .annotate(
            games=_sum(total, "games"),
            score=_sum(total, "total"),
            adjust=_sum(adjust, "points"),
        )
        .annotate(total=F("score") + F("adjust"))
        .values("team", "member", "is_captain", "games", "score", "adjust", "total")
        .annotate(name=F("member__name"))
        .order_by("team", "-is_captain", "-total", "member__kana", "member")
    )
    by_team: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_team[row["team"]].append(row)
    return by_team


def season_adjustments(*, season: Season) -> list[dict[str, Any]]:
    """The season's adjustments, newest first, with who they are for and whether undone. One
    query."""
    return list(
        Adjustment.objects.filter(season=season)
        .values(
            "pk",
            "kind",
            "points",
            "rate",
            "yen",
            "reason",
            "created_at",
            "member",
            "team",
            "reverses",
        )
        .annotate(
            member_name=F("member__name"),
            team_name=F("team__name"),
            team_colour=F("team__colour"),
            by=F("created_by__username"),
            undone=F("reversed_by__pk"),
        )
        .order_by("-created_at", "-pk")
    )


def match_days(*, season: Season) -> list[dict[str, Any]]:
    """The season's team match days, latest first: date, games (rounds) and tables recorded out
    of all. One query."""
    return list(
        TeamMatch.objects.filter(season=season)
        .values("date")
        .annotate(
            rounds=Count("round", distinct=True),
            tables=Count("pk"),
            recorded=Count("game"),
        )
        .order_by("-date")
    )


def match_day(*, season: Season, date: datetime.date) -> list[dict[str, Any]]:
    """A match day's rounds: each with its tables (label, game number, slots in seat order with
    the team and the named player). One query."""
    slots = (
        TeamSlot.objects.filter(match__season=season, match__date=date)
        .select_related("match", "match__game", "team", "member")
        .order_by("match__round", "match__position", "seat")
    )
    rounds: dict[int, dict[int, dict[str, Any]]] = {}
    for s in slots:
        m = s.match
        table = rounds.setdefault(m.round, {}).setdefault(
            m.pk,
            {
                "pk": m.pk,
                "label": table_label(m.position),
                "game": m.game,
                "slots": [],
            },
        )
        table["slots"].append(s)
    out = []
    for number, tables in rounds.items():
        rows = list(tables.values())
        for t in rows:
            t["ready"] = all(s.member_id is not None for s in t["slots"])
        out.append({"round": number, "tables": rows})
    return out


def slot_choices(*, season: Season) -> tuple[dict[int, list[Member]], list[Member]]:
    """Who a slot can name: team id → its roster now, and the substitutes (the club's active
    members on no team of the season). Two queries."""
    rosters: dict[int, list[Member]] = defaultdict(list)
    on_team = (
        TeamMember.objects.filter(season=season, removed_at__isnull=True)
        .select_related("member")
        .order_by("team", "-is_captain", "member__kana", "member")
    )
    for row in on_team:
        rosters[row.team_id].append(row.member)
    subs = list(
        Member.objects.filter(club_id=season.club_id, merged_into__isnull=True, is_active=True)
        .exclude(
            Exists(
                TeamMember.objects.filter(
                    season=season, member=OuterRef("pk"), removed_at__isnull=True
                )
            )
        )
        .order_by("kana", "name")
    )
    return rosters, subs


def team_games(*, season: Season, date: datetime.date) -> dict[int, dict[str, int]]:
    """Member → their games at the season's team match slots: `before` the day, `shown` up to
    and including it (recorded games, current revisions), and the `last` round they played
    before the day (0: none; rounds run on over the season). One query."""
    # From the season's slots (its team match days' index), not from the club's results.
    rows = (
        TeamSlot.objects.filter(
            match__season=season,
            match__date__lte=date,
            match__game__results__counted=True,
            match__game__results__member=F("member"),
        )
        .values("member")
        .annotate(
            before=Count("pk", filter=Q(match__date__lt=date)),
            shown=Count("pk"),
            last=Max("match__round", filter=Q(match__date__lt=date)),
        )
        .values_list("member", "before", "shown", "last")
    )
    return {m: {"before": b, "shown": s, "last": last or 0} for m, b, s, last in rows}


def met_before(*, season: Season, date: datetime.date) -> dict[tuple[int, int], int]:
    """(roster player, player named on the day) → how many counted games of the season before
    the day they played together: the draw's season meetings (league.draw.selectors.season_pairs:
    the same games), for only the pairs the day's slots can make. One query, whatever the
    history's length."""
    roster = TeamMember.objects.filter(season=season, removed_at__isnull=True).values("member")
    named = TeamSlot.objects.filter(
        match__season=season, match__date=date, member__isnull=False
    ).values("member")
    rows = (
        Result.objects.filter(
            club_id=season.club_id,
            counted=True,
            date__gte=season.start,
            date__lt=date,
            member__in=roster,
            game__results__counted=True,
            game__results__member__in=named,
        )
        .values("member", "game__results__member")
        .annotate(n=Count("game", distinct=True))
        .values_list("member", "game__results__member", "n")
    )
    return {(a, b): n for a, b, n in rows if a != b}


def suggest_players(
    rounds: list[dict[str, Any]],
    rosters: dict[int, list[Member]],
    games: dict[int, dict[str, int]],
    met: dict[tuple[int, int], int],
) -> None:
    """Set on each slot of the day not yet named (its table not recorded) `suggested` (a roster
    player's id, or None) and `suggested_by` (scoring.lineup's rule), walking the day in order:
    the roster player with the fewest games (those before the day, the day's named slots, and
    the suggestions of earlier slots), then the fewest meetings with the players already named
    at the table (this season before the day, and at the day's tables), then the one out
    longest, then the roster's order. Nobody named or suggested in the slot's round is
    suggested for it. No query: on the day's slots (match_day), the rosters (slot_choices) and
    the figures of team_games and met_before."""
    played: dict[int, set[int]] = defaultdict(set)  # member → the day's rounds named/suggested
    in_round: dict[int, set[int]] = defaultdict(set)
    met_today: dict[tuple[int, int], int] = defaultdict(int)
    for r in rounds:
        for table in r["tables"]:
            named = [s.member_id for s in table["slots"] if s.member_id is not None]
            for m in named:
                played[m].add(r["round"])
                in_round[r["round"]].add(m)
                for other in named:
                    if other != m:
                        met_today[(m, other)] += 1
    for r in rounds:
        number = r["round"]
        for table in r["tables"]:
            opponents = [s.member_id for s in table["slots"] if s.member_id is not None]
            for slot in table["slots"]:
                slot.suggested, slot.suggested_by = None, ""
                if slot.member_id is not None or table["game"] is not None:
                    continue
                candidates = []
                for order, m in enumerate(rosters.get(slot.team_id, [])):
                    if m.pk in in_round[number]:
                        continue
                    before = games.get(m.pk, {})
                    earlier = [n for n in played[m.pk] if n < number]
                    candidates.append(
                        lineup.Candidate(
                            key=m.pk,
                            games=before.get("before", 0) + len(played[m.pk]),
                            met=sum(
                                met.get((m.pk, o), 0) + met_today[(m.pk, o)] for o in opponents
                            ),
                            last=max(earlier, default=before.get("last", 0)),
                            order=order,
                        )
                    )
                pick = lineup.suggest(candidates)
                if pick is not None:
                    slot.suggested, slot.suggested_by = pick
                    played[pick[0]].add(number)
                    in_round[number].add(pick[0])


def captain_of(*, season: Season, user: Any) -> set[int]:
    """The teams of the season whose captain the user is linked to. One query."""
    if not getattr(user, "is_authenticated", False):
        return set()
    return set(
        TeamMember.objects.filter(
            season=season, removed_at__isnull=True, is_captain=True, member__user=user
        ).values_list("team_id", flat=True)
    )


# --- events in stages --------------------------------------------------------------------------


def _member_days(season: Season, stage: Stage) -> dict[int, tuple[int, int]]:
    """member → (games, score) over the stage's dates, from the kept day totals. One query."""
    rows = (
        MemberDay.objects.filter(
            club_id=season.club_id, date__range=(stage.first_day, stage.last_day)
        )
        .values("member")
        .annotate(g=Sum("games"), s=Sum("score"))
        .values_list("member", "g", "s")
    )
    return {m: (g, s) for m, g, s in rows}


def _stage_substitutes(season: Season, stage: Stage) -> list[tuple[int, int, int]]:
    """(slot's team, member, score) of each counted game played at a team match slot by a
    substitute in the stage's dates. One query, read from the season's substitute slots."""
    slots = _substitute_slots(season, date__range=(stage.first_day, stage.last_day))
    return list(slots.values_list("team", "member", _PLAYED))


def _stage_adjustments(season: Season, stage: Stage) -> list[tuple[int | None, int | None, int]]:
    """(member, team, points) of the adjustments booked in `stage`: after the stage before it
    closed (its carried points were fixed then), and before this one closed, unless it is the
    last stage (which takes every later one). An adjustment has no date of play: the stage
    open when it was booked is the one it counts in. One query."""
    rows = Adjustment.objects.filter(season=season)
    before = Stage.objects.filter(season=season, number__lt=stage.number).order_by("-number")
    if stage.number > 1:  # nothing while the stage before is open (NULL compares false)
        rows = rows.filter(created_at__gte=Subquery(before.values("closed_at")[:1]))
    if stage.closed_at is not None:
        later = Stage.objects.filter(season=season, number__gt=stage.number)
        rows = rows.filter(Q(created_at__lt=stage.closed_at) | ~Exists(later))
    return list(
        rows.order_by()
        .values("member", "team")
        .annotate(s=Sum("points"))
        .values_list("member", "team", "s")
    )


def stage_standings(*, stage: Stage, rosters: dict[int, int] | None = None) -> list[dict[str, Any]]:
    """A stage's standings, best first: each entrant (a member or a team) with its games and
    score in the stage's dates (the kept day totals; a team's are its members' now), the points
    it carried in, its total and position (ties share one). The first stage's entrants are
    everyone who played in its dates (members) or the season's teams; a later stage's, those
    who went through (its entries). The adjustments booked in the stage count in its total
    (`adjust`; a member's for their team too, as the season's team standings), and a member
    with adjustments but no game in the first stage is listed with 0 games. Each row's `entry`
    says whether it is one of the stage's entries, which a cut by share is taken of
    (`stage_cut`); those through follow the cut (`through`). A team's games
    include those its substitutes played at its team match slots (and a roster member's games
    as another team's substitute are that team's). Five queries, four when `rosters` (member →
    team) is given; one more for teams."""
    season = stage.season
    days = _member_days(season, stage)
    booked = _stage_adjustments(season, stage)
    teams = stage.entrants == Stage.TEAMS
    rows: dict[int, dict[str, Any]] = {}
    entries = list(
        StageEntry.objects.filter(stage=stage).select_related("member", "team").order_by("place")
    )
    if entries:
        for e in entries:
            who = e.team if teams else e.member
            if who is None:
                continue
            rows[who.pk] = {
                "key": who.pk,
                "name": who.name,
                "colour": getattr(who, "colour", ""),
                "games": 0,
                "score": 0,
                "carried": e.carried,
                "order": e.place,
            }
    elif teams:
        for t in Team.objects.filter(season=season).order_by("pk"):
            rows[t.pk] = {
                "key": t.pk,
                "name": t.name,
                "colour": t.colour,
                "games": 0,
                "score": 0,
                "carried": 0,
                "order": 0,
            }
    else:
        adjusted = {m for m, _t, _s in booked if m is not None}
        names = dict(Member.objects.filter(pk__in={*days, *adjusted}).values_list("pk", "name"))
        for pk, name in names.items():
            rows[pk] = {
                "key": pk,
                "name": name,
                "colour": "",
                "games": 0,
                "score": 0,
                "carried": 0,
                "order": 0,
            }
    for row in rows.values():
        row["adjust"] = 0
    if teams:
        if rosters is None:
            rosters = dict(
                TeamMember.objects.filter(season=season, removed_at__isnull=True).values_list(
                    "member", "team"
                )
            )
        for member, (g, s) in days.items():
            row = rows.get(rosters.get(member, 0))
            if row is not None:
                row["games"] += g
                row["score"] += s
        # A game at a team match slot played by a substitute counts for the slot's team, and
        # only for it (as in team_standings): off the team of a substitute on a roster now.
        for team, member, score in _stage_substitutes(season, stage):
            for row, sign in ((rows.get(rosters.get(member, 0)), -1), (rows.get(team), 1)):
                if row is not None:
                    row["games"] += sign
                    row["score"] += sign * score
        for member, team, points in booked:
            row = rows.get(team if team is not None else rosters.get(member or 0, 0))
            if row is not None:
                row["adjust"] += points
    else:
        for member, (g, s) in days.items():
            row = rows.get(member)
            if row is not None:
                row["games"], row["score"] = g, s
        for member, _team, points in booked:
            row = rows.get(member or 0)
            if row is not None:
                row["adjust"] += points
    # The stage's entries, which a cut by share is taken of: a later stage's entries (those
    # who went through to it); in the first stage, every member or team with a game in it.
    for row in rows.values():
        row["entry"] = bool(entries) or (stage.number == 1 and row["games"] > 0)
    entrants = [
        stages.Entrant(
            key=r["key"], total=r["carried"] + r["score"] + r["adjust"], order=r["order"]
        )
        for r in rows.values()
    ]
    through = set()
    count = stage.cut_count(sum(r["entry"] for r in rows.values()))
    if count is not None:
        through = {e.key for e in stages.advance(entrants, count, stage.ties)}
    out = []
    for position, e in stages.ranked(entrants):
        row = rows[e.key]
        row.update(total=e.total, position=position, through=e.key in through)
        out.append(row)
    return out


def stage_cut(*, stage: Stage, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A stage's cut as its page and its close say it, from its standings (`rows`, no query):
    the share (a percent, or None for a number), the entries it is taken of now (a later
    stage's entries, or in the first stage everyone with a game in it), and how many that sends
    on (the number, or the share of the entries rounded up, at least 1; None for the last
    stage). A later stage whose entries are not in yet has `known` False: its count waits
    for them."""
    entries = sum(1 for r in rows if r.get("entry"))
    return {
        "advance": stage.advance,
        "share": stage.advance_share,
        "entries": entries,
        "count": stage.cut_count(entries),
        "known": stage.advance_share is None or entries > 0,
    }


WINDS = "東南西北"


def final_tables(*, stage: Stage, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A fixed-table stage's final tables as seated now: each with its label, its name for a
    game's table ("Final A"), and its players in seat order (wind, the order they went through
    in, their place in the stage before, and from `rows`, the stage's standings: games, total,
    position). The table's games
    are its players' (a final's game is one table's: league.teams.services.final_table_errors).
    One query."""
    by_member = {r["key"]: r for r in rows}
    seats = (
        FinalSeat.objects.filter(stage=stage, current=True)
        .order_by("table", "seat")
        .values("table", "seat", "member", "place", "drawn", "revision", "created_at")
        .annotate(name=F("member__name"))
    )
    tables: dict[int, dict[str, Any]] = {}
    for s in seats:
        label = table_label(s["table"])
        table = tables.setdefault(
            s["table"],
            {
                "label": label,
                "name": _("Final %(table)s") % {"table": label},
                "drawn": s["drawn"],
                "revision": s["revision"],
                "seated_at": s["created_at"],
                "seats": [],
                "games": 0,
            },
        )
        row = by_member.get(s["member"], {})
        table["seats"].append(
            {
                "wind": WINDS[s["seat"]] if s["seat"] < len(WINDS) else "",
                "name": s["name"],
                "member": s["member"],
                "place": s["place"],
                "qualified": row.get("order"),  # their place in the stage before (ties shared)
                "games": row.get("games", 0),
                "total": row.get("total", 0),
                "position": row.get("position"),
            }
        )
        table["games"] = max(table["games"], row.get("games", 0))
    return list(tables.values())
