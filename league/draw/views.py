"""The table draw's pages: the day's check-in and current round (cards), and a cup day's schedule.

Members see them; organisers check players in and out, draw, swap, lock and record. Every day is
looked up inside the club from the URL.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from openpyxl import Workbook

from league.access import club_for, day_for
from league.core.clock import today
from league.core.directory import Directory
from league.core.errors import ServiceError
from league.draw import selectors as sel
from league.draw import services as draw
from league.draw import tasks as draw_tasks
from league.draw.forms import (
    CheckInForm,
    DayForm,
    DrawForm,
    LeaveForm,
    LockForm,
    RoomForm,
    ScheduleForm,
    SwapForm,
)
from league.excel.exports import ascii_file_name, file_name, write_sheet, xlsx_response
from league.models import Club, Day, Member
from league.models.draw import Attendance, table_label
from league.web import add_errors, show_errors


@dataclass(frozen=True)
class ProposedTable:
    label: str
    players: list[tuple[str, Member]]


@dataclass(frozen=True)
class Proposal:
    number: int
    tables: list[ProposedTable]
    sitting_out: list[Member]


@dataclass(frozen=True)
class PlayerLine:
    member: Member
    cells: list[str]  # per round: "B 西", "B" or "抜け"


def _errors(request: HttpRequest, errors: dict[str, list[str]]) -> None:
    show_errors(request, ServiceError(errors))


def _to_draw(club: Club, date: datetime.date) -> HttpResponse:
    return redirect("draw:draw_day", club.slug, date)


def _post_to_draw(
    request: HttpRequest,
    club: Club,
    date: datetime.date,
    form: forms.Form,
    act: Callable[[dict[str, Any]], str | None],
) -> HttpResponse:
    """A draw page's form-only POST: the form's or the service's errors as messages, else the
    action's success message (when it gives one); back to the day's draw either way."""
    if not form.is_valid():
        _errors(request, form.errors)
        return _to_draw(club, date)
    try:
        done = act(form.cleaned_data)
    except ServiceError as e:
        _errors(request, e.errors)
    else:
        if done:
            messages.success(request, done)
    return _to_draw(club, date)


def _proposal(club: Club, day: Day, members: dict[int, Member]) -> Proposal | None:
    try:
        plan = draw.round_plan(club=club, day=day)
    except ServiceError:
        return None
    rnd = plan.rounds[0]
    tables = [
        ProposedTable(table_label(i), [(sel.WINDS[s], members[pk]) for s, pk in enumerate(players)])
        for i, players in enumerate(rnd.tables)
    ]
    return Proposal(plan.number, tables, [members[pk] for pk in rnd.sitting_out])


def _record_url(club: Club, date: datetime.date, tv: sel.TableView) -> str:
    params = {"date": date.isoformat(), "table": tv.table.label, "draw_table": tv.table.pk}
    params.update({f"member_{i}": m.name for i, m in enumerate(tv.players)})
    return reverse("recording:game_new", args=[club.slug]) + "?" + urlencode(params)


def _table_url(club: Club, date: datetime.date, tv: sel.TableView) -> str:
    """The same table started in table mode (点数係, league.table): hand by hand on one phone;
    once started, that table game (a second phone, a seated player, a watcher)."""
    running = getattr(tv.table, "running_table", None)
    if running is not None:
        return reverse("table:table_play", args=[club.slug, running])
    query = _record_url(club, date, tv).partition("?")[2]
    return reverse("table:table_new", args=[club.slug]) + "?" + query


@require_safe
def record_start(request: HttpRequest, slug: str) -> HttpResponse:
    """The header's 記録. On a day with a draw it never opens a blank form with the last game's
    table: the one table not yet recorded opens its card's form; with several, the organiser
    picks the table (or a game outside the draw, with no table filled in). Without a draw, the
    record form as always."""
    club = club_for(request, slug, organiser=True)
    date = today()
    rounds = sel.current_rounds(sel.day_of(club, date))
    open_tables = [(rv, tv) for rv in rounds for tv in rv.tables if not tv.recorded]
    form = reverse("recording:game_new", args=[club.slug])
    if not rounds:
        return redirect(form)
    if len(open_tables) == 1:
        return redirect(_record_url(club, date, open_tables[0][1]))
    return render(
        request,
        "league/draw/record_start.html",
        {
            "club": club,
            "date": date,
            "cards": [(rv, tv, _record_url(club, date, tv)) for rv, tv in open_tables],
            "outside": form + "?" + urlencode({"date": date.isoformat(), "table": ""}),
        },
    )


@require_safe
def draw_day(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club = club_for(request, slug)
    day = day_for(club, date)
    attendance = sel.day_attendance(day)
    rounds = sel.current_rounds(day)
    current = sel.current_round(rounds)
    last = rounds[-1] if rounds else None
    members = {a.member_id: a.member for a in attendance}
    next_number = last.round.number + 1 if last else 1
    room = sel.room_of(day)
    job = sel.draw_job(room)
    proposal = None
    # A field the worker draws (draw_tasks): no proposal searched inside the request, a button
    # that asks the worker for the round instead.
    worker_next = 0
    if club.is_organiser and (last is None or last.complete):  # type: ignore[attr-defined]
        players = len(sel.present_ids(attendance, next_number))
        if draw.on_worker(players):
            worker_next = players
        elif job is None or not job.busy:
            proposal = _proposal(club, day, members)
    present = [a for a in attendance if a.until_round is None]
    left = [a for a in attendance if a.until_round is not None]
    in_round = (
        [m for t in current.tables for m in t.players] + current.sitting_out if current else []
    )
    # Checked out (or in) after this round was drawn: a redraw brings the round up to date.
    by_member = {a.member_id: a for a in attendance}
    gone = [
        m
        for m in in_round
        if current and m.pk in by_member and not by_member[m.pk].present_in(current.round.number)
    ]
    cards = (
        [(tv, _record_url(club, date, tv), _table_url(club, date, tv)) for tv in current.tables]
        if current
        else []
    )
    picker: list[Member] = (
        list(
            Member.objects.filter(club=club, is_active=True, fill_in=False).order_by("kana", "name")
        )
        if club.is_organiser  # type: ignore[attr-defined]
        else []
    )
    # A name check-in did not find (draw_check_in): typed again, with the closest members.
    typed = request.GET.get("typed", "")[:50] if picker else ""
    return render(
        request,
        "league/draw/day.html",
        {
            "club": club,
            "date": date,
            "day": day,
            "present": present,
            "left": left,
            "current": current,
            "cards": cards,
            "proposal": proposal,
            "next_number": next_number,
            "drawing_next": current is not None and current is last,
            "gone": gone,
            "check_in": CheckInForm(members=[], initial={"name": typed}),
            "check_in_suggestions": Directory(picker).suggest(typed) if typed else [],
            "draw_form": DrawForm(),
            "swap_form": SwapForm(members=Member.objects.filter(pk__in=[m.pk for m in in_round])),
            "picker": picker,
            "fill_ins_needed": _fill_ins_needed(club, day, attendance, current)
            if club.is_organiser  # type: ignore[attr-defined]
            else 0,
            "hold_results": room is not None and room.hold_results,
            "unkept": sel.unkept(rounds, attendance),
            "job": job,
            "worker_next": worker_next,
        },
    )


@require_POST
def draw_check_in(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club = _organiser_day(request, slug, date)[0]  # 404 when the day does not exist
    everyone = list(Member.objects.filter(club=club))
    form = CheckInForm(
        request.POST,
        members=[m for m in everyone if m.merged_into_id is None],
        aliases=[m for m in everyone if m.merged_into_id is not None],
    )

    def check_in(_data: dict[str, Any]) -> str:
        if form.member is None:
            member = draw.guest_check_in(
                club=club, user=request.user, date=date, name=form.guest_name
            )
        else:
            member = form.member
            draw.attendance_check_in(club=club, user=request.user, date=date, member=member)
        return _("Checked in: %(name)s") % {"name": member.name}

    response = _post_to_draw(request, club, date, form, check_in)
    if form.unknown:
        # Back to the day with the name typed, for its もしかして buttons (draw_day).
        response["Location"] += "?" + urlencode({"typed": form.unknown})
    return response


def _organiser_day(request: HttpRequest, slug: str, date: datetime.date) -> tuple[Club, Day]:
    """The club from the URL (organisers only) and its day (day_for), for a draw page's POST."""
    club = club_for(request, slug, organiser=True)
    return club, day_for(club, date)


