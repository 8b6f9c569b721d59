"""(being written)"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse


def home(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def club_home(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def day_detail(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def game_detail(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError
