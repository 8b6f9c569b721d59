"""Random sequences of every writer, for the book's tests."""

from __future__ import annotations

import datetime

from django.contrib.auth import get_user_model

import scoring
from league import money
from league.club import services as club_services
from league.core.errors import ServiceError
from league.models import (
    Adjustment,
    Club,
    Game,
    Member,
    RulesVersion,
    Season,
    Transaction,
)
from league.recording import services
from league.recording.services import GameInput, SeatInput
from league.teams import services as team_services
from tests.support.money_agreement import DATES, NAMES, RULES, Runner, _points

SHUGI_RULES = {**RULES, "session_shugi": 500}


# The writers the books' property tests draw from (tests/league/books/test_books.py, and with
# more besides tests/league/core/test_projections.py).
WRITERS = [
    "game",
    "game",
    "game",
    "bulk",
    "edit",
    "pay",
    "pay",
    "loan",
    "defer",
    "repay",
    "reverse",
    "undo",
    "void",
    "close",
    "version",
    "resettle",
    "shugi",
    "attend",
    "merge",
    "adjust",
    "unadjust",
]


class BooksRunner(Runner):
    """The agreement test's writers, and those it leaves out."""

    def _data(self, a: int, b: int, c: int) -> GameInput:
        members = [m for m in self.members if m.merged_into_id is None]
        date = DATES[a % len(DATES)]
        start = b % len(members)
        table = [members[(start + i) % len(members)] for i in range(4)]
        deposits = (c % 3) * 1000
        seats = [
            SeatInput(m, p, 1 if i == c % 7 else 0)
            for i, (m, p) in enumerate(zip(table, _points(b, deposits), strict=True))
        ]
        return GameInput(date=date, seats=seats, rate=["0.2", "0.3"][c % 2], deposits=deposits)

    def game(self, a: int, b: int, c: int) -> None:
        self.members = list(Member.objects.filter(club=self.club).order_by("pk"))
        if len([m for m in self.members if m.merged_into_id is None]) >= 4:
            services.game_record(club=self.club, user=self.user, data=self._data(a, b, c))

    def bulk(self, a: int, b: int, c: int) -> None:
        self.members = list(Member.objects.filter(club=self.club).order_by("pk"))
        if len([m for m in self.members if m.merged_into_id is None]) < 4:
            return
        games = []
        for i in range(1 + c % 3):
            data = self._data(a + i, b + 31 * i, c + i)
            games.append((data, services.game_preview(club=self.club, data=data)))
        services.games_record_bulk(club=self.club, user=self.user, games=games)

    def edit(self, a: int, b: int, c: int) -> None:
        games = list(Game.objects.filter(club=self.club, voided=False).order_by("id"))
        if not games:
            return
        game = games[a % len(games)]
        data = services.game_input_from_stored(game)
        deposits = data.deposits
        points = _points(b, deposits)
        seats = [SeatInput(s.member, p, s.chombo) for s, p in zip(data.seats, points, strict=True)]
        edited = GameInput(date=data.date, seats=seats, rate=data.rate, deposits=deposits)
        services.game_edit(game=game, user=self.user, data=edited)

    def shugi(self, a: int, b: int, c: int) -> None:
        days = self.days()
        if not days:
            return
        day = days[a % len(days)]
        shugis = list(day.shugi.filter(voided=False))
        if shugis and c % 2:
            money.shugi_void(shugi=shugis[b % len(shugis)], user=self.user)
            return
        present = list(day.attendees.all()) or [
            r.member for g in day.games.filter(voided=False) for r in g.results.filter(counted=True)
        ]
        if present:
            money.shugi_add(day=day, user=self.user, winner=present[b % len(present)])

    def attend(self, a: int, b: int, c: int) -> None:
        live = list(Member.objects.filter(club=self.club, merged_into__isnull=True))
        money.day_attendees_add(
            club=self.club,
            user=self.user,
            date=DATES[a % len(DATES)],
            members=[live[b % len(live)]],
        )

    def merge(self, a: int, b: int, c: int) -> None:
        live = list(Member.objects.filter(club=self.club, merged_into__isnull=True).order_by("pk"))
        if len(live) <= 4:
            return
        keep, gone = live[a % len(live)], live[b % len(live)]
        if keep != gone:
            club_services.member_merge(keep=keep, gone=gone, user=self.user)
            self.members = list(Member.objects.filter(club=self.club).order_by("pk"))

    def adjust(self, a: int, b: int, c: int) -> None:
        """A season adjustment with yen (issue 25): a penalty owed to the club, a bonus it owes."""
        season = Season.objects.get_or_create(
            club=self.club, name="通年", defaults={"start": DATES[0], "end": DATES[-1]}
        )[0]
        live = list(Member.objects.filter(club=self.club, merged_into__isnull=True).order_by("pk"))
        points = (1 + b % 300) * (1 if c % 2 else -1)
        team_services.adjustment_book(
            season=season,
            user=self.user,
            member=live[a % len(live)],
            kind="bonus" if points > 0 else "penalty",
            points=points,
            reason="調整",
            rate=["0.2", "0.3"][b % 2],
        )

    def unadjust(self, a: int, b: int, c: int) -> None:
        live = list(
            Adjustment.objects.filter(
                club=self.club, reverses__isnull=True, reversed_by__isnull=True
            )
            .exclude(kind=Adjustment.REVERSAL)
            .order_by("id")
        )
        if live:
            team_services.adjustment_reverse(entry=live[a % len(live)], user=self.user)


