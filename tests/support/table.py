"""Table mode (league.table) in tests: hands to record and their ids."""

from __future__ import annotations

import datetime
import uuid

import pytest

from league.core.errors import ServiceError
from league.models import Member, Membership
from league.table import services
from tests.support.clubs import make_user

DATE = datetime.date(2026, 11, 20)


def ids(members):
    return [str(m.pk) for m in members[:4]]


def game_hands(members):
    """A hanchan of マメの会's hand rules: a draw with tenpai payments and a riichi stick kept on
    the table, a double ron taking it, a draw with nobody tenpai that carries a riichi stick over,
    a tsumo taking it, and a yakuman dealt in that busts the discarder."""
    a, b, c, d = ids(members)
    return [
        ({"result": "draw", "tenpai": [a, b], "riichi": [a]}, {}),
        (
            {
                "result": "ron",
                "from": d,
                "winners": [{"player": b, "han": 3, "fu": 40}, {"player": c, "han": 2, "fu": 30}],
            },
            {b: {"called": True}},
        ),
        ({"result": "draw", "tenpai": [], "riichi": [c]}, {}),
        (
            {"result": "tsumo", "winner": d, "han": 5, "riichi": [d]},
            {d: {"ippatsu": True, "ura": 1}},
        ),
        ({"result": "ron", "from": a, "winners": [{"player": d, "yakuman": 1}]}, {}),
    ]


def record_all(tg, user, hands):
    record_by_turns(tg, [user], hands)


def record_by_turns(tg, by: list, hands) -> None:
    """`hands` recorded in order, entered by each of `by` in turn."""
    for i, (event, marks) in enumerate(hands):
        services.hand_record(
            tg=tg, user=by[i % len(by)], index=i, key=uuid.uuid4(), event=event, marks=marks
        )


def linked_login(club, member, username: str):
    """A plain member's login of `club`, linked to `member`."""
    user = make_user(username, club, Membership.MEMBER)
    Member.objects.filter(pk=member.pk).update(user=user)
    return user


def refused_on(tg, user, event, marks=None, index: int = 0) -> list[str]:
    """The fields hand `index` of `tg` is refused on (league.table's hand_record must refuse it)."""
    with pytest.raises(ServiceError) as caught:
        services.hand_record(
            tg=tg, user=user, index=index, key=uuid.uuid4(), event=event, marks=marks
        )
    return list(caught.value.errors)
