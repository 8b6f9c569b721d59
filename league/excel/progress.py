"""How far an import has got, as any app server reads it: the committed data.

The import writes a day at a time, each day in a transaction of its own
(league.excel.imports.import_stored), and each day's transaction also moves the upload's count
(ImportUpload.progress_done of progress_total: days written of the days planned). Read through
the ordinary connection, on either database: no second connection, no write outside the
import's own transactions.
"""

from __future__ import annotations

from typing import Any

from league.models.imports import ImportUpload


def progress_of(upload: ImportUpload | None) -> dict[str, Any]:
    """What the page shows: days imported of the days planned, and whether the count is known
    yet (not before the import's first action has committed)."""
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
