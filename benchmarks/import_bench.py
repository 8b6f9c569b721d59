"""Importing a club's history: N games uploaded, previewed and confirmed through the pages.

    .venv/bin/python benchmarks/import_bench.py [--games 10000 41000] [--db sqlite|postgres|both]
    .venv/bin/python benchmarks/import_bench.py --short      # 1,000 games on SQLite (CI)

Per database (SQLite in a temporary file; PostgreSQL as a scratch database on 127.0.0.1, dropped
afterwards), in a fresh process: a club with eight members and its rules, and a workbook in the
simple layout of N games (eight games a day, more past 16,000 games so that every date is past, written by openpyxl with shared strings, as Excel
writes them). Then through Django's full request stack, as an organiser: the upload (the guard,
reading the workbook once and keeping it in the database), the worker's preview task (every game
settled once, league.excel.tasks.import_preview, called in this process), the preview (shown
from what was kept), the confirm (queues the import), and the
worker's task (league.excel.tasks.import_run: the games the preview settled written with their
results and audit entries, whole days a transaction under an import batch), called in this
process. Prints each step's
time, query count and the process's peak memory so far, and the total beside a yardstick of
bare openpyxl reading plus bulk_create of the same rows in the same run.

Settings as production runs them (DEBUG off, as Django's test runner sets it): Django's debug
cursor, which on SQLite quotes every parameter of every statement again through SQLite
(`last_executed_query`), is not measured; queries are counted by a wrapper
(connection.execute_wrapper) instead.

While the worker's import runs, a second process (forked: another connection, as an app server
beside the worker) reads the job's committed progress through its ordinary connection, prints
it as it advances, and records a game for the same club through the API (POST
/api/clubs/<slug>/games with a token, as tests/support/api.py does) a quarter, half and three
quarters of the way through: each record's wall time is printed (issue 38: at most 2 s).
"""

from __future__ import annotations

import argparse
import datetime
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NAMES = ["青木", "馬場", "千葉", "土井", "江藤", "藤田", "後藤", "本田"]
POINTS = [45000, 31000, 19000, 5000]


