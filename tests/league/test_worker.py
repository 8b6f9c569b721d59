"""A real worker process (`manage.py db_worker`) runs a background export from the database queue,
on the database the suite runs on (SQLite or PostgreSQL), while another process (a second app
server) reads its progress. The processes share a database of their own, made for this test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]

SETUP = """
import datetime, json
from django.db import transaction
from league.excel import tasks
from league.models import Club, Member, RulesVersion
from league.recording import services
from league.recording.services import GameInput, SeatInput
import scoring
club = Club.objects.create(slug="w", name="worker")
RulesVersion.objects.create(club=club, effective_from=datetime.date(2020, 1, 1),
    rules_json=scoring.PRESETS["mame-no-kai"].rules.to_json(), preset="mame-no-kai")
from django.contrib.auth import get_user_model
user = get_user_model().objects.create_user(username="w", password="x")
people = [Member.objects.create(club=club, name=n) for n in "ABCDE"]
for day in range(30):
    date = datetime.date(2026, 1, 1) + datetime.timedelta(days=day)
    for g in range(2):
        seats = people[g:g + 4]
        services.game_record(club=club, user=None, data=GameInput(date=date,
            seats=[SeatInput(m, p) for m, p in zip(seats, (45000, 30000, 20000, 5000))]))
with transaction.atomic():
    export = tasks.export_start(club=club, user=user, params={}, name="log.xlsx", fallback="log.xlsx")
print(json.dumps({"export": export.pk}))
"""

STATUS = """
import io, json
from openpyxl import load_workbook
from league.models import ExportFile
e = ExportFile.objects.get(pk={pk})
rows = None
if e.data is not None:
    rows = load_workbook(io.BytesIO(bytes(e.data))).active.max_row
from league.core.tasks import default_task_backend
print(json.dumps({{"status": e.status, "done": e.rows_done, "total": e.rows_total, "rows": rows}}))
"""


def manage(env: dict[str, str], *args: str, timeout: int = 300) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def shell(env: dict[str, str], code: str) -> dict:
    out = manage(env, "shell", "-c", code)
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    """A database of the suite's kind that the worker and the app processes share."""
    if connection.vendor != "postgresql":
        yield f"sqlite:///{tmp_path / 'worker.sqlite3'}"
        return
    import psycopg

    params = connection.get_connection_params()
    params = {k: params[k] for k in ("host", "port", "user", "password") if params.get(k)}
    name = f"janchou_worker_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    user = params.get("user", "postgres")
    password = f":{params['password']}" if params.get("password") else ""
    yield f"postgres://{user}{password}@{params.get('host', '127.0.0.1')}:{params.get('port', 5432)}/{name}"
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.database_tasks
def test_a_worker_process_makes_the_export_and_another_process_sees_it(database_url):
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "league.settings",
        "TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
        "DEBUG": "true",
    }
    manage(env, "migrate", "--no-input")
    export = shell(env, SETUP)["export"]

    queued = shell(env, STATUS.format(pk=export))  # another process: the task is waiting
    assert queued == {"status": "queued", "done": 0, "total": 240, "rows": None}

    manage(env, "db_worker", "--batch", "--no-startup-delay", "--interval", "0", timeout=300)

    done = shell(env, STATUS.format(pk=export))
    assert done == {"status": "done", "done": 240, "total": 240, "rows": 241}  # and the header
