"""A background job's one record (league.models.jobs.Job): its status, start, end and errors
are the task framework's own TaskResult (read here by the id the job keeps), its progress the
job's row. Every kind of job (an export, an import's preview and run, a re-settle) is started,
moved and read through these few functions, and shown by one partial
(templates/league/jobs/progress.html).

- `job_enqueue_on_commit`: inside the action that writes the job's row, the task is enqueued
  once it commits, and the task's result id is kept on the row.
- `job_progress`: the worker's word on how far it has got (done of total, a few counts).
- `job_state` / `job_states`: what the page shows, from the row and the task's result (one
  query for any number of jobs with the database backend, none with the immediate one).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import uuid
from collections.abc import Iterable
from typing import Any

from django.utils import timezone

from league.core.tasks import (
    TaskResultDoesNotExist,
    TaskResultStatus,
    default_task_backend,
    enqueue_on_commit,
    task_backends,
)
from league.models.jobs import Job

# A job running whose worker has said nothing for this long was stopped with its worker; one
# still waiting for a worker after QUEUED_STALE_AFTER (no worker running, or one stuck) no
# longer holds its place (one export of a kind a user at a time, one re-settle a club).
STALLED_AFTER = datetime.timedelta(minutes=5)
QUEUED_STALE_AFTER = datetime.timedelta(hours=1)
# An import's worker writes a day at a time, a long day in one transaction: it is given longer.
STALLED_AFTER_OF = {
    Job.IMPORT: datetime.timedelta(minutes=10),
    Job.IMPORT_PREVIEW: datetime.timedelta(minutes=10),
}

QUEUED = "queued"
RUNNING = "running"
DONE = "done"
FAILED = "failed"
STALLED = "stalled"

# With a backend that keeps no results (the immediate backend: the task has run by the time
# enqueue returns), the results this process enqueued, by id, so that what it ran can be read.
_KEPT: dict[str, Any] = {}
_KEPT_MOST = 1_000


@dataclasses.dataclass(frozen=True)
class JobState:
    """A job as its page shows it: `status` one of queued, running, done, failed, stalled."""

    job: Job
    status: str
    started: datetime.datetime | None = None
    finished: datetime.datetime | None = None
    errors: tuple[str, ...] = ()  # the exceptions' class paths (the framework's TaskError)

    @property
    def busy(self) -> bool:
        """Waiting for a worker or running, and not stopped."""
        return self.status in (QUEUED, RUNNING)

    @property
    def known(self) -> bool:
        """Whether the job has counted its work (a determinate bar)."""
        return self.job.total > 0

    @property
    def done(self) -> int:
        return self.job.done

    @property
    def total(self) -> int:
        return self.job.total


def _keep(job_id: int, result: Any) -> None:
    """The enqueued task's result id on the job's row (the page reads its status by it)."""
    result_id = str(result.id)
    if not default_task_backend.supports_get_result:
        if len(_KEPT) >= _KEPT_MOST:
            _KEPT.pop(next(iter(_KEPT)))
        _KEPT[result_id] = result
    Job.objects.filter(pk=job_id).update(task_id=result_id)


def job_enqueue_on_commit(job: Job, task: Any, *args: Any, **kwargs: Any) -> None:
    """Inside the action that wrote `job`: `task` enqueued once it commits (never from a view),
    and its result's id kept on the job."""
    enqueue_on_commit(task, *args, on_enqueued=lambda result: _keep(job.pk, result), **kwargs)


def job_progress(job_id: int, done: int, total: int, **message: int) -> None:
    """The worker's word on how far it has got: `done` of `total`, and a few named counts. Called
    inside the job's own transaction (an import's day, a re-settle's step), it commits with
    the work it counts."""
    fields: dict[str, Any] = {"done": done, "total": max(total, done), "touched": timezone.now()}
    if message:
        fields["message"] = message
    Job.objects.filter(pk=job_id).update(**fields)


