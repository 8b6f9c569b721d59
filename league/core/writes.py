"""Seeing every write to the app's data, for kept pages (league.pagecache).

Each database connection runs its statements through `_watch` (installed by `install` on
connection_created, league.apps). A statement that may write (anything but a read: SELECT,
SAVEPOINT, …) to a table a kept page may show gives the one page-version row a new random token
once its transaction commits (`on_commit`, the transaction's first callback, or at once outside
a transaction), and counts in this process both at once and at the commit (`generation`). That
covers every path that writes, the worker's tasks and management commands included, with no list
of writes to keep up to date. A write the watcher cannot see (bulk's COPY) calls `written`
itself. Known gaps: SQL typed around the app, and a renewal that fails after the commit (logged;
kept pages then end by their age, PAGE_CACHE_SECONDS).
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable, Iterable
from typing import Any

from django.db import DEFAULT_DB_ALIAS, Error, IntegrityError, connections
from django.db.backends.base.base import BaseDatabaseWrapper

logger = logging.getLogger(__name__)

# What a statement that writes nothing starts with; anything else counts as a write (a statement
# of an unforeseen kind then costs kept pages, never shows an old one).
_READS = frozenset(
    {"SELECT", "SAVEPOINT", "RELEASE", "ROLLBACK", "BEGIN", "COMMIT", "SET", "SHOW", "PRAGMA"}
    | {"EXPLAIN", "DECLARE", "FETCH", "MOVE", "CLOSE"}
)
_lock = threading.Lock()
_generation = 0  # this process's writes so far: its own write counts before it commits
_table = ""  # the page-version table (league.models.PageVersion)
_unseen: frozenset[str] = frozenset()  # tables no kept page shows
_paused = False  # while migrations run (the table may not exist yet); `resume` renews it after


def generation() -> int:
    return _generation


def _count() -> None:
    global _generation
    with _lock:
        _generation += 1


def install(connection: BaseDatabaseWrapper, *, table: str, unseen: Iterable[str]) -> None:
    """Watch every statement of `connection`; `table` holds the token, and a write to `unseen`
    tables alone (sessions, the task queue, …) leaves kept pages as they are."""
    global _table, _unseen
    _table, _unseen = table, frozenset({table, *unseen})
    if _watch not in connection.execute_wrappers:
        # First: connection.execute_wrapper() removes the last wrapper when its block ends, and a
        # connection opened inside such a block must not lose this one.
        connection.execute_wrappers.insert(0, _watch)


def changes_pages(sql: str) -> bool:
    """Whether a statement may write a table a kept page shows: any statement but a read, unless
    the first name it quotes (Django quotes table names: INSERT INTO "t", UPDATE "t", DELETE
    FROM "t") is a table no kept page shows."""
    head = sql.lstrip()
    words = head[:12].split(None, 1)
    if not words or head.startswith("(") or words[0].upper() in _READS:  # "(": a UNION's SELECT
        return False
    parts = head[:300].split('"', 2)
    return len(parts) < 3 or parts[1] not in _unseen


def _watch(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict) -> Any:
    result = execute(sql, params, many, context)
    if changes_pages(sql):
        written(context["connection"])
    return result


def written(conn: BaseDatabaseWrapper | None = None) -> None:
    """Something kept pages may show was written on `conn`."""
    _count()
    if not _table or _paused:
        return
    conn = conn or connections[DEFAULT_DB_ALIAS]
    if not conn.in_atomic_block:
        _rotate(conn)  # the statement has committed already
    elif not any(func is _rotate_default for _sids, func, _robust in conn.run_on_commit):
        conn.on_commit(_rotate_default, robust=True)
        # First of the transaction's callbacks: one of them that fails stops those after it.
        conn.run_on_commit.insert(0, conn.run_on_commit.pop())


def _rotate(conn: BaseDatabaseWrapper) -> None:
    """A new token, in its own statement after the write committed, so that a page made before
    it (from older data) is not served after it. Not inside the write's transaction: every
    writer would then wait on this one row for every other."""
    _count()  # a page this process made between the write and its commit is old too
    table = conn.ops.quote_name(_table)
    token = secrets.token_hex(8)
    try:
        with conn.cursor() as cursor:
            cursor.execute(f"UPDATE {table} SET token = %s", [token])
            if cursor.rowcount == 0:  # the row is gone (`manage.py flush`): make it again
                cursor.execute(f"INSERT INTO {table} (id, token) VALUES (1, %s)", [token])
    except IntegrityError:
        pass  # another process made it at the same moment: a new token all the same
    except Error:  # kept pages then end by their age (PAGE_CACHE_SECONDS)
        logger.warning("kept pages: could not renew the page token", exc_info=True)


def pause(**kwargs: Any) -> None:
    """pre_migrate: no token to renew until the migrations have run."""
    global _paused
    _paused = True


def resume(**kwargs: Any) -> None:
    """post_migrate (after migrations, and after `flush` emptied every table): renew the token,
    making its row again if it is gone."""
    global _paused
    _paused = False
    if _table:
        _rotate(connections[kwargs.get("using") or DEFAULT_DB_ALIAS])


def _rotate_default() -> None:
    _rotate(connections[DEFAULT_DB_ALIAS])
