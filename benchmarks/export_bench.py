"""The game-log export at scale: a club with N games (4 rows each) on SQLite.

    .venv/bin/python benchmarks/export_bench.py [--games 10000 100000] [--runs 3]

For each size, builds a scratch SQLite database in a temporary directory (benchmarks/
standings_bench.build: games settled by `scoring`, inserted in bulk), then prints:

- the export's time: league.excel.exports.game_log_workbook saved by exports.xlsx_response, the code
  path of the download view (one query read in chunks, every cell formatted, strings checked);
- the time of the background export (league.excel.tasks.export_game_log: the same workbook,
  counted as it goes, saved to a temporary file and copied into the exports storage; the path of
  a log longer than EXPORT_INLINE_ROWS);
- the time of bare openpyxl writing the same cells (the same values, already in a list: no
  query, no formats) to a write-only workbook, and the ratio of the two;
- peak memory of each: tracemalloc's peak (Python allocations) and the growth of the process's
  maximum resident set (ru_maxrss, which also sees SQLite's sort and openpyxl's buffers), each
  measured in a fresh process so that building the database does not hide it.

Times are the best of `--runs` runs (the least disturbed by other processes), export and bare
alternating; wall-clock and CPU time are both shown (CPU time is steadier on a busy machine).

Every export, as the history grows (issue 38: each answers within 100 ms of server time at
100,000 games or runs as a task with progress, on both databases):

    .venv/bin/python benchmarks/export_bench.py --every [--sizes 1000,10000,100000] [--db both]

builds one club's history as benchmarks/pages_bench.py does (growing backwards in time, paid
days, kept aggregates and books rebuilt, teams and an event in the latest season) and asks for
every download view a member can (standings in each form, the game log, the payment sheet, the
statement, the draw's schedule) through the test client as its organiser: each one's median
server time, least CPU time of the process and query count, and what it answered (a file, or the
page that offers to make it in the background). Past the inline sizes a file is made by a
worker: its time there (the task, run in the process) is printed too. PostgreSQL's scratch
database is EXPORT_BENCH_DB (janchou_export_bench unless set).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _setup() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
    django.setup()
    from django.utils import translation

    translation.activate("ja")


def _club():
    from league.models import Club

    return Club.objects.get(slug="bench")


def export(club, **period: object) -> int:
    """The download view's work after the permission check; returns the file's size."""
    from league.excel import exports

    response = exports.xlsx_response(
        exports.game_log_workbook(club=club, **period), name="bench.xlsx", fallback="bench.xlsx"
    )
    size = int(response["Content-Length"])
    response.close()
    return size


def task(club) -> int:
    """The background export, as the worker runs it; returns the stored file's size."""
    import datetime

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from league.excel import tasks
    from league.models import ExportFile

    user, _ = get_user_model().objects.get_or_create(username="bench-export")
    export = ExportFile.objects.create(
        club=club,
        user=user,
        kind="game-log",
        params={"language": "ja"},
        name="bench.xlsx",
        fallback="bench.xlsx",
        expires=timezone.now() + datetime.timedelta(hours=1),
    )
    tasks.export_game_log.call(export.pk)
    export.refresh_from_db()
    storage = tasks.export_storage()
    size = storage.size(export.file_name)
    storage.delete(export.file_name)  # the next run writes its own
    return size


