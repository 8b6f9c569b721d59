"""The projections' guard and snapshots (league.core.changes), for tests/conftest.py's autouse
guard and the one property test over every projection (tests/league/core/test_projections.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection

from league.core import changes

_WRITE = re.compile(r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)"?', re.IGNORECASE)


@contextmanager
def guarded() -> Iterator[None]:
    """Inside, an action that writes a table a projection follows (an INSERT, UPDATE or DELETE
    on it) and records no change that projection follows fails as it ends
    (changes.Unrecorded). A test-time check that reads the SQL; the app itself never does."""
    sources = changes.source_tables()

    def watch(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        if (match := _WRITE.match(sql)) is not None and match.group(1) in sources:
            changes.written(match.group(1))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        yield
