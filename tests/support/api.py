"""Calling the JSON API in tests: addresses, bodies, tokens, threads."""

from __future__ import annotations

import datetime
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from league.models import Game
from league.recording import services
from league.recording.services import GameInput, SeatInput

DATE = datetime.date(2026, 11, 21)


NAMES = ("青木", "馬場", "千葉", "土井")


POINTS = (52000, 31000, 19000, -3000)  # マメの会: 1,000 deposits left on the table


TYPED_POINTS = ("５２，０００", "31,000", "１９０００", "▲3,000")


def call(method: str, path: str, secret: str | None = None, body: Any = None, **headers: str):
    """One API request as a client sends it: JSON in and out, the token as a Bearer header."""
    if secret is not None:
        headers["Authorization"] = f"Bearer {secret}"
    kwargs: dict[str, Any] = {"headers": headers}
    if body is not None:
        kwargs.update(data=json.dumps(body), content_type="application/json")
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return getattr(client, method.lower())(path, **kwargs)


def url(club, rest: str = "") -> str:
    return f"/api/clubs/{club.slug}/{rest}"


def record(club, user, members, date=DATE, points=POINTS, **kwargs: Any) -> Game:
    seats = [SeatInput(m, p) for m, p in zip(members, points, strict=True)]
    data = GameInput(date=date, seats=seats, deposits=1000, rate="0.3", **kwargs)
    # Games of the same result on one day: not what these tests are about (see the duplicates').
    return services.game_record(club=club, user=user, data=data, confirm_duplicate=True)


def body(**overrides: Any) -> dict[str, Any]:
    """The standard game as a bot sends it: names and points typed as people type them."""
    data: dict[str, Any] = {
        "date": DATE.isoformat(),
        "table": "A",
        "rate": "0.3",
        "deposits": "1,000",
        "players": [
            {"name": name, "points": points}
            for name, points in zip(NAMES, TYPED_POINTS, strict=True)
        ],
    }
    data.update(overrides)
    return data


def _in_threads(n: int, work: Callable[[], Any]) -> list[Any]:
    """Run `work` in `n` threads released together; each thread closes its own connection."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = work()
        except Exception as e:  # reported by the assertions of the test
            results[i] = e
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL's row locks and concurrency"
)
