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
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
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