def requests(club) -> dict[str, Callable[[], object]]:
    """The download views as a member's browser asks for them (the test client, the whole
    stack): the game log and the statement of the member with the most games. Past
    EXPORT_INLINE_ROWS / EXPORT_INLINE_LINES each answers with the page that offers to make the
    file in the background, so this is the most a request spends on an export."""
    from django.contrib.auth import get_user_model
    from django.db.models import Count
    from django.test import Client
    from django.urls import reverse

    from league.models import Member, Membership

    user, _ = get_user_model().objects.get_or_create(username="bench-member")
    Membership.objects.get_or_create(club=club, user=user, defaults={"role": "member"})
    client = Client()
    client.force_login(user)
    member = Member.objects.filter(club=club).annotate(n=Count("results")).order_by("-n").first()
    game_log = reverse("excel:export_game_log", args=[club.slug])
    statement = reverse("excel:export_statement", args=[club.slug, member.pk])

    def get(path: str) -> None:
        response = client.get(path, HTTP_ACCEPT_LANGUAGE="ja")
        assert response.status_code in (200, 404), (path, response.status_code)
        b"".join(response.streaming_content) if response.streaming else response.content
        response.close()

    return {"request_game_log": lambda: get(game_log), "request_statement": lambda: get(statement)}


def bare_values(club) -> list[tuple]:
    """The cells the export writes, as plain values (header row first)."""
    from league.excel import exports

    header = tuple(str(c.header) for c in exports.GAME_LOG_COLUMNS)
    return [header, *exports.game_log_rows(club=club)]


def bare(values: list[tuple]) -> int:
    """Bare openpyxl: the same cells appended to a write-only sheet, saved to a temporary file."""
    from openpyxl import Workbook

    workbook = Workbook(write_only=True)
    ws = workbook.create_sheet("Game log")
    for row in values:
        ws.append(row)
    with tempfile.TemporaryFile() as file:
        workbook.save(file)
        return file.tell()


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def _memory(fn: Callable[[], object]) -> dict[str, float]:
    """tracemalloc's peak and the growth of ru_maxrss while `fn` runs (MB)."""
    gc.collect()
    before = _maxrss_mb()
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"peak": peak / 2**20, "rss": _maxrss_mb() - before}


# --- the child processes ---------------------------------------------------------------------


def child_build(games: int) -> dict[str, float]:
    import standings_bench
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    start = time.perf_counter()
    standings_bench.build(games)
    return {"build": time.perf_counter() - start}


def child_time(runs: int) -> dict[str, float]:
    club = _club()
    values = bare_values(club)
    export(club)  # warm up: the database file in the page cache, imports done
    task(club)
    asked = requests(club)
    for fn in asked.values():
        fn()  # warm up
    samples: dict[str, list[tuple[float, float]]] = {"export": [], "task": [], "bare": []}
    samples |= {name: [] for name in asked}
    for _ in range(runs):
        samples["export"].append(_timed(lambda: export(club)))
        samples["task"].append(_timed(lambda: task(club)))
        samples["bare"].append(_timed(lambda: bare(values)))
        for name, fn in asked.items():
            samples[name].append(_timed(fn))
    out: dict[str, float] = {"rows": len(values) - 1, "size": export(club) / 2**20}
    for name, pairs in samples.items():
        out[f"{name}_wall"] = min(p[0] for p in pairs)
        out[f"{name}_cpu"] = min(p[1] for p in pairs)
    return out


def child_memory_export() -> dict[str, float]:
    from league.models import Result

    club = _club()
    last = Result.objects.filter(club=club).latest("date").date
    export(club, start=last)  # one day's export first: imports and translations loaded
    return _memory(lambda: export(club))


def child_memory_task() -> dict[str, float]:
    club = _club()
    task(club)  # imports, translations and the storage's directory first
    return _memory(lambda: task(club))


def child_memory_bare() -> dict[str, float]:
    values = bare_values(_club())  # held before measuring: only the writing is measured
    bare(values[:100])
    return _memory(lambda: bare(values))


CHILDREN = {
    "build": lambda args: child_build(args.games[0]),
    "time": lambda args: child_time(args.runs),
    "memory-export": lambda args: child_memory_export(),
    "memory-task": lambda args: child_memory_task(),
    "memory-bare": lambda args: child_memory_bare(),
}


def run_child(mode: str, url: str, args: argparse.Namespace) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", mode, "--runs", str(args.runs)]
    exports_root = str(Path(url.removeprefix("sqlite:///")).parent / "exports")
    env = {**os.environ, "DATABASE_URL": url, "EXPORT_ROOT": exports_root}
    if mode == "build":
        command += ["--games", str(args.games[0])]
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode:  # say why, not only that the child failed
        sys.stderr.write(result.stderr)
        raise SystemExit(f"export_bench: the {mode} step failed ({result.returncode})")
    return json.loads(result.stdout.strip().splitlines()[-1])


def measure(games: int, args: argparse.Namespace) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="janchou-export-bench-") as tmp:
        url = f"sqlite:///{tmp}/bench.sqlite3"
        sized = argparse.Namespace(**{**vars(args), "games": [games]})
        figures = run_child("build", url, sized)
        print(f"  built {games:,} games ({games * 4:,} rows) in {figures['build']:.1f} s")
        figures |= run_child("time", url, sized)
        figures |= {f"export_{k}": v for k, v in run_child("memory-export", url, sized).items()}
        figures |= {f"task_{k}": v for k, v in run_child("memory-task", url, sized).items()}
        figures |= {f"bare_{k}": v for k, v in run_child("memory-bare", url, sized).items()}
    return figures


def report(games: int, f: dict[str, float]) -> None:
    print(f"{games:,} games: {int(f['rows']):,} rows, {f['size']:.1f} MB .xlsx")
    labels = (
        ("export", "export (view's path)"),
        ("task", "export (worker's path)"),
        ("bare", "bare openpyxl"),
    )
    for name, label in labels:
        print(
            f"  {label:22} {f[f'{name}_wall']:7.2f} s wall {f[f'{name}_cpu']:7.2f} s CPU"
            f" | tracemalloc peak {f[f'{name}_peak']:6.1f} MB"
            f" | ru_maxrss +{f[f'{name}_rss']:6.1f} MB"
        )
    for name, label in (
        ("request_game_log", "request: game log"),
        ("request_statement", "request: statement"),
    ):
        print(
            f"  {label:22} {f[f'{name}_wall'] * 1000:7.1f} ms wall"
            f" {f[f'{name}_cpu'] * 1000:7.1f} ms CPU (the page that offers the file, past"
            " the inline size)"
        )
    for name in ("export", "task"):
        print(
            f"  ratio {name} / bare:  {f[f'{name}_wall'] / f['bare_wall']:.2f} wall,"
            f" {f[f'{name}_cpu'] / f['bare_cpu']:.2f} CPU"
        )
    print(f"  {_load()}")


def _load() -> str:
    one, five, _fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f}"


# --- every export, as the history grows (--every) --------------------------------------------


def every_exports(club, user, members, client) -> list[tuple[str, object]]:
    """Each download view's address, in each of its forms, for pages_bench's club."""
    import pages_bench
    from django.urls import reverse

    from league.models import Season

    pages_bench.pages(club, user, members)  # teams, an event and a match day, once
    season = Season.objects.filter(club=club, kind=Season.INDIVIDUAL).order_by("-end").first()
    event = Season.objects.filter(club=club, kind=Season.EVENT).first()
    day = pages_bench.LAST_DAY
    standings = reverse("excel:export_standings", args=[club.slug])
    game_log = reverse("excel:export_game_log", args=[club.slug])
    year = (day - datetime.timedelta(days=365)).isoformat()
    return [
        ("standings: all time", standings),
        ("standings: all, hands", standings + "?hands=1"),
        ("standings: season", standings + f"?season={season.pk}"),
        ("standings: season, hands", standings + f"?season={season.pk}&hands=1"),
        ("standings: event", standings + f"?season={event.pk}"),
        ("standings: a year", standings + f"?start={year}"),
        ("standings: rate", standings + "?rate=0.3"),
        ("game log: a day", game_log + f"?start={day.isoformat()}&end={day.isoformat()}"),
        ("game log: season", game_log + f"?season={season.pk}"),
        ("game log: all time", game_log),
        ("payment sheet", reverse("excel:export_payment_sheet", args=[club.slug, day])),
        ("statement", reverse("excel:export_statement", args=[club.slug, members[0].pk])),
        ("draw schedule", reverse("draw:draw_schedule_export", args=[club.slug, day])),
        ("statistics: offer page", reverse("excel:export_statistics", args=[club.slug])),
        ("before: standings+stats", lambda: before_standings(client, standings)),
    ]


