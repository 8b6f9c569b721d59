"""(being written)"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse


def game_new(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def game_edit(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def game_void(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError
