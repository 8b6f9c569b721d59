"""Load: the app under gunicorn on loopback, on two app servers sharing one database.

    .venv/bin/python benchmarks/load_bench.py [--games 10000] [--seconds 10] [--clients 8]
    .venv/bin/python benchmarks/load_bench.py --short      # CI: 1,000 games, 3 s a scenario

Builds a scratch database (PostgreSQL `janchou_load` on 127.0.0.1, or --pg-name; dropped afterwards, or
SQLite with --db sqlite), starts --servers gunicorn instances (2 on PostgreSQL, each with
--workers workers) on their own 127.0.0.1 ports, checks that nothing a request needs lives in
one server (a login session, a form's CSRF token and the login throttle all work across them,
and a page a browser holds from one server is answered 304 until a game recorded through the
other changes it),
starts a background worker (`manage.py db_worker`) beside them, and for each scenario (a bare
Django view, the yardstick: benchmarks/bench_urls.py; season standings page, day page, day
ledger, each as a browser sees it again between writes (conditional GET: the browser sends the
page's ETag back and gets a 304 while nothing changed, league/access.club_page) and new each
time (", new": rendered); API record; "mixed": each client a member who views the three pages
again and again and records a game every tenth request) runs --clients client processes spread over the servers, with keep-alive
connections for --seconds, then prints requests per second, p50/p99 latency, the error count
(any status but 200/201/304 is an error) and the bare view's requests per second over the page's
(aim: within 3x), and the same over a second yardstick, the bare view after the club's access
check (session, user, the club with the user's role: what every club page does before its own work). The same at 1 client (p50/p99 mean something there on 2 cores), then at 1
client while the worker re-settles every game of the club (a rules change), each p50/p99 beside
the idle one.
The servers and the worker share a cache, as in production: Redis on 127.0.0.1:6379 (its
database 15, emptied first; --cache URL for another, --cache none for each process's own memory
with the sessions in the database).
Only 127.0.0.1 is ever contacted; every loop is bounded in time.
"""

from __future__ import annotations

import argparse
import datetime
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


def prepare(games: int, viewer: str = "member") -> dict[str, object]:
    """Migrate, build a club with `games` games, and make a login session (a member's, linked to
    one of the club's players, or the organiser's) and an API token (the organiser's)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command
    from django.utils.crypto import get_random_string
    from standings_bench import build

    from league.models import ApiToken, Day, Member, Membership

    call_command("migrate", verbosity=0)
    club, season, user = build(games)
    reader = user
    if viewer == "member":
        reader = get_user_model().objects.create_user("reader", password="reader-password")
        Membership.objects.create(user=reader, club=club, role=Membership.MEMBER)
        linked = Member.objects.filter(club=club).order_by("pk").first()
        Member.objects.filter(pk=linked.pk).update(user=reader)  # one of the club's players

    def cookie(who) -> str:
        """A browser's cookies after its first page: the session, and the CSRF cookie that page
        set (a page's ETag covers both: league/access.page_etag)."""
        session = SessionStore()
        session[SESSION_KEY] = str(who.pk)
        session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        session[HASH_SESSION_KEY] = who.get_session_auth_hash()
        session.create()
        return (
            f"{settings.SESSION_COOKIE_NAME}={session.session_key}; "
            f"{settings.CSRF_COOKIE_NAME}={get_random_string(32)}"
        )

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
        "day": (last := Day.objects.filter(club=club).latest("date").date).isoformat(),
        # The API's records go to the 60 days after it, so that the measured day page and ledger
        # show the same day throughout (records into it made them longer as the run went on),
        # and no day grows past a club's evening (each record re-settles its day's money).
        "record_days": [(last + datetime.timedelta(days=d)).isoformat() for d in range(1, 61)],
        "members": list(Member.objects.filter(club=club).values_list("pk", flat=True)),
        "cookie": cookie(reader),  # the pages' reader
        "organiser_cookie": cookie(user),  # the import across the servers
        "token": secret,
    }


SCENARIOS = (
    "bare view",
    "signed-in bare",
    "standings",
    "day page",
    "ledger",
    "standings, new",
    "day page, new",
    "ledger, new",
    "API record",
    "mixed",
)


def scenario_request(name: str, ctx: dict, rng: random.Random) -> tuple[str, str, bytes, dict]:
    slug = ctx["slug"]
    if name == "bare view":  # the yardstick: benchmarks/bench_urls.py
        return "GET", "/bench/bare/", b"", {"Cookie": ctx["cookie"]}
    if name == "signed-in bare":  # the second yardstick: the club's access check, then bytes
        return "GET", f"/bench/bare/c/{slug}/", b"", {"Cookie": ctx["cookie"]}
    # "standings" and the others: the page as a member's browser sees it again and again between
    # two writes (the client sends the ETag it has: a 304 while nothing changed). ", new": each
    # request a page not seen before (a query string of its own), so each one is rendered.
    if name == "mixed":
        name = "API record" if rng.random() < 0.1 else rng.choice(MIXED_READS)
    page, _, new = name.partition(", ")
    query = f"?fresh={rng.randrange(1 << 40)}" if new else ""
    if page == "ledger":
        path = f"/c/{slug}/days/{ctx['day']}/ledger/"
        return "GET", path + query, b"", {"Cookie": ctx["cookie"]}
    if page == "standings":
        return "GET", f"/c/{slug}/seasons/{ctx['season']}/{query}", b"", {"Cookie": ctx["cookie"]}
    if page == "day page":
        return "GET", f"/c/{slug}/days/{ctx['day']}/{query}", b"", {"Cookie": ctx["cookie"]}
    seated = rng.sample(ctx["members"], 4)
    points = [rng.randrange(-50, 500) * 100 for _ in range(3)]
    points.append(100_000 - sum(points))
    body = {
        "date": rng.choice(ctx["record_days"]),
        "rate": "0.3",
        "players": [{"member_id": m, "points": p} for m, p in zip(seated, points, strict=True)],
    }
    headers = {
        "Authorization": f"Bearer {ctx['token']}",
        "Content-Type": "application/json",
        "Idempotency-Key": str(uuid.uuid4()),
    }
    return "POST", f"/api/clubs/{slug}/games", json.dumps(body).encode(), headers


MIXED_READS = ("standings", "day page", "ledger")


def client(args: tuple[str, int, dict, float, int]) -> tuple[list[float], dict[str, int]]:
    """One client's latencies, and its errors by what they were (an HTTP status with the start
    of its body, or the exception's name)."""
    name, port, ctx, seconds, seed = args
    rng = random.Random(seed)
    latencies: list[float] = []
    errors: dict[str, int] = {}
    etags: dict[str, str] = {}  # the browser's copies: path → the ETag it came with
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        method, path, body, headers = scenario_request(name, ctx, rng)
        if method == "GET" and path in etags:
            headers = {**headers, "If-None-Match": etags[path]}
        start = time.perf_counter()
        try:
            conn.request(method, path, body=body or None, headers=headers)
            response = conn.getresponse()
            content = response.read()
            if method == "GET" and response.status == 200 and response.getheader("ETag"):
                etags[path] = response.getheader("ETag")
            if response.status not in (200, 201, 304):  # a redirect to the login page is an error
                what = f"HTTP {response.status} {content[:80].decode(errors='replace')!r}"
                errors[what] = errors.get(what, 0) + 1
        except (OSError, http.client.HTTPException) as error:
            what = type(error).__name__
            errors[what] = errors.get(what, 0) + 1
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


