"""The one place that decides who may see and change a club's data."""

from __future__ import annotations

import datetime
import functools
import hashlib
import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.db.models import Exists, OuterRef, Subquery
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.utils.cache import patch_cache_control
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import condition

from league import throttle
from league.core import clock
from league.models import AuditLog, Club, ClubChronicle, Day, Member, Membership
from league.models.draw import held_of, hidden_games, with_held_round

# Where a club's pages are: league/urls.py mounts each domain's urls.py here, and the domains with
# pages both inside and outside a club (accounts, chat, public) mount their club part here.
CLUB_ROUTE = "c/<slug:slug>/"

logger = logging.getLogger(__name__)


class TooManyRequests(Exception):
    """Too many unknown club addresses from this user and network (league.throttle.CLUB_PROBE):
    answered 429 by TooManyRequestsMiddleware."""


class TooManyRequestsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, TooManyRequests):
            return render(request, "429.html", status=429)
        return None


def _unknown(request: HttpRequest) -> Http404:
    """The 404 of a club address that is unknown or not the user's, counted (one pace for both,
    so that the count tells nothing either): over the pace, TooManyRequests instead."""
    if throttle.club_probe_refused(request):
        raise TooManyRequests
    return Http404()


def club_for(request: HttpRequest, slug: str, *, organiser: bool = False) -> Club:
    """The club at `slug` if the user belongs to it, else 404 (its existence must not leak).

    With `organiser=True`, a member who is not an organiser gets 403: they know the club exists.
    Sets `club.is_organiser` for templates, and `club.viewer_linked` (the user is linked to one of
    the club's member records: the nav shows "My page"), read in the same query as the role.
    Superusers may see and manage every club.
    """
    user = request.user
    if not user.is_authenticated:
        raise Http404
    seen: Club | None = getattr(request, "club_seen", None)  # checked already (club_page)
    club = seen if seen is not None and seen.slug == slug else _club_checked(request, slug)
    if organiser and not club.is_organiser:  # type: ignore[attr-defined]
        raise PermissionDenied
    return club


_SLUG = "\x00slug"  # where the club's address goes in _club_sql's compiled query
_USER = -(2**40)  # where the user's id goes in it


@functools.cache
def _club_sql(vendor: str) -> tuple[str, tuple[Any, ...]]:
    """The club, whether it holds results back (with_held_round), its data version, and the
    user's role in it and whether they are linked to one of its members: one query, compiled
    once per process and database. Every club page and every 304 runs it, and Django takes
    about 16 ms of CPU to build and compile its subqueries (0.5 ms to run them), 0.6 ms with
    the SQL kept."""
    newest = AuditLog.objects.filter(club=OuterRef("pk")).order_by("-pk")
    replayed = ClubChronicle.objects.filter(club=OuterRef("pk")).values("replayed")[:1]
    role = Membership.objects.filter(club=OuterRef("pk"), user=_USER).values("role")[:1]
    club = with_held_round(Club.objects).annotate(
        data_version=Subquery(newest.values("pk")[:1]),
        data_at=Subquery(newest.values("at")[:1]),
        data_replayed=Subquery(replayed),
        viewer_role=Subquery(role),
        viewer_linked=Exists(Member.objects.filter(club=OuterRef("pk"), user=_USER)),
    )
    return club.filter(slug=_SLUG).query.sql_with_params()


def _club_row(slug: str, user_id: int | None) -> Club | None:
    sql, params = _club_sql(connection.vendor)
    values = {_SLUG: slug, _USER: user_id}
    args = [values.get(p, p) for p in params]
    if connection.vendor == "postgresql":
        club = _prepared_club(sql, args)
    else:
        club = next(iter(Club.objects.raw(sql, args)), None)
    if club is not None:  # a raw query's annotations come as the database gives them
        club.data_at = _moment_of(club.data_at)  # type: ignore[attr-defined]
    return club


def _prepared_club(sql: str, args: list[Any]) -> Club | None:
    """PostgreSQL: the club's query through a cursor that binds its parameters on the server, so
    that psycopg prepares it at its 5th run on a connection (prepare_threshold: DATABASE_PREPARE,
    league/conf/env.py) and PostgreSQL stops planning it on every page and 304: 0.16 -> 0.03 ms
    of its CPU a run. Django's own cursors bind on the client and are never prepared; binding
    every query on the server (Django's server_side_binding) would cap a statement at 65,535
    parameters. The cursor is wrapped as Django wraps its own (logged, counted by the tests)."""
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    raw = ServerBindingCursor(connection.connection)
    logged = connection.queries_logged
    with connection.make_debug_cursor(raw) if logged else connection.make_cursor(raw) as cursor:
        cursor.execute(sql, args)
        row = cursor.fetchone()
        names = [column.name for column in cursor.description]
    if row is None:
        return None
    width = len(Club._meta.concrete_fields)  # the model's columns first, in its order
    club = Club.from_db(connection.alias, names[:width], row[:width])
    for name, value in zip(names[width:], row[width:], strict=True):
        setattr(club, name, value)
    return club


def _moment_of(value: Any) -> datetime.datetime | None:
    if isinstance(value, str):  # SQLite: UTC, without its zone
        value = datetime.datetime.fromisoformat(value)
    if value is not None and timezone.is_naive(value):
        value = timezone.make_aware(value, datetime.UTC)
    return value


def _club_checked(request: HttpRequest, slug: str) -> Club:
    """The club with the user's role and link, and its data version (club_page), read once."""
    user = request.user
    club = _club_row(slug, user.pk)
    if club is None:
        raise _unknown(request)
    club.held = held_of(club)  # type: ignore[attr-defined]
    if user.is_superuser:
        club.is_organiser = True  # type: ignore[attr-defined]
        club.viewer_linked = False  # type: ignore[attr-defined]
    else:
        if club.viewer_role is None:  # type: ignore[attr-defined]  # not a member of the club
            raise _unknown(request)
        club.viewer_linked = bool(club.viewer_linked)  # type: ignore[attr-defined]
        club.is_organiser = club.viewer_role == Membership.ORGANISER  # type: ignore[attr-defined]
    request.club_seen = club  # type: ignore[attr-defined]
    return club


def _digest(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]


def page_etag(request: HttpRequest, club: Club, *, moment: bool = False) -> str:
    """What a club page shown to this browser depends on, as an entity tag.

    - The club's data version: its newest audit entry (every write action audits, in the same
      transaction as its change) and the count of member games its rating replays have written
      (a replay runs in a worker after the write). A write in another club changes neither.
    - Who asks, and how: the user and their role, the session and the CSRF cookie (the page's
      forms carry a token made from it), the language, and the address with its query.
    - The club's date (Japan): "today" moves on its own.
    - `moment`: the page shows something that ends by itself soon after a write (the ledger's
      one-tap undo). While the newest write is younger than that, the tag changes every second."""
    version = (club.data_version, club.data_replayed)  # type: ignore[attr-defined]
    parts: list[object] = [
        *version,
        request.user.pk,
        request.user.get_username(),
        club.is_organiser,  # type: ignore[attr-defined]
        club.viewer_linked,  # type: ignore[attr-defined]
        request.COOKIES.get(settings.SESSION_COOKIE_NAME, ""),
        request.COOKIES.get(settings.CSRF_COOKIE_NAME, ""),
        translation.get_language(),
        request.get_full_path(),
        clock.today(),
    ]
    if moment:
        parts.append(_moment(club))
    return _digest(*parts)


PART_SECONDS = 3600  # how long a shared part is kept: its key changes with every write anyway


