"""Excel downloads: standings, the game log, a day's payment sheet, a member's statement, the
statistics.

Every member of the club may download what they may see; the money sheets answer 404 for a club
without money, like their pages. league.excel.exports builds the workbooks in the user's language.
"""

from __future__ import annotations

import datetime
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from league import money
from league.access import club_for, results_page
from league.books import selectors as book_selectors
from league.core import clock
from league.core.errors import ServiceError
from league.excel import exports
from league.excel import tasks as export_tasks
from league.jobs import job_state
from league.models import Club, Day, ExportFile, Member, Season
from league.models.rules import club_has_money
from league.money.views.statements import describe_entry
from league.standings import selectors as aggregate_selectors
from league.standings import stats
from league.standings.filters import StandingsFilter
from league.standings.tables import Shown, hand_columns, wants_hands, with_adjust
from league.teams import selectors as team_selectors
from league.teams.selectors import with_teams
from league.web import show_errors

GAME_LOG_FILTERS = ["start", "end", "season", "rate"]


def _period_filter(
    request: HttpRequest, club: Club, fields: list[str] | None = None
) -> tuple[StandingsFilter, list[Any]]:
    """The standings page's filter (season, dates, rate), bound to the query string."""
    seasons = list(with_teams(Season.objects.filter(club=club)).order_by("-start", "-pk"))
    versions = stats.rules_versions(club=club)
    rates = stats.rate_names([v.rules for v in versions])
    return StandingsFilter(request.GET, seasons=seasons, rates=rates, fields=fields), versions


def _period_names(filterset: StandingsFilter, args: dict[str, Any]) -> tuple[str, str]:
    """The period in a file name, and in ASCII: the season's name, the dates, or all time."""
    season = filterset.seasons.get(filterset.form.cleaned_data.get("season") or "")
    start, end = args["start"], args["end"]
    if season is not None and (start, end) == (season.start, season.end):
        name, ascii_name = season.name, f"season-{season.pk}"
    elif start or end:
        name = ascii_name = f"{start or ''}~{end or ''}"
    else:
        name, ascii_name = _("all time"), "all-time"
    if args.get("rate"):
        name, ascii_name = f"{name}_{args['rate']}", f"{ascii_name}_{args['rate']}"
    return name, ascii_name


def _bad_filter(filterset: StandingsFilter) -> HttpResponse:
    errors = "; ".join(f"{k}: {' '.join(v)}" for k, v in filterset.form.errors.items())
    return HttpResponseBadRequest(errors, content_type="text/plain; charset=utf-8")


@require_safe
@results_page
def export_standings(request: HttpRequest, slug: str) -> HttpResponse:
    """?season=, ?start=&end=, ?rate=, ?min_games= as on the standings pages; none: all time.
    ?hands=1 adds the hand columns, as on the pages."""
    club = club_for(request, slug)
    filterset, versions = _period_filter(request, club)
    if not filterset.is_valid():
        return _bad_filter(filterset)
    args = filterset.standings_args()
    shown = Shown.for_rules(stats.rules_between(versions, args["start"], args["end"]))
    shown = with_adjust(shown, list(filterset.seasons.values()), args)  # a season's 調整
    shown, hands = hand_columns(shown, club=club, wanted=wants_hands(request.GET), period=args)
    period, ascii_period = _period_names(filterset, args)
    season = filterset.seasons.get(filterset.form.cleaned_data.get("season") or "")
    staged = season is not None and season.has_stages  # type: ignore[attr-defined]
    event = team_selectors.event_standings(season=season) if staged else None
    if event is not None:  # an event ranks as its current stage does, as on its pages
        stage, rows = event
        return exports.xlsx_response(
            exports.event_workbook(club=club, period=period, stage=stage, rows=rows),
            name=exports.file_name(club.name, period, exports.STANDINGS_TITLE),
            fallback=exports.ascii_file_name(club.slug, ascii_period, "standings"),
        )
    teams: list[dict[str, Any]] = []
    rosters: dict[int, list[dict[str, Any]]] = {}
    if season is not None and season.has_teams and not args.get("rate"):  # its whole total
        teams = team_selectors.team_standings(season=season)
        if teams:
            rosters = team_selectors.team_rosters(season=season)
    workbook = exports.standings_workbook(
        club=club,
        rows=stats.standings(club=club, seasons=list(filterset.seasons.values()), **args),
        shown=shown,
        period=period,
        teams=teams,
        rosters=rosters,
        hand_rows=hands.rows if hands is not None else None,
    )
    # The statistics (every pair's head-to-head: members squared rows) are a file of their own,
    # made by a worker (export_statistics): this one stays as cheap as the page.
    return exports.xlsx_response(
        workbook,
        name=exports.file_name(club.name, period, exports.STANDINGS_TITLE),
        fallback=exports.ascii_file_name(club.slug, ascii_period, "standings"),
    )


