"""Writes of the table draw: check-in and departure, drawing a round or a whole day, swaps, locks,
and linking a recorded game to its table. Each validates (ServiceError naming the field, nothing
stored) or writes and audits inside one transaction."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy

from league import limits
from league.club import services as club_services
from league.core import errors
from league.core.actions import action
from league.core.errors import ServiceError
from league.core.locks import for_update, lock_club
from league.core.names import name_key
from league.draw import algorithm
from league.draw import selectors as sel
from league.models import Club, Day, Member, audit
from league.models.audit import User
from league.models.draw import Attendance, DrawRoom, DrawRound, DrawSeat, DrawTable
from league.money import services as money_services

NOT_A_MEMBER = gettext_lazy("Choose a member of this club.")
ALREADY_PRESENT = gettext_lazy("%(name)s is already checked in.")
NOT_PRESENT = gettext_lazy("%(name)s is not checked in.")
TOO_FEW = gettext_lazy("Not enough players present for one table (%(n)s needed).")
NO_ROUND = gettext_lazy("No round has been drawn yet.")
NOT_IN_ROUND = gettext_lazy("%(name)s is not in this round.")
SAME_PLAYER = gettext_lazy("Choose two different players.")
TABLE_FIXED = gettext_lazy("Table %(table)s is locked or recorded: unlock it first.")
UNFAIR_SWAP = gettext_lazy(
    "%(out)s has missed fewer rounds than %(seated)s: swapping them would make someone sit "
    "out twice before another has sat out once."
)
ROUNDS_RANGE = gettext_lazy("Enter a number of rounds from 1 to %(n)s.")
DRAW_MOVED_ON = gettext_lazy(
    "The draw changed before this one was made (another draw came first): nothing was drawn."
)
SCHEDULE_EXISTS = gettext_lazy("Rounds are already drawn for this day.")
NO_SUCH_TABLE = gettext_lazy("No such table in the current round.")
TOO_MANY = gettext_lazy(
    "At most %(n)s players can be checked in on one day: someone must leave before another "
    "checks in."
)
TOO_MANY_TO_DRAW = gettext_lazy(
    "%(count)s players are checked in: the draw seats at most %(n)s. Check some out first."
)
MAX_PLAYERS = algorithm.MAX_PLAYERS

MAX_ROUNDS = 12


@dataclass(frozen=True)
class Plan:
    """A round (or several) as the algorithm drew them, before anything is stored."""

    number: int
    revision: int
    rounds: list[algorithm.Round]
    locked: int  # the first `locked` tables of the first round are kept from the revision before
    scheduled: bool = False  # a redraw of a round of a schedule drawn in advance


def _audit(club: Club, user: User, action: str, day: Day, **kw: Any) -> None:
    audit.audit(club=club, actor=user, action=action, target=f"day:{day.pk}", **kw)


def day_open(*, club: Club, user: User, date: datetime.date) -> Day:
    """The club's day on `date`, created (and audited) when it does not exist yet; a new day
    keeps the app's date rule (limits.date_problem: 2000/01/01 to a year from today)."""
    problem = limits.date_problem(date)
    if problem is not None and not Day.objects.filter(club=club, date=date).exists():
        raise ServiceError.one("date", problem)
    with action():
        day, created = Day.objects.get_or_create(club=club, date=date)
        if created:
            audit.audit(
                club=club,
                actor=user,
                action="day.create",
                target=f"day:{day.pk}",
                after={"date": date.isoformat()},
            )
    return day


# --- attendance ----------------------------------------------------------------------------


def _next_playable(day: Day) -> int:
    """The first round a newcomer can play: the current one while none of its games is recorded
    (a redraw will seat them), else the next one."""
    current = sel.current_round(sel.current_rounds(day))
    if current is None:
        return 1
    recorded = any(t.recorded for t in current.tables)
    return current.round.number + 1 if recorded else current.round.number


def attendance_check_in(
    *, club: Club, user: User, date: datetime.date, member: Member
) -> Attendance:
    """Check a player in (again, after leaving): they are one of the day's attendees (the
    ledger's, so session shūgi counts them) from the next round they can play."""
    with action():
        return _check_in(club=club, user=user, date=date, member=member)


def _rounds(attendance: Attendance) -> dict[str, int | None]:
    return {"from_round": attendance.from_round, "until_round": attendance.until_round}


def _present_from(day: Day, member: Member, existing: Attendance | None, start: int) -> Attendance:
    """The member present on the day from round `start`: a new attendance, or theirs again."""
    if existing is None:
        return Attendance.objects.create(day=day, member=member, from_round=start)
    existing.from_round, existing.until_round = start, None
    existing.save(update_fields=["from_round", "until_round"])
    return existing


def _check_in(*, club: Club, user: User, date: datetime.date, member: Member) -> Attendance:
    """attendance_check_in's work, inside the caller's action (guest_check_in's too)."""
    if member.club_id != club.pk:
        raise ServiceError.one("member", str(NOT_A_MEMBER))
    day = money_services.day_attendees_add_in(club=club, user=user, date=date, members=[member])
    for_update(Day.objects).filter(pk=day.pk).first()  # check-ins of a day in turn
    start = _next_playable(day)
    existing = for_update(Attendance.objects).filter(day=day, member=member).first()
    if existing is not None and existing.until_round is None:
        raise ServiceError.one("member", str(ALREADY_PRESENT) % {"name": member.name})
    present = Attendance.objects.filter(day=day, until_round__isnull=True).count()
    if present >= MAX_PLAYERS:
        raise ServiceError.one("member", str(TOO_MANY) % {"n": MAX_PLAYERS})
    before = None if existing is None else _rounds(existing)
    existing = _present_from(day, member, existing, start)
    _audit(
        club,
        user,
        "draw.check_in",
        day,
        before=before,
        after={"member": member.pk, "name": member.name, "from_round": start},
    )
    return existing


# The longest a draw searches inside a request, well within the app server's timeout (gunicorn's
# 30 s, README). The pages ask the worker for any draw whose search may take longer than
# INLINE_SECONDS (league.draw.tasks.draw_ask); this cap is for the other callers (the shell, a
# test) of a large field's draw.
REQUEST_SECONDS = 20.0
# A draw whose search may run longer than this (its cap, algorithm.default_time_cap: 0.8 s plus
# a second per 80 player-rounds) is made by the worker, not inside the request. Measured on the
# shared 2-core machine (benchmarks/draw_bench.py and single draws): a club evening's round of
# 8 to 40 players takes 0 to 0.7 s (cap 0.9 to 1.3 s) and stays in the request, as does a round
# of up to 96 players; a round of 172 took 0.9 s (cap 3.0 s), one of 800 up to its cap of 10.8
# s, and whole-day schedules 2.8 to 5 s (40 × 8: 3.3 s, 80 × 6: 2.8 s, 100 × 8: 5.0 s).
INLINE_SECONDS = 2.0


def on_worker(players: int, rounds: int = 1) -> bool:
    """Whether the draw of `players` over `rounds` rounds is made by the worker."""
    return algorithm.default_time_cap(players, rounds) > INLINE_SECONDS


def guest_check_in(*, club: Club, user: User, date: datetime.date, name: str) -> Member:
    """A new guest, checked in at once: the guest is kept only if the check-in succeeds."""
    with action():
        member = club_services.member_create(club=club, user=user, name=name, is_guest=True)
        _check_in(club=club, user=user, date=date, member=member)
    return member


def attendance_leave(*, club: Club, user: User, day: Day, member: Member) -> Attendance:
    """A player leaves after the current round (a round with no game recorded yet, they leave
    before it: a redraw leaves them out)."""
    with action():
        attendance = for_update(Attendance.objects).filter(day=day, member=member).first()
        if attendance is None or attendance.until_round is not None:
            raise ServiceError.one("member", str(NOT_PRESENT) % {"name": member.name})
        # until_round below from_round: they leave before playing a round.
        last = max(attendance.from_round - 1, _next_playable(day) - 1)
        attendance.until_round = last
        attendance.save(update_fields=["until_round"])
        _audit(
            club,
            user,
            "draw.leave",
            day,
            after={"member": member.pk, "name": member.name, "until_round": last},
        )
    return attendance


