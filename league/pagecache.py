"""Kept pages: a club page rendered once is served again, to the same signed-in browser, until
anything in the database changes.

The busiest pages (the standings, a day, its ledger) cost 25 to 35 times a bare Django view,
and almost all of that is building the same page again between two writes. So:

- **Every committed write makes every kept page old** (league.core.writes): the write gives the
  one `PageVersion` row a new random token once it commits, whichever process or path made it,
  and counts at once in its own process. Writes to tables no kept page shows (sessions, login
  throttling, the task queue: `install`) do not.
- **A page is kept only when nothing in it belongs to the moment** (`kept_page` on the view and
  `PageCacheMiddleware`): a GET with a 200 that set no cookie, left the session unchanged and
  showed no message (the CSRF cookie sent again aside), from a browser that already has its CSRF cookie. It is kept in this
  process's memory (`_Store`, bounded in entries and bytes), under the session, the CSRF cookie,
  the language, the host and the whole path with its query, with the token it was made under,
  the club's date (Japan), and a time after which it is not served (PAGE_CACHE_SECONDS, or
  earlier where the view says so: the ledger's one-tap undo).
- **Serving it again checks, in one query, everything the first request checked:** that the
  session still exists and has not expired, that it still belongs to the same active user with
  the same password (Django's session hash), that the user is still in the club, and that the
  token is still the current one. If anything differs, or is unusual (a message waiting in the
  session, another session engine), the request goes the usual way and renders the page.

A write that bypasses the app's database connections (SQL typed into psql) is not seen: kept
pages then stay up to PAGE_CACHE_SECONDS old (README: "Kept pages").
"""

from __future__ import annotations

import datetime
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, wraps
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.exceptions import DisallowedHost
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation
from django.utils.crypto import constant_time_compare

from league.core import clock, writes
from league.models import Membership, PageVersion

_DB_SESSIONS = "django.contrib.sessions.backends.db"
_MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


@cache
def _unseen() -> frozenset[str]:
    """The tables no kept page shows (those of the installed apps among them)."""
    from django.apps import apps

    labels = ("sessions.session", "league.loginattempt", "django_tasks_database.dbtaskresult")
    return frozenset(m._meta.db_table for m in apps.get_models() if m._meta.label_lower in labels)


