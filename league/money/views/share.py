"""A day as a message for the club's group chat (league.money.sharing), ready to copy or share."""

from __future__ import annotations

import datetime

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from league.access import club_for, day_for
from league.models import draw as draw_selectors
from league.money import sharing


@require_safe
def day_share(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club = club_for(request, slug)
    day = day_for(club, date)
    if draw_selectors.hidden_games(day, organiser=club.is_organiser):  # type: ignore[attr-defined]
        messages.info(request, _("Results are held back until every table of a round is recorded."))
        return redirect("recording:day_detail", club.slug, date)
    text = sharing.day_message(club=club, day=day)
    context = {"club": club, "day": day, "text": text, "lines": text.count("\n") + 1}
    return render(request, "league/money/day_share.html", context)
