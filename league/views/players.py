"""(being written)"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse



def player_detail(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def season_race(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError
