"""Each kept total (a projection of league.core.changes) against an indexed aggregate over its
source rows, as a club's history grows: is the kept row worth keeping?

    .venv/bin/python benchmarks/projections_bench.py [--sizes 10000,100000] [--db sqlite|postgres|both]

The history is benchmarks/pages_bench.py's (40 members, 16 games every other day, four quarter
seasons, every game with hand statistics), its totals built by rebuild_aggregates. For each read
a page makes from a kept total, it prints the kept read and the same figures aggregated from the
source rows (Result, HandStat) through the app's own indexes, in ms (median of --runs, least CPU),
and the ratio aggregate / kept. A projection whose aggregate stays within 1.2x of its kept read at
100,000 games would not be worth its upkeep. The rating (MemberRating, MemberGame) is a replay of
every game in order, which no aggregate gives, so it is not compared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _time(read: Callable[[], object], runs: int) -> tuple[float, float]:
    read()  # warm
    wall, cpu = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        read()
        wall.append((time.perf_counter() - w) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return statistics.median(wall), min(cpu)


def reads(club, members) -> list[tuple[str, Callable[[], object], Callable[[], object]]]:
    """(what, the kept read, the aggregate over the source rows) for each kept total."""
    from django.db.models import Count, Q, Sum

    from league.models import HandStat, HandStatTotal, Result, Season
    from league.models.hands import HAND_SUMS
    from league.models.stats import PairTotal, SeatTotal
    from league.models.totals import MemberDay, MemberTotal
    from league.standings.services import TOTAL_FIELDS, _total_aggregates

    season = Season.objects.filter(club=club).order_by("-end").first()
    member = members[0]
    counted = Result.objects.filter(club=club, counted=True, member__fill_in=False)

    def standings(scope: Q) -> Callable[[], object]:
        return lambda: list(
            counted.filter(scope).order_by().values("member").annotate(**_total_aggregates())
        )

    def hand_sums() -> object:
        rows = HandStat.objects.filter(member=member, counted=True)
        sums = rows.aggregate(games=Count("id"), **{f: Sum(f) for f in HAND_SUMS})
        yaku: dict[str, int] = {}
        for listed in rows.exclude(yaku={}).values_list("yaku", flat=True).iterator():
            for name, n in listed.items():
                yaku[name] = yaku.get(name, 0) + n
        return sums, yaku

    in_season = Q(date__gte=season.start, date__lte=season.end)
    return [
        (
            "standings, all time",
            lambda: list(
                MemberTotal.objects.filter(club=club, season__isnull=True).values(*TOTAL_FIELDS)
            ),
            standings(Q()),
        ),
        (
            "standings, a season",
            lambda: list(MemberTotal.objects.filter(season=season).values(*TOTAL_FIELDS)),
            standings(in_season),
        ),
        (
            "member days, a season",
            lambda: list(
                MemberDay.objects.filter(
                    club=club, date__gte=season.start, date__lte=season.end
                ).values("member", "date", "games", "score")
            ),
            lambda: list(
                counted.filter(in_season)
                .order_by()
                .values("member", "date")
                .annotate(games=Count("id"), score=Sum("score"))
            ),
        ),
        (
            "head-to-head, a member",
            lambda: list(
                PairTotal.objects.filter(member=member, season__isnull=True).values(
                    "opponent", "games", "net"
                )
            ),
            lambda: list(
                counted.filter(game__results__member=member, game__results__counted=True)
                .exclude(member=member)
                .order_by()
                .values("member")
                .annotate(games=Count("id"), score=Sum("score"))
            ),
        ),
        (
            "seats, a member",
            lambda: list(
                SeatTotal.objects.filter(member=member, season__isnull=True).values(
                    "seat", "games", "first"
                )
            ),
            lambda: list(
                counted.filter(member=member)
                .order_by()
                .values("seat")
                .annotate(games=Count("id"), first=Count("id", filter=Q(rank=1)))
            ),
        ),
        (
            "hand totals, a member",
            lambda: list(HandStatTotal.objects.filter(member=member).values()),
            hand_sums,
        ),
    ]


def run(sizes: list[int], runs: int, label: str) -> None:
    from pages_bench import _load, _setup, add_history, make_club, rebuild

    _setup()
    club, version, _user, members = make_club("projections")
    built = 0
    table: dict[int, list[tuple[str, tuple[float, float], tuple[float, float]]]] = {}
    for size in sizes:
        add_history(club, version, members, built, size - built)
        built = size
        rebuild(club.slug)
        table[size] = [
            (what, _time(kept, runs), _time(aggregate, runs))
            for what, kept, aggregate in reads(club, members)
        ]
        print(f"  {label} {size:,} games measured; {_load()}", flush=True)
    print(f"\n  {label}: ms, median of {runs} (least CPU); aggregate / kept by CPU")
    for size, rows in table.items():
        print(f"  {size:,} games")
        for what, (kw, kc), (aw, ac) in rows:
            print(
                f"    {what:24} kept {kw:8.2f} ({kc:7.2f})   aggregate {aw:8.2f} ({ac:7.2f})"
                f"   {ac / max(kc, 0.01):7.1f}x"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.child:
        os.environ["DATABASE_URL"] = args.child
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
        run(sizes, args.runs, "PostgreSQL" if args.child.startswith("postgres") else "SQLite")
        return
    targets = []
    if args.db in ("sqlite", "both"):
        tmp = tempfile.mkdtemp(prefix="janchou-projections-")
        targets.append((f"sqlite:///{tmp}/bench.sqlite3", None))
    if args.db in ("postgres", "both"):
        targets.append(("postgres://postgres@127.0.0.1:5432/janchou_projections_bench", True))
    psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c"]
    for url, pg in targets:
        if pg:
            subprocess.run([*psql, "DROP DATABASE IF EXISTS janchou_projections_bench"], check=True)
            subprocess.run([*psql, "CREATE DATABASE janchou_projections_bench"], check=True)
        child = [sys.executable, __file__, "--child", url, "--sizes", args.sizes]
        try:
            subprocess.run([*child, "--runs", str(args.runs)], check=True)
        finally:
            if pg:
                subprocess.run([*psql, "DROP DATABASE IF EXISTS janchou_projections_bench"])


if __name__ == "__main__":
    main()
