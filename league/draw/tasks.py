"""Draws of a large field, made by the worker (`manage.py db_worker`) instead of inside the request.

A draw whose search may take longer than league.draw.services.INLINE_SECONDS (a tournament's
field, a cup day's whole schedule) is asked of the worker by `draw_ask`: the day's DrawRoom
notes when it was asked and, once the task is enqueued, its result's id; the page reads the
task's status from the tasks backend (league.draw.selectors.draw_job) and refreshes until the
draw is stored. The task stores it through the same actions as a draw made in the request
(services.round_draw / schedule_draw: their transaction, club lock and audit entry). A club
evening's draw is made at once, inside the request, by the same call."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone, translation

from league.core.actions import action
from league.core.errors import NON_FIELD, ServiceError
from league.core.locks import lock_club
from league.core.tasks import enqueue_on_commit, task
from league.draw import selectors as sel
from league.draw import services
from league.models import Club, Day, audit
from league.models.audit import User
from league.models.draw import DrawRoom, DrawRound


@dataclass(frozen=True)
class Asked:
    """What draw_ask did: drew at once (`rounds`, the rounds stored), asked the worker
    (`queued`), or nothing because a draw of the day is being made already (`busy`).
    `number`: the round asked for (the first of a schedule)."""

    rounds: list[DrawRound] = field(default_factory=list)
    queued: bool = False
    busy: bool = False
    number: int = 0


def draw_ask(
    *,
    club: Club,
    user: User,
    date: datetime.date,
    seats_drawn: bool = True,
    redraw: bool = False,
    rounds: int = 0,
    language: str = "",
) -> Asked:
    """Draw the next round (a redraw of the current one; with `rounds`, a cup day's schedule of
    that many): at once when the field is small (services.on_worker), else asked of the worker.
    Bad input (no round to redraw, too few players, a schedule already drawn, rounds out of
    range) is a ServiceError here, in the request, nothing stored or asked. Asking while a draw
    of the day is being made asks nothing more (Asked.busy)."""
    if rounds and not 1 <= rounds <= services.MAX_ROUNDS:
        raise ServiceError.one("rounds", str(services.ROUNDS_RANGE) % {"n": services.MAX_ROUNDS})
    day = Day.objects.filter(club=club, date=date).first()
    field_name = "rounds" if rounds else NON_FIELD
    found = None
    if day is not None:
        found = services.next_draw(club=club, day=day, redraw=redraw)
    if found is None or not services.on_worker(len(found.players), rounds or 1):
        if rounds:
            stored = services.schedule_draw(
                club=club, user=user, date=date, rounds=rounds, seats_drawn=seats_drawn
            )
        else:
            stored = [
                services.round_draw(
                    club=club, user=user, date=date, seats_drawn=seats_drawn, redraw=redraw
                )
            ]
        return Asked(rounds=stored, number=stored[0].number)
    with action():
        lock_club(club.pk)
        room = services.room_locked(day)
        job = sel.draw_job(room)
        if job is not None and job.busy:
            return Asked(busy=True, number=job.number)
        if rounds and DrawRound.objects.filter(day=day).exists():
            raise ServiceError.one(field_name, str(services.SCHEDULE_EXISTS))
        found = services.next_draw(club=club, day=day, redraw=redraw)  # as it is under the lock
        before = {
            "asked_at": room.draw_asked_at.isoformat() if room.draw_asked_at else None,
            "task": room.draw_task,
        }
        room.draw_asked_at, room.draw_task = timezone.now(), ""
        room.save(update_fields=["draw_asked_at", "draw_task"])
        asked = {
            "number": found.number,
            "revision": found.revision,
            "redraw": redraw,
            "rounds": rounds,
            "seats_drawn": seats_drawn,
        }
        audit.audit(
            club=club,
            actor=user,
            action="draw.ask",
            target=f"day:{day.pk}",
            before=before,
            after={**asked, "players": len(found.players)},
        )
        asked_at = room.draw_asked_at
        enqueue_on_commit(
            draw_made,
            on_enqueued=lambda result: _keep_task_id(room.pk, asked_at, result.id),
            club_id=club.pk,
            user_id=getattr(audit.stored_user(user), "pk", None),
            date=date.isoformat(),
            language=language or translation.get_language() or settings.LANGUAGE_CODE,
            **asked,
        )
    return Asked(queued=True, number=found.number)


def _keep_task_id(room_id: int, asked_at: datetime.datetime, result_id: str) -> None:
    """The enqueued task's result id on the room, for the page to read its status (unless the
    room was asked again meanwhile)."""
    DrawRoom.objects.filter(pk=room_id, draw_asked_at=asked_at).update(draw_task=str(result_id))


@task()
def draw_made(
    *,
    club_id: int,
    user_id: int | None,
    date: str,
    number: int,
    revision: int,
    redraw: bool,
    rounds: int,
    seats_drawn: bool,
    language: str,
) -> dict[str, Any]:
    """The worker's draw: stored by services.round_draw (the round and revision asked for, else
    nothing: another draw came first) or services.schedule_draw, with the search's whole time,
    as the organiser who asked. Returns the rounds stored, or the reason nothing was (a
    ServiceError's words, in the asker's language, for the page)."""
    club = Club.objects.get(pk=club_id)
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    day = datetime.date.fromisoformat(date)
    with translation.override(language or settings.LANGUAGE_CODE):
        try:
            if rounds:
                stored = services.schedule_draw(
                    club=club,
                    user=user,
                    date=day,
                    rounds=rounds,
                    seats_drawn=seats_drawn,
                    worker=True,
                )
            else:
                stored = [
                    services.round_draw(
                        club=club,
                        user=user,
                        date=day,
                        seats_drawn=seats_drawn,
                        redraw=redraw,
                        worker=True,
                        expect=(number, revision),
                    )
                ]
        except ServiceError as e:
            return {"error": " ".join(m for messages in e.errors.values() for m in messages)}
    return {"rounds": [r.number for r in stored]}
