"""Every club page's server time as a club's history grows, and with many clubs in one database.

    .venv/bin/python benchmarks/pages_bench.py [--sizes 1000,10000,100000] [--db sqlite|postgres|both]
    .venv/bin/python benchmarks/pages_bench.py --short          # CI: 300 and 3,000 games, SQLite
    .venv/bin/python benchmarks/pages_bench.py --sizes 10000 --unpaid  # every day left open
    .venv/bin/python benchmarks/pages_bench.py --clubs 200 --total 500000 --games 10000   # PostgreSQL
    .venv/bin/python benchmarks/pages_bench.py --sizes 10000 --db sqlite --profile "day page,money: statement p.1"

Sizes: one club's history grows backwards in time (16 games every other day, 40 members), so that
its latest day, season and record form show the same things at every size and only the history
behind them grows. Games are settled by `scoring` (a pool of settled point sets, seated at
random), inserted in bulk with every day but the latest two paid (one payment in twenty deferred,
repaid unless from the latest 30 days), and the kept aggregates and books are built by `manage.py
rebuild_aggregates` and `manage.py rebuild_money`. The money pages (debts, the statement's first
page, the day ledger, the payment sheet, the pot) are measured with the others.
Every game of the history is kept as recorded hand by hand (issue 23): four HandStat rows each,
with yaku, in bulk; the latest day also has one game played hand by hand through table mode
(league.table: started, its hands recorded, saved), whose page shows the hand-by-hand table and
chart ("game page (hands)"); the player pages sum the hand statistics of the whole history.
For each size it prints each page's time through Django's full stack (test client, median of
--runs after a warm-up; a file response is read to its end; the cache emptied before each, so that
the parts members share are rendered every time, as for the first member after a write), the least CPU time of the process
for it (steadier when other work shares the machine; on PostgreSQL it leaves out the server's
work) and its query count, then each page's growth from the smallest size, and the load average.

--profile PAGES: after the last size, each named page (a comma-separated list of the labels
printed) rendered --runs times under cProfile, and the profile's top lines by own time and by
cumulative time (issue 38: what a rendered page spends its time on).

--clubs: on PostgreSQL, one club of --games games is measured alone, then again after
--clubs - 1 other clubs are added until the database holds --total games; prints the ratio.

Databases are scratch ones: SQLite in a temporary file, PostgreSQL `janchou_pages_bench` on
127.0.0.1 (dropped afterwards).
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

MEMBERS = 40
PER_DAY = 16
EVERY = 2  # days between meetings
LAST_DAY = datetime.date(2026, 11, 20)
SEASON_DAYS = 91
POOL = 2000
AIMS = {10_000: 50.0, 100_000: 100.0}


def _pool(rng: random.Random) -> list[tuple[int, object]]:
    """Settled games by point sets (a player's result depends on its seat's points only)."""
    import scoring

    rules = scoring.PRESETS["mame-no-kai"].rules
    pool = []
    for _ in range(POOL):
        deposits = rng.choice((0, 0, 1000))
        pts = [rng.randrange(-100, 600) * 100 for _ in range(3)]
        pts.append(100_000 - deposits - sum(pts))
        seats = tuple(scoring.Seat(str(i), p) for i, p in enumerate(pts))
        pool.append(
            (
                deposits,
                scoring.settle_game(
                    rules, scoring.Game(seats=seats, deposits=deposits, rate="0.3")
                ),
            )
        )
    return pool


def make_club(slug: str) -> tuple[object, object, object, list[object]]:
    """A club with its rules, members, an organiser and four quarter seasons (the last first)."""
    from django.contrib.auth import get_user_model

    import scoring
    from league.core.names import name_key
    from league.models import Club, Member, Membership, RulesVersion, Season

    club = Club.objects.create(slug=slug, name=f"{slug} 麻雀会")
    version = RulesVersion.objects.create(
        club=club,
        effective_from=datetime.date(1900, 1, 1),
        rules_json=scoring.PRESETS["mame-no-kai"].rules.to_json(),
    )
    members = Member.objects.bulk_create(
        Member(club=club, name=n, kana=f"かいいん{i:02d}", name_key=name_key(n))
        for i, n in ((i, f"会員{i:02d}") for i in range(MEMBERS))
    )
    user = get_user_model().objects.create_user(f"{slug}-organiser", password="bench-password")
    Membership.objects.create(user=user, club=club, role=Membership.ORGANISER)
    seasons = []
    for q in range(4):
        end = LAST_DAY - datetime.timedelta(days=q * SEASON_DAYS)
        seasons.append(
            Season(
                club=club,
                name=f"Q{q}",
                start=end - datetime.timedelta(days=SEASON_DAYS - 1),
                end=end,
                min_games=20,
            )
        )
    Season.objects.bulk_create(seasons)  # bulk: no signal, the rebuild below builds them
    return club, version, user, members


def add_history(club, version, members, first_game: int, games: int, seed: int = 7) -> None:
    """Games number first_game … first_game + games - 1 counted back from LAST_DAY, in bulk."""
    from django.db import transaction

    from league.models import Day, Game, HandStat, Result

    rng = random.Random(seed + first_game)
    pool = _pool(rng)
    with transaction.atomic():
        start_day = first_game // PER_DAY
        end_day = (first_game + games - 1) // PER_DAY
        existing = set(Day.objects.filter(club=club).values_list("date", flat=True))
        dates = {
            d: LAST_DAY - datetime.timedelta(days=d * EVERY) for d in range(start_day, end_day + 1)
        }
        Day.objects.bulk_create(
            [Day(club=club, date=date) for date in dates.values() if date not in existing],
            batch_size=2000,
        )
        days = dict(
            Day.objects.filter(club=club, date__in=dates.values()).values_list("date", "pk")
        )
        for chunk in range(first_game, first_game + games, 5000):
            batch, rows = [], []
            for g in range(chunk, min(chunk + 5000, first_game + games)):
                date = dates[g // PER_DAY]
                deposits, result = rng.choice(pool)
                game = Game(
                    club=club,
                    day_id=days[date],
                    date=date,
                    number=PER_DAY - g % PER_DAY,  # counted back: the day's last game first
                    rate="0.3",
                    deposits=deposits,
                    rules_version=version,
                )
                batch.append(game)
                rows.append((game, rng.sample(members, 4), result))
            Game.objects.bulk_create(batch)
            Result.objects.bulk_create(
                (
                    Result(
                        game=game,
                        revision=1,
                        member=m,
                        seat=i,
                        points=p.points,
                        rank=p.rank,
                        score=p.score,
                        chips=p.chips,
                        yen=p.yen,
                        last=p.rank == 4,
                        club=club,
                        date=game.date,
                        rate="0.3",
                    )
                    for game, seated, result in rows
                    for i, (m, p) in enumerate(zip(seated, result.players, strict=True))
                ),
                batch_size=5000,
            )
            HandStat.objects.bulk_create(
                (_hand_stat(rng, game, m, club) for game, seated, _result in rows for m in seated),
                batch_size=5000,
            )


YAKU = ("立直", "門前清自摸和", "平和", "断幺九", "役牌 白", "一盃口", "混一色", "対々和")


def _hand_stat(rng: random.Random, game, member, club):
    """One player's hand statistics of one hanchan (about 10 hands), plausibly random."""
    from league.models import HandStat

    hands = rng.randrange(8, 14)
    wins = rng.randrange(0, 4)
    deal_ins = rng.randrange(0, 3)
    draws = rng.randrange(0, 3)
    yaku: dict[str, int] = {}
    for _ in range(wins):
        for name in rng.sample(YAKU, 2):
            yaku[name] = yaku.get(name, 0) + 1
    return HandStat(
        game=game,
        revision=1,
        member=member,
        club=club,
        date=game.date,
        hands=hands,
        wins=wins,
        called_wins=rng.randrange(0, wins + 1),
        deal_ins=deal_ins,
        riichi=rng.randrange(0, 4),
        win_points=wins * rng.randrange(10, 80) * 100,
        deal_in_points=deal_ins * rng.randrange(10, 80) * 100,
        draws=draws,
        draw_tenpai=rng.randrange(0, draws + 1),
        ippatsu=rng.randrange(0, 2) if wins else 0,
        yakuman=0,
        yaku=yaku,
    )


