"""How far an import has got, as any app server reads it: the committed data.

The import writes a day at a time, each day in a transaction of its own
(league.excel.imports.import_stored), and each day's transaction also moves the import's job
(league.jobs: days written of the days planned). Read through the ordinary connection, on
either database: no second connection, no write outside the import's own transactions.
"""

from __future__ import annotations

from typing import Any

from league import jobs
from league.excel.selectors import UploadState, upload_state
from league.models.imports import ImportUpload


def progress_of(upload: ImportUpload | None, state: UploadState | None = None) -> dict[str, Any]:
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
    state = state or upload_state(upload)
    job = upload.job
    return {
        "known": job is not None and job.total > 0,
        "done": job.done if job is not None else 0,
        "total": job.total if job is not None else 0,
        "games": upload.games,
        "running": state.status in (jobs.QUEUED, jobs.RUNNING),
        "status": state.status,
    }