@require_safe
def export_game_log(request: HttpRequest, slug: str) -> HttpResponse:
    """Every counted game, or a season's (?season=), dates' (?start=&end=) or rate's (?rate=).
    A log of more than EXPORT_INLINE_ROWS rows is made by a worker: this page offers to start it."""
    club = club_for(request, slug)
    period = _game_log_period(request, club)
    if isinstance(period, HttpResponse):
        return period
    args, versions, name, fallback = period
    most = settings.EXPORT_INLINE_ROWS
    if export_tasks.export_rows(club=club, params=_params(args), most=most) > most:
        query = request.GET.urlencode()
        context = {
            "club": club,
            "title": exports.GAME_LOG_TITLE,
            "name": name,
            "rows": most,
            "start_url": reverse("excel:export_game_log_start", args=[club.slug]) + f"?{query}",
            "back_url": reverse("standings:standings", args=[club.slug]),
        }
        return render(request, "league/excel/export_big.html", context)
    return exports.xlsx_response(
        exports.game_log_workbook(club=club, versions=versions, **args),
        name=name,
        fallback=fallback,
    )


def _game_log_period(
    request: HttpRequest, club: Club
) -> tuple[dict[str, Any], list[Any], str, str] | HttpResponse:
    """The game log's period from the query string: its filter arguments, the club's rules
    versions, and the file's name and ASCII fallback; a 400 answer when the filter is bad."""
    filterset, versions = _period_filter(request, club, GAME_LOG_FILTERS)
    if not filterset.is_valid():
        return _bad_filter(filterset)
    args = filterset.standings_args()
    args.pop("min_games", None)
    period, ascii_period = _period_names(filterset, args)
    name = exports.file_name(club.name, period, exports.GAME_LOG_TITLE)
    return args, versions, name, exports.ascii_file_name(club.slug, ascii_period, "game-log")


def _params(args: dict[str, Any]) -> dict[str, Any]:
    """A period as JSON for the worker: ISO dates and the rate."""
    return {
        "start": args["start"].isoformat() if args.get("start") else None,
        "end": args["end"].isoformat() if args.get("end") else None,
        "rate": args.get("rate") or None,
    }


def _statistics_period(
    request: HttpRequest, club: Club
) -> tuple[Season | None, str, str] | HttpResponse:
    """The statistics' period from the standings filter in the query string: all time or one
    season (the periods whose statistics are kept), and the file's name and ASCII fallback; a
    400 answer when the filter is bad, a 404 for a period without kept statistics."""
    filterset, _versions = _period_filter(request, club)
    if not filterset.is_valid():
        return _bad_filter(filterset)
    args = filterset.standings_args()
    is_kept, season = aggregate_selectors.scope_for(
        list(filterset.seasons.values()), args["start"], args["end"], args["rate"]
    )
    if not is_kept:
        raise Http404
    period = season.name if season is not None else _("all time")
    ascii_period = f"season-{season.pk}" if season is not None else "all-time"
    return (
        season,
        exports.file_name(club.name, period, exports.STATISTICS_TITLE),
        exports.ascii_file_name(club.slug, ascii_period, "statistics"),
    )


def _statistics_query(season: Season | None) -> str:
    return f"?season={season.pk}" if season is not None else ""


@require_safe
@results_page
def export_statistics(request: HttpRequest, slug: str) -> HttpResponse:
    """The statistics workbook of all time (no query) or a season (?season=): every pair's
    head-to-head grows as the members squared, so it is made by a worker; this page offers it."""
    club = club_for(request, slug)
    period = _statistics_period(request, club)
    if isinstance(period, HttpResponse):
        return period
    season, name, _fallback = period
    query = _statistics_query(season)
    context = {
        "club": club,
        "title": exports.STATISTICS_TITLE,
        "name": name,
        "start_url": reverse("excel:export_statistics_start", args=[club.slug]) + query,
        "back_url": _statistics_back(club, season),
    }
    return render(request, "league/excel/export_big.html", context)


def _statistics_back(club: Club, season: Season | None) -> str:
    if season is not None:
        return reverse("standings:season_standings", args=[club.slug, season.pk])
    return reverse("standings:standings", args=[club.slug])


@require_POST
@results_page
def export_statistics_start(request: HttpRequest, slug: str) -> HttpResponse:
    """Queue the statistics of the period in the query string for a worker; show its progress."""
    club = club_for(request, slug)
    period = _statistics_period(request, club)
    if isinstance(period, HttpResponse):
        return period
    season, name, fallback = period
    try:
        started = export_tasks.export_start(
            club=club,
            user=request.user,
            kind="statistics",
            params={"season": season.pk if season else None, "language": get_language()},
            name=name,
            fallback=fallback,
        )
    except ServiceError as e:
        show_errors(request, e)
        return redirect(_statistics_back(club, season))
    if started.other:
        messages.info(request, _("The file below is still being made: one at a time."))
    return redirect("excel:export_status", club.slug, started.export.pk)


@require_POST
def export_statement_start(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    """Queue a member's whole statement for a worker; show its progress."""
    club = club_for(request, slug)
    if not club_has_money(club=club):
        raise Http404
    member = get_object_or_404(Member, pk=member_id, club=club)
    today = clock.today()
    try:
        started = export_tasks.export_start(
            club=club,
            user=request.user,
            kind="statement",
            params={"member": member.pk, "language": get_language()},
            name=exports.file_name(
                club.name, member.name, exports.STATEMENT_TITLE, today.isoformat()
            ),
            fallback=exports.ascii_file_name(club.slug, f"member-{member.pk}", "statement", today),
        )
    except ServiceError as e:
        show_errors(request, e)
        return redirect("money:member_statement", club.slug, member.pk)
    if started.other:
        messages.info(request, _("The file below is still being made: one at a time."))
    return redirect("excel:export_status", club.slug, started.export.pk)


@require_POST
def export_game_log_start(request: HttpRequest, slug: str) -> HttpResponse:
    """Queue the game log of the period in the query string for a worker; show its progress."""
    club = club_for(request, slug)
    period = _game_log_period(request, club)
    if isinstance(period, HttpResponse):
        return period
    args, _versions, name, fallback = period
    try:
        started = export_tasks.export_start(
            club=club,
            user=request.user,
            params={**_params(args), "language": get_language()},
            name=name,
            fallback=fallback,
        )
    except ServiceError as e:
        show_errors(request, e)
        return redirect(
            f"{reverse('excel:export_game_log', args=[club.slug])}?{request.GET.urlencode()}"
        )
    if started.other:
        messages.info(
            request,
            _(
                "Your game log below is still being made: one at a time. Ask again when it is ready."
            ),
        )
    return redirect("excel:export_status", club.slug, started.export.pk)


def _own_export(request: HttpRequest, club: Club, export_id: int) -> ExportFile:
    """The user's own file of this club (anyone else's is a 404, as is an expired one)."""
    return get_object_or_404(
        ExportFile.objects.defer("data").select_related("job"),
        pk=export_id,
        club=club,
        user=request.user,
        expires__gt=timezone.now(),
    )


@require_safe
def export_status(request: HttpRequest, slug: str, export_id: int) -> HttpResponse:
    club = club_for(request, slug)
    export = _own_export(request, club, export_id)
    if export.kind == "statement":
        member = export.params.get("member")
        retry = reverse("excel:export_statement", args=[club.slug, member])
        back = reverse("money:member_statement", args=[club.slug, member])
        title = exports.STATEMENT_TITLE
    elif export.kind == "statistics":
        season_id = export.params.get("season")
        retry = reverse("excel:export_statistics", args=[club.slug])
        retry += f"?season={season_id}" if season_id else ""
        if season_id:
            back = reverse("standings:season_standings", args=[club.slug, season_id])
        else:
            back = reverse("standings:standings", args=[club.slug])
        title = exports.STATISTICS_TITLE
    else:
        retry = reverse("excel:export_game_log", args=[club.slug])
        if export.params.get("start") or export.params.get("end") or export.params.get("rate"):
            query = {k: export.params[k] for k in ("start", "end", "rate") if export.params.get(k)}
            retry += "?" + urlencode(query)
        back = reverse("standings:standings", args=[club.slug])
        title = exports.GAME_LOG_TITLE
    context = {
        "club": club,
        "export": export,
        "state": job_state(export.job),
        "retry_url": retry,
        "back_url": back,
        "title": title,
    }
    return render(request, "league/excel/export_status.html", context)


@require_safe
def export_download(request: HttpRequest, slug: str, export_id: int) -> HttpResponseBase:
    club = club_for(request, slug)
    export = _own_export(request, club, export_id)
    if not export.ready:
        return redirect("excel:export_status", club.slug, export.pk)
    if export.file_name:  # sent from disk a chunk at a time
        try:
            file = export_tasks.export_storage().open(export.file_name, "rb")
        except FileNotFoundError:  # cleared from under its row (a restore, a hand): gone
            raise Http404 from None
        response: HttpResponseBase = FileResponse(file, content_type=exports.XLSX)
    else:  # a file finished before files were kept in storage, still in its row
        data = ExportFile.objects.values_list("data", flat=True).get(pk=export.pk)
        response = HttpResponse(bytes(data), content_type=exports.XLSX)
    response["Content-Disposition"] = exports.content_disposition(export.name, export.fallback)
    response["Cache-Control"] = "private, no-store"
    return response


@require_safe
def export_payment_sheet(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club = club_for(request, slug)
    day = get_object_or_404(Day, club=club, date=date)
    day.club = club  # money.day_ledger reads it: no second query
    try:
        ledger = money.day_ledger(day=day)
    except ServiceError:  # no rules in force on the day: nothing to settle
        raise Http404 from None
    if not ledger.has_money:
        raise Http404
    workbook = exports.payment_sheet_workbook(
        club=club, ledger=ledger, debts=money.open_debts(club=club), today=clock.today()
    )
    return exports.xlsx_response(
        workbook,
        name=exports.file_name(club.name, date.isoformat(), exports.PAYMENT_SHEET_TITLE),
        fallback=exports.ascii_file_name(club.slug, date.isoformat(), "payment-sheet"),
    )


@require_safe
def export_statement(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    club = club_for(request, slug)
    if not club_has_money(club=club):
        raise Http404
    member = get_object_or_404(Member, pk=member_id, club=club)
    member.club = club  # the statement reads it: no second query
    today = clock.today()
    most = settings.EXPORT_INLINE_LINES
    if export_tasks.statement_lines(member_id=member.pk, most=most) > most:  # by a worker
        context = {
            "club": club,
            "title": exports.STATEMENT_TITLE,
            "name": member.name,
            "rows": most,
            "start_url": reverse("excel:export_statement_start", args=[club.slug, member.pk]),
            "back_url": reverse("money:member_statement", args=[club.slug, member.pk]),
        }
        return render(request, "league/excel/export_big.html", context)
    workbook = exports.statement_workbook(
        club=club,
        statement=book_selectors.full_statement(member=member),  # type: ignore[arg-type]
        describe=describe_entry,
        today=today,
    )
    return exports.xlsx_response(
        workbook,
        name=exports.file_name(club.name, member.name, exports.STATEMENT_TITLE, today.isoformat()),
        fallback=exports.ascii_file_name(club.slug, f"member-{member.pk}", "statement", today),
    )
