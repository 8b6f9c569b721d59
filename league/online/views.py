"""Recording an online game on the phone: paste or upload the log, check who is who, record.

Organisers only. The log is checked by the engine at each step (league.online.services.log_read)
and the game is recorded only by league.online.services.online_game_record.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from league.access import club_for
from league.core.clock import today
from league.core.errors import ServiceError
from league.models import Club, Member
from league.online import services
from league.online.forms import LogForm, MapForm
from league.web import messages_of


def _members(club: Club) -> list[Member]:
    return list(Member.objects.filter(club=club, is_active=True, merged_into__isnull=True))


def _map_page(
    request: HttpRequest, club: Club, read: services.ReadLog, form: MapForm
) -> HttpResponse:
    found = services.already_recorded(club, read)
    seats = list(zip(form.seat_fields(), read.points, strict=True))
    return render(
        request,
        "league/online/online_map.html",
        {
            "club": club,
            "form": form,
            "read": read,
            "seats": seats,
            "deposits": read.deposits,
            "hand_count": len(read.hands["hands"]),
            "found": found,
            "lacks": services.log_lacks(club, read, _map_date(form, read)),
        },
    )


def _map_form(
    club: Club, read: services.ReadLog, data: Any = None, *, log: str = "", filename: str = ""
) -> MapForm:
    names = read.game.names
    day = read.played_on or today()
    initial = {"log": log, "filename": filename, "date": day.isoformat()}
    return MapForm(
        data,
        initial=initial,
        names=names,
        members=_members(club),
        remembered=services.remembered_members(club, names),
        rates=services.rates(club, day),
        rate=services.day_rate(club, day),
    )


def _map_date(form: MapForm, read: services.ReadLog) -> datetime.date:
    """The date the game is to be recorded on: the form's, once valid, else the log's."""
    cleaned = getattr(form, "cleaned_data", {})
    return cleaned.get("date") or read.played_on or today()


@require_http_methods(["GET", "POST"])
def online_import(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    step = request.POST.get("step", "read") if request.method == "POST" else ""
    if step == "record":
        return _record(request, club)
    form = LogForm(request.POST or None, request.FILES or None)
    if form.is_bound and form.is_valid():
        try:
            read = services.log_read(
                form.cleaned_data["log"], filename=form.cleaned_data["filename"]
            )
        except ServiceError as e:
            for message in e.errors.get(services.LOG, []):
                form.add_error(None, message)
        else:
            if (problem := services.players_problem(club, read, today())) is not None:
                form.add_error(None, problem)
                return render(
                    request,
                    "league/online/online_import.html",
                    {"club": club, "form": form, "logs": services.recent_logs(club)},
                )
            map_form = _map_form(
                club, read, log=form.cleaned_data["log"], filename=form.cleaned_data["filename"]
            )
            return _map_page(request, club, read, map_form)
    return render(
        request,
        "league/online/online_import.html",
        {"club": club, "form": form, "logs": services.recent_logs(club)},
    )


def _record(request: HttpRequest, club: Club) -> HttpResponse:
    log = request.POST.get("log", "")
    filename = request.POST.get("filename", "")
    try:
        read = services.log_read(log, filename=filename)
    except ServiceError as e:
        form = LogForm({"text": log})  # shown again as pasted, with what is wrong with it
        form.is_valid()
        for message in e.errors.get(services.LOG, []):
            form.add_error(None, message)
        return render(
            request,
            "league/online/online_import.html",
            {"club": club, "form": form, "logs": services.recent_logs(club)},
        )
    form = _map_form(club, read, request.POST)
    if form.is_valid():
        try:
            game = services.online_game_record(
                club=club,
                user=request.user,
                read=read,
                members=form.chosen_members(),
                date=form.cleaned_data["date"],
                rate=form.cleaned_data.get("rate") or "",
            )
        except ServiceError as e:
            for message in messages_of(e):
                form.add_error(None, message)
        else:
            messages.success(
                request,
                _("The online game was recorded as game %(number)s of %(date)s.")
                % {"number": game.number, "date": game.date.isoformat()},
            )
            return redirect("recording:game_detail", club.slug, game.pk)
    return _map_page(request, club, read, form)
