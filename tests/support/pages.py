"""Games recorded for the read pages' tests."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from league.models import Game, Member
from league.recording import services

DATE = datetime.date(2026, 11, 21)


# マメの会, 25,000 start, deposits to the house, 1 chombo by the 2nd seat (±20 to the top):
# +79.0 / ▲9.0 / ▲21.0 / ▲50.0, and at rate 0.3 (30 yen per 1,000) 2,370 / ▲270 / ▲630 / ▲1,500.
POINTS = (52000, 31000, 19000, -3000)


DEPOSITS = 1000


def record(club, user, players: Sequence[Member], **options) -> Game:
    """Records a game through the service, like the recording page does."""
    return services.game_record(club=club, user=user, data=game_input(players=players, **options))


def game_input(
    *,
    players: Sequence[Member],
    date: datetime.date = DATE,
    points: Sequence[int] = POINTS,
    chombo_seat: int | None = 1,
    rate: str = "0.3",
    table: str = "A",
    chips: Sequence[services.ChipInput] = (),
) -> services.GameInput:
    seats = [
        services.SeatInput(m, p, 1 if i == chombo_seat else 0)
        for i, (m, p) in enumerate(zip(players, points, strict=True))
    ]
    return services.GameInput(
        date=date, seats=seats, table=table, deposits=DEPOSITS, rate=rate, chips=chips
    )
