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


# game_record's own options; every other keyword is game_data's.
OPTIONS = {"draw_table", "confirm_duplicate", "confirm_rate", "team_match", "source"}


def record_game(
    club: Club, user: Any, members: Sequence[Member], points: Iterable[int], **fields: Any
) -> Game:
    """One game recorded by `user` (None: the system): `fields` are game_data's (date, rate,
    table, deposits, chips, chombo) and game_record's OPTIONS, passed only when given (the
    suite's fixtures set some of their defaults: tests/conftest.py)."""
    options = {k: fields.pop(k) for k in OPTIONS & fields.keys()}
    data = game_data(members, points, **fields)
    return services.game_record(club=club, user=user, data=data, **options)


def edit_game(
    game: Game, user: Any, members: Sequence[Member], points: Iterable[int], **fields: Any
) -> Game:
    """`game` corrected by `user` (league.recording.services' game_edit) to `members` with their
    `points`: `fields` are game_data's, the date the game's own unless given."""
    fields.setdefault("date", game.date)
    return services.game_edit(game=game, user=user, data=game_data(members, points, **fields))