# --- fill-ins (黒子) ---------------------------------------------------------------------------

FILL_IN_NAME = "黒子%(n)s"
NO_FILL_IN_NEEDED = gettext_lazy(
    "%(count)s players are present: the tables are full, no fill-in is needed."
)


def fill_ins_add(*, club: Club, user: User, date: datetime.date) -> list[Member]:
    """Check in the fill-ins (黒子) that complete the tables: 21 players present make 6 tables
    with 3 fill-ins. A fill-in is a member record marked `fill_in` (the club's earlier ones are
    used again, new ones are named 黒子1, 黒子2…); they are not the day's attendees for money
    (no fee, no shūgi) and their games count for nobody. Audited; a full field is a field
    error, nothing stored."""
    with action():
        day, _created = for_update(Day.objects).get_or_create(club=club, date=date)
        size = sel.table_size(club, day.date)
        start = _next_playable(day)
        attendance = sel.day_attendance(day)
        present = sel.present_ids(attendance, start)
        needed = -len(present) % size
        if not present or needed == 0:
            raise ServiceError.one(
                errors.NON_FIELD, str(NO_FILL_IN_NEEDED) % {"count": len(present)}
            )
        if len(present) + needed > MAX_PLAYERS:
            raise ServiceError.one(errors.NON_FIELD, str(TOO_MANY) % {"n": MAX_PLAYERS})
        here = {a.member_id: a for a in attendance}
        spare = list(
            Member.objects.filter(club=club, fill_in=True, merged_into__isnull=True)
            .exclude(pk__in=present)
            .order_by("pk")[:needed]
        )
        # A member's name key is unique in a club (黒子１ and 黒子1 are one name): the next free.
        taken = {
            key.partition("#")[0]
            for key in Member.objects.filter(club=club).values_list("name_key", flat=True)
        }
        n = 0
        while len(spare) < needed:
            n += 1
            name = FILL_IN_NAME % {"n": n}
            if name_key(name) in taken:
                continue
            spare.append(Member.objects.create(club=club, name=name, kana="", fill_in=True))
            audit.audit(
                club=club,
                actor=user,
                action="member.create",
                target=f"member:{spare[-1].pk}",
                after={"name": name, "fill_in": True},
            )
        for member in spare:  # one who left earlier in the day: back from the next round
            _present_from(day, member, here.get(member.pk), start)
        _audit(
            club,
            user,
            "draw.fill_ins",
            day,
            after={
                "from_round": start,
                "fill_ins": [{"member": m.pk, "name": m.name} for m in spare],
            },
        )
    return spare


# --- drawing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Next:
    """What a draw would draw, read before any search: the round's number and revision, its
    players and the tables it keeps (a redraw's locked and recorded ones)."""

    views: list[sel.RoundView]
    current: sel.RoundView | None
    number: int
    revision: int
    players: list[int]
    kept: list[sel.TableView]
    size: int


def next_draw(*, club: Club, day: Day, redraw: bool = False) -> Next:
    """The round the next draw makes (or the current round's next revision), its players and
    kept tables; a ServiceError when there is no round to redraw or too few or too many
    players. No search: what decides whether the worker makes the draw (on_worker)."""
    views = sel.current_rounds(day)
    attendance = sel.day_attendance(day)
    size = sel.table_size(club, day.date)
    current = sel.current_round(views)
    kept: list[sel.TableView] = []
    if redraw:
        if current is None:
            raise ServiceError.one(errors.NON_FIELD, str(NO_ROUND))
        number, revision = current.round.number, current.round.revision + 1
        kept = [t for t in current.tables if t.table.locked or t.recorded]
    else:
        number, revision = (views[-1].round.number + 1 if views else 1), 1
    players = sel.present_ids(attendance, number)
    kept_ids = {m.pk for t in kept for m in t.players}
    players = sorted(set(players) | kept_ids)
    if len(players) < size:
        raise ServiceError.one(errors.NON_FIELD, str(TOO_FEW) % {"n": size})
    if len(players) > MAX_PLAYERS:  # checked in around the check-in's cap (the shell, old days)
        message = str(TOO_MANY_TO_DRAW) % {"count": len(players), "n": MAX_PLAYERS}
        raise ServiceError.one(errors.NON_FIELD, message)
    return Next(views, current, number, revision, players, kept, size)