def workbook(games: int) -> bytes:
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet("history")
    sheet.append(["日付", "卓", "東", "素点", "南", "素点", "西", "素点", "北", "素点", "供託"])
    first = datetime.date(2020, 1, 6)
    per_day = max(8, -(-games // 2_000))  # a long history stays in the past
    for i in range(games):
        day = first + datetime.timedelta(days=i // per_day)
        seats = [NAMES[(i + k * 3) % 8] for k in range(4)]
        if len(set(seats)) < 4:
            seats = NAMES[i % 2 * 4 : i % 2 * 4 + 4]
        row: list[object] = [day, "AB"[i % 2]]
        # More than eight games a day repeat the eight seatings: the points differ by game,
        # so that none is a duplicate of another game of its day (the top gives the last more).
        step = (i // 8) % 40 * 100
        for k in range(4):
            points = POINTS[(i + k) % 4]
            row += [
                seats[k],
                points - step if points == POINTS[0] else points + step * (points == POINTS[3]),
            ]
        sheet.append([*row, 0])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def peak_mb() -> float:
    """The process's peak resident memory so far (Linux reports kilobytes)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def yardstick(data: bytes, club, rules_version, members) -> tuple[float, float]:
    """Bare openpyxl reading of the same workbook plus bulk_create of the same rows (days,
    games, four results each) in one transaction: the least an import can do. Returns its wall
    time and this process's CPU time."""
    from django.db import transaction
    from openpyxl import load_workbook

    from league.models import Day, Game, Result

    start, cpu = time.perf_counter(), time.process_time()
    book = load_workbook(io.BytesIO(data), read_only=True)
    rows = list(book.worksheets[0].iter_rows(min_row=2, values_only=True))
    by_name = {m.name: m for m in members}
    with transaction.atomic():
        dates = sorted({row[0].date() for row in rows})
        days = {d: Day(club=club, date=d) for d in dates}
        Day.objects.bulk_create(days.values(), batch_size=2_000)
        games, results, numbers = [], [], {}
        for row in rows:
            date = row[0].date()
            numbers[date] = numbers.get(date, 0) + 1
            games.append(
                Game(
                    club=club,
                    day=days[date],
                    date=date,
                    table=row[1],
                    number=numbers[date],
                    deposits=row[10] or 0,
                    rules_version=rules_version,
                )
            )
        Game.objects.bulk_create(games, batch_size=2_000)
        for row, game in zip(rows, games, strict=True):
            for seat in range(4):
                results.append(
                    Result(
                        game=game,
                        revision=1,
                        member=by_name[row[2 + 2 * seat]],
                        seat=seat,
                        points=row[3 + 2 * seat],
                        rank=seat + 1,
                        score=0,
                        club=club,
                        date=game.date,
                    )
                )
        Result.objects.bulk_create(results, batch_size=2_000)
    return time.perf_counter() - start, time.process_time() - cpu


class Counted:
    """Counts the statements a connection runs (Django's execute_wrapper: no debug cursor); with
    BENCH_SQL set, also the database's time by the statement's first words (printed after the
    task)."""

    def __init__(self) -> None:
        self.count = 0
        self.timed = bool(os.environ.get("BENCH_SQL"))
        self.seconds: dict[str, list[float]] = {}

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        if not self.timed:
            return execute(sql, params, many, context)
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            key = " ".join(sql.split()[:3])[:60]
            kept = self.seconds.setdefault(key, [0, 0.0])
            kept[0] += 1
            kept[1] += time.perf_counter() - start

    def print_slowest(self, most: int = 15) -> None:
        for key, (n, seconds) in sorted(self.seconds.items(), key=lambda kv: -kv[1][1])[:most]:
            print(f"    sql {seconds:>7.2f} s  {n:>6}×  {key}")


RECORD_AT = (0.25, 0.5, 0.75)  # of the days planned: when the second process records a game


def watch(job_id: int, slug: str, secret: str, stop, out) -> None:
    """The second process: the job's progress as committed, read through this process's own
    ordinary connection and printed as it advances (at most once a second), and a game recorded
    through the API for the same club at each of RECORD_AT; sends the records' (seconds, status,
    done, total) to `out`."""
    import json

    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from league.models import Job

    client = Client(raise_request_exception=False)  # a failure is a status, not a crash
    start = time.perf_counter()
    shown, shown_at, records = None, 0.0, []
    while True:
        stopping = stop.is_set()  # read once more after the task ends: the last progress
        row = Job.objects.filter(pk=job_id).values_list("done", "total").first()
        now = time.perf_counter()
        if row and row != shown and (now - shown_at >= 1 or row[0] == row[1] or stopping):
            done, total = row
            share = f"{done / total:>4.0%}" if total else "   ?"
            print(
                f"    progress {done:>6,}/{total:,} days {share}  at {now - start:>6.1f} s",
                flush=True,
            )
            shown, shown_at = row, now
        if row and row[1] and len(records) < len(RECORD_AT) and not stopping:
            done, total = row
            if done >= total * RECORD_AT[len(records)] and done < total:
                day = timezone.localdate() - datetime.timedelta(days=len(records))
                body = {
                    "date": day.isoformat(),
                    "table": "A",
                    "rate": "0.3",
                    "deposits": "1,000",
                    "players": [
                        {"name": name, "points": points}
                        for name, points in zip(
                            NAMES[:4], (52000, 31000, 19000, -3000), strict=True
                        )
                    ],
                }
                begun = time.perf_counter()
                response = client.post(
                    f"/api/clubs/{slug}/games",
                    data=json.dumps(body),
                    content_type="application/json",
                    headers={"Authorization": f"Bearer {secret}"},
                )
                seconds = time.perf_counter() - begun
                records.append((seconds, response.status_code, done, total))
                print(
                    f"    API record {seconds:>5.2f} s  ({response.status_code})"
                    f" at {done:,}/{total:,} days",
                    flush=True,
                )
        if stopping:
            break
        time.sleep(0.2)
    connection.close()
    out.send(records)


def measure(games: int) -> None:
    import multiprocessing

    import django

    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.db import connection, connections
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.urls import reverse

    from league.accounts import tokens
    from league.club import services as club_services
    from league.excel import tasks as excel_tasks
    from league.models import AuditLog, Game, ImportUpload, Membership, Result, RulesVersion
    from tests.support.clubs import make_club, make_user

    setup_test_environment(debug=False)
    call_command("migrate", verbosity=0)
    club = make_club("bench", "mame-no-kai")
    organiser = make_user("bench-organiser", club, Membership.ORGANISER)
    for name in NAMES:
        club_services.member_create(club=club, user=organiser, name=name)
    data = workbook(games)
    print(f"  workbook of {games:,} games: {len(data):,} bytes")
    client = Client()
    client.force_login(organiser)
    total = total_cpu = 0.0

    def step(label: str, call):
        nonlocal total, total_cpu
        queries = Counted()
        with connection.execute_wrapper(queries):
            start, cpu = time.perf_counter(), time.process_time()
            response = call()
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        total += seconds
        total_cpu += cpu
        code = getattr(response, "status_code", "task")
        print(
            f"  {label:<10} {seconds:>7.2f} s  cpu {cpu:>6.2f} s  {queries.count:>6} queries"
            f"  peak {peak_mb():>5.0f} MB  ({code})"
        )
        if label == "task":
            queries.print_slowest()
        return response

    upload_url = reverse("excel:import_upload", args=[club.slug])
    upload = SimpleUploadedFile("history.xlsx", data)
    response = step("upload", lambda: client.post(upload_url, {"workbook": upload}))
    assert response.status_code == 302, response.content[:2000]
    uploaded = ImportUpload.objects.get(club=club)
    # The upload queues its preview (every game settled once); the worker's run is called here.
    step("previewing", lambda: excel_tasks.import_preview.call(uploaded.pk, "ja"))
    response = step(
        "preview", lambda: client.get(reverse("excel:import_preview", args=[club.slug]))
    )
    plan = response.context["plan"]
    assert plan.ready and plan.total == games, plan.problems[:5]
    # The request queues the import (settings' TASKS: the database backend); the worker's run
    # is then called here, in this process, as `manage.py db_worker` would.
    response = step(
        "confirm", lambda: client.post(reverse("excel:import_confirm", args=[club.slug]))
    )
    assert response.status_code == 302
    requests = total
    kept = ImportUpload.objects.get(club=club)
    secret = tokens.token_create(club=club, user=organiser, name="bench bot")[1]
    # The second process: forked with no connection open, so that each opens its own.
    connections.close_all()
    fork = multiprocessing.get_context("fork")
    stop, (theirs, ours) = fork.Event(), fork.Pipe(duplex=False)
    watcher = fork.Process(target=watch, args=(kept.job_id, club.slug, secret, stop, ours))
    watcher.start()
    try:
        if os.environ.get("BENCH_PROFILE"):  # where the worker's time goes
            import cProfile
            import pstats

            profile = cProfile.Profile()
            step("task", lambda: profile.runcall(excel_tasks.import_run.call, kept.pk))
            if os.environ["BENCH_PROFILE"] != "1":  # a path: the whole profile kept there
                profile.dump_stats(os.environ["BENCH_PROFILE"])
            pstats.Stats(profile).sort_stats("cumulative").print_stats(35)
        else:
            step("task", lambda: excel_tasks.import_run.call(kept.pk))
    finally:
        stop.set()
        records = theirs.recv() if theirs.poll(60) else []
        watcher.join()
    recorded = sum(status == 201 for _s, status, _d, _t in records)
    assert ImportUpload.objects.get(pk=kept.pk).imported
    assert Game.objects.filter(club=club).count() == games + recorded
    assert Result.objects.filter(club=club, counted=True).count() == (games + recorded) * 4
    assert AuditLog.objects.filter(club=club, action="game.create").count() == games + recorded
    if records:
        slowest = max(seconds for seconds, *_rest in records)
        print(
            f"  API record during the import: {len(records)} recorded, slowest {slowest:.2f} s"
            f"  (aim: within 2 s)  statuses {sorted({s for _t, s, _d, _n in records})}"
        )
    else:
        print("  API record during the import: none (the import ended before a quarter of it)")
    print(f"  requests   {requests:>7.2f} s  (each under the 30 s timeout)")
    print(
        f"  total      {total:>7.2f} s  cpu {total_cpu:>6.2f} s  (upload + the worker's preview"
        " + preview + confirm + the worker's import)"
    )
    other = make_club("yardstick", "mame-no-kai")
    members = [club_services.member_create(club=other, user=organiser, name=name) for name in NAMES]
    seconds, cpu = yardstick(data, other, RulesVersion.objects.filter(club=other).first(), members)
    print(
        f"  yardstick  {seconds:>7.2f} s  cpu {cpu:>6.2f} s  (openpyxl read + bulk_create of the"
        " same rows)"
    )
    # On a loaded machine the wall times move with the others' work; this process's CPU time
    # (SQLite's work included, PostgreSQL's server not) is the steadier figure.
    print(
        f"  ratio      {total / seconds:>7.2f}×  cpu {total_cpu / cpu:>5.2f}×  (aim: within 2×)"
        f"  load average {os.getloadavg()[0]:.1f} (2 cores)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[10_000, 41_000])
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--short", action="store_true", help="1,000 games on SQLite")
    parser.add_argument(
        "--pg-name", help="scratch database name (default: janchou_import_bench_<pid>)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:  # a fresh process per database, so settings load once per backend
        os.environ["DATABASE_URL"] = args.child
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
        # DEBUG goes off after setup (setup_test_environment): static files as tests serve them,
        # no manifest needed.
        os.environ.setdefault(
            "STATICFILES_BACKEND", "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
        measure(args.games[0])
        return
    if args.short:
        args.games, args.db = [1_000], "sqlite"
    targets = []
    if args.db in ("sqlite", "both"):
        tmp = tempfile.mkdtemp(prefix="janchou-import-bench-")
        targets.append(("SQLite", f"sqlite:///{tmp}/bench.sqlite3", None))
    if args.db in ("postgres", "both"):
        if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1"]).returncode == 0:
            name = args.pg_name or f"janchou_import_bench_{os.getpid()}"
            targets.append(("PostgreSQL", f"postgres://postgres@127.0.0.1:5432/{name}", name))
        else:
            print("SKIP: PostgreSQL is not answering on 127.0.0.1:5432")
    psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c"]
    for label, url, pg_name in targets:
        for games in args.games:  # a fresh database per size
            if pg_name:
                subprocess.run([*psql, f"DROP DATABASE IF EXISTS {pg_name}"], check=True)
                subprocess.run([*psql, f"CREATE DATABASE {pg_name}"], check=True)
            else:
                url = f"sqlite:///{tempfile.mkdtemp(prefix='janchou-import-bench-')}/bench.sqlite3"
            print(f"{label}, {games:,} games:")
            try:
                command = [sys.executable, __file__, "--child", url, "--games", str(games)]
                subprocess.run(command, check=True)
            finally:
                if pg_name:
                    subprocess.run([*psql, f"DROP DATABASE IF EXISTS {pg_name}"], check=True)


if __name__ == "__main__":
    main()
