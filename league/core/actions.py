"""The transaction of a write action (Zulip's zerver/actions, pretix's services).

Every top-level write (what a view, the API, table mode, an import or a command calls) runs its
work in `with action():`. The block is durable: nothing can wrap it by accident, so what it
writes is committed when it ends, and its locks (league.core.locks), audit entry and kept totals
are all inside it: the changes it records (league.core.changes) are applied to the kept totals
once, as it ends, before the commit. Tasks it wants run are enqueued with league.core.tasks.enqueue_on_commit and
start once it has committed.

Under a test case's own transaction (pytest-django's `db`), the only place where a durable block
can sit inside another, nothing ever commits: there the block's on-commit callbacks run when it
ends, as they would after the real commit (what Django's captureOnCommitCallbacks(execute=True)
does for a whole test)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import update_wrapper
from typing import ParamSpec, TypeVar

from django.db import DEFAULT_DB_ALIAS, transaction

from league.core import changes


@contextmanager
def action(using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    connection = transaction.get_connection(using)
    with transaction.atomic(using=using, durable=True):
        start = len(connection.run_on_commit)
        with changes.collecting(using):
            yield
            changes.flush()  # the kept totals, once, before the commit (league.core.changes)
    if connection.in_atomic_block:  # a test case's transaction: durable allows no other
        callbacks = connection.run_on_commit[start:]
        del connection.run_on_commit[start:]
        for _savepoints, callback, _robust in callbacks:
            callback()


P = ParamSpec("P")
R = TypeVar("R")


def as_action(work: Callable[P, R]) -> Callable[P, R]:
    """The action that runs `work` alone, in its own durable transaction. `work` is a write that
    other actions also call among their own writes (named ``…_in``: game_record_in); the action
    is named without the ``_in`` (``game_record = as_action(game_record_in)``)."""

    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with action():
            return work(*args, **kwargs)

    update_wrapper(run, work)
    run.__name__ = run.__qualname__ = work.__name__.removesuffix("_in")
    return run