def round_plan(
    *,
    club: Club,
    day: Day,
    redraw: bool = False,
    rounds: int = 1,
    worker: bool = False,
    expect: tuple[int, int] | None = None,
) -> Plan:
    """The next round (or `rounds` rounds), or a redraw of the current round around its locked
    and recorded tables: computed, not stored (what the page proposes). Inside a request the
    search stops after REQUEST_SECONDS; on the `worker` it has its whole cap. `expect`: the
    round and revision the organiser asked for (a worker's draw): a ServiceError when the day
    has moved on since (another draw came first)."""
    found = next_draw(club=club, day=day, redraw=redraw)
    views, current, kept, size = found.views, found.current, found.kept, found.size
    number, revision, players = found.number, found.revision, found.players
    if expect is not None and expect != (number, revision):
        raise ServiceError.one(errors.NON_FIELD, str(DRAW_MOVED_ON))
    history = sel.season_history(club, day.date)
    day_winds, day_numbers = sel.day_seats(views, number)
    winds = {
        pk: [
            a + b
            for a, b in zip(history.seats.get(pk, [0] * 4), day_winds.get(pk, [0] * 4), strict=True)
        ]
        for pk in players
    }
    drawn = algorithm.draw(
        players=players,
        rounds=rounds,
        table_size=size,
        missed=sel.missed_rounds(views, number, players),
        day_pairs=sel.day_pairs(views, number),
        season_pairs=history.pairs,
        locked=[tuple(m.pk for m in t.players) for t in kept],
        teams=history.teams,
        wind_history=winds,
        table_history=day_numbers,
        seed=sel.draw_seed(day, number, revision),
        time_cap=algorithm.default_time_cap(len(players), rounds)
        if worker
        else min(REQUEST_SECONDS, algorithm.default_time_cap(len(players), rounds)),
    )
    return Plan(
        number, revision, drawn, len(kept), bool(redraw and current and current.round.scheduled)
    )


def _store(
    *,
    day: Day,
    user: User,
    plan: Plan,
    seats_drawn: bool,
    carried: list[DrawTable],
    scheduled: bool = False,
) -> list[DrawRound]:
    stored = []
    for offset, rnd in enumerate(plan.rounds):
        draw_round = DrawRound.objects.create(
            day=day,
            number=plan.number + offset,
            revision=plan.revision if offset == 0 else 1,
            seats_drawn=seats_drawn,
            scheduled=scheduled or (offset == 0 and plan.scheduled),
            created_by=audit.stored_user(user),
        )
        tables = DrawTable.objects.bulk_create(
            DrawTable(
                round=draw_round,
                position=i,
                locked=offset == 0 and i < plan.locked and carried[i].locked,
                game=carried[i].game if offset == 0 and i < plan.locked else None,
            )
            for i in range(len(rnd.tables))
        )
        seats = [
            DrawSeat(round=draw_round, table=tables[i], member_id=pk, seat=s)
            for i, players in enumerate(rnd.tables)
            for s, pk in enumerate(players)
        ]
        seats += [DrawSeat(round=draw_round, table=None, member_id=pk) for pk in rnd.sitting_out]
        DrawSeat.objects.bulk_create(seats)
        stored.append(draw_round)
    return stored


def _snapshot(rnd: algorithm.Round, number: int, revision: int) -> dict[str, Any]:
    return {
        "round": number,
        "revision": revision,
        "tables": [list(t) for t in rnd.tables],
        "sitting_out": list(rnd.sitting_out),
    }


