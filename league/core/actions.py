"""The transaction of a write action (Zulip's zerver/actions, pretix's services).

Every top-level write (what a view, the API, table mode, an import or a command calls) runs its
work in `with action():`. The block is durable: nothing can wrap it by accident, so what it
writes is committed when it ends, and its locks (league.core.locks), audit entry and kept totals
are all inside it. Tasks it wants run are enqueued with league.core.tasks.enqueue_on_commit and
start once it has committed.

Under a test case's own transaction (pytest-django's `db`), the only place where a durable block
can sit inside another, nothing ever commits: there the block's on-commit callbacks run when it
ends, as they would after the real commit (what Django's captureOnCommitCallbacks(execute=True)
does for a whole test)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import DEFAULT_DB_ALIAS, transaction


@contextmanager
def action(using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    connection = transaction.get_connection(using)
    with transaction.atomic(using=using, durable=True):
        start = len(connection.run_on_commit)
        yield
    if connection.in_atomic_block:  # a test case's transaction: durable allows no other
        callbacks = connection.run_on_commit[start:]
        del connection.run_on_commit[start:]
        for _savepoints, callback, _robust in callbacks:
            callback()
