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


def yardstick(data: bytes, club, rules_version, members) -> float:
    """Bare openpyxl reading of the same workbook plus bulk_create of the same rows (days,
    games, four results each) in one transaction: the least an import can do."""
    from django.db import transaction
    from openpyxl import load_workbook

    from league.models import Day, Game, Result

    start = time.perf_counter()
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
    return time.perf_counter() - start


def measure(games: int) -> None:
    import django

    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment
    from django.urls import reverse

    from league.club import services as club_services
    from league.excel import tasks as excel_tasks
    from league.models import AuditLog, Game, ImportUpload, Membership, Result, RulesVersion
    from tests.support.clubs import make_club, make_user

    setup_test_environment()
    call_command("migrate", verbosity=0)
    club = make_club("bench", "mame-no-kai")
    organiser = make_user("bench-organiser", club, Membership.ORGANISER)
    for name in NAMES:
        club_services.member_create(club=club, user=organiser, name=name)
    data = workbook(games)
    print(f"  workbook of {games:,} games: {len(data):,} bytes")
    client = Client()
    client.force_login(organiser)
    total = 0.0

    def step(label: str, call):
        nonlocal total
        with CaptureQueriesContext(connection) as queries:
            start = time.perf_counter()
            response = call()
            seconds = time.perf_counter() - start
        total += seconds
        code = getattr(response, "status_code", "task")
        print(
            f"  {label:<10} {seconds:>7.2f} s  {len(queries):>6} queries  peak {peak_mb():>5.0f} MB"
            f"  ({code})"
        )
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
    if os.environ.get("BENCH_PROFILE"):  # where the worker's time goes
        import cProfile
        import pstats

        profile = cProfile.Profile()
        step("task", lambda: profile.runcall(excel_tasks.import_run.call, kept.pk))
        pstats.Stats(profile).sort_stats("cumulative").print_stats(35)
    else:
        step("task", lambda: excel_tasks.import_run.call(kept.pk))
    assert ImportUpload.objects.get(pk=kept.pk).imported
    assert Game.objects.filter(club=club).count() == games
    assert Result.objects.filter(club=club, counted=True).count() == games * 4
    assert AuditLog.objects.filter(club=club, action="game.create").count() == games
    print(f"  requests   {requests:>7.2f} s  (each under the 30 s timeout)")
    print(
        f"  total      {total:>7.2f} s  (upload + the worker's preview + preview + confirm"
        " + the worker's import)"
    )
    other = make_club("yardstick", "mame-no-kai")
    members = [club_services.member_create(club=other, user=organiser, name=name) for name in NAMES]
    seconds = yardstick(data, other, RulesVersion.objects.filter(club=other).first(), members)
    print(f"  yardstick  {seconds:>7.2f} s  (openpyxl read + bulk_create of the same rows)")
    print(
        f"  ratio      {total / seconds:>7.2f}×  (aim: within 2×)"
        f"  load average {os.getloadavg()[0]:.1f} (2 cores)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[10_000, 41_000])
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--short", action="store_true", help="1,000 games on SQLite")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:  # a fresh process per database, so settings load once per backend
        os.environ["DATABASE_URL"] = args.child
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
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
            name = f"janchou_import_bench_{os.getpid()}"
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
