"""Django's Tasks framework on either Django: built in as `django.tasks` from Django 6, and the
`django_tasks` backport (the same API) on Django 5.2. Tasks are stored by django-tasks-db in the
app's own database and run by `manage.py db_worker` (README: "Background work").

A task takes ids, never model instances, and is enqueued on commit, so that a worker never looks
for a row that is not there yet. Python's garbage collector stays on for every task: long work
(an import) writes a day at a time and holds no more than a day's rows."""

from __future__ import annotations

from collections.abc import Callable
from importlib.util import find_spec
from typing import Any

from django.db import transaction

if find_spec("django.tasks"):
    from django.tasks import TaskResultStatus, default_task_backend, task, task_backends
    from django.tasks.exceptions import TaskResultDoesNotExist

    IMMEDIATE_BACKEND = "django.tasks.backends.immediate.ImmediateBackend"
else:
    from django_tasks import TaskResultStatus, default_task_backend, task, task_backends
    from django_tasks.exceptions import TaskResultDoesNotExist

    IMMEDIATE_BACKEND = "django_tasks.backends.immediate.ImmediateBackend"

DATABASE_BACKEND = "django_tasks_db.DatabaseBackend"


def enqueue_on_commit(
    task: Any, *args: Any, on_enqueued: Callable[[Any], None] | None = None, **kwargs: Any
) -> None:
    """Enqueue `task` once the caller's transaction commits (at once outside one), so that a
    worker never looks for a row that is not there yet and a rolled-back write enqueues nothing.
    Only actions call it, never views (pretix's TransactionAwareTask does the same).
    `on_enqueued` is given the task's result once it is enqueued (to keep its id: the backend
    keeps its status; with the immediate backend the task has run by then)."""

    def enqueue() -> None:
        result = task.enqueue(*args, **kwargs)
        if on_enqueued is not None:
            on_enqueued(result)

    transaction.on_commit(enqueue, robust=False)


__all__ = [
    "DATABASE_BACKEND",
    "IMMEDIATE_BACKEND",
    "TaskResultDoesNotExist",
    "TaskResultStatus",
    "default_task_backend",
    "enqueue_on_commit",
    "task",
    "task_backends",
]