# Jobs of runs from before jobs were kept (migration 0052): no task result, finished or not.
MIGRATED = "before-0052"
MIGRATED_STOPPED = "stopped-before-0052"


def _is_result_id(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return not default_task_backend.supports_get_result and value in _KEPT
    return True


def _results(ids: Iterable[str]) -> dict[str, Any]:
    """The task results of these ids that the backend still keeps: one query with the database
    backend, none with one that keeps no results (this process's own, _KEPT)."""
    ids = [i for i in ids if _is_result_id(i)]
    if not ids:
        return {}
    if not default_task_backend.supports_get_result:
        return {i: _KEPT[i] for i in ids if i in _KEPT}
    try:
        from django_tasks_db.models import DBTaskResult
    except ImportError:  # another backend: one lookup a job
        DBTaskResult = None
    backend = task_backends[default_task_backend.alias]  # the backend itself, not its proxy
    if DBTaskResult is not None and type(backend).__module__.startswith("django_tasks_db"):
        return {str(r.id): r.task_result for r in DBTaskResult.objects.filter(id__in=ids)}
    found = {}
    for i in ids:
        with contextlib.suppress(TaskResultDoesNotExist):
            found[i] = default_task_backend.get_result(i)
    return found


def _state(job: Job, result: Any, now: datetime.datetime) -> JobState:
    if not job.task_id:  # its action has committed, the task is not enqueued yet
        late = now - job.created > QUEUED_STALE_AFTER
        return JobState(job, STALLED if late else QUEUED)
    if job.task_id == MIGRATED_STOPPED:
        return JobState(job, STALLED)
    if result is None:  # a backend that keeps no results, or pruned from the queue's table
        return JobState(job, DONE)
    started, finished = result.started_at, result.finished_at
    errors = tuple(e.exception_class_path for e in result.errors)
    status = result.status
    if status == TaskResultStatus.READY:
        since = result.enqueued_at or job.created
        return JobState(job, STALLED if now - since > QUEUED_STALE_AFTER else QUEUED)
    if status == TaskResultStatus.RUNNING:
        stall = STALLED_AFTER_OF.get(job.kind, STALLED_AFTER)
        late = now - max(job.touched, started or job.touched) > stall
        return JobState(job, STALLED if late else RUNNING, started)
    if status == TaskResultStatus.FAILED:
        return JobState(job, FAILED, started, finished, errors)
    return JobState(job, DONE, started, finished)


def job_states(jobs: Iterable[Job | None]) -> dict[int, JobState]:
    """Each job's state by its pk: one query of the task results for all of them."""
    listed = [j for j in jobs if j is not None]
    results = _results(j.task_id for j in listed)
    now = timezone.now()
    return {j.pk: _state(j, results.get(j.task_id), now) for j in listed}


def job_state(job: Job | None) -> JobState | None:
    """One job's state (None for none)."""
    if job is None:
        return None
    return job_states([job])[job.pk]


def busy_jobs(jobs: Any) -> list[JobState]:
    """Of a query of jobs, those waiting or running (not stopped): only those touched within
    QUEUED_STALE_AFTER can be, so that one query reads a few rows, and one more their results."""
    recent = list(jobs.filter(touched__gte=timezone.now() - QUEUED_STALE_AFTER).order_by("-pk"))
    states = job_states(recent)
    return [states[j.pk] for j in recent if states[j.pk].busy]


def kept_result_for_tests(result: Any) -> None:
    """A task result put where _results finds it with a backend that keeps none (tests that
    show a job in a state the immediate backend never leaves it in)."""
    _KEPT[str(result.id)] = result


__all__ = [
    "DONE",
    "FAILED",
    "QUEUED",
    "RUNNING",
    "STALLED",
    "JobState",
    "busy_jobs",
    "job_enqueue_on_commit",
    "job_progress",
    "job_state",
    "job_states",
    "kept_result_for_tests",
]