@require_http_methods(["GET", "POST"])
def draw_start(request: HttpRequest, slug: str) -> HttpResponse:
    """Open the draw of a day (today by default): the day is created when it does not exist."""
    club = club_for(request, slug, organiser=request.method == "POST")
    form = DayForm(
        request.POST if request.method == "POST" else None, initial={"date": f"{today():%Y/%m/%d}"}
    )
    if form.is_bound and form.is_valid():
        date = form.cleaned_data["date"]
        try:
            draw.day_open(club=club, user=request.user, date=date)
        except ServiceError as e:
            add_errors(form, e)
        else:
            return redirect("draw:draw_day", club.slug, date)
    days = Day.objects.filter(club=club).order_by("-date")[:10]
    return render(request, "league/draw/start.html", {"club": club, "form": form, "days": days})


@require_POST
def draw_leave(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club, day = _organiser_day(request, slug, date)
    form = LeaveForm(request.POST, members=Member.objects.filter(club=club, merged_into=None))

    def leave(data: dict[str, Any]) -> str:
        draw.attendance_leave(club=club, user=request.user, day=day, member=data["member"])
        return _("Left: %(name)s") % {"name": data["member"].name}

    return _post_to_draw(request, club, date, form, leave)


@require_POST
def draw_round(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club = _organiser_day(request, slug, date)[0]  # 404 when the day does not exist

    def draw_next(data: dict[str, Any]) -> str:
        asked = draw_tasks.draw_ask(
            club=club,
            user=request.user,
            date=date,
            seats_drawn=bool(data.get("seats_drawn")),
            redraw=bool(data.get("redraw")),
            language=get_language(),
        )
        return _asked_message(asked)

    return _post_to_draw(request, club, date, DrawForm(request.POST), draw_next)  # always valid


def _asked_message(asked: draw_tasks.Asked) -> str:
    if asked.busy:
        return _("The draw is being made already: this page shows it when it is ready.")
    if asked.queued:
        return _(
            "Round %(n)s is being drawn in the background: this page shows it when it is ready."
        ) % {"n": asked.number}
    if len(asked.rounds) > 1:
        return _("%(n)s rounds drawn.") % {"n": len(asked.rounds)}
    return _("Round %(n)s drawn.") % {"n": asked.number}


@require_POST
def draw_swap(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club, day = _organiser_day(request, slug, date)
    form = SwapForm(request.POST, members=Member.objects.filter(club=club, merged_into=None))

    def swap(data: dict[str, Any]) -> str:
        first, second = data["first"], data["second"]
        draw.seat_swap(club=club, user=request.user, day=day, first=first, second=second)
        return _("Swapped %(a)s and %(b)s.") % {"a": first.name, "b": second.name}

    return _post_to_draw(request, club, date, form, swap)


def _fill_ins_needed(
    club: Club, day: Day, attendance: list[Attendance], current: sel.RoundView | None
) -> int:
    """draw.fill_ins_needed from what the page has read already (one query: the table size)."""
    start = 1
    if current is not None:
        recorded = any(t.recorded for t in current.tables)
        start = current.round.number + 1 if recorded else current.round.number
    present = len(sel.present_ids(attendance, start))
    return -present % sel.table_size(club, day.date) if present else 0


@require_POST
def draw_fill_ins(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    """Check in the fill-ins (黒子) that complete the next round's tables."""
    club, day = _organiser_day(request, slug, date)

    def fill(_data: dict[str, Any]) -> str:
        added = draw.fill_ins_add(club=club, user=request.user, date=day.date)
        return _("Fill-ins checked in: %(names)s") % {"names": "、".join(m.name for m in added)}

    return _post_to_draw(request, club, date, forms.Form(request.POST), fill)


@require_POST
def draw_lock(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club, day = _organiser_day(request, slug, date)

    def lock(data: dict[str, Any]) -> None:
        draw.table_lock(
            club=club, user=request.user, day=day, table_id=data["table"], locked=data["locked"]
        )

    return _post_to_draw(request, club, date, LockForm(request.POST), lock)


def _schedule_lines(rounds: list[sel.RoundView]) -> list[PlayerLine]:
    """Per player, where they sit in each round ("B 西"; the table only when seats are left to
    the table; 抜け when sitting out)."""
    cells: dict[int, dict[int, str]] = {}
    members: dict[int, Member] = {}
    for i, rv in enumerate(rounds):
        for tv in rv.tables:
            for s, m in enumerate(tv.players):
                members[m.pk] = m
                wind = f" {sel.WINDS[s]}" if rv.round.seats_drawn else ""
                cells.setdefault(m.pk, {})[i] = f"{tv.table.label}{wind}"
        for m in rv.sitting_out:
            members[m.pk] = m
            cells.setdefault(m.pk, {})[i] = _("out")
    ordered = sorted(members.values(), key=lambda m: (m.kana, m.name))
    return [PlayerLine(m, [cells[m.pk].get(i, "—") for i in range(len(rounds))]) for m in ordered]


@require_http_methods(["GET", "POST"])
def draw_schedule(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    """A cup day's whole schedule: drawn at once, shown per round and per player, printable."""
    club = club_for(request, slug, organiser=request.method == "POST")
    day = day_for(club, date)
    form = ScheduleForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        try:
            asked = draw_tasks.draw_ask(
                club=club,
                user=request.user,
                date=date,
                rounds=form.cleaned_data["rounds"],
                seats_drawn=form.cleaned_data["seats_drawn"],
                language=get_language(),
            )
        except ServiceError as e:
            add_errors(form, e)
        else:
            if asked.queued or asked.busy:
                messages.info(request, _asked_message(asked))
            return redirect("draw:draw_schedule", club.slug, date)
    rounds = sel.current_rounds(day)
    attendance = sel.day_attendance(day)
    present = [a for a in attendance if a.until_round is None]
    job = sel.draw_job(sel.room_of(day)) if not rounds else None
    return render(
        request,
        "league/draw/schedule.html",
        {
            "club": club,
            "date": date,
            "form": form,
            "rounds": rounds,
            "present": present,
            "lines": _schedule_lines(rounds),
            "figures": sel.schedule_report(rounds),
            "unkept": sel.unkept(rounds, attendance),
            "job": job,
        },
    )


@require_safe
def draw_schedule_export(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club = club_for(request, slug)
    rounds = sel.current_rounds(day_for(club, date))
    book = Workbook()
    title = _("Schedule %(date)s") % {"date": date.strftime("%Y-%m-%d")}
    write_sheet(
        book.active,
        title=title,
        headers=[_("Player"), *[_("Round %(n)s") % {"n": rv.round.number} for rv in rounds]],
        rows=[[line.member.name, *line.cells] for line in _schedule_lines(rounds)],
        landscape=len(rounds) > 6,
        page_header=f"{club.name} {title}",
    )
    per_round = book.create_sheet()
    write_sheet(
        per_round,
        title=_("Tables"),
        headers=[_("Round"), _("Table"), *sel.WINDS],
        rows=[
            [rv.round.number, tv.table.label, *[m.name for m in tv.players]]
            for rv in rounds
            for tv in rv.tables
        ],
        page_header=f"{club.name} {title}",
    )
    return xlsx_response(
        book,
        name=file_name(club.name, date.isoformat(), _("Schedule")),
        fallback=ascii_file_name(club.slug, date.isoformat(), "schedule"),
    )


PROJECTOR_REFRESH_SECONDS = 15


@require_safe
def draw_projector(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    """The room's projector (1920×1080, read from the back of the room): the current round's
    tables and seats, the countdown the organiser started, and the day's standings when the
    organiser allows. It reloads itself every PROJECTOR_REFRESH_SECONDS; the countdown runs in
    the page between reloads. A fixed number of queries whatever the number of tables."""
    club = club_for(request, slug)
    day = day_for(club, date)
    current = sel.current_round(sel.current_rounds(day))
    room = sel.room_of(day)
    left = None
    if room is not None and room.timer_ends_at is not None:
        left = max(0, int((room.timer_ends_at - timezone.now()).total_seconds()))
    shown = room is not None and room.show_standings
    return render(
        request,
        "league/draw/projector.html",
        {
            "club": club,
            "date": date,
            "current": current,
            "room": room,
            "left": left,
            "left_text": f"{left // 60}:{left % 60:02d}" if left is not None else "",
            "standings": sel.room_standings(club, date) if shown else None,
            "refresh": PROJECTOR_REFRESH_SECONDS,
        },
    )


@require_POST
def draw_room(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    """The projector's controls on the day's draw: start or stop the countdown, show or hide the
    standings."""
    club, day = _organiser_day(request, slug, date)

    def control(data: dict[str, Any]) -> str:
        do = data["do"]
        if do in ("start", "stop"):
            minutes = data["minutes"] if do == "start" else None
            draw.room_timer(club=club, user=request.user, day=day, minutes=minutes)
            if do == "start":
                return _("Countdown of %(n)s minutes started.") % {"n": minutes}
            return _("Countdown stopped.")
        if do in ("hold", "release"):
            draw.room_hold_results(club=club, user=request.user, day=day, held=do == "hold")
            return (
                _("Results are held back until every table of a round is recorded.")
                if do == "hold"
                else _("Results show as soon as each game is recorded.")
            )
        draw.room_standings(club=club, user=request.user, day=day, shown=do == "show")
        return (
            _("Standings shown on the projector.")
            if do == "show"
            else _("Standings hidden on the projector.")
        )

    return _post_to_draw(request, club, date, RoomForm(request.POST), control)
