"""`manage.py check_books` on a generated history (issue 37): how long the one check takes.

    .venv/bin/python benchmarks/books_bench.py                    # 10,000 games, SQLite (CI)
    .venv/bin/python benchmarks/books_bench.py --games 100000 --db postgres

One club's history is built as benchmarks/pages_bench.py builds it (16 games every other day, 40
members, every day but the latest two paid, one payment in twenty deferred and repaid unless
from the latest 30 days), inserted in bulk and posted by `manage.py rebuild_money`; then
`manage.py check_books` runs on it: every transaction balances, and the book and the kept rows
equal the games and days re-settled from scratch. Prints the build's and the check's seconds and
the check's line, and exits with the check's status.

Databases are scratch ones: SQLite in a temporary file, PostgreSQL `janchou_books_bench` on
127.0.0.1 (dropped afterwards).
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

PG_NAME = "janchou_books_bench"


def run(games: int) -> int:
    import pages_bench
    from django.core.management import call_command

    pages_bench._setup()
    club, version, _user, members = pages_bench.make_club("books")
    start = time.perf_counter()
    pages_bench.add_history(club, version, members, 0, games)
    pages_bench.add_payments(club, members)
    built = time.perf_counter() - start
    posted = pages_bench.rebuild(club.slug)
    print(f"  {games:,} games: inserted in {built:.1f} s, posted in {posted:.1f} s", flush=True)
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    try:
        call_command("check_books", stdout=out, stderr=err)
        status = 0
    except SystemExit as e:
        status = int(e.code or 0)
    took = time.perf_counter() - start
    print(f"  check_books in {took:.1f} s (exit {status}): {out.getvalue().strip()}", flush=True)
    return status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        os.environ["DATABASE_URL"] = args.child
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
        sys.exit(run(args.games))
    psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c"]
    if args.db == "postgres":
        url = f"postgres://postgres@127.0.0.1:5432/{PG_NAME}"
        subprocess.run([*psql, f"DROP DATABASE IF EXISTS {PG_NAME}"], check=True)
        subprocess.run([*psql, f"CREATE DATABASE {PG_NAME}"], check=True)
    else:
        url = f"sqlite:///{tempfile.mkdtemp(prefix='janchou-books-')}/bench.sqlite3"
    print(f"{'PostgreSQL' if args.db == 'postgres' else 'SQLite'}:", flush=True)
    try:
        child = [sys.executable, __file__, "--child", url, "--games", str(args.games)]
        status = subprocess.run(child).returncode
    finally:
        if args.db == "postgres":
            subprocess.run([*psql, f"DROP DATABASE IF EXISTS {PG_NAME}"], check=True)
    sys.exit(status)


if __name__ == "__main__":
    main()
