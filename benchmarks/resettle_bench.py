"""Re-settling a club's history under a rules change, as the worker's task does it.

    .venv/bin/python benchmarks/resettle_bench.py [--games 1000 10000] [--db sqlite|postgres|both]
    .venv/bin/python benchmarks/resettle_bench.py --short      # 1,000 games on SQLite (CI)

Per database (SQLite in a temporary file; PostgreSQL as a scratch database on 127.0.0.1,
`janchou_resettle` unless --pg-name says, dropped afterwards), in a fresh process per size: a club
of N games settled by `scoring` and inserted in bulk (benchmarks/standings_bench.build), its kept
totals and books rebuilt, then a new rules version (another uma) from the first game's date. The
re-settle is queued as the page queues it (league.rules.services.resettle_queue) and the worker's
task (league.rules.tasks.resettle_run: one day of games a step, each its own
transaction under the club's lock, its games written in bulk as new revisions with an audit entry
each, its day's books in the same step) is called in this process. Prints the time, games per second,
queries per game and the process's peak memory.
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(games: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from standings_bench import build

    import scoring
    from league.models import Game
    from league.rules import services as rules_services
    from league.rules import tasks as rules_tasks

    call_command("migrate", verbosity=0)
    start = time.perf_counter()
    club, _season, user = build(games)
    call_command("rebuild_money", club.slug, verbosity=0)
    print(f"  {games:>6,} games built (and their books) in {time.perf_counter() - start:.1f} s")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    first = Game.objects.filter(club=club).order_by("date").values_list("date", flat=True)[0]
    rules = {**scoring.PRESETS["mame-no-kai"].rules.to_json(), "uma": [30, 10, -10, -30]}
    version = rules_services.rules_version_create(
        club=club, user=user, effective_from=max(first, datetime.date(2000, 1, 2)), rules_json=rules
    )
    run = rules_services.resettle_queue(version=version, user=user)
    queries = 0

    def count(execute, sql, params, many, context):  # counted, not kept: thousands of them
        nonlocal queries
        queries += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        start = time.perf_counter()
        if os.environ.get("RESETTLE_PROFILE"):
            import cProfile

            profile = cProfile.Profile()
            moved = profile.runcall(rules_tasks.resettle_run.call, run.pk)
            profile.dump_stats(os.environ["RESETTLE_PROFILE"])
        else:
            moved = rules_tasks.resettle_run.call(run.pk)
        seconds = time.perf_counter() - start
    assert Game.objects.filter(club=club, rules_version=version).count() == games
    print(
        f"  {games:>6,} games re-settled in {seconds:6.1f} s | {games / seconds:6.1f} games/s"
        f" | {queries / games:5.1f} queries a game | moved {moved:,}"
        f" | peak {peak_mb():.0f} MB | load average {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--pg-name", default="janchou_resettle", help="scratch database name")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:  # a fresh process per database and size: settings load once per backend
        os.environ["DATABASE_URL"] = args.child
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
        measure(args.games[0])
        return
    if args.short:
        args.games, args.db = [1_000], "sqlite"
    psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c"]
    targets: list[tuple[str, str | None]] = []
    if args.db in ("sqlite", "both"):
        targets.append(("SQLite", None))
    if args.db in ("postgres", "both"):
        if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1"]).returncode == 0:
            targets.append(("PostgreSQL", args.pg_name))
        else:
            print("SKIP: PostgreSQL is not answering on 127.0.0.1:5432")
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores)")
    for label, pg_name in targets:
        print(f"{label}:")
        for games in args.games:
            if pg_name:
                subprocess.run([*psql, f"DROP DATABASE IF EXISTS {pg_name}"], check=True)
                subprocess.run([*psql, f"CREATE DATABASE {pg_name}"], check=True)
                url = f"postgres://postgres@127.0.0.1:5432/{pg_name}"
            else:
                url = f"sqlite:///{tempfile.mkdtemp(prefix='janchou-resettle-')}/bench.sqlite3"
            try:
                child = [sys.executable, __file__, "--child", url, "--games", str(games)]
                subprocess.run(child, check=True)
            finally:
                if pg_name:
                    subprocess.run([*psql, f"DROP DATABASE IF EXISTS {pg_name}"], check=True)


if __name__ == "__main__":
    main()
