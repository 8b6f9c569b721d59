"""Database blocks for tests that run many examples (hypothesis) inside one test."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction


@contextmanager
def as_test_case() -> Iterator[None]:
    """An atomic block marked as a test case's own (what django.test.TestCase does for each
    test), so that the app's durable actions (league.core.actions) may run inside it, as they run
    inside a test. What it writes is kept unless the block raises or sets rollback."""
    block = transaction.atomic()
    block._from_testcase = True  # type: ignore[attr-defined]
    with block:
        yield


@contextmanager
def rolled_back() -> Iterator[None]:
    """One example's database changes, undone at its end whatever happened (as_test_case)."""
    with as_test_case():
        yield
        transaction.set_rollback(True)
