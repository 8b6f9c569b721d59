"""A table game with its hands, for the standings' hand columns."""

from __future__ import annotations

import uuid

from league.models import Game
from league.table import services as table


def hand_game(club, user, date, seated, hands) -> Game:
    """A game recorded hand by hand at the table with `seated` (起家 first), saved."""
    tg = table.table_start(
        club=club, user=user, key=uuid.uuid4(), date=date, members=seated, rate="0.3"
    )
    for i, (event, marks) in enumerate(hands):
        table.hand_record(tg=tg, user=user, index=i, key=uuid.uuid4(), event=event, marks=marks)
    return table.table_game_save(tg=tg, user=user)