def before_standings(client, standings: str) -> None:
    """What the all-time standings download cost before issue 38 made the statistics a file of
    their own: the standings workbook, then the statistics sheet (now statistics_workbook, the
    same tables and cells) built and saved in the same request."""
    from league.excel import exports

    response = client.get(standings, HTTP_ACCEPT_LANGUAGE="ja")
    b"".join(response.streaming_content)
    response.close()
    club = _club()
    workbook = exports.statistics_workbook(club=club, season=None, period="通算")
    exports.xlsx_response(workbook, name="b.xlsx", fallback="b.xlsx").close()


def every_measure(client, urls: list[tuple[str, str]], runs: int) -> dict[str, tuple]:
    """Each address's median wall time (ms), least CPU time (ms), queries and what it sent."""
    import statistics as st

    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    def get(url: str):
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="ja")
        assert response.status_code == 200, (url, response.status_code)
        if response.streaming:  # a file: sent to its end, as a server would
            b"".join(response.streaming_content)
            response.close()
        return response

    out = {}
    for label, url in urls:
        ask = url if callable(url) else (lambda url=url: get(url))
        reset_queries()
        with CaptureQueriesContext(connection) as captured:
            response = ask()
        sent = "file" if response is None or response.streaming else "offer"
        wall, cpu = [], []
        for _ in range(runs):
            gc.collect()
            start, start_cpu = time.perf_counter(), time.process_time()
            ask()
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        out[label] = (st.median(wall) * 1000, min(cpu) * 1000, len(captured), sent)
    return out


def every_tasks(club, user, members, season) -> dict[str, tuple[float, float, int]]:
    """The background files (past the inline sizes), each made once by its task in this
    process: wall and CPU time (s) and rows."""
    from league.excel import tasks
    from league.models import ExportFile

    def made(kind: str, params: dict, make) -> tuple[float, float, int]:
        started = tasks.export_start(
            club=club, user=user, kind=kind, params=params, name="b.xlsx", fallback="b.xlsx"
        )
        start, start_cpu = time.perf_counter(), time.process_time()
        rows = make.call(started.export.pk)
        took = (time.perf_counter() - start, time.process_time() - start_cpu, rows)
        export = ExportFile.objects.get(pk=started.export.pk)
        tasks.export_storage().delete(export.file_name)
        ExportFile.objects.filter(pk=export.pk).update(expires=export.created)  # cleared next
        return took

    return {
        "task: statement": made(
            "statement", {"member": members[0].pk, "language": "ja"}, tasks.export_statement
        ),
        "task: statistics, all time": made(
            "statistics", {"season": None, "language": "ja"}, tasks.export_statistics
        ),
        "task: game log, season": made(
            "game-log",
            {
                "start": season.start.isoformat(),
                "end": season.end.isoformat(),
                "rate": None,
                "language": "ja",
            },
            tasks.export_game_log,
        ),
    }


