"""Games for the tests, recorded through the app's own action (league.recording.services'
game_record), as the record form, the API and the chat record them: settled, booked in the money
book and counted in the kept totals, never written row by row."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from typing import Any

from league.models import Club, Game, Member
from league.recording import services
from league.recording.services import ChipInput, GameInput, SeatInput


def game_data(
    members: Sequence[Member],
    points: Iterable[int],
    *,
    date: datetime.date,
    rate: str = "0.3",
    table: str = "",
    deposits: int = 0,
    chips: Iterable[tuple[str, Member, Member | None]] = (),
    chombo: Iterable[Member] = (),
) -> GameInput:
    """The game as the organiser enters it: `members` in seat order from 起家 with their
    `points`; `chips` as (kind, winner, discarder or None); each of `chombo` one chombo."""
    fouls = list(chombo)
    seats = [SeatInput(m, p, fouls.count(m)) for m, p in zip(members, points, strict=True)]
    return GameInput(
        date=date,
        seats=seats,
        table=table,
        deposits=deposits,
        rate=rate,
        chips=[ChipInput(kind, w, d) for kind, w, d in chips],
    )


def record_game(
    club: Club,
    user: Any,
    members: Sequence[Member],
    points: Iterable[int],
    *,
    date: datetime.date,
    rate: str = "0.3",
    table: str = "",
    deposits: int = 0,
    chips: Iterable[tuple[str, Member, Member | None]] = (),
    chombo: Iterable[Member] = (),
    **options: Any,
) -> Game:
    """One game recorded by `user` (None: the system); `options` go to game_record
    (confirm_duplicate, team_match, draw_table...)."""
    data = game_data(
        members,
        points,
        date=date,
        rate=rate,
        table=table,
        deposits=deposits,
        chips=chips,
        chombo=chombo,
    )
    return services.game_record(club=club, user=user, data=data, **options)
