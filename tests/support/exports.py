"""Games and days played for the export tests, and reading the workbooks back."""

from __future__ import annotations

import datetime
import io
from collections.abc import Sequence
from typing import Any

from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook

from league import money
from league.models import Club, Day, Member
from tests.support.clubs import make_club, make_user
from tests.support.games import record_game

DATE = datetime.date(2026, 11, 21)


POINTS = (52000, 31000, 19000, -3000)  # with 1,000 in deposits


def url(name: str, club: Club, *args: Any) -> str:
    return reverse(name, args=[club.slug, *args])


def play(
    club: Club,
    date: datetime.date,
    seats: Sequence[Member],
    *,
    rate: str = "0.3",
    table: str = "A",
    chombo: Sequence[Member] = (),
):
    return record_game(
        club, None, seats, POINTS, date=date, table=table, deposits=1000, rate=rate, chombo=chombo
    )


def moneyless_played(role: str = "member") -> tuple[Club, list[Member], Client]:
    """高針健康麻雀 (a club without money) with one game of four on DATE, and a logged-in client
    of its `role` (Membership.MEMBER or ORGANISER)."""
    kenko = make_club("kenko", "takabari-kenko", "高針健康麻雀")
    user = make_user(f"kenko-{role}", kenko, role)
    people = [Member.objects.create(club=kenko, name=n) for n in ("甲", "乙", "丙", "丁")]
    play(kenko, DATE, people, rate="")
    client = Client()
    client.force_login(user)
    return kenko, people, client


def play_day(club: Club, players: Sequence[Member], date: datetime.date = DATE) -> None:
    """Three games: every player, the formula-like names included, plays at least once."""
    play(club, date, players[0:4], chombo=[players[1]])
    play(club, date, players[4:8], table="卓B")
    play(club, date, [players[8], players[0], players[9], players[10]], rate="0.5")


def download(client: Client, path: str, **params: str):
    response = client.get(path, params)
    assert response.status_code == 200, (path, response.status_code)
    # Reading the content to the end closes the response, with Django's per-request connection
    # clean-up held off; a second close() here would close the test's database connection.
    content = b"".join(response.streaming_content)
    return response, load_workbook(io.BytesIO(content))


def values(ws) -> list[list[Any]]:
    return [[c.value for c in row] for row in ws.iter_rows()]


def settle_some(day: Day) -> money.DayLedger:
    """Pay the first remaining transfer and defer the next one. (A fresh Day each time:
    day_ledger keeps what it loads on the instance.)"""
    first = money.day_ledger(day=Day.objects.get(pk=day.pk)).transfers[0]
    money.transfer_pay(
        day=day, user=None, payer=money.party(first.payer), payee=money.party(first.payee)
    )
    second = money.day_ledger(day=Day.objects.get(pk=day.pk)).transfers[0]
    payer = money.party(second.payer)
    assert payer is not None
    money.transfer_defer(day=day, user=None, payer=payer, payee=money.party(second.payee))
    return money.day_ledger(day=Day.objects.get(pk=day.pk))


# Names a spreadsheet would run if they were typed into a cell (and one it would show as an error).
INJECTIONS = ["=1+1", "@SUM(A1)", "+cmd|' /C calc'!A0", "-2+3", '=HYPERLINK("x")', "#N/A"]


def injected_players(club, members) -> list[Member]:
    """The club's members and six more whose names look like spreadsheet formulas (INJECTIONS)."""
    more = [Member.objects.create(club=club, name=n, kana="ん") for n in INJECTIONS]
    return [*members, *more]