def round_draw(
    *,
    club: Club,
    user: User | None,
    date: datetime.date,
    seats_drawn: bool = True,
    redraw: bool = False,
    worker: bool = False,
    expect: tuple[int, int] | None = None,
) -> DrawRound:
    """Draw and store the next round, or redraw the current one (a new revision; its locked and
    recorded tables stay as they are). The worker's draw (league.draw.tasks) comes here too,
    with `worker` (the search's whole time) and `expect` (round_plan)."""
    with action():
        lock_club(club.pk)
        day, _created = for_update(Day.objects).get_or_create(club=club, date=date)
        plan = round_plan(club=club, day=day, redraw=redraw, worker=worker, expect=expect)
        carried: list[DrawTable] = []
        if redraw:
            current = _current_round(day)
            carried = [t.table for t in current.tables if t.table.locked or t.recorded]
        (stored,) = _store(day=day, user=user, plan=plan, seats_drawn=seats_drawn, carried=carried)
        _audit(
            club,
            user,
            "draw.redraw" if redraw else "draw.round",
            day,
            after={**_snapshot(plan.rounds[0], plan.number, plan.revision), "seats": seats_drawn},
        )
    return stored


def schedule_draw(
    *,
    club: Club,
    user: User | None,
    date: datetime.date,
    rounds: int,
    seats_drawn: bool = True,
    worker: bool = False,
) -> list[DrawRound]:
    """A cup day: `rounds` rounds for everyone checked in, drawn together (fewest repeated
    pairs over the whole day). `worker`: as round_draw's."""
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ServiceError.one("rounds", str(ROUNDS_RANGE) % {"n": MAX_ROUNDS})
    with action():
        lock_club(club.pk)
        day, _created = for_update(Day.objects).get_or_create(club=club, date=date)
        if DrawRound.objects.filter(day=day).exists():
            raise ServiceError.one("rounds", str(SCHEDULE_EXISTS))
        plan = round_plan(club=club, day=day, rounds=rounds, worker=worker)
        stored = _store(
            day=day, user=user, plan=plan, seats_drawn=seats_drawn, carried=[], scheduled=True
        )
        _audit(
            club,
            user,
            "draw.schedule",
            day,
            after={
                "rounds": [_snapshot(r, i + 1, 1) for i, r in enumerate(plan.rounds)],
                "seats": seats_drawn,
            },
        )
    return stored


# --- manual changes ------------------------------------------------------------------------


def _current_round(day: Day) -> sel.RoundView:
    current = sel.current_round(sel.current_rounds(day))
    if current is None:
        raise ServiceError.one(errors.NON_FIELD, str(NO_ROUND))
    return current


def seat_swap(*, club: Club, user: User, day: Day, first: Member, second: Member) -> None:
    """Swap two players of the current round: seats at tables, or a seated player with one
    sitting out when both have missed as many rounds (fairness stays intact)."""
    if first.pk == second.pk:
        raise ServiceError.one("second", str(SAME_PLAYER))
    with action():
        for_update(Day.objects).filter(pk=day.pk).first()
        current = _current_round(day)
        seats = {
            s.member_id: s
            for s in for_update(DrawSeat.objects, of=("self",))
            .filter(round=current.round, member__in=[first, second])
            .select_related("table")
        }
        for name, m in (("first", first), ("second", second)):
            if m.pk not in seats:
                raise ServiceError.one(name, str(NOT_IN_ROUND) % {"name": m.name})
        a, b = seats[first.pk], seats[second.pk]
        for s in (a, b):
            if s.table is not None and (s.table.locked or s.table.game_id is not None):
                raise ServiceError.one(
                    errors.NON_FIELD, str(TABLE_FIXED) % {"table": s.table.label}
                )
        if (a.table is None) != (b.table is None):
            out, seated = (a, b) if a.table is None else (b, a)
            views = sel.current_rounds(day)
            missed = sel.missed_rounds(
                views, current.round.number, [out.member_id, seated.member_id]
            )
            if missed[out.member_id] != missed[seated.member_id]:
                raise ServiceError.one(
                    "second",
                    str(UNFAIR_SWAP) % {"out": out.member.name, "seated": seated.member.name},
                )
        before = [(a.member_id, a.table_id, a.seat), (b.member_id, b.table_id, b.seat)]
        a.table, b.table = b.table, a.table
        a.seat, b.seat = b.seat, a.seat
        DrawSeat.objects.bulk_update([a, b], ["table", "seat"])
        _audit(
            club,
            user,
            "draw.swap",
            day,
            before={"round": current.round.number, "seats": before},
            after={
                "round": current.round.number,
                "seats": [(a.member_id, a.table_id, a.seat), (b.member_id, b.table_id, b.seat)],
            },
        )


