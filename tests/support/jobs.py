"""A job shown in a state the immediate backend of the tests never leaves it in (it has run
each task by the time enqueue returns): a task result of that status, kept where
league.jobs reads it."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

from django.utils import timezone

from league import jobs
from league.core.tasks import TaskResultStatus
from league.models import Job


def running_task(job: Job, status: str = "RUNNING", errors: tuple[str, ...] = ()) -> Job:
    """`job` with a task result of `status` (a TaskResultStatus name)."""
    now = timezone.now()
    result = SimpleNamespace(
        id=str(uuid.uuid4()),
        status=TaskResultStatus[status],
        enqueued_at=job.created,
        started_at=None if status == "READY" else job.created,
        finished_at=now if status in ("SUCCESSFUL", "FAILED") else None,
        errors=[SimpleNamespace(exception_class_path=e) for e in errors],
    )
    jobs.kept_result_for_tests(result)
    Job.objects.filter(pk=job.pk).update(task_id=result.id)
    job.task_id = result.id
    return job