def table_game(club, user, members):
    """One hanchan of the latest day played hand by hand in table mode and saved (once): the
    game page with its hands. A draw, a double ron, a draw carrying a riichi stick, a tsumo and
    a yakuman that busts the discarder."""
    import uuid

    from league.models import TableGame
    from league.table import services as table

    existing = TableGame.objects.filter(club=club, game__isnull=False).first()
    if existing is not None:
        return existing.game
    a, b, c, d = (str(m.pk) for m in members[:4])
    tg = table.table_start(
        club=club, user=user, key=uuid.uuid4(), date=LAST_DAY, members=members[:4], rate="0.3"
    )
    hands = [
        ({"result": "draw", "tenpai": [a], "riichi": [a]}, {}),
        (
            {
                "result": "ron",
                "from": c,
                "winners": [{"player": b, "han": 3, "fu": 30}, {"player": d, "han": 2, "fu": 40}],
            },
            {b: {"called": True, "yaku": ["断幺九", "役牌 白"]}, d: {"yaku": ["立直"]}},
        ),
        ({"result": "draw", "tenpai": [], "riichi": [c]}, {}),
        (
            {"result": "tsumo", "winner": d, "han": 5, "riichi": [d]},
            {d: {"ippatsu": True, "ura": 1, "yaku": ["立直", "門前清自摸和"]}},
        ),
        (
            {"result": "ron", "from": a, "winners": [{"player": d, "yakuman": 1}]},
            {d: {"yaku": ["大三元"]}},
        ),
    ]
    for i, (event, marks) in enumerate(hands):
        table.hand_record(tg=tg, user=user, index=i, key=uuid.uuid4(), event=event, marks=marks)
    return table.table_game_save(tg=tg, user=user)


def add_payments(club, members) -> None:
    """Every day but the two latest settled as a club does: each member's day total paid to or
    by the club, one in twenty deferred with its surcharge, repaid unless
    from the latest 30 days (a club keeps a handful of debts open, not its whole history). Inserted in
    bulk (the transfers are the day totals against the club, which settles any day); the kept
    books are then built by `manage.py rebuild_money`."""
    from django.db import transaction
    from django.db.models import Sum

    from league.models import Day, LedgerEntry, Result

    if os.environ.get("PAGES_BENCH_UNPAID"):  # --unpaid: a club that settles outside the app
        return
    with transaction.atomic():
        paid = set(LedgerEntry.objects.filter(club=club).values_list("day_id", flat=True))
        days = list(
            Day.objects.filter(club=club)
            .exclude(pk__in=paid)
            .exclude(date__gt=LAST_DAY - datetime.timedelta(days=2 * EVERY))
            .values_list("pk", flat=True)
        )
        totals = (
            Result.objects.filter(game__day_id__in=days, counted=True)
            .values_list("game__day_id", "member_id")
            .annotate(yen=Sum("yen"))
            .order_by("game__day_id", "member_id")
        )
        entries, n = [], 0
        for day_id, member_id, yen in totals.iterator(chunk_size=5000):
            if not yen:
                continue
            n += 1
            if yen < 0 and n % 20 == 0:
                entries.append(
                    LedgerEntry(
                        club=club,
                        day_id=day_id,
                        kind=LedgerEntry.DEFERRAL,
                        borrower_id=member_id,
                        amount=-yen,
                        surcharge=-yen // 10,
                    )
                )
            elif yen < 0:
                entries.append(
                    LedgerEntry(
                        club=club,
                        day_id=day_id,
                        kind=LedgerEntry.PAYMENT,
                        payer_id=member_id,
                        amount=-yen,
                    )
                )
            else:
                entries.append(
                    LedgerEntry(
                        club=club,
                        day_id=day_id,
                        kind=LedgerEntry.PAYMENT,
                        payee_id=member_id,
                        amount=yen,
                    )
                )
        LedgerEntry.objects.bulk_create(entries, batch_size=2000)
        deferred = [e for e in entries if e.kind == LedgerEntry.DEFERRAL]
        dates = dict(Day.objects.filter(pk__in=days).values_list("pk", "date"))
        LedgerEntry.objects.bulk_create(
            [
                LedgerEntry(
                    club=club,
                    kind=LedgerEntry.PAYMENT,
                    payer_id=e.borrower_id,
                    amount=e.amount + e.surcharge,
                    debt=e,
                )
                for e in deferred
                if dates[e.day_id] < LAST_DAY - datetime.timedelta(days=30)
            ],
            batch_size=2000,
        )


def rebuild(*slugs: str) -> float:
    from django.core.management import call_command
    from django.db import connection

    start = time.perf_counter()
    call_command("rebuild_aggregates", *slugs, verbosity=0)
    call_command("rebuild_money", *slugs, verbosity=0)  # the kept books (league.books)
    took = time.perf_counter() - start
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # fresh statistics, as autovacuum would keep them
            cursor.execute("VACUUM ANALYZE")
    return took


def pages(club, user, members) -> list[tuple[str, str]]:
    from django.urls import reverse

    from league.models import Game, Season

    season = Season.objects.filter(club=club, kind=Season.INDIVIDUAL).order_by("-end").first()
    # Eight teams of five in the latest season, with an adjustment each (league.teams): the
    # season's pages and the share link show team standings, and the teams page is measured.
    from league.teams import services as team_services

    for t in range(0 if season.teams.exists() else 8):  # once: pages() runs at every size
        roster = members[5 * t : 5 * t + 5]
        team = team_services.team_create(
            season=season,
            user=user,
            data=team_services.TeamInput(
                name=f"チーム{t}",
                short_name=f"T{t}",
                colour="#2b6cb0",
                members=roster,
                captains=roster[:1],
            ),
        )
        team_services.adjustment_book(
            season=season, user=user, team=team, kind="penalty", points=-100, reason="遅刻"
        )
    # An event over the same dates (a season page of its own: ranked by its stage), its games
    # counting in the individual season too, as seasons from before kinds did.
    event = Season.objects.filter(club=club, kind=Season.EVENT).first()
    if event is None:
        event = Season.objects.create(
            club=club,
            name="大会",
            start=season.start,
            end=season.end,
            kind=Season.EVENT,
            in_club_season=True,
        )
    if not season.team_matches.exists():  # a team match day of two games, and a stage
        team_services.match_day_schedule(season=season, user=user, date=season.end, games=2)
        team_services.stage_create(
            season=event,
            user=user,
            data=team_services.StageInput(
                "レギュラー", season.start, season.end, advance=4, carry="half"
            ),
        )
    member = members[0]
    member.__class__.objects.filter(pk=member.pk).update(user=user)  # who also plays: My page
    hands_game = table_game(club, user, members)
    game = Game.objects.filter(club=club).exclude(pk=hands_game.pk).order_by("-date", "-number")[0]
    day = LAST_DAY
    standings = reverse("standings:standings", args=[club.slug])
    # The share link, money shown: what anyone with the link reads (league.public).
    club.__class__.objects.filter(pk=club.pk).update(share_token="b" * 43, share_money=True)
    token = "b" * 43
    return [
        ("club home", reverse("recording:club_home", args=[club.slug])),
        ("day page", reverse("recording:day_detail", args=[club.slug, day])),
        ("day ledger", reverse("money:day_ledger", args=[club.slug, day])),
        ("record form", reverse("recording:game_new", args=[club.slug])),
        ("game page", reverse("recording:game_detail", args=[club.slug, game.pk])),
        ("game page (hands)", reverse("recording:game_detail", args=[club.slug, hands_game.pk])),
        ("season standings", reverse("standings:season_standings", args=[club.slug, season.pk])),
        (
            "season (hand columns)",
            reverse("standings:season_standings", args=[club.slug, season.pk])
            + "?hands=1&sort=-win_rate",
        ),
        ("season race", reverse("standings:season_race", args=[club.slug, season.pk])),
        ("season teams", reverse("teams:season_teams", args=[club.slug, season.pk])),
        ("team match day", reverse("teams:team_day", args=[club.slug, season.pk, season.end])),
        ("season stages", reverse("teams:season_stages", args=[club.slug, event.pk])),
        ("all-time standings", standings),
        ("all-time (hand cols.)", standings + "?hands=1"),
        ("player (all time)", reverse("standings:player_detail", args=[club.slug, member.pk])),
        (
            "player (hand stats)",
            reverse("standings:player_detail", args=[club.slug, members[3].pk]),
        ),
        (
            "player (season)",
            reverse("standings:player_detail", args=[club.slug, member.pk])
            + f"?season={season.pk}",
        ),
        ("season head-to-head", reverse("standings:season_matrix", args=[club.slug, season.pk])),
        ("rating", reverse("standings:rating_list", args=[club.slug])),
        ("by seat", reverse("standings:club_seats", args=[club.slug])),
        ("records", reverse("standings:records", args=[club.slug])),
        ("my page", reverse("mypage:my_page", args=[club.slug])),
        ("money: debts", reverse("money:debt_list", args=[club.slug])),
        ("money: statement p.1", reverse("money:member_statement", args=[club.slug, member.pk])),
        ("money: day ledger", reverse("money:day_ledger", args=[club.slug, day])),
        ("money: payment sheet", reverse("excel:export_payment_sheet", args=[club.slug, day])),
        ("money: pot", reverse("money:club_pot", args=[club.slug]) + f"?season={season.pk}"),
        ("members", reverse("club:member_list", args=[club.slug])),
        ("share: standings", reverse("public:public_standings", args=[token])),
        ("share: season", reverse("public:public_season", args=[token, season.pk])),
        ("share: days", reverse("public:public_days", args=[token])),
        ("share: day", reverse("public:public_day", args=[token, day])),
        (
            "filter: dates (live)",
            standings + f"?start={(LAST_DAY - datetime.timedelta(days=365)).isoformat()}",
        ),
        ("filter: rate (live)", standings + "?rate=0.3"),
        ("API record", api_record(club, user, members)),
    ]


def api_record(club, user, members):
    """A callable that records one new game of four random members on the latest day through the
    API (a token of the organiser's): what recording costs as the history behind it grows."""
    import json

    from league.accounts import tokens

    secret = tokens.token_create(club=club, user=user, name=f"bench {random.random()}")[1]
    address = f"/api/clubs/{club.slug}/games"
    rng = random.Random()  # a new game at every size and run (the same one would be a duplicate)

    def record(client):
        points = [rng.randrange(-50, 500) * 100 for _ in range(3)]
        points.append(100_000 - sum(points))
        seated = rng.sample(members, 4)
        body = {
            "date": LAST_DAY.isoformat(),
            "rate": "0.3",
            "players": [
                {"member_id": m.pk, "points": p} for m, p in zip(seated, points, strict=True)
            ],
        }
        return client.post(
            address,
            json.dumps(body),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {secret}",
        )

    return record


CPU: dict[str, float] = {}  # each page's least CPU time of this process (ms), by label and size


def _check_hands(client, urls: dict[str, str]) -> None:
    """The hand pages show what they are measured for: the hands, the hand statistics."""
    game = client.get(urls["game page (hands)"]).content.decode()
    assert "data-game-hands" in game, "the game page has no hands"
    player = client.get(urls["player (hand stats)"]).content.decode()
    assert "断幺九" in player or "立直" in player, "the player page has no hand statistics"
    for page in ("season (hand columns)", "all-time (hand cols.)"):
        standings = client.get(urls[page]).content.decode()
        assert "data-hand-columns" in standings and "和了率" in standings, (
            f"{page}: no hand columns"
        )


def measure(client, urls: list[tuple[str, str]], runs: int) -> dict[str, tuple[float, int]]:
    """Each page's median wall-clock time (ms) and query count; its least CPU time of this
    process goes to CPU (steadier on a shared machine; on SQLite it includes the database's work,
    on PostgreSQL not the server's)."""
    from django.core.cache import cache
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    out = {}
    for label, url in urls:
        # A page is a GET of its address; a write (the API's record) is a callable of the client.
        fetch = (
            (lambda url=url: url(client)) if callable(url) else (lambda url=url: client.get(url))
        )
        reset_queries()  # the log is a bounded deque: full after a build, it would capture nothing
        # Each request as the first after a write: the parts members share (league.access.
        # shared_part) rendered, not read from the cache.
        cache.clear()
        with CaptureQueriesContext(connection) as captured:
            response = fetch()
        assert response.status_code in (200, 201), (
            label,
            response.status_code,
            response.content[:300],
        )
        samples, cpu = [], []
        for _ in range(runs):
            cache.clear()
            start, start_cpu = time.perf_counter(), time.process_time()
            response = fetch()
            if response.streaming:  # a file: sent, as a server would send it
                b"".join(response.streaming_content)
                response.close()
            samples.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        out[label] = (statistics.median(samples) * 1000, len(captured))
        CPU[label] = min(cpu) * 1000
    return out


def profile(client, urls: list[tuple[str, str]], names: list[str], runs: int) -> None:
    """Each named page's profile over `runs` renders: its top lines by own and cumulative time."""
    import cProfile
    import pstats

    from django.core.cache import cache

    known = dict(urls)
    for name in names:
        if name not in known:
            raise SystemExit(f"--profile: no page {name!r}; the pages are {', '.join(known)}")
        url = known[name]
        fetch = (
            (lambda url=url: url(client)) if callable(url) else (lambda url=url: client.get(url))
        )
        fetch()  # warm
        profiler = cProfile.Profile()
        for _ in range(runs):
            cache.clear()  # rendered in full, as measure() does
            profiler.enable()
            fetch()
            profiler.disable()
        print(f"\n  profile: {name}, {runs} renders")
        # Own time over everything (Django's template engine and ORM show here), then
        # cumulative time over the app's own functions: which of them the time is spent under.
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(14)
        app = str(ROOT / "league")
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(app, 22)


def _load() -> str:
    one, five, _fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} (2 cores)"


def _setup() -> object:
    import django
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    django.setup()
    setup_test_environment()
    call_command("migrate", verbosity=0)
    return Client


def run_sizes(sizes: list[int], runs: int, label: str, profiled: list[str] = ()) -> None:
    Client = _setup()
    club, version, user, members = make_club("bench")
    client = Client()
    client.force_login(user)
    results: dict[int, dict[str, tuple[float, int]]] = {}
    cpu: dict[int, dict[str, float]] = {}
    built = 0
    for size in sizes:
        start = time.perf_counter()
        add_history(club, version, members, built, size - built)
        add_payments(club, members)
        insert_s = time.perf_counter() - start
        rebuild_s = rebuild(club.slug)
        built = size
        print(
            f"  {label} {size:,} games: inserted in {insert_s:.1f} s, "
            f"rebuild_aggregates and rebuild_money {rebuild_s:.1f} s; {_load()}",
            flush=True,
        )
        urls = pages(club, user, members)
        _check_hands(client, dict(urls))
        results[size] = measure(client, urls, runs)
        cpu[size] = dict(CPU)
        print(f"  measured {size:,} games; {_load()}", flush=True)
    if profiled:
        profile(client, urls, list(profiled), runs)
    header = "".join(f" | {s:>9,} games (CPU)" for s in sizes)
    print(f"\n  {label}: server time in ms (median of {runs}; least CPU time), queries")
    print(f"  {'page':22}{header} | growth")
    for page in results[sizes[0]]:
        cells = "".join(
            f" | {results[s][page][0]:7.1f} ({cpu[s][page]:6.1f}) ({results[s][page][1]:2d})"
            for s in sizes
        )
        growth = results[sizes[-1]][page][0] / results[sizes[0]][page][0]
        flags = [
            f">{aim:.0f}ms@{s:,}"
            for s, aim in AIMS.items()
            if s in results and results[s][page][0] > aim and "live" not in page
        ]
        print(f"  {page:22}{cells} | {growth:4.2f}x {' '.join(flags)}")
    print()


