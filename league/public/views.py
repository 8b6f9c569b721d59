"""The share link's settings page (organisers, c/<slug>/sharing/) and the public pages
(s/<token>/...): read-only, no login, nothing that links into the club's own pages.

The public pages reuse the club pages' selectors, tables and charts and render them with
templates/league/public/, which extend their own base (no club navigation, no user). Each page
costs a fixed number of queries: the club by its token, then what the club page of the same name
reads (without the membership query).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any

from django.contrib import messages
from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from league import money
from league.access import club_for, day_for
from league.core import clock
from league.models import Club, Day, RulesVersion, Season
from league.models import draw as draw_selectors
from league.money import sharing
from league.public import services
from league.recording import selectors
from league.standings import selectors as aggregate_selectors
from league.standings import stats
from league.standings.tables import Shown
from league.standings.views import players
from league.standings.views import standings as standings_views
from league.standings.views import stats as views_stats
from league.teams import selectors as team_selectors
from league.teams.selectors import with_teams

DAYS_PER_PAGE = 50
NOT_FOUND = "league/public/404.html"
# Sent with every public page: not indexed, the link not passed on to another site in a Referer
# (same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` with the language
# switch's form and the CSRF check refuses it), and not kept by shared caches (never_cache adds
# "private, no-store").
PUBLIC_HEADERS = {"X-Robots-Tag": "noindex, nofollow", "Referrer-Policy": "same-origin"}


# --- the organisers' settings page -----------------------------------------------------------

ACTIONS: dict[str, Callable[..., Club]] = {
    "enable": services.share_enable,
    "rotate": services.share_rotate,
    "disable": services.share_disable,
    "money_on": lambda *, club, user: services.share_set_money(club=club, user=user, money=True),
    "money_off": lambda *, club, user: services.share_set_money(club=club, user=user, money=False),
}


def _done_message(action: str) -> str:
    return {
        "enable": _("The share link is on."),
        "rotate": _("The share link was changed: the old link no longer works."),
        "disable": _("The share link is off: nobody can open it any more."),
        "money_on": _("The share link now shows money."),
        "money_off": _("The share link no longer shows money."),
    }[action]


@require_http_methods(["GET", "HEAD", "POST"])
def share_settings(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action not in ACTIONS:
            return HttpResponseBadRequest(_("Unknown action."))
        ACTIONS[action](club=club, user=request.user)
        messages.success(request, _done_message(action))
        return redirect("public:share_settings", club.slug)
    link = (
        request.build_absolute_uri(reverse("public:public_standings", args=[club.share_token]))
        if club.share_token
        else ""
    )
    version = RulesVersion.in_force(club, clock.today())
    context = {
        "club": club,
        "link": link,
        "has_money": bool(version and version.rules.has_money),
    }
    return render(request, "league/public/share_settings.html", context)


# --- the public pages ------------------------------------------------------------------------


def public_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Looks the club up by the token (404 for an empty, unknown, rotated or disabled one) and
    sends PUBLIC_HEADERS with the page and with its 404s."""

    @wraps(view)
    @never_cache
    def wrapper(request: HttpRequest, token: str, **kwargs: Any) -> HttpResponse:
        try:
            club = services.club_by_token(token)
            if club is None:
                raise Http404
            response = view(request, club, token=token, **kwargs)
        except Http404 as error:
            response = defaults.page_not_found(request, error, template_name=NOT_FOUND)
        for header, value in PUBLIC_HEADERS.items():
            response.headers[header] = value
        return response

    return require_safe(wrapper)


