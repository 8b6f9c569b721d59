"""The app's URLs and two yardsticks, served by the same gunicorn through the same middleware as
the pages they measure: /bench/bare/, a Django view that returns a few bytes, and
/bench/bare/c/<club>/, the same after what every club page does first (the session, the user, the
club and the viewer's membership: league.access.club_for)."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from league.access import club_for
from league.urls import urlpatterns as app_urlpatterns


def bare(request: HttpRequest) -> HttpResponse:
    return HttpResponse(b"ok", content_type="text/plain")


def bare_club(request: HttpRequest, slug: str) -> HttpResponse:
    club_for(request, slug)
    return HttpResponse(b"ok", content_type="text/plain")


urlpatterns = [
    path("bench/bare/", bare),
    path("bench/bare/c/<slug:slug>/", bare_club),
    *app_urlpatterns,
]