def run_clubs(clubs: int, total: int, games: int, runs: int) -> None:
    Client = _setup()
    club, version, user, members = make_club("target")
    add_history(club, version, members, 0, games)
    rebuild(club.slug)
    client = Client()
    client.force_login(user)
    urls = pages(club, user, members)
    alone = measure(client, urls, runs)
    print(f"  target club alone: {games:,} games; {_load()}", flush=True)
    others = clubs - 1
    each = (total - games) // others
    start = time.perf_counter()
    for i in range(others):
        other, v, _u, ms = make_club(f"c{i:03d}")
        add_history(other, v, ms, 0, each, seed=i)
    insert_s = time.perf_counter() - start
    rebuild_s = rebuild()
    from league.models import Club, Game

    print(
        f"  added {others} clubs of {each:,} games: {Club.objects.count()} clubs, "
        f"{Game.objects.count():,} games in the database; inserted in {insert_s:.0f} s, "
        f"rebuilt every club in {rebuild_s:.0f} s; {_load()}",
        flush=True,
    )
    crowded = measure(client, urls, runs)
    print(f"\n  one club's pages, alone vs among {clubs} clubs (ms, median of {runs}; queries)")
    for page, (ms, queries) in alone.items():
        ms2, q2 = crowded[page]
        print(
            f"  {page:22} | {ms:7.1f} ({queries:2d}) | {ms2:7.1f} ({q2:2d}) | ratio {ms2 / ms:4.2f}"
        )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--short", action="store_true", help="CI: small sizes, SQLite, 3 runs")
    parser.add_argument("--clubs", type=int, default=0, help="many clubs on PostgreSQL")
    parser.add_argument("--total", type=int, default=500_000, help="games of all --clubs")
    parser.add_argument("--games", type=int, default=10_000, help="the measured club's, --clubs")
    parser.add_argument(
        "--unpaid",
        action="store_true",
        help="no day paid: every day of the history open (the debts page's worst case)",
    )
    parser.add_argument("--profile", default="", help="pages to profile after the last size")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.unpaid:
        os.environ["PAGES_BENCH_UNPAID"] = "1"  # read by add_payments, in the child too
    if args.short:
        args.sizes, args.runs, args.db = "300,3000", 3, "sqlite"
    if args.clubs:
        args.db = "postgres"
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.child:  # run in a fresh process per database so settings load once per backend
        os.environ["DATABASE_URL"] = args.child
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
        label = "PostgreSQL" if args.child.startswith("postgres") else "SQLite"
        if args.clubs:
            run_clubs(args.clubs, args.total, args.games, args.runs)
        else:
            run_sizes(sizes, args.runs, label, [p for p in args.profile.split(",") if p])
        return
    targets = []
    if args.db in ("sqlite", "both"):
        tmp = tempfile.mkdtemp(prefix="janchou-pages-")
        targets.append(("SQLite", f"sqlite:///{tmp}/bench.sqlite3", None))
    if args.db in ("postgres", "both"):
        if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1"]).returncode == 0:
            # PAGES_BENCH_DB: another scratch name, for two benchmarks on one server at once.
            name = os.environ.get("PAGES_BENCH_DB", "janchou_pages_bench")
            targets.append(("PostgreSQL", f"postgres://postgres@127.0.0.1:5432/{name}", name))
        else:
            print("SKIP: PostgreSQL is not answering on 127.0.0.1:5432")
    psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c"]
    for label, url, pg_name in targets:
        if pg_name:
            subprocess.run([*psql, f"DROP DATABASE IF EXISTS {pg_name}"], check=True)
            subprocess.run([*psql, f"CREATE DATABASE {pg_name}"], check=True)
        print(f"{label}:", flush=True)
        child = [sys.executable, __file__, "--child", url, "--sizes", ",".join(map(str, sizes))]
        child += ["--runs", str(args.runs), "--profile", args.profile]
        if args.clubs:
            child += [
                "--clubs",
                str(args.clubs),
                "--total",
                str(args.total),
                "--games",
                str(args.games),
            ]
        try:
            subprocess.run(child, check=True)
        finally:
            if pg_name:
                subprocess.run([*psql, f"DROP DATABASE IF EXISTS {pg_name}"], check=True)


if __name__ == "__main__":
    main()
