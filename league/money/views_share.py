"""A day as a message for the club's group chat (league.money.sharing), ready to copy or share."""

from __future__ import annotations

import datetime

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from league import money
from league.access import club_for, day_for
from league.models import RulesVersion
from league.money import sharing
from league.recording import selectors


@require_safe
def day_share(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club = club_for(request, slug)
    day = day_for(club, date)
    version = RulesVersion.in_force(club, day.date)
    ledger = None
    if version is not None and version.rules.has_money:
        day.club = club  # money.day_ledger reads it: no second query
        ledger = money.day_ledger(day=day)
    text = sharing.day_text(club=club, day=day, games=selectors.day_games(day=day), ledger=ledger)
    context = {"club": club, "day": day, "text": text, "lines": text.count("\n") + 1}
    return render(request, "league/money/day_share.html", context)
