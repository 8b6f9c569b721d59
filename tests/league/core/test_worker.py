"""A real worker process (`manage.py db_worker`) runs a background export from the database queue,
on the database the suite runs on (SQLite or PostgreSQL), while another process (a second app
server) reads its progress. The processes share a database of their own, made for this test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from tests.support import paths

ROOT = paths.ROOT

SETUP = """
import datetime, json
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
export = tasks.export_start(
    club=club, user=user, params={}, name="log.xlsx", fallback="log.xlsx").export
print(json.dumps({"export": export.pk}))
"""

STATUS = """
import io, json
from openpyxl import load_workbook
from league.models import ExportFile
e = ExportFile.objects.select_related("job").get(pk={pk})
rows = None
if e.file_name:
    from league.excel.tasks import export_storage
    with export_storage().open(e.file_name, "rb") as file:
        rows = load_workbook(io.BytesIO(file.read())).active.max_row
from league.core.tasks import default_task_backend
from league.jobs import job_state
job = e.job
print(json.dumps({{"status": "done" if e.ready else job_state(job).status, "done": job.done,
    "total": job.total, "rows": rows}}))
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


def migrated(database_url: str, **extra: str) -> dict[str, str]:
    """The environment of the app's and the worker's processes on `database_url` (with `extra`),
    its database migrated."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        **extra,
        "DJANGO_SETTINGS_MODULE": "league.settings",
        "TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
        "DEBUG": "true",
    }
    manage(env, "migrate", "--no-input")
    return env


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
def test_a_worker_process_makes_the_export_and_another_process_sees_it(database_url, tmp_path):
    # The worker writes the export under EXPORT_ROOT, the app reads it.
    env = migrated(database_url, EXPORT_ROOT=str(tmp_path / "exports"))
    export = shell(env, SETUP)["export"]

    queued = shell(env, STATUS.format(pk=export))  # another process: the task is waiting
    # The rows are counted by the worker, not by the request that queued the file.
    assert queued == {"status": "queued", "done": 0, "total": 0, "rows": None}

    manage(env, "db_worker", "--batch", "--no-startup-delay", "--interval", "0", timeout=300)

    done = shell(env, STATUS.format(pk=export))
    assert done == {"status": "done", "done": 240, "total": 240, "rows": 241}  # and the header


IMPORT_SETUP = """
import datetime, io, json
from openpyxl import Workbook
from django.contrib.auth import get_user_model
from league.excel import imports, services as excel_services, tasks
from league.models import Club, Member, RulesVersion, ImportUpload
import scoring
club = Club.objects.create(slug="i", name="importer")
RulesVersion.objects.create(club=club, effective_from=datetime.date(2020, 1, 1),
    rules_json=scoring.PRESETS["mame-no-kai"].rules.to_json(), preset="mame-no-kai")
user = get_user_model().objects.create_user(username="i", password="x")
for n in "ABCD":
    Member.objects.create(club=club, name=n)