def shared_cache(url: str) -> str:
    """The servers' CACHE_URL, as in production: a Redis database, emptied (a scratch database
    gives the club the same ids, so the pages' shared parts of an earlier run would match), or ""
    (each process's memory, sessions in the database) when asked or when Redis does not answer."""
    if url == "none":
        print("cache: each process's own memory (sessions in the database)")
        return ""
    import redis

    try:
        redis.Redis.from_url(url, socket_timeout=2).flushdb()
    except redis.RedisError as error:
        print(f"cache: Redis at {url} does not answer ({error}); each process's own memory")
        return ""
    print(f"cache: {url} (shared by the servers and the worker; sessions there too)")
    return url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="per server")
    parser.add_argument("--servers", type=int, help="gunicorn instances (default: 2, SQLite 1)")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="postgres")
    parser.add_argument(
        "--cache",
        default="redis://127.0.0.1:6379/15",
        help="CACHE_URL of the servers and worker, emptied first (default: Redis on 6379, its "
        "database 15, when it answers); 'none' for each process's own memory",
    )
    parser.add_argument(
        "--viewer",
        choices=("member", "organiser"),
        default="member",
        help="whose browser the pages are read by (a club's readers are its members; the "
        "organiser's day page and ledger carry forms and are rendered for them each time); the "
        "API records are the organiser's either way",
    )
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--pg-name", default="janchou_load", help="scratch database name")
    parser.add_argument("--prepare", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.prepare:  # child: build the data, print the context as JSON
        games, _, viewer = args.prepare.partition(":")
        print(json.dumps(prepare(int(games), viewer)))
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
        # The app's settings with the bare view (benchmarks/bench_settings.py, bench_urls.py).
        "DJANGO_SETTINGS_MODULE": "bench_settings",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "benchmarks"), str(ROOT)]),
        "TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
        # No collectstatic here (in production nginx serves the hashed files): plain names.
        "STATICFILES_BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage",
    }
    env["CACHE_URL"] = shared_cache(args.cache)
    psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c"]
    if args.db == "postgres":
        env["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{args.pg_name}"
        subprocess.run([*psql, f"DROP DATABASE IF EXISTS {args.pg_name}"], check=True)
        subprocess.run([*psql, f"CREATE DATABASE {args.pg_name}"], check=True)
    try:
        run(args, env)
    finally:
        if args.db == "postgres":
            drop = f"DROP DATABASE IF EXISTS {args.pg_name} WITH (FORCE)"
            subprocess.run([*psql, drop], check=True)


def run(args: argparse.Namespace, env: dict[str, str]) -> None:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, __file__, "--prepare", f"{args.games}:{args.viewer}"],
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
    servers = args.servers or (2 if args.db == "postgres" else 1)
    ports = [free_port() for _ in range(servers)]
    procs = [
        subprocess.Popen(
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
        for port in ports
    ]
    # The background worker beside the servers, as in production (README): the import's preview
    # and import, and the re-settle below, are its tasks.
    procs.append(
        subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.5"],
            env=env,
            cwd=ROOT,
        )
    )
    try:
        for port in ports:
            wait_for(port)
        if len(ports) > 1:
            across_servers(ports, ctx, args.workers)
        print(
            f"gunicorn: {servers} server(s) on ports {', '.join(map(str, ports))}, "
            f"{args.workers} workers each; {args.clients} clients spread over them, "
            f"{args.seconds:g} s a scenario; load average {os.getloadavg()[0]:.1f} (2 cores)"
        )
        with multiprocessing.Pool(args.clients) as pool:
            # Warm-up, not measured: each worker's first pages compile templates and fill caches.
            pool.map(
                client,
                [
                    (n, ports[i % len(ports)], ctx, min(args.seconds, 1.0), 99)
                    for n in SCENARIOS
                    for i in range(args.clients)
                ],
            )
            idle: dict[str, tuple[float, float, float, int]] = {}
            for clients in sorted({args.clients, 1}, reverse=True):
                print(f"{clients} client(s), {args.seconds:g} s a scenario:")
                for name in SCENARIOS:
                    measured = measure(pool, name, ports, ctx, clients, args.seconds)
                    if clients == args.clients:
                        idle[name] = measured
                    if clients == 1:
                        idle[f"1:{name}"] = measured
                    prefix = "" if clients == args.clients else "1:"
                    report(
                        name,
                        measured,
                        idle.get(f"{prefix}bare view"),
                        idle.get(f"{prefix}signed-in bare"),
                    )
            busy_worker(pool, ports, ctx, env, args.seconds, idle)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                # The worker finishes its task on SIGTERM; a benchmark's re-settle need not.
                proc.kill()
                proc.wait()


def measure(pool, name: str, ports: list[int], ctx: dict, clients: int, seconds: float):
    """Requests per second, p50 and p99 in ms, and errors of one scenario with `clients`."""
    # A fresh seed each time: a run that repeated an earlier run's games would be refused as
    # duplicates (409), as the same four players with the same points on the same day are.
    base = random.randrange(1 << 30)
    work = [(name, ports[i % len(ports)], ctx, seconds, base + i) for i in range(clients)]
    results = pool.map(client, work)
    latencies = sorted(x for lat, _ in results for x in lat)
    errors: dict[str, int] = {}
    for _, kinds in results:
        for what, n in kinds.items():
            errors[what] = errors.get(what, 0) + n
    if not latencies:
        return 0.0, 0.0, 0.0, errors
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    return (len(latencies) + sum(errors.values())) / seconds, p50, p99, errors


# Issue 38's aims, as the cost of a request against a bare Django view's: a repeat view (a 304),
# a first render ("…, new") and the mixed load; none for the yardstick itself or a write alone.
AIMS = {"repeat": 3, "new": 15, "mixed": 10, "signed-in bare": None, "API record": None}


def report(name: str, measured, yardstick, signed_in=None) -> None:
    rps, p50, p99, errors = measured
    count = sum(errors.values())
    line = f"  {name:16} {rps:7.1f} req/s | p50 {p50:6.1f} ms | p99 {p99:6.1f} ms | errors {count}"
    if yardstick is not None and name != "bare view" and rps:
        aim = AIMS.get(name.partition(", ")[2] or name, AIMS["repeat"])
        line += f" | bare view / page {yardstick[0] / rps:5.2f}x"
        line += f" (aim: within {aim}x)" if aim else ""
    if signed_in is not None and name not in ("bare view", "signed-in bare") and rps:
        line += f" | signed-in bare / page {signed_in[0] / rps:5.2f}x"
    print(line)
    for what, n in sorted(errors.items()):
        print(f"  {'':12} error x{n}: {what}")


BUSY_SETUP = """
import datetime, json
import scoring
from league.models import Club, Game
from league.rules import services, tasks
club = Club.objects.get(slug={slug!r})
first = Game.objects.filter(club=club).order_by("date").values_list("date", flat=True)[0]
rules = {{**scoring.PRESETS["mame-no-kai"].rules.to_json(), "uma": [30, 10, -10, -30]}}
version = services.rules_version_create(club=club, user=None,
    effective_from=max(first, datetime.date(2000, 1, 2)), rules_json=rules)
run = tasks.resettle_start(version=version, user=None)
games = Game.objects.filter(club=club, date__gte=version.effective_from).count()
print(json.dumps({{"run": run.pk, "games": games}}))
"""

BUSY_STATUS = """
import json
from league.jobs import job_state
from league.models import ResettleRun
state = job_state(ResettleRun.objects.select_related("job").get(pk={pk}).job)
print(json.dumps({{"status": state.status, "done": state.done, "total": state.total}}))
"""


def _shell(env: dict[str, str], code: str) -> dict:
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def busy_worker(pool, ports, ctx, env, seconds: float, idle: dict) -> None:
    """Request latency at 1 client while the worker re-settles every game of the club, beside
    the same with the worker idle (measured above)."""
    started = _shell(env, BUSY_SETUP.format(slug=ctx["slug"]))
    time.sleep(2)  # the worker picks it up (its interval is 0.5 s)
    print(f"1 client while the worker re-settles {started['games']:,} games:")
    for name in ("standings", "standings, new", "day page", "day page, new", "API record"):
        measured = measure(pool, name, ports, ctx, 1, seconds)
        report(name, measured, None)
        calm = idle.get(f"1:{name}")
        if calm and calm[1]:
            print(
                f"  {'':12} p50 busy / idle {measured[1] / calm[1]:4.2f}x"
                f" | p99 busy / idle {measured[2] / calm[2]:4.2f}x"
            )
    status = _shell(env, BUSY_STATUS.format(pk=started["run"]))
    print(
        f"  the re-settle meanwhile: {status['status']}, {status['done']:,} of "
        f"{status['total']:,} games"
    )


# --- nothing of a request lives in one server -------------------------------------------------