def public_results(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A share-link page of the club's results over many days: while a round is held back, the
    notice instead (league.access.results_page; the link is never an organiser's)."""

    @wraps(view)
    def wrapper(request: HttpRequest, club: Club, token: str, **kwargs: Any) -> HttpResponse:
        if club.held is not None:  # type: ignore[attr-defined]  # services.club_by_token
            context = {"club": club, "token": token}
            return render(request, "league/public/results_held.html", context)
        return view(request, club, token=token, **kwargs)

    return wrapper


def _shown(club: Club, rules: Sequence[Any]) -> Shown:
    """The columns the club page shows, without yen unless the club allows money on the link."""
    shown = Shown.for_rules(rules)
    return shown if club.share_money else dataclasses.replace(shown, yen=False)


def current_season(seasons: Sequence[Season], today: datetime.date) -> Season | None:
    """The season being played: the latest-starting one that holds today, else the latest one that
    has started, else None (`seasons` newest first); an individual season before a team league or
    an event."""
    seasons = sorted(seasons, key=lambda s: s.kind != Season.INDIVIDUAL)  # stable: newest first
    for season in seasons:
        if season.start <= today <= season.end:
            return season
    return next((s for s in seasons if s.start <= today), None)


@public_page
@public_results
def public_standings(request: HttpRequest, club: Club, token: str) -> HttpResponse:
    """The current season's standings (all time when there is none) and every season's leader."""
    seasons = list(with_teams(Season.objects.filter(club=club)).order_by("-start", "-pk"))
    versions = stats.rules_versions(club=club)
    season = current_season(seasons, clock.today())
    start, end = (season.start, season.end) if season else (None, None)
    table = standings_views._table(
        request,
        club=club,
        shown=_shown(club, stats.rules_between(versions, start, end)),
        season=season,
        seasons=seasons,
        links=False,
        start=start,
        end=end,
        min_games=season.min_games if season else 0,
    )
    leaders = standings_views.season_leaders(club=club, seasons=seasons)
    context = {
        "club": club,
        "token": token,
        "season": season,
        "table": table,
        "team_rows": _team_rows(season),
        "season_leaders": [(s, leaders[s.pk]) for s in seasons],
    }
    return render(request, "league/public/standings.html", context)


@public_page
@public_results
def public_season(request: HttpRequest, club: Club, token: str, season_id: int) -> HttpResponse:
    season = get_object_or_404(with_teams(Season.objects.filter(club=club)), pk=season_id)
    team_rows = _team_rows(season)
    # An event in stages ranks as its current stage does, as on the club's own page.
    event = team_selectors.event_standings(season=season) if season.has_stages else None  # type: ignore[attr-defined]
    if event is not None or season.closed_at is not None:  # who won, as on the club's page
        context = {
            "club": club,
            "token": token,
            "season": season,
            "table": None,
            "team_rows": team_rows,
            "event": event,
        }
        return render(request, "league/public/season_standings.html", context)
    rules = stats.rules_between(stats.rules_versions(club=club), season.start, season.end)
    table = standings_views._table(
        request,
        club=club,
        shown=_shown(club, rules),
        season=season,
        seasons=[season],
        links=False,
        start=season.start,
        end=season.end,
        min_games=season.min_games,
    )
    context = {
        "club": club,
        "token": token,
        "season": season,
        "table": table,
        "team_rows": team_rows,
    }
    return render(request, "league/public/season_standings.html", context)


def _team_rows(season: Season | None) -> list[dict[str, Any]]:
    """A season's team standings (one query), or none without a query for a season without
    teams (`with_teams` read that with the season)."""
    if season is None or not season.has_teams:  # type: ignore[attr-defined]
        return []
    return team_selectors.team_standings(season=season)


@public_page
@public_results
def public_race(request: HttpRequest, club: Club, token: str, season_id: int) -> HttpResponse:
    season = get_object_or_404(Season, club=club, pk=season_id)
    context = {"club": club, "token": token, "season": season}
    context |= players.race(club=club, season=season)
    return render(request, "league/public/season_race.html", context)


@public_page
def public_days(request: HttpRequest, club: Club, token: str) -> HttpResponse:
    """The club's days, newest first, with their counted games; 50 a page."""
    # Paged over the days alone (the count reads the days' index, not every game); the games
    # are counted for the page's 50 days only.
    paginator = Paginator(Day.objects.filter(club=club).order_by("-date"), DAYS_PER_PAGE)
    try:
        page = paginator.page(request.GET.get("page") or 1)
    except (EmptyPage, PageNotAnInteger):
        raise Http404 from None
    counts = dict(
        Day.objects.filter(pk__in=[d.pk for d in page.object_list])
        .annotate(game_count=Count("games", filter=Q(games__voided=False)))
        .values_list("pk", "game_count")
    )
    for day in page.object_list:
        day.game_count = counts.get(day.pk, 0)
    context = {"club": club, "token": token, "page": page}
    return render(request, "league/public/day_list.html", context)


@public_page
def public_day(request: HttpRequest, club: Club, token: str, date: datetime.date) -> HttpResponse:
    """The day's totals and games (voided ones left out); with money allowed, yen and payments."""
    day = day_for(club, date)
    # A round held back (issue 42): the share link is nobody's organiser view.
    hidden = draw_selectors.hidden_games(day, organiser=False)
    games = [g for g in selectors.day_games(day=day) if not g.voided and g.pk not in hidden]
    ledger = selectors.day_ledger_rows(day=day, hidden=hidden)
    payments = None
    if club.share_money and not hidden:
        version = RulesVersion.in_force(club, day.date)
        if version is not None and version.rules.has_money:
            day.club = club  # money.day_ledger reads it: no second query
            payments = sharing.day_transfers(club, money.day_ledger(day=day))
    context = {
        "club": club,
        "token": token,
        "day": day,
        "games": games,
        "ledger": ledger,
        "show_yen": club.share_money and any(row["yen"] is not None for row in ledger),
        "hide_yen": not club.share_money,  # the games' yen column and rate (_game_table.html)
        "payments": payments,
        "held": bool(hidden),
    }
    return render(request, "league/public/day_detail.html", context)


# --- statistics: head-to-head, rating and records, read-only ----------------------------------


@public_page
@public_results
def public_matrix(request: HttpRequest, club: Club, token: str, season_id: int) -> HttpResponse:
    season = get_object_or_404(Season, club=club, pk=season_id)
    context = {
        "club": club,
        "token": token,
        "season": season,
        "public": True,
        **views_stats.matrix_context(club=club, season=season, row=request.GET.get("row")),
    }
    return render(request, "league/public/season_matrix.html", context)


@public_page
@public_results
def public_rating(request: HttpRequest, club: Club, token: str) -> HttpResponse:
    ranked, others = aggregate_selectors.rating_ranking(club=club)
    context = {
        "club": club,
        "token": token,
        "public": True,
        "ranked": ranked,
        "others": others,
        "rating_pending": aggregate_selectors.rating_pending(club=club),
    }
    return render(request, "league/public/rating.html", context)


@public_page
@public_results
def public_records(request: HttpRequest, club: Club, token: str) -> HttpResponse:
    """The club's records; the biggest day in yen only where money is allowed on the link."""
    context = {
        "club": club,
        "token": token,
        "public": True,
        "show_money": club.share_money,
        **views_stats.records_context(club=club),
    }
    return render(request, "league/public/records.html", context)
