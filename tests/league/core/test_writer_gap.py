"""Long jobs leave SQLite's write lock free now and then (league.core.locks.WriterGap): after
SQLITE_BURST seconds of their transactions, a SQLITE_GAP second pause, so that a game recorded
at the table meanwhile gets in; on PostgreSQL, which queues the waiters, never."""

from __future__ import annotations

import pytest
from django.db import connection

from league.core import locks


@pytest.fixture
def clock(monkeypatch) -> dict[str, float]:
    now = {"t": 100.0, "slept": 0.0}
    monkeypatch.setattr(locks.time, "monotonic", lambda: now["t"])

    def sleep(seconds: float) -> None:
        now["slept"] += seconds
        now["t"] += seconds

    monkeypatch.setattr(locks.time, "sleep", sleep)
    return now


def test_a_gap_after_each_burst_on_sqlite(clock, monkeypatch):
    monkeypatch.setattr(connection, "vendor", "sqlite")
    gap = locks.WriterGap()
    for _ in range(3):  # 0.375 s of steps: no gap yet
        clock["t"] += 0.125
        gap()
    assert clock["slept"] == 0
    clock["t"] += 0.125
    gap()  # 0.5 s: one gap, and the burst starts again
    assert clock["slept"] == locks.SQLITE_GAP
    clock["t"] += 0.25
    gap()
    assert clock["slept"] == locks.SQLITE_GAP
    clock["t"] += 5.0  # one long step (an import's 500 games): a gap after it
    gap()
    assert clock["slept"] == 2 * locks.SQLITE_GAP


def test_no_gap_on_postgresql(clock, monkeypatch):
    monkeypatch.setattr(connection, "vendor", "postgresql")
    gap = locks.WriterGap()
    clock["t"] += 10
    gap()
    assert clock["slept"] == 0