def install(connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    """connection_created: watch every statement of the new connection (league.apps)."""
    writes.install(connection, table=PageVersion._meta.db_table, unseen=_unseen())


# --- the kept pages ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Kept:
    user_id: int
    club_id: int
    organiser: bool  # the role it was made for: a page with an organiser's buttons stays theirs
    token: str
    generation: int
    date: datetime.date  # the club's date when it was made
    until: datetime.datetime  # not served from then on
    headers: tuple[tuple[str, str], ...]
    content: bytes


class _Store:
    """This process's kept pages, least recently served first out, within both bounds."""

    def __init__(self) -> None:
        self.pages: OrderedDict[tuple[str, ...], Kept] = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()

    def get(self, key: tuple[str, ...]) -> Kept | None:
        with self.lock:
            page = self.pages.get(key)
            if page is not None:
                self.pages.move_to_end(key)
            return page

    def put(self, key: tuple[str, ...], page: Kept) -> None:
        if len(page.content) > settings.PAGE_CACHE_BYTES // 4:
            return
        with self.lock:
            self._drop(key)
            self.pages[key] = page
            self.size += len(page.content)
            while self.pages and (
                self.size > settings.PAGE_CACHE_BYTES or len(self.pages) > settings.PAGE_CACHE_PAGES
            ):
                self._drop(next(iter(self.pages)))

    def drop(self, key: tuple[str, ...]) -> None:
        with self.lock:
            self._drop(key)

    def _drop(self, key: tuple[str, ...]) -> None:
        page = self.pages.pop(key, None)
        if page is not None:
            self.size -= len(page.content)

    def clear(self) -> None:
        with self.lock:
            self.pages.clear()
            self.size = 0


store = _Store()


def _key(request: HttpRequest) -> tuple[str, ...] | None:
    """Where a GET's page would be kept, or None when it may not be kept or served."""
    if (
        request.method != "GET"
        or settings.SESSION_ENGINE != _DB_SESSIONS
        or settings.CSRF_USE_SESSIONS
        or settings.MESSAGE_STORAGE
        not in (
            "django.contrib.messages.storage.fallback.FallbackStorage",
            "django.contrib.messages.storage.cookie.CookieStorage",
        )
    ):
        return None
    cookies = request.COOKIES
    session = cookies.get(settings.SESSION_COOKIE_NAME)
    csrf = cookies.get(settings.CSRF_COOKIE_NAME)
    if not session or not csrf or cookies.get(CookieStorage.cookie_name):
        return None
    try:
        host = request.get_host()
    except DisallowedHost:
        return None
    language = translation.get_language_from_request(request)
    return (session, csrf, language, request.scheme or "", host, request.get_full_path())


def _serve(request: HttpRequest, key: tuple[str, ...]) -> HttpResponse | None:
    """The kept page at `key` if everything its first request checked still holds, else None."""
    page = store.get(key)
    if page is None:
        return None
    now = timezone.now()
    if page.generation != writes.generation() or now >= page.until or page.date != clock.today(now):
        store.drop(key)
        return None
    row = _check_row(key[0], page.user_id, page.club_id, now)
    if row is None or not _still_valid(page, row):
        store.drop(key)
        return None
    response = HttpResponse(page.content)
    for name, value in page.headers:
        response.headers[name] = value
    return response


def _check_row(session_key: str, user_id: int, club_id: int, now: datetime.datetime) -> Any:
    """The session, the user, their role in the club and the token: one query."""
    from django.contrib.sessions.models import Session

    conn = connections[DEFAULT_DB_ALIAS]
    q = conn.ops.quote_name
    user = get_user_model()
    sql = (
        f"SELECT s.session_data, u.password, u.is_active, u.is_superuser, m.role, v.token "
        f"FROM {q(Session._meta.db_table)} s "
        f"CROSS JOIN {q(user._meta.db_table)} u "
        f"CROSS JOIN {q(PageVersion._meta.db_table)} v "
        f"LEFT JOIN {q(Membership._meta.db_table)} m ON m.user_id = u.id AND m.club_id = %s "
        f"WHERE s.session_key = %s AND s.expire_date > %s AND u.id = %s"
    )
    params = [club_id, session_key, conn.ops.adapt_datetimefield_value(now), user_id]
    with conn.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _still_valid(page: Kept, row: Any) -> bool:
    session_data, password, is_active, is_superuser, role, token = row
    if (
        token != page.token
        or not is_active
        or (role is None and not is_superuser)
        or page.organiser != (is_superuser or role == Membership.ORGANISER)
    ):
        return False
    session = import_module(settings.SESSION_ENGINE).SessionStore().decode(session_data)
    if (
        session.get(SESSION_KEY) != str(page.user_id)
        or session.get(BACKEND_SESSION_KEY) != _MODEL_BACKEND
        or _MODEL_BACKEND not in settings.AUTHENTICATION_BACKENDS
        or "_messages" in session
    ):
        return False
    user = get_user_model()(pk=page.user_id, password=password)
    return constant_time_compare(session.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash())


def kept_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A club page that may be kept (see the module's docstring). The view must call
    access.club_for (which reads the token with the club, before any of the page's data), and may
    set `request.page_kept_until` (an aware datetime) when something on the page ends sooner
    than PAGE_CACHE_SECONDS."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        request.page_generation = writes.generation()  # type: ignore[attr-defined]
        request.page_date = clock.today()  # type: ignore[attr-defined]
        return view(request, *args, **kwargs)

    return wrapped


def _only_renews_csrf(response: HttpResponse, csrf: str) -> bool:
    """Whether the response sets no cookie but the browser's own CSRF cookie again (Django sends
    it with every page that uses it, to renew its expiry)."""
    return all(
        name == settings.CSRF_COOKIE_NAME and morsel.value == csrf
        for name, morsel in response.cookies.items()
    )


def _keep(request: HttpRequest, key: tuple[str, ...], response: HttpResponse) -> None:
    generation = getattr(request, "page_generation", None)
    club = getattr(request, "club_seen", None)
    token = getattr(club, "page_token", None)
    user = getattr(request, "user", None)
    session = getattr(request, "session", None)
    if (
        generation is None
        or token is None
        or response.status_code != 200
        or response.streaming
        or not _only_renews_csrf(response, key[1])
        or user is None
        or not user.is_authenticated
        or session is None
        or session.modified
        or session.session_key != key[0]
    ):
        return
    until = timezone.now() + datetime.timedelta(seconds=settings.PAGE_CACHE_SECONDS)
    sooner = getattr(request, "page_kept_until", None)
    if sooner is not None:
        until = min(until, sooner)
    store.put(
        key,
        Kept(
            user_id=user.pk,
            club_id=club.pk,
            organiser=bool(getattr(club, "is_organiser", False)),
            token=token,
            generation=generation,
            date=request.page_date,  # type: ignore[attr-defined]
            until=until,
            headers=tuple(response.headers.items()),
            content=response.content,
        ),
    )


class PageCacheMiddleware:
    """Serves a kept page (after SecurityMiddleware and the CSP's, before sessions: a kept page
    needs neither the session nor the user loaded), and keeps the pages `kept_page` marks."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = _key(request) if settings.PAGE_CACHE else None
        if key is not None:
            kept = _serve(request, key)
            if kept is not None:
                return kept
            request.page_cache_key = key  # type: ignore[attr-defined]
        response = self.get_response(request)
        if key is not None:
            _keep(request, key, response)
        return response