def _get(port: int, path: str, cookie: str = "") -> tuple[int, str, dict[str, str]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        response = conn.getresponse()
        return response.status, response.read().decode(), _cookies(response)
    finally:
        conn.close()


def _cookies(response: http.client.HTTPResponse) -> dict[str, str]:
    out = {}
    for header in response.headers.get_all("Set-Cookie") or []:
        name, _, rest = header.partition("=")
        out[name.strip()] = rest.split(";")[0]
    return out


def _post_login(port: int, cookie: str, token: str, username: str) -> int:
    from urllib.parse import urlencode

    body = urlencode(
        {"csrfmiddlewaretoken": token, "username": username, "password": "wrong-password"}
    )
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(
            "POST",
            "/accounts/login/",
            body=body,
            headers={
                "Cookie": cookie,
                "Content-Type": "application/x-www-form-urlencoded",
                "Referer": f"http://127.0.0.1:{port}/accounts/login/",
            },
        )
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def across_servers(ports: list[int], ctx: dict, workers: int) -> None:
    """A session made on none of them works on each; a CSRF token from one is accepted by the
    other; failed logins counted on one refuse the next on the other (league.throttle: rows in
    the database, not a server's memory). Raises SystemExit naming what failed."""
    a, b = ports[0], ports[1]
    page = f"/c/{ctx['slug']}/seasons/{ctx['season']}/"
    for port in ports:
        status, _html, _c = _get(port, page, ctx["cookie"])
        if status != 200:
            raise SystemExit(f"the session does not work on port {port}: HTTP {status}")
    status, html, cookies = _get(a, "/accounts/login/")
    token = html.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
    username = f"nobody-{secrets.token_hex(4)}"
    statuses = [_post_login(b if i % 2 else a, cookie, token, username) for i in range(6)]
    if statuses[:5] != [200] * 5:
        raise SystemExit(f"failed logins across servers: HTTP {statuses[:5]} (CSRF token?)")
    if statuses[5] != 429:
        raise SystemExit(f"the 6th failed login was not refused on the other server: {statuses}")
    print(
        f"across servers: the session works on both; a CSRF token from :{a} is accepted by "
        f":{b}; 5 failed logins alternating between them refuse the 6th (HTTP {statuses[5]})"
    )
    import_across_servers(a, b, ctx)
    conditional_across_servers(a, b, ctx)


def _get_tagged(port: int, path: str, cookie: str, etag: str = "") -> tuple[int, str, str]:
    """GET with the ETag a browser holds: (status, body, the response's ETag)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Cookie": cookie, **({"If-None-Match": etag} if etag else {})}
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, response.read().decode(), response.getheader("ETag") or ""
    finally:
        conn.close()


def conditional_across_servers(a: int, b: int, ctx: dict) -> None:
    """A day page a browser holds from server a is answered 304 by both servers while nothing
    changes, and in full, with the new game, once a game is recorded through server b (the tag
    is the club's data version, not a server's memory). Raises SystemExit naming what failed."""
    page = f"/c/{ctx['slug']}/days/{ctx['day']}/"
    games = f'href="/c/{ctx["slug"]}/games/'
    status, html, etag = _get_tagged(a, page, ctx["cookie"])
    if status != 200 or not etag:
        raise SystemExit(f"the day page on :{a} came without an ETag (HTTP {status})")
    again = [_get_tagged(port, page, ctx["cookie"], etag)[0] for port in (a, b, a, b)]
    if again != [304] * 4:
        raise SystemExit(f"the day page was not answered 304 while unchanged: {again}")
    _name, path, body, headers = scenario_request("API record", ctx, random.Random())
    record = json.loads(body)
    record["date"] = ctx["day"]
    conn = http.client.HTTPConnection("127.0.0.1", b, timeout=30)
    try:
        conn.request("POST", path, body=json.dumps(record).encode(), headers=headers)
        response = conn.getresponse()
        response.read()
    finally:
        conn.close()
    if response.status != 201:
        raise SystemExit(f"recording a game through :{b} failed: HTTP {response.status}")
    status, after, _tag = _get_tagged(a, page, ctx["cookie"], etag)
    if status != 200 or after.count(games) <= html.count(games):
        raise SystemExit(f"the day page on :{a} did not show a game recorded through :{b}")
    print(
        f"across servers: the day page was answered 304 by both while unchanged, and in full "
        f"by :{a} with the game recorded through :{b}"
    )


IMPORT_DATE = "2000-01-02"  # a day the bench's club has no games on (its rules start 2000-01-01)
IMPORT_GAMES = 5


def _workbook() -> bytes:
    """A score sheet in the simple layout: IMPORT_GAMES games of four of the bench's members."""
    import io

    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["日付", "卓", "名前", "素点", "名前", "素点", "名前", "素点", "名前", "素点"])
    for g in range(IMPORT_GAMES):
        names = [f"会員{(g + k) % 10:02d}" for k in range(4)]
        points = [40000, 30000, 20000, 10000]
        row = [IMPORT_DATE, f"T{g}"]
        for name, p in zip(names, points, strict=True):
            row += [name, p]
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _games_on(port: int, ctx: dict) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(
        "GET",
        f"/api/clubs/{ctx['slug']}/days/{IMPORT_DATE}",
        headers={"Authorization": f"Bearer {ctx['token']}"},
    )
    response = conn.getresponse()
    body = response.read()
    conn.close()
    if response.status == 404:
        return 0
    if response.status != 200:
        raise SystemExit(f"reading the imported day: HTTP {response.status}")
    return len(json.loads(body)["games"])


