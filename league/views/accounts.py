"""(being written)"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse



def member_statement(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def debt_list(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def debt_repay(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def club_pot(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError
