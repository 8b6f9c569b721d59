"""Load: the app under gunicorn (4 workers) on loopback, driven for a bounded time.

    .venv/bin/python benchmarks/load_bench.py [--games 10000] [--seconds 10] [--clients 8]
    .venv/bin/python benchmarks/load_bench.py --short      # CI: 1,000 games, 3 s a scenario

Builds a scratch database (PostgreSQL `janchou_load` on 127.0.0.1, dropped afterwards, or
SQLite with --db sqlite), starts gunicorn on 127.0.0.1, and for
each scenario (season standings page, day page, API record) runs --clients client processes
with keep-alive connections for --seconds, then prints requests per second, p50/p99 latency
and the error count. Only 127.0.0.1 is ever contacted; every loop is bounded in time.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import multiprocessing
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def prepare(games: int) -> dict[str, object]:
    """Migrate, build a club with `games` games, and make a login session and an API token."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command
    from standings_bench import build

    from league.models import ApiToken, Day, Member

    call_command("migrate", verbosity=0)
    club, season, user = build(games)
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    secret = secrets.token_urlsafe(32)
    ApiToken.objects.create(
        user=user,
        club=club,
        name="load",
        prefix=secret[:8],
        key_hash=hashlib.sha256(secret.encode()).hexdigest(),
    )
    return {
        "slug": club.slug,
        "season": season.pk,
        "day": Day.objects.filter(club=club).latest("date").date.isoformat(),
        "members": list(Member.objects.filter(club=club).values_list("pk", flat=True)),
        "cookie": f"{settings.SESSION_COOKIE_NAME}={session.session_key}",
        "token": secret,
    }


SCENARIOS = ("standings", "day page", "API record")


def scenario_request(name: str, ctx: dict, rng: random.Random) -> tuple[str, str, bytes, dict]:
    slug = ctx["slug"]
    if name == "standings":
        return "GET", f"/c/{slug}/seasons/{ctx['season']}/", b"", {"Cookie": ctx["cookie"]}
    if name == "day page":
        return "GET", f"/c/{slug}/days/{ctx['day']}/", b"", {"Cookie": ctx["cookie"]}
    seated = rng.sample(ctx["members"], 4)
    points = [rng.randrange(-50, 500) * 100 for _ in range(3)]
    points.append(100_000 - sum(points))
    body = {
        "date": "2026-12-31",
        "rate": "0.3",
        "players": [{"member_id": m, "points": p} for m, p in zip(seated, points, strict=True)],
    }
    headers = {
        "Authorization": f"Bearer {ctx['token']}",
        "Content-Type": "application/json",
        "Idempotency-Key": str(uuid.uuid4()),
    }
    return "POST", f"/api/clubs/{slug}/games", json.dumps(body).encode(), headers


def client(args: tuple[str, int, dict, float, int]) -> tuple[list[float], int]:
    name, port, ctx, seconds, seed = args
    rng = random.Random(seed)
    latencies: list[float] = []
    errors = 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        method, path, body, headers = scenario_request(name, ctx, rng)
        start = time.perf_counter()
        try:
            conn.request(method, path, body=body or None, headers=headers)
            response = conn.getresponse()
            response.read()
            if response.status >= 400:
                errors += 1
        except (OSError, http.client.HTTPException):
            errors += 1
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        latencies.append(time.perf_counter() - start)
    conn.close()
    return latencies, errors


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="postgres")
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--prepare", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.prepare:  # child: build the data, print the context as JSON
        print(json.dumps(prepare(int(args.prepare))))
        return
    if args.short:
        args.games, args.seconds = 1_000, 3
    tmp = tempfile.mkdtemp(prefix="janchou-load-")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp}/load.sqlite3",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
    }
    psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c"]
    if args.db == "postgres":
        env["DATABASE_URL"] = "postgres://postgres@127.0.0.1:5432/janchou_load"
        subprocess.run([*psql, "DROP DATABASE IF EXISTS janchou_load"], check=True)
        subprocess.run([*psql, "CREATE DATABASE janchou_load"], check=True)
    try:
        run(args, env)
    finally:
        if args.db == "postgres":
            subprocess.run([*psql, "DROP DATABASE IF EXISTS janchou_load"], check=True)


def run(args: argparse.Namespace, env: dict[str, str]) -> None:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, __file__, "--prepare", str(args.games)],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    ctx = json.loads(out.strip().splitlines()[-1])
    print(
        f"built {args.games:,} games in {time.perf_counter() - started:.1f} s ({env['DATABASE_URL'].split(':')[0]})"
    )
    port = free_port()
    server = subprocess.Popen(
        [
            str(BIN / "gunicorn"),
            "league.wsgi",
            "-w",
            str(args.workers),
            "-b",
            f"127.0.0.1:{port}",
            "--preload",  # import the app once in the master, not on each worker's first request
            "--log-level",
            "warning",
        ],
        env=env,
        cwd=ROOT,
    )
    try:
        wait_for(port)
        print(
            f"gunicorn: {args.workers} workers; {args.clients} clients, {args.seconds:g} s a scenario"
        )
        with multiprocessing.Pool(args.clients) as pool:
            # Warm-up, not measured: each worker's first pages compile templates and fill caches.
            pool.map(
                client, [(n, port, ctx, 1.0, 99) for n in SCENARIOS for _ in range(args.clients)]
            )
            for name in SCENARIOS:
                work = [(name, port, ctx, args.seconds, i) for i in range(args.clients)]
                results = pool.map(client, work)
                latencies = sorted(x for lat, _ in results for x in lat)
                errors = sum(e for _, e in results)
                if not latencies:
                    print(f"  {name:12} no successful requests, {errors} errors")
                    continue
                p50 = statistics.median(latencies) * 1000
                p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
                rps = (len(latencies) + errors) / args.seconds
                print(
                    f"  {name:12} {rps:7.1f} req/s | p50 {p50:6.1f} ms | p99 {p99:6.1f} ms"
                    f" | errors {errors}"
                )
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
