"""Standings at scale: a club with N games (4 rows each), on SQLite and on PostgreSQL.

    .venv/bin/python benchmarks/standings_bench.py [--games 100000] [--db sqlite|postgres|both]

Builds a fresh database per backend (SQLite in a temporary file; PostgreSQL as a scratch
database `janchou_bench` on 127.0.0.1, dropped afterwards), fills it with games settled by
`scoring` and inserted in bulk, then prints, for the season standings page and the all-time
standings page: the page's time through Django's full request stack (median of several runs),
the time of the bare SQL aggregate that computes the same numbers, and their ratio.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BARE_SQL = """
SELECT member_id, COUNT(*), SUM(score), SUM(score) * 10 / COUNT(*), SUM(rank) * 100 / COUNT(*),
       SUM(CASE WHEN rank = 1 THEN 1 ELSE 0 END), SUM(CASE WHEN rank = 2 THEN 1 ELSE 0 END),
       SUM(CASE WHEN rank = 3 THEN 1 ELSE 0 END), SUM(CASE WHEN rank = 4 THEN 1 ELSE 0 END),
       SUM(CASE WHEN rank <= 2 THEN 1 ELSE 0 END), SUM(CASE WHEN last THEN 1 ELSE 0 END),
       MAX(score), SUM(CASE WHEN points < 0 THEN 1 ELSE 0 END), SUM(chombo), SUM(chips),
       SUM(yen)
FROM league_result
WHERE club_id = %s AND counted AND date >= %s AND date <= %s
GROUP BY member_id
ORDER BY SUM(score) DESC
"""


def build(games: int, seed: int = 7) -> tuple[object, object, object]:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import transaction

    import scoring
    from league.core.names import name_key
    from league.models import Club, Day, Game, Member, Membership, Result, RulesVersion, Season

    rules = scoring.PRESETS["mame-no-kai"].rules
    club = Club.objects.create(slug="bench", name="ベンチ麻雀会")
    version = RulesVersion.objects.create(
        club=club, effective_from=datetime.date(2000, 1, 1), rules_json=rules.to_json()
    )
    members = Member.objects.bulk_create(
        Member(
            club=club,
            name=f"会員{i:02d}",
            kana=f"かいいん{i:02d}",
            name_key=name_key(f"会員{i:02d}"),
        )
        for i in range(40)
    )
    user = get_user_model().objects.create_user("bench", password="bench-password")
    Membership.objects.create(user=user, club=club, role=Membership.ORGANISER)
    rng = random.Random(seed)
    per_day = 12
    first = datetime.date(2026, 12, 31) - datetime.timedelta(days=games // per_day)
    season = Season.objects.create(
        club=club, name="bench", start=first, end=datetime.date(2026, 12, 31), min_games=50
    )
    with transaction.atomic():
        for d in range(0, games, per_day):
            date = first + datetime.timedelta(days=d // per_day)
            day = Day.objects.create(club=club, date=date)
            batch, rows = [], []
            for n in range(min(per_day, games - d)):
                seated = rng.sample(members, 4)
                deposits = rng.choice((0, 0, 1000))
                pts = [rng.randrange(-100, 600) * 100 for _ in range(3)]
                pts.append(100_000 - deposits - sum(pts))
                result = scoring.settle_game(
                    rules,
                    scoring.Game(
                        seats=tuple(
                            scoring.Seat(str(m.pk), p) for m, p in zip(seated, pts, strict=True)
                        ),
                        deposits=deposits,
                        rate="0.3",
                    ),
                )
                game = Game(
                    club=club,
                    day=day,
                    date=date,
                    number=n + 1,
                    rate="0.3",
                    deposits=deposits,
                    rules_version=version,
                )
                batch.append(game)
                rows.append((game, seated, result))
            Game.objects.bulk_create(batch)
            bottom = 4
            Result.objects.bulk_create(
                Result(
                    game=g,
                    revision=1,
                    member=m,
                    seat=i,
                    points=p.points,
                    chombo=0,
                    rank=p.rank,
                    score=p.score,
                    chips=p.chips,
                    yen=p.yen,
                    last=p.rank == bottom,
                    club=club,
                    date=g.date,
                    rate="0.3",
                    counted=True,
                )
                for g, seated, result in rows
                for i, (m, p) in enumerate(zip(seated, result.players, strict=True))
            )
    # Bulk inserts bypass the services: the kept standings come from the rebuild, as after an
    # import of history.
    call_command("rebuild_aggregates", club.slug, verbosity=0)
    return club, season, user


def timed(fn, runs: int) -> float:
    """Median seconds of `runs` calls after one warm-up."""
    fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def measure(games: int, runs: int) -> None:
    import django
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.urls import reverse

    django.setup()
    setup_test_environment()
    call_command("migrate", verbosity=0)
    start = time.perf_counter()
    club, season, user = build(games)
    print(
        f"  built {games:,} games ({games * 4:,} result rows) in {time.perf_counter() - start:.1f} s"
    )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # fresh statistics, as autovacuum would keep them
            cursor.execute("VACUUM ANALYZE")
    # SQLite: no ANALYZE, as Django never runs it (with its statistics SQLite's planner prefers a
    # skip-scan of the member-history index here, which is slower).
    client = Client()
    client.force_login(user)

    def bare(start: object = season.start, end: object = season.end) -> None:
        with connection.cursor() as cursor:
            cursor.execute(BARE_SQL, [club.pk, start, end])
            cursor.fetchall()

    pages = [
        ("season standings", reverse("standings:season_standings", args=[club.slug, season.pk])),
        ("all-time standings", reverse("standings:standings", args=[club.slug])),
    ]
    bare_s = timed(bare, runs)
    for label, url in pages:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        page_s = timed(lambda url=url: client.get(url), runs)
        print(
            f"  {label:20} page {page_s * 1000:7.1f} ms | bare aggregate {bare_s * 1000:7.1f} ms"
            f" | ratio {page_s / bare_s:4.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:  # run in a fresh process per database so settings load once per backend
        os.environ["DATABASE_URL"] = args.child
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
        measure(args.games, args.runs)
        return
    targets = []
    if args.db in ("sqlite", "both"):
        tmp = tempfile.mkdtemp(prefix="janchou-bench-")
        targets.append(("SQLite", f"sqlite:///{tmp}/bench.sqlite3", None))
    if args.db in ("postgres", "both"):
        ok = subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1"]).returncode == 0
        if ok:
            targets.append(
                ("PostgreSQL", "postgres://postgres@127.0.0.1:5432/janchou_bench", "janchou_bench")
            )
        else:
            print("SKIP: PostgreSQL is not answering on 127.0.0.1:5432")
    for label, url, pg_name in targets:
        if pg_name:
            psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c"]
            subprocess.run([*psql, f"DROP DATABASE IF EXISTS {pg_name}"], check=True)
            subprocess.run([*psql, f"CREATE DATABASE {pg_name}"], check=True)
        print(f"{label}:")
        try:
            subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    url,
                    "--games",
                    str(args.games),
                    "--runs",
                    str(args.runs),
                ],
                check=True,
            )
        finally:
            if pg_name:
                subprocess.run([*psql, f"DROP DATABASE IF EXISTS {pg_name}"], check=True)


if __name__ == "__main__":
    main()
