"""`python manage.py loaddemo`: the six preset clubs of settlement.md, with a few months of games.

Everything a club records is written through league.recording.services (rules versions, members, the season,
games, edits, voids, attendance), so the demo is settled and audited exactly as in real use. The
data comes from `random.Random` with a fixed seed per club: every run makes the same clubs.

Nothing is ever deleted: when the demo clubs exist already, the command says so and stops.
"""

from __future__ import annotations

import dataclasses
import datetime
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction

import scoring
from league import money
from league.club import services as club_services
from league.models import Club, Day, Game, Member, Membership
from league.money import services as money_services
from league.recording import services
from league.rules import services as rules_services

DEMO_LOGIN = ("demo", "demo-jancho")
ADMIN_LOGIN = ("admin", "admin-jancho")
SEED = "jancho-demo-2026"
RULES_FROM = datetime.date(2026, 1, 1)
MONTHS = (8, 9, 10, 11)  # 2026
SEASON = ("2026年 後期", datetime.date(2026, 7, 1), datetime.date(2026, 12, 31), 10)
MON, TUE, WED, THU, FRI, SAT, SUN = range(7)


@dataclass(frozen=True)
class DemoClub:
    preset: str  # also the club's slug
    name: str
    weekday: int  # the club meets on the 1st and 3rd of this weekday each month
    void_a_duplicate: bool = False  # one game is entered twice, and the copy voided
    edit_a_game: bool = False  # one game is corrected after it was recorded


CLUBS = (
    DemoClub("kinyokai-2015", "山口 金曜会", FRI, void_a_duplicate=True),
    DemoClub("mame-no-kai", "マメの会", SUN, edit_a_game=True),
    DemoClub("kagetsu-cup", "花月杯", SAT),
    DemoClub("pairon-kansai", "関西ぱいろん", SAT, void_a_duplicate=True),
    DemoClub("pairon-kansai-3p", "関西ぱいろん 三麻", THU),
    DemoClub("takabari-kenko", "高針健康麻雀", WED),
)

# 金曜会's page applies from 平成27年4月1日: its first version shows how versions work.
EARLY_VERSION = {"kinyokai-2015": (datetime.date(2015, 4, 1), "平成27年4月1日より適用")}

FAMILY_NAMES = (
    ("佐藤", "さとう"), ("鈴木", "すずき"), ("高橋", "たかはし"), ("田中", "たなか"),
    ("伊藤", "いとう"), ("渡辺", "わたなべ"), ("山本", "やまもと"), ("中村", "なかむら"),
    ("小林", "こばやし"), ("加藤", "かとう"), ("吉田", "よしだ"), ("山田", "やまだ"),
    ("佐々木", "ささき"), ("松本", "まつもと"), ("井上", "いのうえ"), ("木村", "きむら"),
    ("林", "はやし"), ("斎藤", "さいとう"), ("清水", "しみず"), ("山崎", "やまざき"),
    ("森", "もり"), ("池田", "いけだ"), ("橋本", "はしもと"), ("阿部", "あべ"),
    ("石川", "いしかわ"), ("前田", "まえだ"), ("藤田", "ふじた"), ("岡田", "おかだ"),
    ("後藤", "ごとう"), ("長谷川", "はせがわ"), ("村上", "むらかみ"), ("近藤", "こんどう"),
)  # fmt: skip
GIVEN_NAMES = (
    ("健一", "けんいち"), ("誠", "まこと"), ("大輔", "だいすけ"), ("直樹", "なおき"),
    ("隆", "たかし"), ("浩二", "こうじ"), ("和也", "かずや"), ("翔太", "しょうた"),
    ("拓也", "たくや"), ("修", "おさむ"), ("勝", "まさる"), ("茂", "しげる"),
    ("恵子", "けいこ"), ("洋子", "ようこ"), ("美穂", "みほ"), ("由美", "ゆみ"),
    ("幸子", "さちこ"), ("真由美", "まゆみ"), ("久美子", "くみこ"), ("明美", "あけみ"),
    ("智子", "ともこ"), ("裕子", "ゆうこ"), ("清", "きよし"), ("博", "ひろし"),
)  # fmt: skip
MEMBERS_PER_CLUB = 12
GUESTS_PER_CLUB = 2


class Command(BaseCommand):
    help = "Create the demo clubs, members, rules and games (does nothing if they exist)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--addrport",
            default="127.0.0.1:8000",
            help="where the server will listen (the address printed to open), e.g. 0.0.0.0:8080",
        )
        parser.add_argument(
            "--migrate",
            action="store_true",
            help="migrate the database first (dev.py start: Django starts once for both)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["migrate"]:
            call_command("migrate", interactive=False, skip_checks=True, stdout=self.stdout)
        addrport = options["addrport"]
        if addrport.isdigit():  # runserver's "8080" alone means 127.0.0.1:8080
            addrport = f"127.0.0.1:{addrport}"
        self.url = f"http://{addrport}/"
        existing = set(
            Club.objects.filter(slug__in=[c.preset for c in CLUBS]).values_list("slug", flat=True)
        )
        missing = [c for c in CLUBS if c.preset not in existing]
        if not missing:
            self.stdout.write("The demo clubs exist already; nothing was changed.")
            self._print_logins()
            return
        with transaction.atomic():
            organiser = _demo_users()
            for spec in missing:
                games = DemoBuilder(spec, organiser).build()
                self.stdout.write(f"  {spec.name} (/c/{spec.preset}/): {games} games")
        self.stdout.write(self.style.SUCCESS(f"Created {len(missing)} demo clubs."))
        self._print_logins()

    def _print_logins(self) -> None:
        self.stdout.write(f"Open {self.url} and log in:")
        self.stdout.write(f"  organiser of every demo club: {DEMO_LOGIN[0]} / {DEMO_LOGIN[1]}")
        self.stdout.write(
            f"  superuser (admin at {self.url}admin/): {ADMIN_LOGIN[0]} / {ADMIN_LOGIN[1]}"
        )


def _demo_users() -> Any:
    """The demo organiser and the superuser; existing accounts are left as they are."""
    User = get_user_model()
    organiser = User.objects.filter(username=DEMO_LOGIN[0]).first()
    if organiser is None:
        organiser = User.objects.create_user(username=DEMO_LOGIN[0], password=DEMO_LOGIN[1])
    if not User.objects.filter(username=ADMIN_LOGIN[0]).exists():
        User.objects.create_superuser(username=ADMIN_LOGIN[0], password=ADMIN_LOGIN[1])
    return organiser


def _meeting_days(weekday: int) -> list[datetime.date]:
    """The 1st and 3rd `weekday` of each demo month (all on or before 2026-11-21)."""
    days = []
    for month in MONTHS:
        first = datetime.date(2026, month, 1)
        first += datetime.timedelta(days=(weekday - first.weekday()) % 7)
        days += [first, first + datetime.timedelta(days=14)]
    return days


class DemoBuilder:
    """One demo club, built through the services as an organiser would enter it."""

    def __init__(self, spec: DemoClub, user: Any):
        self.spec = spec
        self.user = user
        self.rng = random.Random(f"{SEED}:{spec.preset}")
        self.rules = scoring.PRESETS[spec.preset].rules
        self.games: list[Game] = []
        self.pending: list[services.GameInput] = []  # the season's games, recorded at once

    def build(self) -> int:
        spec, user = self.spec, self.user
        self.club = Club.objects.create(slug=spec.preset, name=spec.name)
        Membership.objects.create(user=user, club=self.club, role=Membership.ORGANISER)
        if spec.preset in EARLY_VERSION:
            date, note = EARLY_VERSION[spec.preset]
            self._rules_version(date, note)
        self._rules_version(RULES_FROM, "2026年度")
        members = self._members()
        name, start, end, min_games = SEASON
        club_services.season_create_in(  # inside handle()'s one transaction
            club=self.club, user=user, name=name, start=start, end=end, min_games=min_games
        )
        days = [(date, self._day(date, members)) for date in _meeting_days(spec.weekday)]
        # The season's games at once, as an import records them (games_record_bulk: each one
        # validated and settled as game_record would, the kept totals and books once): a few
        # seconds for the demo, rather than one record action per game.
        pending, self.pending = self.pending, []
        self.games += services.games_record_bulk(
            club=self.club,
            user=user,
            games=[(data, services.game_preview(club=self.club, data=data)) for data in pending],
        )
        for date, attendees in days:
            money_services.day_attendees_add_in(
                club=self.club, user=user, date=date, members=attendees
            )
        self._corrections()
        self._close_past_days()
        # Someone who moved away: kept in every result, no longer offered when recording.
        club_services.member_set_active_in(
            member=members[-GUESTS_PER_CLUB - 1], user=user, active=False
        )
        return len(self.games)

    def _rules_version(self, date: datetime.date, note: str) -> None:
        rules_services.rules_version_create_in(
            club=self.club,
            user=self.user,
            effective_from=date,
            rules_json=self.spec.preset,
            preset=self.spec.preset,
            note=note,
        )

    def _members(self) -> list[Member]:
        """A dozen members with distinct family names; the last two are guests."""
        families = self.rng.sample(FAMILY_NAMES, MEMBERS_PER_CLUB)
        members = []
        for i, (family, family_kana) in enumerate(families):
            given, given_kana = self.rng.choice(GIVEN_NAMES)
            members.append(
                club_services.member_create(
                    club=self.club,
                    user=self.user,
                    name=f"{family} {given}",
                    kana=f"{family_kana} {given_kana}",
                    is_guest=i >= MEMBERS_PER_CLUB - GUESTS_PER_CLUB,
                )
            )
        return members

    def _day(self, date: datetime.date, members: Sequence[Member]) -> list[Member]:
        """2–6 games at one or two tables, added to the pending games; sometimes one more
        attendee waits and rotates in. The day's attendees."""
        rng, n = self.rng, self.rules.players
        regulars = list(members[: MEMBERS_PER_CLUB - GUESTS_PER_CLUB])
        guests = [m for m in members[MEMBERS_PER_CLUB - GUESTS_PER_CLUB :] if rng.random() < 0.25]
        pool = regulars + guests
        rng.shuffle(pool)
        tables = 2 if rng.random() < 0.35 else 1
        waiting = 1 if rng.random() < 0.3 else 0
        attendees = pool[: n * tables + waiting]
        groups = [attendees[t * n : (t + 1) * n] for t in range(tables)]
        bench = attendees[n * tables :]
        rates = list(self.rules.rates)
        day_rate = rng.choice(rates) if rates else ""
        for number in range(rng.randint(2, 6)):
            t = number % tables
            seats = rng.sample(groups[t], n)
            rate = day_rate if t == 0 or not rates else rng.choice(rates)
            table = "AB"[t] if tables > 1 else ""
            self.pending.append(self._game(date, seats, rate, table))
            if bench and t == 0:  # the waiting attendee takes someone's seat at table A
                out = rng.randrange(n)
                groups[0][out], bench[0] = bench[0], groups[0][out]
        return attendees

    def _game(
        self, date: datetime.date, seats: Sequence[Member], rate: str, table: str
    ) -> services.GameInput:
        rng, rules = self.rng, self.rules
        deposits = rng.choice((0, 0, 0, 0, 1000, 1000, 2000))
        points = _final_points(rng, rules.players * rules.start - deposits, len(seats))
        chombo = rng.randrange(len(seats)) if rng.random() < 0.06 else None
        return services.GameInput(
            date=date,
            table=table,
            deposits=deposits,
            rate=rate,
            seats=[
                services.SeatInput(m, p, int(i == chombo))
                for i, (m, p) in enumerate(zip(seats, points, strict=True))
            ],
            chips=self._chips(seats),
        )

    def _chips(self, seats: Sequence[Member]) -> list[services.ChipInput]:
        """一発 now and then, a rare 役満 (double once in a while), for clubs that pay chips."""
        rng, kinds = self.rng, self.rules.chips
        events = []
        if "ippatsu" in kinds:
            events += ["ippatsu"] * rng.choices((0, 1, 2), weights=(55, 35, 10))[0]
        if "yakuman" in kinds and rng.random() < 0.08:
            events.append("yakuman")
        chips = []
        for kind in events:
            winner, discarder = rng.sample(list(seats), 2)
            chips.append(
                services.ChipInput(
                    kind=kind,
                    winner=winner,
                    discarder=discarder if rng.random() < 0.6 else None,
                    multiplier=2 if kind == "yakuman" and rng.random() < 0.2 else 1,
                )
            )
        return chips

    def _record(self, data: services.GameInput, *, confirm_duplicate: bool = False) -> Game:
        # A demo evening's other tables may play another rate on purpose: confirmed, as the
        # organiser would (services.check_rate).
        game = services.game_record_in(
            club=self.club,
            user=self.user,
            data=data,
            confirm_duplicate=confirm_duplicate,
            confirm_rate=True,
        )
        self.games.append(game)
        return game

    def _corrections(self) -> None:
        """What happens at real tables: a game typed twice, a score sheet misread."""
        if self.spec.void_a_duplicate:
            original = self.games[len(self.games) // 2]
            # Typed twice: the organiser said yes to 「…と同じ内容です」 (services.DuplicateGame).
            copy = self._record(services.game_input_from_stored(original), confirm_duplicate=True)
            services.game_void_in(game=copy, user=self.user, reason="同じ半荘を二度入力したため")
        if self.spec.edit_a_game:
            game = self.games[1]
            data = services.game_input_from_stored(game)
            seats = list(data.seats)
            # 1,000 points were written on the wrong line of the score sheet.
            seats[0] = dataclasses.replace(seats[0], points=seats[0].points - 1000)
            seats[1] = dataclasses.replace(seats[1], points=seats[1].points + 1000)
            services.game_edit_in(
                game=game,
                user=self.user,
                data=dataclasses.replace(data, seats=seats),
                expected_revision=game.revision,
            )

    def _close_past_days(self) -> None:
        """締め: every day but the latest is closed, as a real club's would be. Most transfers were
        paid at the table; now and then someone defers (with the club's surcharge). The latest day
        stays open, so the demo shows a ledger still being settled."""
        days = list(Day.objects.filter(club=self.club).order_by("date"))
        for day in days[:-1]:
            ledger = money.day_ledger(day=day)
            if not ledger.has_money:
                continue
            from_members = [
                (money.party(t.payer), money.party(t.payee))
                for t in ledger.transfers
                if money.party(t.payer) is not None
            ]
            defer = (
                [self.rng.choice(from_members)] if from_members and self.rng.random() < 0.2 else []
            )
            money.day_close_in(
                day=day,
                user=self.user,
                defer=defer,
                expected=money.transfers_key(ledger.transfers),
            )


def _final_points(rng: random.Random, total: int, players: int) -> list[int]:
    """Final points in 100s summing to `total`: a spread like real hanchan, minus scores included."""
    raw = [rng.gauss(0, 13_000) for _ in range(players)]
    mean = sum(raw) / players
    points = [round((total / players + r - mean) / 100) * 100 for r in raw]
    points[-1] += total - sum(points)
    return points
