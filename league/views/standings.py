"""(being written)"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse



def standings(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def season_standings(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError
