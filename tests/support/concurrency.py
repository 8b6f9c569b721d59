"""Requests at once on PostgreSQL: threads that race, each with its own connection."""

from __future__ import annotations

import datetime
import threading
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from league.core import errors
from league.models.totals import MemberDay, MemberTotal

# A racing test module's marks: `pytestmark = RACES`.
RACES = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="concurrency is only real on PostgreSQL"
    ),
    pytest.mark.django_db(transaction=True),
]


DATE = datetime.date(2026, 11, 21)


NAMES = ("青木", "馬場", "千葉", "土井")


# マメの会, deposits to the house: the four final points and 1,000 left on the table make 100,000.
POINTS = (52000, 31000, 19000, -3000)


CHANGED = "Someone else changed this game while you were editing it."


def attempt(call):
    """The call's result, or the ServiceError it was refused with (a message, not a crash)."""
    try:
        return call()
    except errors.ServiceError as e:
        return e


def kept(club) -> tuple[list[tuple], list[tuple]]:
    """The club's kept totals and days with games, sorted, to compare before and after."""
    totals = sorted(
        (
            r.member_id,
            r.season_id or 0,
            r.games,
            r.total,
            r.rank_sum,
            r.first,
            r.fourth,
            r.best,
            r.chips,
            r.yen,
        )
        for r in MemberTotal.objects.filter(club=club)
        if r.games
    )
    days = sorted(
        (r.member_id, r.date, r.games, r.score, r.chips, r.yen)
        for r in MemberDay.objects.filter(club=club)
        if r.games
    )
    return totals, days


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls in threads released together; their results in order. A request that raises
    (the test client re-raises a server error) fails the test with that exception."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=30)
            results[i] = call()
        except BaseException as e:  # reported in the test's own thread below
            errors.append(e)
        finally:
            connection.close()  # each thread opened its own connection

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a request hung (a deadlock?)"
    if errors:
        raise errors[0]
    return results


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def new_game_post(points=POINTS, key: uuid.UUID | None = None, table: str = "A") -> dict[str, str]:
    """The new-game form's full POST, saving (league/recording/forms.py GameForm)."""
    data = {
        "date": DATE.isoformat(),
        "table": table,
        "deposits": "1,000",
        "rate": "0.3",
        "submission_key": str(key or uuid.uuid4()),
        "action": "save",
    }
    for i, (name, p) in enumerate(zip(NAMES, points, strict=True)):
        data.update({f"member_{i}": name, f"points_{i}": f"{p:,}", f"chombo_{i}": "0"})
    return data


def edit_post(points, revision: int = 1) -> dict[str, str]:
    """The edit form's full POST: the new-game fields but the date (shown only) and the key, plus
    the revision the organiser loaded."""
    data = new_game_post(points)
    del data["date"], data["submission_key"]
    data["revision"] = str(revision)
    return data
