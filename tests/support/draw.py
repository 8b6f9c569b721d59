"""The table draw in tests: people checked in, rounds drawn, tables recorded."""

from __future__ import annotations

import datetime

from django.test import Client
from django.urls import reverse

from league.draw import selectors as sel
from league.draw import services as draw
from league.models import Day, Member
from tests.support.games import record_game

DATE = datetime.date(2026, 11, 21)


POINTS = (40000, 30000, 20000, 10000)


def people(club, n: int) -> list[Member]:
    return [
        Member.objects.create(club=club, name=f"選手{i:02d}", kana=f"せんしゅ{i:02d}")
        for i in range(n)
    ]


def check_in_all(club, user, members, date: datetime.date = DATE) -> Day:
    for m in members:
        draw.attendance_check_in(club=club, user=user, date=date, member=m)
    return Day.objects.get(club=club, date=date)


def record_drawn(club, organiser, date: datetime.date, tv: sel.TableView) -> None:
    """A drawn table's game recorded from its card (its table and draw table), its players in
    seat order with POINTS."""
    record_game(
        club,
        organiser,
        tv.players,
        POINTS,
        date=date,
        table=tv.table.label,
        draw_table=tv.table.pk,
    )


def current(day) -> sel.RoundView:
    return sel.current_rounds(day)[-1]


def record_table(client: Client, club, tv: sel.TableView) -> None:
    """Record a table's game through the record form, opened from its card's link."""
    address = reverse("recording:game_new", args=[club.slug]) + "?" + _query(club, tv)
    page = client.get(address)
    assert page.status_code == 200
    html = page.content.decode()
    for i, m in enumerate(tv.players):  # prefilled in seat order
        assert f'name="member_{i}" value="{m.name}"' in html or (
            f'value="{m.name}"' in html.split(f'name="member_{i}"')[1].split(">")[0]
        )
    data = {
        "date": DATE.isoformat(),
        "table": tv.table.label,
        "rate": "0.3",
        "action": "save",
        **{f"member_{i}": m.name for i, m in enumerate(tv.players)},
        **{f"points_{i}": str(p) for i, p in enumerate(POINTS)},
    }
    response = client.post(address, data)
    assert response.status_code == 302
    assert response.url == reverse("draw:draw_day", args=[club.slug, DATE])


def _query(club, tv) -> str:
    from urllib.parse import urlencode

    params = {"date": DATE.isoformat(), "table": tv.table.label, "draw_table": tv.table.pk}
    params.update({f"member_{i}": m.name for i, m in enumerate(tv.players)})
    return urlencode(params)


def _record(club, organiser, players, table=""):
    return record_game(club, organiser, players, POINTS, date=DATE, table=table)
