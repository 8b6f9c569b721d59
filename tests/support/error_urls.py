"""The site's URLs plus one view that fails, to see the 500 page (tests/league/accounts/test_audit_polish.py)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path

from league.urls import urlpatterns as site


def boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


urlpatterns = [path("boom/", boom), *site]
