"""Money in tests: マメの会's ledger case day, 花月杯's season, members to seat."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from league.models import Day, Member, Season
from league.recording import services
from league.recording.services import ChipInput, GameInput, SeatInput
from tests.support.clubs import make_club
from tests.support.seasons import make_season

DATE = datetime.date(2026, 10, 3)


NAMES = ["青木", "馬場", "千葉", "土井", "江藤", "藤井"]


def make_members(club, names: Sequence[str] = NAMES) -> dict[str, Member]:
    return {n: Member.objects.create(club=club, name=n) for n in names}


def record(club, date, seats, *, rate="", deposits=0, chips=(), chombo=()) -> None:
    """seats: (member, points) from 起家; chombo: the members who made one."""
    services.game_record(
        club=club,
        user=None,
        data=GameInput(
            date=date,
            seats=[SeatInput(m, p, chombo.count(m)) for m, p in seats],
            rate=rate,
            deposits=deposits,
            chips=chips,
        ),
    )


def ledger_case_day(club, m: dict[str, Member], date=DATE) -> Day:
    """The first day of tests/data/cases/ledger.json: 青木 2,040, 馬場 1,140, 千葉 ▲1,650,
    土井 ▲1,860, 江藤 300, house 30 (at yen unit 1)."""
    record(
        club,
        date,
        [(m["青木"], 52000), (m["馬場"], 31000), (m["千葉"], 19000), (m["土井"], -3000)],
        rate="0.3",
        deposits=1000,
        chombo=[m["馬場"]],
        chips=[ChipInput("ippatsu", m["青木"]), ChipInput("yakuman", m["千葉"], m["土井"])],
    )
    record(
        club,
        date,
        [(m["馬場"], 40000), (m["江藤"], 30000), (m["青木"], 20000), (m["千葉"], 10000)],
        rate="0.3",
    )
    return Day.objects.get(club=club, date=date)


def kagetsu_season(n_days: int, *, min_games: int = 0, slug: str = "kagetsu"):
    """A 花月杯 season up to DATE: each day two games where 土井 comes 4th (1,000 yen each)."""
    club = make_club(slug, "kagetsu-cup")
    end = DATE
    m = make_members(club)
    start = end - datetime.timedelta(days=n_days - 1)
    for i in range(n_days):
        date = start + datetime.timedelta(days=i)
        for _game in range(2):
            record(
                club,
                date,
                [(m["青木"], 40000), (m["馬場"], 30000), (m["千葉"], 20000), (m["土井"], 10000)],
            )
    season = make_season(club=club, name="2026", start=start, end=end, min_games=min_games)
    return club, m, Season.objects.select_related("club").get(pk=season.pk)
