"""Issue 42 part 4, the room: the projector page of a day's draw (current round's tables and
seats, the organiser's countdown, the day's standings when allowed) and its controls, each an
audited action; a fixed number of queries whatever the number of tables."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from league.draw import services as draw
from league.models import AuditLog, Day
from league.models.draw import DrawRoom
from tests.support.draw import DATE, _record, check_in_all, current, people
from tests.support.games import record_game


def projector(client: Client, club) -> str:
    response = client.get(reverse("draw:draw_projector", args=[club.slug, DATE]))
    assert response.status_code == 200
    return response.content.decode()


def room(client: Client, club, **data: str):
    return client.post(reverse("draw:draw_room", args=[club.slug, DATE]), data, follow=True)


@pytest.fixture
def drawn(club, organiser) -> Day:
    day = check_in_all(club, organiser, people(club, 10))
    draw.round_draw(club=club, user=organiser, date=DATE)
    return day


def test_the_projector_shows_the_round_s_tables_and_seats(member_client, club, drawn) -> None:
    page = projector(member_client, club)
    assert 'id="round" data-round="1"' in page and "1回戦" in page
    for tv in current(drawn).tables:
        assert f'data-table="{tv.table.label}"' in page
        for wind, m in tv.seated:
            assert f"<b>{wind}</b><span>{m.name}</span>" in page
    assert 'id="countdown"' not in page and 'id="standings"' not in page
    assert '<meta http-equiv="refresh"' in page


def test_the_organiser_starts_and_stops_the_countdown(
    organiser_client, member_client, club, drawn
) -> None:
    response = room(organiser_client, club, do="start", minutes="３０")  # full-width digits
    assert "30分のカウントダウンを開始しました" in response.content.decode()
    stored = DrawRoom.objects.get(day=drawn)
    left = (stored.timer_ends_at - timezone.now()).total_seconds()
    assert stored.timer_minutes == 30 and 29 * 60 < left <= 30 * 60
    page = projector(member_client, club)
    assert 'id="countdown"' in page and (">30:00<" in page or ">29:5" in page)
    entry = AuditLog.objects.filter(action="draw.timer_start").get()
    assert entry.after["minutes"] == 30 and entry.before["ends_at"] is None

    room(organiser_client, club, do="stop")
    stored.refresh_from_db()
    assert stored.timer_ends_at is None
    assert 'id="countdown"' not in projector(member_client, club)
    assert AuditLog.objects.filter(action="draw.timer_stop").get().before["minutes"] == 30


def test_a_countdown_that_ran_out_says_time(organiser_client, member_client, club, drawn) -> None:
    room(organiser_client, club, do="start", minutes="1")
    DrawRoom.objects.filter(day=drawn).update(
        timer_ends_at=timezone.now() - datetime.timedelta(seconds=5)
    )
    page = projector(member_client, club)
    assert 'class="countdown over" data-left="0"' in page and "終了" in page


@pytest.mark.parametrize("minutes", ["", "0", "181", "abc", "▲5"])
def test_bad_minutes_are_refused_naming_the_field(organiser_client, club, drawn, minutes) -> None:
    page = room(organiser_client, club, do="start", minutes=minutes).content.decode()
    assert "分" in page and "カウントダウンを開始しました" not in page
    assert not DrawRoom.objects.filter(day=drawn, timer_ends_at__isnull=False).exists()
    assert not AuditLog.objects.filter(action="draw.timer_start").exists()


def test_only_organisers_control_the_room(member_client, club, drawn) -> None:
    response = member_client.post(
        reverse("draw:draw_room", args=[club.slug, DATE]), {"do": "start", "minutes": "30"}
    )
    assert response.status_code in (403, 404)
    assert not DrawRoom.objects.exists()


def test_the_standings_show_only_when_allowed(
    organiser_client, member_client, club, organiser, drawn
) -> None:
    tv = current(drawn).tables[0]
    _record(club, organiser, tv.players, table=tv.table.label)
    assert 'id="standings"' not in projector(member_client, club)
    room(organiser_client, club, do="show")
    page = projector(member_client, club)
    assert 'id="standings"' in page
    top = tv.players[0].name  # 40,000 points: first of the day
    assert f"<b>1</b><span>{top}</span>" in page
    assert AuditLog.objects.filter(action="draw.room_standings").get().after == {
        "show_standings": True
    }
    room(organiser_client, club, do="hide")
    assert 'id="standings"' not in projector(member_client, club)


@pytest.mark.parametrize("show", [False, True])
def test_the_projector_s_queries_do_not_grow_with_the_room(
    member_client, club, organiser, django_assert_num_queries, show
) -> None:
    players = people(club, 40)
    counts = []
    for date, n in ((DATE, 8), (DATE + datetime.timedelta(days=1), 40)):
        for m in players[:n]:
            draw.attendance_check_in(club=club, user=organiser, date=date, member=m)
        rnd = draw.round_draw(club=club, user=organiser, date=date)
        day = Day.objects.get(club=club, date=date)
        draw.room_timer(club=club, user=organiser, day=day, minutes=45)
        draw.room_standings(club=club, user=organiser, day=day, shown=show)
        for table in rnd.tables.all()[:2]:
            seated = [s.member for s in table.seats.order_by("seat")]
            _record_on(club, organiser, seated, date, table.label)
        with django_assert_num_queries(QUERIES[show]) as ctx:
            response = member_client.get(reverse("draw:draw_projector", args=[club.slug, date]))
        assert response.status_code == 200
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1]


# The same at 8 and at 40 players (ten reads, as measured); the day's standings: one more.
QUERIES = {False: 9, True: 10}


def _record_on(club, organiser, players, date, table):
    return record_game(
        club, organiser, players, (40000, 30000, 20000, 10000), date=date, table=table
    )