book = Workbook(write_only=True)
sheet = book.create_sheet("history")
sheet.append(["date", "table", "E", "pts", "S", "pts", "W", "pts", "N", "pts"])
for i in range({games}):
    day = datetime.date(2021, 1, 1) + datetime.timedelta(days=i // 8)
    k = 100 * (i % 8)  # the day's games differ: the same points twice would be a duplicate
    sheet.append([day, "A", "A", 45000 - k, "B", 30000, "C", 20000, "D", 5000 + k])
out = io.BytesIO()
book.save(out)
parsed = imports.workbook_read(out.getvalue(), players=4)
settled = imports.Settled()
kept = imports.plan_kept(club=club, parsed=parsed, settled=settled)
upload = excel_services.upload_keep(club=club, user=user, filename="h.xlsx",
    parsed=imports.parsed_dump(parsed), games=len(parsed.games), preview=imports.preview_dump(kept))
ImportUpload.objects.filter(pk=upload.pk).update(plan=imports.settled_dump(settled))
excel_services.upload_claim(upload=upload)
tasks.import_start(upload=upload, choices={{"language": "en"}})
print(json.dumps({{"upload": upload.pk, "games": kept.total}}))
"""

IMPORT_STATUS = """
import json
from league.excel.selectors import upload_state
from league.models import Game, ImportUpload, Result, AuditLog
from league.models.totals import MemberTotal
u = ImportUpload.objects.select_related("job", "preview_job").get(pk={pk})
print(json.dumps({{"status": upload_state(u).status, "games": Game.objects.count(),
    "progress": [u.job.done, u.job.total],
    "results": Result.objects.count(), "audit": AuditLog.objects.count(),
    "totals": sum(t.games for t in MemberTotal.objects.filter(season__isnull=True))}}))
"""

REQUEUE = """
import json
from django.utils import timezone
from league.excel import services as excel_services, tasks
from django_tasks_db.models import DBTaskResult
from league.models import ImportBatch, ImportUpload, Job
u = ImportUpload.objects.get(pk={pk})
# What the status page offers after ImportUpload.STALLED_AFTER: confirm it again. The killed
# import's job and batch said nothing for as long (touched in the same transactions), and its
# task was started as long ago (the task framework's result: running, its worker gone).
old = timezone.now() - ImportUpload.STALLED_AFTER * 2
Job.objects.filter(pk=u.job_id).update(created=old, touched=old)
DBTaskResult.objects.filter(id=Job.objects.get(pk=u.job_id).task_id).update(started_at=old)
ImportBatch.objects.filter(pk=u.batch_id).update(touched=old)
u = ImportUpload.objects.select_related("job", "preview_job").get(pk={pk})
assert excel_services.upload_claim(upload=u)
u.refresh_from_db()
tasks.import_start(upload=u, choices={{"language": "en"}})
print(json.dumps({{"ok": True}}))
"""

STOPPING_WORKER = """
import sys, time
import django
django.setup()
from league.books import services as books
from league.excel import imports
imports.STEP_GAMES = int(sys.argv[2])  # smaller steps: the second one comes sooner
real, calls = books.post, []
def post(**kwargs):  # the second transaction's books: stop there
    calls.append(1)
    if len(calls) == 1:
        return real(**kwargs)
    open(sys.argv[1], "w").close()
    time.sleep(600)
books.post = post
from django.core.management import call_command
call_command("db_worker", "--no-reload", "--no-startup-delay", "--interval", "0.1")
"""

# The club's data version (league.access.page_etag): what every app server tags its pages by.
TOKEN = """
import json
from league.models import AuditLog, Club, ClubChronicle
club = Club.objects.get(slug="i")
newest = AuditLog.objects.filter(club=club).order_by("-pk").values_list("pk", flat=True).first()
replayed = ClubChronicle.objects.filter(club=club).values_list("replayed", flat=True).first()
print(json.dumps({"token": [newest, replayed]}))
"""

RESETTLE_SETUP = """
import datetime, json
from league.models import Club, RulesVersion
from league.rules import services, tasks
import scoring
club = Club.objects.get(slug="i")
rules = {{**scoring.PRESETS["mame-no-kai"].rules.to_json(), "uma": [30, 10, -10, -30]}}
version = services.rules_version_create(club=club, user=None,
    effective_from=datetime.date(2021, 1, 1) + datetime.timedelta(days={from_day}),
    rules_json=rules)
run = tasks.resettle_start(version=version, user=None)
print(json.dumps({{"run": run.pk, "version": version.pk}}))
"""

RESETTLE_STATUS = """
import json
from league.jobs import job_state
from league.models import Game, ResettleRun
r = ResettleRun.objects.select_related("job").get(pk={pk})
print(json.dumps({{"status": job_state(r.job).status, "done": r.job.done,
    "moved": r.job.message.get("moved", 0), "total": r.job.total,
    "under": Game.objects.filter(rules_version_id={version}).count()}}))
"""


@pytest.mark.database_tasks
def test_a_worker_killed_mid_import_keeps_the_days_done_then_imports_the_rest_and_resettles(
    database_url, tmp_path
):
    """The import runs in a worker, whole days a transaction (at most STEP_GAMES games): killed
    inside its second transaction, the first one's games and its progress are there, seen by
    another process, and nothing of the second (the status page says it stopped once
    STALLED_AFTER has passed); confirmed again, a worker imports the rest (the days done are
    recorded already: skipped); then a re-settle of every game runs in a worker, a day a step,
    its progress read by another process."""
    env = migrated(database_url)
    games, step = 300, 96  # the killed worker's steps: the rest is imported in steps of STEP_GAMES
    upload = shell(env, IMPORT_SETUP.format(games=games))["upload"]
    before = shell(env, IMPORT_STATUS.format(pk=upload))
    assert before["status"] == "queued" and before["games"] == 0

    # A worker that stops inside the import's second transaction once its games, results and
    # audit entries are written (the books are posted last), and says so: killed there, on cue.
    marker = tmp_path / "inside-the-import"
    worker = subprocess.Popen(
        [sys.executable, "-c", STOPPING_WORKER, str(marker), str(step)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert time.monotonic() < deadline and worker.poll() is None
            time.sleep(0.1)
        assert shell(env, IMPORT_STATUS.format(pk=upload))["status"] == "running"
    finally:
        worker.kill()  # SIGKILL: no clean-up of any kind
        worker.wait()
    killed = shell(env, IMPORT_STATUS.format(pk=upload))
    first = 8 * (step // 8)  # whole days of eight games
    days = -(-games // 8)
    assert killed == {  # the first transaction's days, and nothing of the second
        **before,
        "status": "running",
        "games": first,
        "results": 4 * first,
        "totals": 4 * first,
        "progress": [first // 8, days],
        "audit": killed["audit"],
    }
    assert killed["audit"] == before["audit"] + first  # a game.create entry each

    shell(env, REQUEUE.format(pk=upload))
    token = shell(env, TOKEN)["token"]
    manage(env, "db_worker", "--batch", "--no-startup-delay", "--interval", "0", timeout=600)
    # The worker's commits changed the club's data version, which every app server tags by.
    assert shell(env, TOKEN)["token"] != token
    done = shell(env, IMPORT_STATUS.format(pk=upload))
    assert done["status"] == "done"
    assert (done["games"], done["results"], done["totals"]) == (games, 4 * games, 4 * games)

    # The new rules from the 30th day: the 60 games of the last 8 days are re-settled, the
    # earlier ones stay under the old version.
    from_day = 30
    resettled = games - 8 * from_day
    started = shell(env, RESETTLE_SETUP.format(from_day=from_day))
    run, version = started["run"], started["version"]
    queued = shell(env, RESETTLE_STATUS.format(pk=run, version=version))
    assert queued == {"status": "queued", "done": 0, "moved": 0, "total": resettled, "under": 0}
    token = shell(env, TOKEN)["token"]
    manage(env, "db_worker", "--batch", "--no-startup-delay", "--interval", "0", timeout=600)
    assert shell(env, TOKEN)["token"] != token
    finished = shell(env, RESETTLE_STATUS.format(pk=run, version=version))
    assert finished == {
        "status": "done",
        "done": resettled,
        "moved": resettled,
        "total": resettled,
        "under": resettled,
    }


DRAW_SETUP = """
import datetime, json
from django.contrib.auth import get_user_model
from league.draw import tasks
from league.models import Club, Day, Member, RulesVersion
from league.models.draw import Attendance, DrawRoom
import scoring
club = Club.objects.create(slug="d", name="draw")
RulesVersion.objects.create(club=club, effective_from=datetime.date(2020, 1, 1),
    rules_json=scoring.PRESETS["mame-no-kai"].rules.to_json(), preset="mame-no-kai")
user = get_user_model().objects.create_user(username="d", password="x")
day = Day.objects.create(club=club, date=datetime.date(2026, 11, 21))
for i in range(100):
    Attendance.objects.create(day=day, member=Member.objects.create(club=club, name=f"P{i:03d}"))
asked = tasks.draw_ask(club=club, user=user, date=day.date, language="ja")
again = tasks.draw_ask(club=club, user=user, date=day.date, language="ja")
room = DrawRoom.objects.get(day=day)
print(json.dumps({"queued": asked.queued, "busy": again.busy, "task": room.draw_task}))
"""

DRAW_STATUS = """
import json
from league.draw import selectors as sel
from league.models.draw import DrawRoom, DrawRound
room = DrawRoom.objects.get(day__club__slug="d")
job = sel.draw_job(room)
print(json.dumps({"state": job.state if job else None,
    "rounds": list(DrawRound.objects.values_list("number", "revision")),
    "tables": sum(r.tables.count() for r in DrawRound.objects.all())}))
"""


@pytest.mark.database_tasks
def test_a_worker_process_makes_a_large_draw_and_another_process_sees_it(database_url):
    """100 players: the draw is asked of the worker (asking again asks nothing more), another
    process reads its task waiting, a worker process stores the round, and the task's status
    says it is done."""
    env = migrated(database_url)
    asked = shell(env, DRAW_SETUP)
    assert asked["queued"] and asked["busy"] and asked["task"]
    assert shell(env, DRAW_STATUS) == {"state": "waiting", "rounds": [], "tables": 0}
    manage(env, "db_worker", "--batch", "--no-startup-delay", "--interval", "0", timeout=300)
    assert shell(env, DRAW_STATUS) == {"state": "done", "rounds": [[1, 1]], "tables": 25}