def shared_part(
    request: HttpRequest,
    club: Club,
    name: str,
    *key: object,
    params: tuple[str, ...] = (),
    build: Callable[[], str],
) -> str:
    """A part of a club page that every member who may see it sees alike (a season's table, a
    day's games), rendered by `build` once and kept in Django's cache (settings.CACHES: Redis,
    shared by the app servers, in production) under what it depends on:

    - the club's data version (as page_etag: every write changes it, so a kept part is never
      stale and nothing has to be emptied), the club's date, the language, and the role (an
      organiser sees links, and while a round is held games, that a member does not);
    - `name` and `key` (the season, the day, …) and the request's `params`, the query
      parameters the part reads: `build` sees request.GET with those alone, so that its links
      carry nothing of the browser that rendered it first.

    A part must hold nothing of one user: no form with a CSRF token, no "you"."""
    query = QueryDict(mutable=True)
    for param in params:
        if param in request.GET:
            query.setlist(param, request.GET.getlist(param)[:10])
    cache_key = "part:" + _digest(
        name,
        *key,
        club.pk,
        club.data_version,  # type: ignore[attr-defined]
        club.data_replayed,  # type: ignore[attr-defined]
        club.is_organiser,  # type: ignore[attr-defined]
        translation.get_language(),
        clock.today(),
        query.urlencode(),
    )
    try:
        html = cache.get(cache_key)
    except Exception:  # the cache unreachable (Redis down): rendered, as with an empty cache
        logger.exception("shared_part: the cache did not answer")
        html = None
    if html is None:
        seen, request.GET = request.GET, query
        try:
            html = str(build())
        finally:
            request.GET = seen
        try:
            cache.set(cache_key, html, PART_SECONDS)
        except Exception:
            logger.exception("shared_part: the cache did not answer")
    return mark_safe(html)  # rendered by a template, escaped there


def _moment(club: Club) -> int:
    """The current second while the club's newest write is recent enough to be undone; 0 after."""
    newest = club.data_at  # type: ignore[attr-defined]
    now = timezone.now()
    recent = newest is not None and (now - newest).total_seconds() < settings.PAYMENT_UNDO_SECONDS
    return int(now.timestamp()) if recent else 0


def club_page(view: Callable[..., HttpResponse] | None = None, *, moment: bool = False) -> Any:
    """A busy club page answered by conditional GET (Django's `condition`): the ETag says what
    the page depends on (page_etag), with `Cache-Control: private, no-cache`, so a browser keeps
    the page and asks again each time, and gets a 304 after the ordinary session and auth
    middleware when nothing it shows has changed. A page that shows a message is neither tagged
    nor stored (a message is said once), and neither is the first page of a browser without its
    CSRF cookie yet (its forms' tokens are made from the cookie that response sets)."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponse:
            if (
                request.method not in ("GET", "HEAD")
                or settings.CSRF_COOKIE_NAME not in request.COOKIES
                or len(messages.get_messages(request))
            ):
                response = view(request, slug, *args, **kwargs)
                if request.method in ("GET", "HEAD"):
                    patch_cache_control(response, private=True, no_store=True)
                return response
            tag = page_etag(request, club_for(request, slug), moment=moment)
            response = condition(etag_func=lambda *_a, **_k: tag)(view)(
                request, slug, *args, **kwargs
            )
            patch_cache_control(response, private=True, no_cache=True)
            return response

        return wrapped

    return decorate(view) if view is not None else decorate


def results_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A page of the club's results over many days (standings, statistics, ratings, records, a
    player's page). While a day holds back a round's results (league.models.draw: until every
    table of the round is recorded), a viewer who is not an organiser sees a notice naming the
    round instead: those pages read totals kept at write time, with the held games in them. The
    organiser sees the page, with the same notice above it. It opens by itself when the round is
    complete. Put it under club_page (the page's tag changes with every audited write, and so
    with every change of what is held)."""

    @wraps(view)
    def wrapped(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponse:
        club = club_for(request, slug)
        if club.held is not None and not club.is_organiser:  # type: ignore[attr-defined]
            return render(request, "league/results_held.html", {"club": club})
        request.results_page = True  # type: ignore[attr-defined]  # base.html: the notice
        return view(request, slug, *args, **kwargs)

    return wrapped


def held_back(request: HttpRequest, club: Club, day: Day) -> HttpResponse | None:
    """For a page of a whole day's results (its ledger, its message for the group chat): while
    the day holds back a round from this viewer (league.models.draw.hidden_games), the day's
    page with a notice, else None. The day's page itself leaves the held games out instead."""
    if not hidden_games(day, organiser=club.is_organiser):  # type: ignore[attr-defined]
        return None
    messages.info(request, _("Results are held back until every table of a round is recorded."))
    return redirect("recording:day_detail", club.slug, day.date)


def day_for(club: Club, date: datetime.date) -> Day:
    """The club's day at `date`, else 404: a day is looked up inside the club of the URL."""
    day = Day.objects.filter(club=club, date=date).first()
    if day is None:
        raise Http404
    return day