def every_run(sizes: list[int], runs: int, label: str) -> None:
    import pages_bench

    Client = pages_bench._setup()
    from django.utils import translation

    from league.models import Season

    translation.activate("ja")
    club, version, user, members = pages_bench.make_club("bench")
    client = Client()
    client.force_login(user)
    results, background = {}, {}
    built = 0
    for size in sizes:
        start = time.perf_counter()
        pages_bench.add_history(club, version, members, built, size - built)
        pages_bench.add_payments(club, members)
        rebuilt = pages_bench.rebuild(club.slug)
        built = size
        print(
            f"  {label} {size:,} games: built in {time.perf_counter() - start:.0f} s"
            f" (rebuild {rebuilt:.0f} s); {_load()}",
            flush=True,
        )
        urls = every_exports(club, user, members, client)
        results[size] = every_measure(client, urls, runs)
        season = Season.objects.filter(club=club, kind=Season.INDIVIDUAL).order_by("-end").first()
        background[size] = every_tasks(club, user, members, season)
        print(f"  measured {size:,} games; {_load()}", flush=True)
        every_table(sizes[: sizes.index(size) + 1], results, background, runs, label)


def every_table(sizes, results, background, runs: int, label: str) -> None:
    header = "".join(f" | {s:>9,} games (CPU) (q)" for s in sizes)
    print(f"\n  {label}: server time in ms (median of {runs}; least CPU), queries, answer")
    print(f"  {'export':26}{header} | answer")
    for name in results[sizes[0]]:
        cells = "".join(
            f" | {results[s][name][0]:7.1f} ({results[s][name][1]:6.1f}) ({results[s][name][2]:3d})"
            for s in sizes
        )
        last = results[sizes[-1]][name]
        flag = (
            " OVER 100 ms" if last[3] == "file" and last[0] > 100 and sizes[-1] >= 100_000 else ""
        )
        print(f"  {name:26}{cells} | {last[3]}{flag}")
    print(f"  {'by a worker (s, rows)':26}")
    for name in background[sizes[0]]:
        cells = "".join(
            f" | {background[s][name][0]:6.2f} s ({background[s][name][1]:5.2f}) {background[s][name][2]:>7,}"
            for s in sizes
        )
        print(f"  {name:26}{cells}")
    print(f"  {_load()}\n", flush=True)


def every_main(args: argparse.Namespace) -> None:
    targets = []
    if args.db in ("sqlite", "both"):
        tmp = tempfile.mkdtemp(prefix="janchou-exports-")
        targets.append(("SQLite", f"sqlite:///{tmp}/bench.sqlite3", None, tmp))
    if args.db in ("postgres", "both"):
        if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1"]).returncode == 0:
            name = os.environ.get("EXPORT_BENCH_DB", "janchou_export_bench")
            tmp = tempfile.mkdtemp(prefix="janchou-exports-")
            targets.append(("PostgreSQL", f"postgres://postgres@127.0.0.1:5432/{name}", name, tmp))
        else:
            print("SKIP: PostgreSQL is not answering on 127.0.0.1:5432")
    psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c"]
    for label, url, pg_name, tmp in targets:
        if pg_name:
            subprocess.run([*psql, f"DROP DATABASE IF EXISTS {pg_name}"], check=True)
            subprocess.run([*psql, f"CREATE DATABASE {pg_name}"], check=True)
        print(f"{label}:", flush=True)
        env = {**os.environ, "DATABASE_URL": url, "EXPORT_ROOT": f"{tmp}/exports"}
        env.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
        child = [sys.executable, __file__, "--every", "--child", label, "--sizes", args.sizes]
        try:
            subprocess.run([*child, "--runs", str(args.runs)], env=env, check=True)
        finally:
            if pg_name:
                subprocess.run([*psql, f"DROP DATABASE IF EXISTS {pg_name}"], check=True)
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--every", action="store_true", help="every export, as history grows")
    parser.add_argument("--sizes", default="1000,10000,100000", help="--every's sizes")
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    args = parser.parse_args()
    if args.every:
        if args.child:
            every_run([int(s) for s in args.sizes.split(",")], args.runs, args.child)
        else:
            every_main(args)
        return
    if args.child:
        _setup()
        print(json.dumps(CHILDREN[args.child](args)))
        return
    os.environ.pop("DATABASE_URL", None)
    for games in args.games:
        print(f"SQLite, {games:,} games:", flush=True)
        report(games, measure(games, args))


if __name__ == "__main__":
    main()
