"""The kept totals' one registry: what an action changed, and the projections that follow it.

A kept total (a projection: the standings and statistics of league.standings, the hand totals,
the money's book in league.books) is a function of source rows (results, hand statistics, ledger
entries, days, seasons). An action that writes source rows says what it changed by recording a
change (`record`), and writes nothing kept itself. Each projection declares the kinds of change
it follows (`projection`); when its module is imported (league.apps imports them at start) it
joins the registry.

The action (league.core.actions.action) collects the changes it records and applies them once,
at its end, inside its transaction, before the commit: each projection is called once with all
the changes of its kinds, in their declared order (league.standings' totals, then the hand
totals, then league.books: the lock order of league.core.locks). A projection applies its
deltas before anything it rebuilds from the source rows, so that a rebuild, which reads the rows
as the action left them, is never counted twice. A change recorded inside a savepoint that rolled back is
dropped with the savepoint, as Django drops its on-commit callbacks.

An action that must read a total it has just moved calls `flush` first. A change recorded
outside an action (a management command's own transaction, a restore) is applied at once.

A change that nobody follows is an error, not a silent miss. Tests go further
(tests/conftest.py `projections_guarded`): an action that writes a followed source table without
recording a change that a projection following that table follows fails (`unrecorded`).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from django.db import DEFAULT_DB_ALIAS, transaction

# --- the kinds of change ------------------------------------------------------------------------


@dataclass(frozen=True)
class ResultsChanged:
    """Result rows of a club that stopped counting (`removed`, as they were) and that count now
    (`added`): a game recorded, edited, re-settled, voided, imported or voided with its import."""

    club_id: int
    removed: Sequence[Any] = ()
    added: Sequence[Any] = ()


@dataclass(frozen=True)
class HandStatsChanged:
    """HandStat rows that count now (`added`) and no longer count (`removed`), as the action
    leaves them: applied as the action ends, so a caller does not change them after recording."""

    added: Sequence[Any] = ()
    removed: Sequence[Any] = ()


@dataclass(frozen=True)
class DaysChanged:
    """The money of these days of a club changed: their games, attendance or shūgi, or the rules
    they are settled under."""

    club_id: int
    days: frozenset[int]


@dataclass(frozen=True)
class EntriesWritten:
    """Ledger entries just written (league.models.money.ledger_record)."""

    club_id: int
    entries: Sequence[Any]


@dataclass(frozen=True)
class MembersMerged:
    """A member's record (`gone`) was merged into another (`keep`): their rows moved."""

    club_id: int
    keep: Any
    gone: Any


@dataclass(frozen=True)
class SeasonSaved:
    """A season was created or its dates, kind or counting changed."""

    season: Any


@dataclass(frozen=True)
class CompetitionDaysChanged:
    """A team league or event of `club_id` now keeps apart (or no longer keeps apart) the games
    of some days between `start` and `end` (league.standings.competitions)."""

    club_id: int
    start: datetime.date
    end: datetime.date


# --- the registry -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Projection:
    """A kept total: the kinds of change it `follows`, how it applies an action's changes of
    those kinds (`apply`, called once an action with them in order), the source tables whose
    writes it follows (`sources`, for the tests' guard), and how to rebuild a club's rows from
    scratch (`rebuild`: restore, the rebuild commands, and the property test that compares
    every projection with its rebuild)."""

    name: str
    order: int
    follows: tuple[type, ...]
    apply: Callable[[list[Any]], None]
    sources: tuple[str, ...]
    rebuild: Callable[[int], None]


PROJECTIONS: list[Projection] = []


def projection(
    name: str,
    *,
    order: int,
    follows: tuple[type, ...],
    sources: tuple[str, ...],
    rebuild: Callable[[int], None],
) -> Callable[[Callable[[list[Any]], None]], Callable[[list[Any]], None]]:
    """Register the decorated function as the projection `name`'s apply. Projections apply in
    their `order`, which is the order in which they lock their rows (league.core.locks)."""

    def register(apply: Callable[[list[Any]], None]) -> Callable[[list[Any]], None]:
        PROJECTIONS[:] = [p for p in PROJECTIONS if p.name != name]
        PROJECTIONS.append(Projection(name, order, follows, apply, sources, rebuild))
        PROJECTIONS.sort(key=lambda p: p.order)
        return apply

    return register


# --- an action's change set -------------------------------------------------------------------


@dataclass
class ChangeSet:
    """The changes one action recorded, each with the on-commit marker that shows whether the
    savepoint it was recorded in still stands; `written` is filled by the tests' guard."""

    using: str
    changes: list[tuple[object, Callable[[], None]]] = field(default_factory=list)
    written: set[str] = field(default_factory=set)


CURRENT: ContextVar[ChangeSet | None] = ContextVar("jancho_change_set", default=None)


@contextmanager
def collecting(using: str = DEFAULT_DB_ALIAS) -> Iterator[ChangeSet]:
    """The change set of the action running inside (league.core.actions.action); `flush` it
    before the action's transaction ends."""
    changes = ChangeSet(using)
    token = CURRENT.set(changes)
    try:
        yield changes
    finally:
        CURRENT.reset(token)


def record(change: object) -> None:
    """Say what the running action changed; its projections apply it at the action's end."""
    connection = transaction.get_connection()
    assert connection.in_atomic_block, "a change is recorded inside its action's transaction"
    current = CURRENT.get()
    if current is None:
        _apply([change])
        return

    def marker() -> None:  # nothing to run: its presence says the savepoint stands
        pass

    # Django forgets the on-commit callbacks of a savepoint that rolls back, and the change
    # recorded with it is forgotten with it (see `_standing`).
    transaction.on_commit(marker, using=current.using)
    current.changes.append((change, marker))


def flush() -> None:
    """Apply the running action's changes now (before it reads a total they move)."""
    current = CURRENT.get()
    if current is None:
        return
    standing = _standing(current)
    unrecorded(current)
    current.changes.clear()
    current.written.clear()
    _apply(standing)


def _standing(current: ChangeSet) -> list[object]:
    """The recorded changes whose savepoints did not roll back: a marker is still among the
    connection's on-commit callbacks (Django's own list of what the transaction will run)."""
    if not current.changes:
        return []
    pending = {id(callback) for _sids, callback, _robust in _on_commit(current.using)}
    return [change for change, marker in current.changes if id(marker) in pending]


def _on_commit(using: str) -> list[tuple[Any, Callable[[], None], bool]]:
    return transaction.get_connection(using).run_on_commit


def _apply(changes: list[object]) -> None:
    if not changes:
        return
    followed: set[type] = set()
    for projection in PROJECTIONS:
        mine = [c for c in changes if isinstance(c, projection.follows)]
        if mine:
            followed.update(type(c) for c in mine)
            projection.apply(mine)
    unfollowed = {type(c).__name__ for c in changes} - {k.__name__ for k in followed}
    if unfollowed:
        raise LookupError(f"nothing follows {', '.join(sorted(unfollowed))}: is it imported?")


# --- the tests' guard ---------------------------------------------------------------------------


class Unrecorded(AssertionError):
    """An action wrote a followed source table and recorded no change that follows it."""


def written(table: str) -> None:
    """The tests' guard saw the running action write `table` (an INSERT, UPDATE or DELETE)."""
    current = CURRENT.get()
    if current is not None:
        current.written.add(table)


def unrecorded(current: ChangeSet) -> None:
    """Fail if a source table was written and no projection following it got a change."""
    if not current.written:
        return
    kinds = {type(change) for change, _marker in current.changes}
    for projection in PROJECTIONS:
        touched = current.written.intersection(projection.sources)
        if touched and not kinds.intersection(projection.follows):
            raise Unrecorded(
                f"{', '.join(sorted(touched))} written and no change recorded for the "
                f"projection {projection.name} (it follows "
                f"{', '.join(k.__name__ for k in projection.follows)})"
            )


def source_tables() -> set[str]:
    return {table for projection in PROJECTIONS for table in projection.sources}


def club_rebuild(club_id: int) -> None:
    """Every projection of a club rebuilt from its source rows (restore, rebuild_aggregates)."""
    for projection in PROJECTIONS:
        projection.rebuild(club_id)
