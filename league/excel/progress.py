"""How far an import has got, readable by any app server while the worker runs it.

The import records every game in one transaction (all or nothing), so nothing it writes is
visible until the end. Progress is therefore written from a second database connection of its
own, in autocommit, onto the upload's row (ImportUpload.progress_done/_total), at most every
half second. Only PostgreSQL can do this while the import holds its transaction: SQLite allows
one writer at a time, so there the writer does nothing and the page says only that the import
is under way (never a made-up percentage). A failure to write progress never stops the import.
"""

from __future__ import annotations

import time
from typing import Any

from django.db import connections
from django.utils import timezone

from league.models.imports import ImportUpload

EVERY = 0.5  # seconds between writes


class ProgressWriter:
    """Counts steps (one game checked or written) and writes the count now and then.

    Use `step` as the `progress` callback of league.excel.imports.plan_settle and plan_apply, then
    `finish` (or `close` when the import failed)."""

    def __init__(self, upload_id: int, total: int, *, alias: str = "default") -> None:
        self.upload_id = upload_id
        self.total = total
        self.done = 0
        self.alias = alias
        self.enabled = connections[alias].vendor == "postgresql"
        self._conn: Any = None
        self._last = 0.0

    def step(self) -> None:
        self.done += 1
        self._write()

    def finish(self) -> None:
        self.done = self.total
        self._write(force=True)
        self.close()

    def _write(self, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < EVERY:
            return
        self._last = now
        try:
            if self._conn is None:
                import psycopg

                params = connections[self.alias].get_connection_params()
                params.pop("cursor_factory", None)  # Django's own; plain tuples suffice here
                params.pop("context", None)
                self._conn = psycopg.connect(**params, autocommit=True)
                self._conn.execute("SET lock_timeout = '200ms'")
            table = ImportUpload._meta.db_table
            self._conn.execute(
                f'UPDATE "{table}" SET progress_done = %s, progress_total = %s, touched = %s '
                "WHERE id = %s",
                (min(self.done, self.total), self.total, timezone.now(), self.upload_id),
            )
        except Exception:  # progress is a courtesy: it never breaks the import
            self.enabled = False
            self.close()

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None


def progress_of(upload: ImportUpload | None) -> dict[str, Any]:
    """What the page shows: games done of the total (both counted over the checking and the
    writing passes), and whether the count is known at all."""
    if upload is None:
        return {
            "known": False,
            "done": 0,
            "total": 0,
            "games": 0,
            "running": False,
            "status": "",
        }
    return {
        "known": upload.progress_total > 0,
        "done": upload.progress_done,
        "total": upload.progress_total,
        "games": upload.games,
        "running": upload.status in (ImportUpload.QUEUED, ImportUpload.RUNNING)
        and not upload.stalled,
        "status": "stalled" if upload.stalled else upload.status,
    }
