"""Django's Tasks framework on either Django: built in as `django.tasks` from Django 6, and the
`django_tasks` backport (the same API) on Django 5.2. Tasks are stored by django-tasks-db in the
app's own database and run by `manage.py db_worker` (README: "Background work").

A task takes ids, never model instances, and is enqueued on commit, so that a worker never looks
for a row that is not there yet."""

from __future__ import annotations

from importlib.util import find_spec

if find_spec("django.tasks"):
    from django.tasks import TaskResultStatus, default_task_backend, task

    IMMEDIATE_BACKEND = "django.tasks.backends.immediate.ImmediateBackend"
else:
    from django_tasks import TaskResultStatus, default_task_backend, task

    IMMEDIATE_BACKEND = "django_tasks.backends.immediate.ImmediateBackend"

DATABASE_BACKEND = "django_tasks_db.DatabaseBackend"

__all__ = [
    "DATABASE_BACKEND",
    "IMMEDIATE_BACKEND",
    "TaskResultStatus",
    "default_task_backend",
    "task",
]
