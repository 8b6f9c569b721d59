"""A club built with something of everything, and its backup file."""

from __future__ import annotations

import dataclasses
import datetime
import json
import uuid
from io import StringIO
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from league import money
from league.club import services as club_services
from league.draw import services as draw
from league.models import (
    ApiToken,
    Club,
    Day,
    FinalSeat,
    Game,
    Invitation,
    Member,
    Membership,
    RulesVersion,
    Season,
    Stage,
    StageEntry,
    TeamMatch,
    TeamSlot,
)
from league.money import services as money_services
from league.online import services as online
from league.recording import services
from league.table import services as table_services
from league.teams import services as teams
from tests.support import paths
from tests.support.clubs import make_user
from tests.support.imports import SIMPLE_HEADER, xlsx
from tests.support.isolation import money_rules

# One game of a workbook, on a day of its own (its members by name, as a club types them).
IMPORTED = [
    datetime.date(2026, 10, 3),
    "A",
    "青木",
    45000,
    "馬場",
    31000,
    "千葉",
    19000,
    "土井",
    5000,
    0,
]


DAY_1 = datetime.date(2026, 11, 21)


DAY_2 = datetime.date(2026, 11, 28)


ONLINE_LOG = paths.DATA / "online" / "2019021004gm-00a9-0000-e2f6516d.json"


def game(club: Club, user, players: list[Member], points, date=DAY_1, **extra: Any) -> Game:
    seats = [services.SeatInput(m, p) for m, p in zip(players, points, strict=True)]
    data = services.GameInput(date=date, seats=seats, rate="0.3", **extra)
    return services.game_record(club=club, user=user, data=data)


def build_club(club: Club, organiser, members: list[Member]) -> None:
    """Games (one edited, one void), chips, attendees, shūgi, a payment, a deferral, a partial
    repayment, a reversal, a day without money settled yet, an API token."""
    RulesVersion.objects.create(
        club=club, effective_from=datetime.date(2026, 1, 1), rules_json=money_rules()
    )
    editor = make_user("editor", club, Membership.ORGANISER)
    guest = club_services.member_create(club=club, user=organiser, name="ゲスト", kana="げすと")
    a, b, c, d, e = members
    ippatsu = services.ChipInput("ippatsu", winner=a, discarder=c)
    first = game(club, organiser, [a, b, c, d], (45000, 30000, 20000, 5000), chips=[ippatsu])
    game(club, organiser, [b, c, d, e], (32000, 28000, 25000, 15000))
    void = game(club, organiser, [a, b, c, d], (40000, 30000, 20000, 10000))
    services.game_void(game=void, user=editor, reason="entered twice")
    stored = services.game_input_from_stored(first)
    seats = [services.SeatInput(a, 46000), *stored.seats[1:3], services.SeatInput(d, 4000)]
    services.game_edit(game=first, user=editor, data=dataclasses.replace(stored, seats=seats))
    money_services.day_attendees_add(club=club, user=organiser, date=DAY_1, members=[guest])
    day = Day.objects.get(club=club, date=DAY_1)
    money.shugi_add(day=day, user=organiser, winner=b)

    def transfer(index: int):
        t = [t for t in money.day_ledger(day=day).transfers if t.payer is not None][index]
        return {"payer": int(t.payer), "payee": None if t.payee is None else int(t.payee)}

    payment = money.transfer_pay(day=day, user=organiser, **transfer(0))
    deferral = money.transfer_defer(day=day, user=editor, **transfer(1))
    money.debt_repay(debt_entry=deferral, user=organiser, amount=100)
    money.entry_reverse(entry=payment, user=editor, note="paid to the wrong person")
    game(club, organiser, [a, c, d, e], (50000, 25000, 15000, 10000), date=DAY_2)
    online.online_game_record(  # an online game: its log record and the names it mapped
        club=club,
        user=organiser,
        read=online.log_read(ONLINE_LOG.read_text(encoding="utf-8")),
        members=[a, b, c, d],
        date=DAY_2,
    )
    # An import (league.excel.imports): its batch, and the game that remembers it.
    importer = Client()
    importer.force_login(organiser)
    workbook = SimpleUploadedFile("scores.xlsx", xlsx(("2026", [SIMPLE_HEADER, IMPORTED])))
    assert importer.post(reverse("excel:import_upload", args=[club.slug]), {"workbook": workbook})
    assert importer.post(reverse("excel:import_confirm", args=[club.slug]), {}).status_code == 302
    assert Game.objects.filter(club=club, import_batch__isnull=False).count() == 1
    season = Season.objects.create(club=club, name="2026", start=DAY_1, end=DAY_2, min_games=1)
    team = teams.team_create(  # a team with its roster, and an adjustment outside any game
        season=season,
        user=organiser,
        data=teams.TeamInput(
            name="赤", short_name="赤", colour="#c53030", members=[a, b], captains=[a]
        ),
    )
    teams.adjustment_book(
        season=season, user=organiser, team=team, kind="penalty", points=-50, reason="遅刻"
    )
    teams.adjustment_book(  # a member's, with its yen in the books (a ledger entry)
        season=season,
        user=organiser,
        member=b,
        kind="chombo",
        points=-200,
        reason="誤ロン",
        rate="0.3",
    )
    # A team match table with a named slot, and a season's two stages, one entry carried in.
    match = TeamMatch.objects.create(club=club, season=season, date=DAY_2, round=1, position=0)
    TeamSlot.objects.create(match=match, team=team, seat=0, member=a)
    stages = [
        Stage.objects.create(
            club=club, season=season, number=n, name=f"第{n}", first_day=DAY_1, last_day=DAY_2
        )
        for n in (1, 2)
    ]
    StageEntry.objects.create(stage=stages[1], team=team, place=1, total_before=10, carried=5)
    # A fixed-table final a month later, its first finalist seated.
    final = Stage.objects.create(
        club=club,
        season=season,
        number=3,
        name="決勝",
        first_day=DAY_2 + datetime.timedelta(days=30),
        last_day=DAY_2 + datetime.timedelta(days=30),
        fixed_table=True,
    )
    FinalSeat.objects.create(stage=final, table=0, seat=0, member=a, place=1, created_by=organiser)
    table = table_services.table_start(  # a game played hand by hand: a yakuman busts the dealer
        club=club,
        user=organiser,
        key=uuid.uuid4(),
        date=DAY_2,
        members=[e, b, c, guest],
        rate="0.3",
    )
    table_services.hand_record(
        tg=table,
        user=organiser,
        index=0,
        key=uuid.uuid4(),
        event={
            "result": "ron",
            "from": str(e.pk),
            "winners": [{"player": str(c.pk), "yakuman": 1}],
        },
    )
    table_services.table_game_save(tg=table, user=organiser)
    ApiToken.objects.create(
        user=organiser, club=club, name="LINE bot", prefix="jc_1", key_hash="f" * 64
    )
    Invitation.objects.create(  # an invitation tied to a player record (hash only, as tokens)
        club=club,
        member=e,
        created_by=organiser,
        prefix="inv_1",
        token_hash="e" * 64,
        expires_at=datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC),
    )
    for m in (a, b, c, d, e):  # the table draw: check-ins, a round, its table and seats
        draw.attendance_check_in(club=club, user=organiser, date=DAY_2, member=m)
    draw.round_draw(club=club, user=organiser, date=DAY_2)


def backup(slug: str, path: Path) -> dict[str, Any]:
    call_command("backup", slug, str(path), stdout=StringIO())
    return json.loads(path.read_text(encoding="utf-8"))
