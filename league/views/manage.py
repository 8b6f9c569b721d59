"""(being written)"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse


def member_list(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def member_new(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def season_list(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def season_new(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def rules_list(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def rules_new(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def rules_resettle(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError
