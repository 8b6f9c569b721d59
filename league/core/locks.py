"""Every row lock the app takes, and the one order it takes them in.

A write action (a domain's `services` function that a view, the API, table mode, an import or a
command calls) opens its transaction and then locks rows through this module only: a test reads
the code and fails on a `select_for_update` anywhere else (tests/test_architecture.py).

The order, so that no two writers can wait for each other's rows:

1. the club (`lock_club`), first, by every writer of a club's games, days, members or money;
2. the people: members (in primary-key order when there are several), memberships, invitations,
   API tokens;
3. the club's calendar: a season or stage, then a day, then its draw tables and seats;
4. a game, a table-mode game, a team, a match slot, a ledger entry, a day's shūgi;
5. the kept totals, as the action ends (league.core.changes, in the projections' order): those of
   league.standings (members' totals, the chronicle), the hand statistics, then the books.

Each lock asserts that a transaction is open: a lock outside one is released at once on
PostgreSQL and means nothing on SQLite, so it is a bug on either database."""

from __future__ import annotations

import time
from typing import Any, TypeVar

from django.apps import apps
from django.db import connection, connections, router
from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)


class NotInTransaction(RuntimeError):
    """A row lock was asked for outside a transaction."""


def in_transaction(model: type[Model]) -> None:
    """Raise NotInTransaction unless a transaction is open on the model's database."""
    if not connections[router.db_for_write(model)].in_atomic_block:
        raise NotInTransaction(f"a lock on {model.__name__} needs an open transaction")


def for_update(
    queryset: QuerySet[M], *, no_key: bool = False, of: tuple[str, ...] = ()
) -> QuerySet[M]:
    """`queryset.select_for_update()`, inside the caller's transaction (asserted)."""
    in_transaction(queryset.model)
    return queryset.select_for_update(no_key=no_key, of=of)


def lock_club(club_id: int) -> Any:
    """Take the club's row for the caller's transaction, FIRST, before any other row: every
    writer of a club's games, days and money does (recording, editing and voiding a game, an
    import, a re-settle, a new rules version, the ledger's writes, a merge), so they run one at
    a time per club and no two of them can wait for each other's rows. FOR NO KEY UPDATE: rows
    that only refer to the club (an audit entry, a draw seat, a login attempt) are inserted
    meanwhile without waiting. A no-op on SQLite, which serialises every write.

    The model is looked up by name: core sits below the models (.importlinter)."""
    club = apps.get_model("league", "Club")
    return for_update(club.objects.all(), no_key=True).get(pk=club_id)


SQLITE_GAP = 0.1  # seconds a long job leaves SQLite's write lock free (WriterGap)
SQLITE_BURST = 0.4  # seconds of a long job's transactions between two gaps


class WriterGap:
    """Between the short transactions of a long job (an import's steps, a re-settle's days),
    call it: on SQLite, once SQLITE_BURST seconds of them have gone by, it leaves the write lock
    free for SQLITE_GAP seconds. SQLite has one writer at a time and no queue: a game recorded
    meanwhile waits in its busy handler, which looks again every 0.1 s once it has waited a
    while, and without a gap the job's next transaction began before it looked, step after step
    (the import benchmark's API record gave up after its 20 s timeout). PostgreSQL queues the
    waiters on the club's row, and the record goes first: nothing to do there."""

    def __init__(self) -> None:
        self.since = time.monotonic()

    def __call__(self) -> None:
        if connection.vendor != "sqlite":
            return
        if time.monotonic() - self.since >= SQLITE_BURST:
            time.sleep(SQLITE_GAP)
            self.since = time.monotonic()
