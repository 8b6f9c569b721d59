"""(being written)"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse



def day_ledger(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def transfer_settle(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def day_attendees(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def day_shugi(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError


def entry_reverse(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise NotImplementedError
