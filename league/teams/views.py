"""A season's teams page (team standings, rosters, adjustments) and the organiser's forms.

The page is a fixed number of queries: the club and the user's role, the season, the team
standings (one aggregate over the kept member totals), the rosters and the adjustments.
"""

from __future__ import annotations

import datetime
import unicodedata
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST, require_safe

import scoring
from league import limits
from league.access import club_for, results_page
from league.core import format as jancho
from league.core.clock import today
from league.core.errors import ServiceError
from league.models import (
    Adjustment,
    Club,
    FinalSeat,
    Member,
    Season,
    Stage,
    Team,
    TeamMember,
    TeamSlot,
)
from league.teams import selectors, services
from league.teams.forms import AdjustmentForm, MatchDayForm, StageForm, TeamForm
from league.web import add_errors, show_errors
from scoring import lineup

# Why a slot's player is suggested (scoring.lineup's rules), as the page says it.
SUGGESTED_BY = {
    lineup.FEWEST_GAMES: gettext_lazy("fewest games"),
    lineup.FEWEST_MEETINGS: gettext_lazy("fewest meetings with this table"),
    lineup.LONGEST_OUT: gettext_lazy("out longest"),
    lineup.ROSTER_ORDER: gettext_lazy("roster order"),
    lineup.ONLY_ONE: gettext_lazy("the only one free"),
}

# M.League's chombo, booked to the season total (m-league.aja0.com/?p=66023): the form's preset.
CHOMBO_POINTS = 200  # tenths of 1,000 points


def _members(club_id: int) -> list[Member]:
    return list(
        Member.objects.filter(club_id=club_id, merged_into__isnull=True, is_active=True).order_by(
            "kana", "name"
        )
    )


@require_safe
@results_page
def season_teams(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    club = club_for(request, slug)
    season = get_object_or_404(Season, club=club, pk=season_id)
    standings = selectors.team_standings(season=season)
    rosters = selectors.team_rosters(season=season)
    context = {
        "club": club,
        "season": season,
        "standings_rows": standings,
        "teams": [(row, rosters.get(row["pk"], [])) for row in standings],
        "adjustments": selectors.season_adjustments(season=season),
        "match_days": selectors.match_days(season=season),
    }
    return render(request, "league/teams/season_teams.html", context)


# Distinct on a phone and printed: blue, red, green, amber, purple, teal, brown, pink, grey, navy.
TEAM_COLOURS = (
    "#2b6cb0",
    "#c53030",
    "#2f855a",
    "#b7791f",
    "#6b46c1",
    "#2c7a7b",
    "#8b5a2b",
    "#b83280",
    "#4a5568",
    "#1a365d",
)


def _team_form(
    request: HttpRequest, slug: str, season_id: int, team_id: int | None
) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    season = get_object_or_404(Season, club=club, pk=season_id)
    team = None if team_id is None else get_object_or_404(Team, season=season, pk=team_id)
    members = Member.objects.filter(club=club, merged_into__isnull=True).order_by("kana", "name")
    initial = None
    if team is None:  # a new team: the first colour of TEAM_COLOURS no team of the season has
        taken = set(Team.objects.filter(season=season).values_list("colour", flat=True))
        initial = {"colour": next((c for c in TEAM_COLOURS if c not in taken), TEAM_COLOURS[0])}
    else:
        roster = list(TeamMember.objects.filter(team=team, removed_at__isnull=True))
        initial = {
            "name": team.name,
            "short_name": team.short_name,
            "colour": team.colour,
            "members": [r.member_id for r in roster],
            "captains": [r.member_id for r in roster if r.is_captain],
        }
    form = TeamForm(request.POST or None, initial=initial, members=members)
    if request.method == "POST" and form.is_valid():
        data = services.TeamInput(
            name=form.cleaned_data["name"],
            short_name=form.cleaned_data["short_name"],
            colour=form.cleaned_data["colour"],
            members=list(form.cleaned_data["members"]),
            captains=list(form.cleaned_data["captains"]),
        )
        try:
            if team is None:
                team = services.team_create(season=season, user=request.user, data=data)
                messages.success(request, _("Team %(name)s was created.") % {"name": team.name})
            else:
                team = services.team_edit(team=team, user=request.user, data=data)
                messages.success(request, _("Team %(name)s was saved.") % {"name": team.name})
        except ServiceError as e:
            add_errors(form, e)
        else:
            return redirect("teams:season_teams", club.slug, season.pk)
    context = {"club": club, "season": season, "team": team, "form": form}
    return render(request, "league/teams/team_form.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
def team_new(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    return _team_form(request, slug, season_id, None)


@require_http_methods(["GET", "HEAD", "POST"])
def team_edit(request: HttpRequest, slug: str, season_id: int, team_id: int) -> HttpResponse:
    return _team_form(request, slug, season_id, team_id)


@require_http_methods(["GET", "HEAD", "POST"])
def adjustment_new(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    season = get_object_or_404(Season, club=club, pk=season_id)
    teams = list(Team.objects.filter(season=season).order_by("name"))
    members = _members(club.pk)
    rates = services.season_rates(season)
    initial = {"kind": request.GET.get("kind", Adjustment.PENALTY)}
    if initial["kind"] == Adjustment.CHOMBO:  # M.League's: ▲20.0 to the season total
        initial |= {"points": jancho.score(-CHOMBO_POINTS), "reason": _("Chombo")}
    form = AdjustmentForm(
        request.POST or None, initial=initial, members=members, teams=teams, rates=rates
    )
    if request.method == "POST" and form.is_valid():
        target = form.cleaned_data["target"]
        member = next((m for m in members if f"m{m.pk}" == target), None)
        team = next((t for t in teams if f"t{t.pk}" == target), None)
        try:
            services.adjustment_book(
                season=season,
                user=request.user,
                member=member,
                team=team,
                kind=form.cleaned_data["kind"],
                points=form.cleaned_data["points"],
                rate=form.cleaned_data.get("rate", ""),
                reason=form.cleaned_data["reason"],
            )
        except ServiceError as e:
            add_errors(form, e)
        else:
            messages.success(request, _("The adjustment was booked."))
            return redirect("teams:season_teams", club.slug, season.pk)
    context = {"club": club, "season": season, "form": form}
    return render(request, "league/teams/adjustment_form.html", context)


@require_POST
def adjustment_undo(
    request: HttpRequest, slug: str, season_id: int, adjustment_id: int
) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    entry = get_object_or_404(Adjustment, club=club, season_id=season_id, pk=adjustment_id)
    try:
        services.adjustment_reverse(entry=entry, user=request.user)
    except ServiceError as e:
        show_errors(request, e)
    else:
        messages.success(request, _("The adjustment was undone."))
    return redirect("teams:season_teams", club.slug, season_id)


# --- team match days ---------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def team_day_new(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    season = get_object_or_404(Season, club=club, pk=season_id)
    form = MatchDayForm(request.POST or None, initial={"date": f"{today():%Y/%m/%d}"})
    if request.method == "POST" and form.is_valid():
        date = form.cleaned_data["date"]
        try:
            services.match_day_schedule(
                season=season, user=request.user, date=date, games=form.cleaned_data["games"]
            )
        except ServiceError as e:
            add_errors(form, e)
        else:
            messages.success(request, _("The match day was scheduled."))
            return redirect("teams:team_day", club.slug, season.pk, date)
    context = {"club": club, "season": season, "form": form}
    return render(request, "league/teams/team_day_form.html", context)


def _record_url(club: Club, date: datetime.date, table: dict[str, Any]) -> str:
    params: dict[str, object] = {
        "date": date.isoformat(),
        "table": table["label"],
        "team_match": table["pk"],
    }
    for seat, slot in enumerate(table["slots"]):
        params[f"member_{seat}"] = slot.member.name
    return f"{reverse('recording:game_new', args=[club.slug])}?{urlencode(params)}"


@require_safe
def team_day(request: HttpRequest, slug: str, season_id: int, date: datetime.date) -> HttpResponse:
    """A match day: its rounds' tables, each slot's team and the player named for it; a captain
    names theirs, an organiser any, and records a table whose players are all named. Each slot
    not named yet has a roster player suggested (selectors.suggest_players: fewest games, then
    fewest meetings with the table), and each roster player shows their games. A fixed number
    of queries: the club with the role, the season, the slots, the rosters and substitutes, the
    user's captaincies, the team match games, the season's meetings, the team standings."""
    club = club_for(request, slug)
    season = get_object_or_404(Season, club=club, pk=season_id)
    rounds = selectors.match_day(season=season, date=date)
    if not rounds:
        raise Http404
    captain_of = selectors.captain_of(season=season, user=request.user)
    rosters, subs = selectors.slot_choices(season=season)
    games = selectors.team_games(season=season, date=date)
    selectors.suggest_players(
        rounds, rosters, games, selectors.met_before(season=season, date=date)
    )
    names: dict[int, str] = {}
    for roster in rosters.values():
        for m in roster:
            m.team_games = games.get(m.pk, {}).get("shown", 0)
            names[m.pk] = m.name
    for r in rounds:
        for table in r["tables"]:
            if table["ready"] and table["game"] is None and club.is_organiser:
                table["record_url"] = _record_url(club, date, table)
            for slot in table["slots"]:
                slot.can_name = table["game"] is None and (
                    club.is_organiser or slot.team_id in captain_of
                )
                slot.roster = rosters.get(slot.team_id, [])
                slot.wind = "東南西北"[slot.seat] if slot.seat < 4 else ""
                if slot.suggested is not None:
                    slot.suggested_name = names[slot.suggested]
                    slot.suggested_why = SUGGESTED_BY[slot.suggested_by]
    context = {
        "club": club,
        "season": season,
        "date": date,
        "rounds": rounds,
        "substitutes": subs,
        "standings_rows": selectors.team_standings(season=season),
    }
    return render(request, "league/teams/team_day.html", context)


@require_POST
def slot_name(request: HttpRequest, slug: str, season_id: int, slot_id: int) -> HttpResponse:
    club = club_for(request, slug)
    slot = get_object_or_404(
        TeamSlot.objects.select_related("match"),
        match__club=club,
        match__season_id=season_id,
        pk=slot_id,
    )
    member_id = limits.row_id(request.POST.get("member", ""))
    member = Member.objects.filter(club=club, pk=member_id).first() if member_id else None
    if member is None:
        messages.error(request, _("Choose who plays."))
    else:
        try:
            services.slot_name(
                slot=slot, user=request.user, member=member, organiser=club.is_organiser
            )
        except ServiceError as e:
            show_errors(request, e)
        else:
            messages.success(request, _("%(name)s plays.") % {"name": member.name})
    return redirect("teams:team_day", club.slug, season_id, slot.match.date)


# --- events in stages ----------------------------------------------------------------------------


@require_safe
@results_page
def season_stages(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    """The event page: each stage's standings and who went through. Per stage a fixed number of
    queries (a season has at most services.MAX_STAGES stages), whatever the history."""
    club = club_for(request, slug)
    season = get_object_or_404(Season, club=club, pk=season_id)
    stage_rows = list(Stage.objects.filter(season=season).order_by("number"))
    rosters = selectors.season_rosters(season)
    stages = []
    for i, stage in enumerate(stage_rows):
        stage.season = season
        before = stage_rows[i - 1] if i else None
        nxt = stage_rows[i + 1] if i + 1 < len(stage_rows) else None
        rows = selectors.stage_standings(stage=stage, rosters=rosters)
        final = stage.fixed_table and stage.entrants == Stage.MEMBERS
        tables = selectors.final_tables(stage=stage, rows=rows) if final else []
        for table in tables:
            table["record_url"] = _final_record_url(club, stage, table)
        stages.append(
            {
                "stage": stage,
                "rows": rows,
                "next": nxt,
                "can_close": club.is_organiser
                and stage.closed_at is None
                and stage.sends_on
                and nxt is not None,
                "cut": selectors.stage_cut(stage=stage, rows=rows),
                "tables": tables,
                # 決勝卓を組む: once the stage before closed; again (a new draw) before its games
                "can_seat": club.is_organiser
                and final
                and before is not None
                and before.closed_at is not None
                and (not tables or (stage.seating == "draw" and not any(r["games"] for r in rows))),
            }
        )
    context = {"club": club, "season": season, "stages": stages}
    return render(request, "league/teams/season_stages.html", context)


def _final_record_url(club: Club, stage: Stage, table: dict[str, Any]) -> str:
    """The new-game form for a final table's next hanchan: its players in their seats, the
    date today's when within the stage's dates, else its first day."""
    day = today()
    date = day if stage.first_day <= day <= stage.last_day else stage.first_day
    params: dict[str, object] = {"date": date.isoformat(), "table": table["name"]}
    for seat, player in enumerate(table["seats"]):
        params[f"member_{seat}"] = player["name"]
    return f"{reverse('recording:game_new', args=[club.slug])}?{urlencode(params)}"


@require_POST
def stage_seat(request: HttpRequest, slug: str, season_id: int, stage_id: int) -> HttpResponse:
    """決勝卓を組む: the organiser seats those through at the stage's final tables."""
    club = club_for(request, slug, organiser=True)
    stage = get_object_or_404(Stage, club=club, season_id=season_id, pk=stage_id)
    try:
        services.final_seat(stage=stage, user=request.user)
    except ServiceError as e:
        show_errors(request, e)
    else:
        messages.success(request, _("The final tables were seated."))
    return redirect(
        f"{reverse('teams:season_stages', args=[club.slug, season_id])}#stage-{stage.number}"
    )


@require_http_methods(["GET", "HEAD", "POST"])
def stage_new(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    season = get_object_or_404(Season, club=club, pk=season_id)
    form = StageForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        data = services.StageInput(
            name=d["name"],
            first_day=d["first_day"],
            last_day=d["last_day"],
            entrants=d["entrants"],
            advance=d["advance"],
            advance_share=d["advance_share"],
            carry=d["carry"],
            bonus=d["bonus"],
            ties=d["ties"],
            fixed_table=d["fixed_table"],
            seating=d["seating"] or "order",
        )
        try:
            services.stage_create(season=season, user=request.user, data=data)
        except ServiceError as e:
            add_errors(form, e)
        else:
            messages.success(request, _("The stage was added."))
            return redirect("teams:season_stages", club.slug, season.pk)
    context = {"club": club, "season": season, "form": form}
    return render(request, "league/teams/stage_form.html", context)


@require_POST
def stage_close(request: HttpRequest, slug: str, season_id: int, stage_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    stage = get_object_or_404(Stage, club=club, season_id=season_id, pk=stage_id)
    try:
        services.stage_close(stage=stage, user=request.user)
    except ServiceError as e:
        show_errors(request, e)
    else:
        messages.success(request, _("The stage was closed: those through are in the next one."))
        seated = FinalSeat.objects.filter(
            stage__season_id=season_id, stage__number=stage.number + 1, current=True
        )
        if seated.exists():
            messages.success(request, _("The final tables were seated."))
    return redirect("teams:season_stages", club.slug, season_id)


@require_POST
def team_points(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    """The organiser sets how team standings count: match points by place, or (empty) the
    members' scores."""
    club = club_for(request, slug, organiser=True)
    season = get_object_or_404(Season, club=club, pk=season_id)
    text = unicodedata.normalize("NFKC", request.POST.get("points", ""))[:100]
    try:
        points = [
            scoring.parse_integer(p) for p in text.replace(",", " ").replace("、", " ").split()
        ]
        services.team_points_set(season=season, user=request.user, points=points)
    except ValueError:
        messages.error(request, _("Enter match points as whole numbers, e.g. 4 2 1 0."))
    except ServiceError as e:
        show_errors(request, e)
    else:
        messages.success(request, _("How team standings count was saved."))
    return redirect("teams:season_teams", club.slug, season_id)