def _table_of_current(day: Day, table_id: int) -> DrawTable:
    current = _current_round(day)
    table = for_update(DrawTable.objects).filter(pk=table_id, round=current.round).first()
    if table is None:
        raise ServiceError.one("table", str(NO_SUCH_TABLE))
    return table


def table_lock(*, club: Club, user: User, day: Day, table_id: int, locked: bool) -> DrawTable:
    """Lock a table of the current round (a redraw keeps it), or unlock it."""
    with action():
        table = _table_of_current(day, table_id)
        if table.locked != locked:
            table.locked = locked
            table.save(update_fields=["locked"])
            _audit(
                club,
                user,
                "draw.lock" if locked else "draw.unlock",
                day,
                after={"table": table.label, "round": table.round.number},
            )
    return table


# --- the room (projector) -----------------------------------------------------------------------

TIMER_MAX_MINUTES = 180
TIMER_RANGE = gettext_lazy("Enter a number of minutes from 1 to %(n)s.")


def room_locked(day: Day) -> DrawRoom:
    """The day's room, locked for the change (created on the first one)."""
    DrawRoom.objects.get_or_create(day=day)
    return for_update(DrawRoom.objects).get(day=day)


def room_timer(*, club: Club, user: User, day: Day, minutes: int | None) -> DrawRoom:
    """Start the room's countdown of `minutes` from now (again from the start when one runs), or
    stop it (`minutes` None). Audited with before and after."""
    if minutes is not None and not 1 <= minutes <= TIMER_MAX_MINUTES:
        raise ServiceError.one("minutes", str(TIMER_RANGE) % {"n": TIMER_MAX_MINUTES})
    with action():
        room = room_locked(day)
        before = {
            "ends_at": room.timer_ends_at.isoformat() if room.timer_ends_at else None,
            "minutes": room.timer_minutes,
        }
        if minutes is None:
            room.timer_ends_at, room.timer_minutes = None, 0
        else:
            room.timer_ends_at = timezone.now() + datetime.timedelta(minutes=minutes)
            room.timer_minutes = minutes
        room.save(update_fields=["timer_ends_at", "timer_minutes"])
        after = {
            "ends_at": room.timer_ends_at.isoformat() if room.timer_ends_at else None,
            "minutes": room.timer_minutes,
        }
        _audit(
            club,
            user,
            "draw.timer_start" if minutes is not None else "draw.timer_stop",
            day,
            before=before,
            after=after,
        )
    return room


def _room_switch(club: Club, user: User, day: Day, field: str, value: bool, action_name: str):
    """Set one of the day's room switches (DrawRoom), audited with its value before."""
    with action():
        room = room_locked(day)
        before = getattr(room, field)
        setattr(room, field, value)
        room.save(update_fields=[field])
        _audit(club, user, action_name, day, before={field: before}, after={field: value})
    return room


def room_standings(*, club: Club, user: User, day: Day, shown: bool) -> DrawRoom:
    """Allow (or stop) the projector to show the day's standings. Audited."""
    return _room_switch(club, user, day, "show_standings", shown, "draw.room_standings")


def room_hold_results(*, club: Club, user: User, day: Day, held: bool) -> DrawRoom:
    """Hold a round's results back until every table of the round is recorded (issue 42), or
    stop holding them. The switch is the day's (an event is a day of the draw). Audited."""
    return _room_switch(club, user, day, "hold_results", held, "draw.hold_results")