def make_club(slug: str = "books", rules: dict = SHUGI_RULES) -> tuple[Club, list[Member], object]:
    club = Club.objects.create(slug=slug, name="マメの会")
    RulesVersion.objects.create(
        club=club,
        effective_from=datetime.date(2026, 1, 1),
        rules_json=scoring.rules_from_json(rules).to_json(),
    )
    user = get_user_model().objects.create_user(username=f"{slug}-organiser", password="x")
    members = [Member.objects.create(club=club, name=n) for n in [*NAMES, "藤井", "後藤"]]
    return club, members, user


# Each kind of money action, in an order where each finds something to act on. "bulk" is
# games_record_bulk, the writer of an import's games (league.excel.imports.import_stored);
# "version" and "resettle" a back-dated rules version and its re-settle.
SCRIPT = [
    ("game", 0, 3, 1),
    ("game", 0, 5, 2),
    ("game", 1, 2, 3),
    ("bulk", 2, 4, 1),
    ("edit", 1, 250, 0),
    ("void", 3, 0, 0),
    ("shugi", 0, 1, 0),
    ("shugi", 0, 1, 1),
    ("attend", 0, 6, 0),
    ("pay", 0, 0, 0),
    ("loan", 0, 0, 0),
    ("defer", 1, 0, 0),
    ("repay", 0, 0, 1),
    ("reverse", 0, 0, 0),
    ("undo", 1, 0, 0),
    ("close", 0, 1, 0),
    ("adjust", 0, 50, 1),
    ("adjust", 1, 60, 0),
    ("unadjust", 0, 0, 0),
    ("version", 0, 1, 1),
    ("resettle", 1, 0, 0),
    ("merge", 0, 0, 0),
    ("game", 1, 1, 2),
]


def run_script(runner: BooksRunner, members: list[Member], each=None) -> dict[str, int]:
    """Run SCRIPT; returns how many transactions each kind of action posted. `each(op)` is
    called after every action."""
    club = runner.club
    posted: dict[str, int] = {}
    for op, a, b, c in SCRIPT:
        before = Transaction.objects.filter(club=club).count()
        if op == "merge":  # two members who never sat at one table
            pairs = [(i, j) for i in range(len(members)) for j in range(len(members)) if i != j]
            for i, j in pairs:
                try:
                    runner.run(op, i, j, c)  # refused: its action stores nothing
                    break
                except ServiceError:
                    continue
        else:
            runner.run(op, a, b, c)
        posted[op] = posted.get(op, 0) + Transaction.objects.filter(club=club).count() - before
        if each is not None:
            each(op)
    return posted
