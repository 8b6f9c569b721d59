"""The project's routes: the site's own few (its home, the icon, the service worker), the API,
the admin and the language switch, and each domain's urls.py with its namespace (the name a
page is reversed by says its domain: `recording:day_detail`, `money:day_ledger`). The club's
pages are under c/<slug>/ (league.access.CLUB_ROUTE)."""

from __future__ import annotations

import datetime

from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path, register_converter

from league.access import CLUB_ROUTE
from league.accounts.views import login
from league.api.routes import api
from league.recording.views import days
from league.table import views as table_views


class DateConverter:
    """Dates in URLs as 2026-11-21."""

    regex = r"\d{4}-\d{2}-\d{2}"

    def to_python(self, value: str) -> datetime.date:
        return datetime.date.fromisoformat(value)

    def to_url(self, value: datetime.date) -> str:
        return value.isoformat()


register_converter(DateConverter, "date")

# The admin's login page counts and refuses failed logins like ours (league/throttle.py).
admin.site.login_form = login.ThrottledAdminAuthenticationForm

# The site's own routes (namespace `site`).
site_patterns: list[URLPattern] = [
    path("", days.home, name="home"),
    # Browsers and bookmarks that ask for /favicon.ico get the icon every page names (base.html).
    path("favicon.ico", days.favicon, name="favicon"),
    # static/league/sw.js at the root, so that its scope is the whole site (league.table).
    path("sw.js", table_views.service_worker, name="service_worker"),
]

urlpatterns: list[URLPattern | URLResolver] = [
    path("", include((site_patterns, "site"))),
    # A club's pages, each domain's under its namespace.
    path(CLUB_ROUTE, include("league.recording.urls")),
    path(CLUB_ROUTE, include("league.money.urls")),
    path(CLUB_ROUTE, include("league.standings.urls")),
    path(CLUB_ROUTE, include("league.rules.urls")),
    path(CLUB_ROUTE, include("league.excel.urls")),
    path(CLUB_ROUTE, include("league.club.urls")),
    path(CLUB_ROUTE, include("league.draw.urls")),
    path(CLUB_ROUTE, include("league.table.urls")),
    path(CLUB_ROUTE, include("league.teams.urls")),
    path(CLUB_ROUTE, include("league.mypage.urls")),
    path(CLUB_ROUTE, include("league.online.urls")),
    path(CLUB_ROUTE, include("league.api.urls")),  # the API tokens' pages
    # Domains with pages inside and outside a club: they mount their club part themselves.
    path("", include("league.accounts.urls")),  # accounts/, clubs/new/, join/<secret>/
    path("", include("league.chat.urls")),  # hooks/ (the chats' webhooks)
    path("", include("league.public.urls")),  # s/<token>/ (a club's share link)
    path("api/", api.urls),
    path("admin/", admin.site.urls),
    path("i18n/", include(("django.conf.urls.i18n", "i18n"))),
]
