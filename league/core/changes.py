"""Changes an action makes that a kept total below it in the layers does not see, and whoever
keeps that total applies: the action says what changed (`apply`), inside its transaction, and
the domain that keeps the total declares that it follows that kind of change (`follows`), when
its module is imported (league.apps imports it at start).

A layer may not import the one above it (.importlinter): league.teams cannot call
league.standings, yet a stage of an event changes which games the individual seasons count. The
stage action applies `CompetitionDaysChanged`; league.standings rebuilds what follows it.

A change that nobody follows is an error, not a silent miss: a total that would have moved and
did not is the drift this module is here to prevent.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connection


@dataclass(frozen=True)
class CompetitionDaysChanged:
    """A team league or event of `club_id` now keeps apart (or no longer keeps apart) the games
    of some days between `start` and `end` (league.standings.competitions)."""

    club_id: int
    start: datetime.date
    end: datetime.date


_FOLLOWERS: dict[type, list[Callable[[Any], None]]] = defaultdict(list)


def follows(kind: type) -> Callable[[Callable[[Any], None]], Callable[[Any], None]]:
    """Register the decorated function as applying every change of `kind`."""

    def register(apply_change: Callable[[Any], None]) -> Callable[[Any], None]:
        if apply_change not in _FOLLOWERS[kind]:
            _FOLLOWERS[kind].append(apply_change)
        return apply_change

    return register


def apply(change: object) -> None:
    """Apply `change` now, in the caller's transaction (an action's)."""
    assert connection.in_atomic_block, "a change is applied inside its action's transaction"
    followers = _FOLLOWERS.get(type(change))
    if not followers:
        raise LookupError(f"nothing follows {type(change).__name__}: is its follower imported?")
    for apply_change in followers:
        apply_change(change)