def import_across_servers(a: int, b: int, ctx: dict) -> None:
    """An import uploaded and previewed on one server is confirmed on the other: the upload
    waits in the database (league.models.imports.ImportUpload), not on a server's disk."""
    slug, cookie = ctx["slug"], ctx["organiser_cookie"]
    before = _games_on(a, ctx)
    status, html, cookies = _get(a, f"/c/{slug}/import/", cookie)
    if status != 200:
        raise SystemExit(f"the import page on :{a}: HTTP {status}")
    token = html.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    csrf = cookies.get("csrftoken", "")
    jar = f"{cookie}; csrftoken={csrf}" if csrf else cookie
    boundary = f"----jancho{secrets.token_hex(8)}"
    data = _workbook()
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="csrfmiddlewaretoken"\r\n\r\n'
            f"{token}\r\n"
            f'--{boundary}\r\nContent-Disposition: form-data; name="workbook"; '
            f'filename="sheet.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\n'
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    conn = http.client.HTTPConnection("127.0.0.1", a, timeout=60)
    conn.request(
        "POST",
        f"/c/{slug}/import/",
        body=body,
        headers={
            "Cookie": jar,
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Referer": f"http://127.0.0.1:{a}/c/{slug}/import/",
        },
    )
    uploaded = conn.getresponse()
    uploaded.read()
    conn.close()
    if uploaded.status != 302:
        raise SystemExit(f"uploading on :{a}: HTTP {uploaded.status} (expected a redirect)")
    deadline = time.monotonic() + 120  # the worker settles the preview (its progress page)
    while True:
        status, html, _c = _get(b, f"/c/{slug}/import/preview/", jar)
        if status != 200 or "import/confirm/" in html or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    if status != 200 or "import/confirm/" not in html:
        raise SystemExit(f"the preview of :{a}'s upload on :{b}: HTTP {status}")
    token = html.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    from urllib.parse import urlencode

    conn = http.client.HTTPConnection("127.0.0.1", b, timeout=60)
    conn.request(
        "POST",
        f"/c/{slug}/import/confirm/",
        body=urlencode({"csrfmiddlewaretoken": token}),
        headers={
            "Cookie": jar,
            "Content-Type": "application/x-www-form-urlencoded",
            "Referer": f"http://127.0.0.1:{b}/c/{slug}/import/preview/",
        },
    )
    confirmed = conn.getresponse()
    confirmed.read()
    conn.close()
    deadline = time.monotonic() + 120  # the worker imports it
    while (after := _games_on(a, ctx)) - before < IMPORT_GAMES and time.monotonic() < deadline:
        time.sleep(0.5)
    if confirmed.status != 302 or after - before != IMPORT_GAMES:
        raise SystemExit(
            f"confirming on :{b} what was uploaded on :{a}: HTTP {confirmed.status}, "
            f"{after - before} of {IMPORT_GAMES} games imported"
        )
    print(
        f"across servers: a workbook uploaded and previewed on :{a} was confirmed on :{b}; "
        f"{after - before} games imported, read back on :{a}"
    )


if __name__ == "__main__":
    main()
