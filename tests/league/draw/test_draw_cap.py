"""The table draw has a cap (issue 26, item 8): 5,000 checked-in players took 21 s and 573 MB for
one round, and anyone who signs up can make a club. A day seats at most MAX_PLAYERS; one more is
refused with a message (in Japanese on screen), nothing stored, and a draw at the cap is bounded."""

from __future__ import annotations

import datetime
import tracemalloc

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from league.core.errors import ServiceError
from league.draw import algorithm
from league.draw import services as draw
from league.models import Day, Member
from league.models.draw import Attendance, DrawRound

DATE = datetime.date(2026, 11, 21)


def crowd(club, n: int) -> Day:
    """`n` players checked in on DATE, written directly (the check-in of each is tested
    elsewhere)."""
    day = Day.objects.create(club=club, date=DATE)
    members = Member.objects.bulk_create(
        [Member(club=club, name=f"選手{i:03d}", name_key=f"選手{i:03d}") for i in range(n)]
    )
    Attendance.objects.bulk_create([Attendance(day=day, member=m) for m in members])
    return day


def test_the_algorithm_refuses_more_than_the_cap_at_once(monkeypatch):
    """Before any search: the 5,000 are counted and refused, and no search is built."""

    def no_search(*args, **kwargs):
        raise AssertionError("a search was built for more players than the cap")

    monkeypatch.setattr(algorithm, "_Search", no_search)
    with pytest.raises(algorithm.DrawError) as refused:
        algorithm.draw(players=range(1, 5001), rounds=1)
    assert str(refused.value) == str(algorithm.TOO_MANY_PLAYERS)


def test_a_draw_at_the_cap_is_bounded_in_memory_and_stops_at_its_time_cap():
    """800 players over the most rounds: the whole schedule, each player once per round, in
    bounded memory, also when the time cap stops the search early (its speed is the benchmark's:
    benchmarks/draw_bench.py)."""
    tracemalloc.start()
    players = list(range(1, algorithm.MAX_PLAYERS + 1))
    rounds = algorithm.draw(players=players, rounds=draw.MAX_ROUNDS, time_cap=0.2)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(rounds) == draw.MAX_ROUNDS
    for rnd in rounds:
        assert sorted(p for t in rnd.tables for p in t) == players
    assert peak < 50_000_000


def test_one_more_than_the_cap_is_refused_at_check_in_in_japanese(
    organiser_client, club, organiser
):
    day = crowd(club, algorithm.MAX_PLAYERS)
    address = reverse("draw:draw_check_in", args=[club.slug, DATE])
    response = organiser_client.post(address, {"name": "新顔", "guest": "on"})
    assert response.status_code == 302
    shown = [str(m) for m in get_messages(response.wsgi_request)]
    assert any(f"{algorithm.MAX_PLAYERS}人まで" in m for m in shown), shown
    assert Attendance.objects.filter(day=day).count() == algorithm.MAX_PLAYERS
    assert not Member.objects.filter(name="新顔").exists()  # the guest is not kept either
    # A player who left makes room again.
    first = Attendance.objects.filter(day=day).first()
    draw.attendance_leave(club=club, user=organiser, day=day, member=first.member)
    response = organiser_client.post(address, {"name": "新顔", "guest": "on"})
    assert Member.objects.filter(name="新顔").exists()


def test_the_service_refuses_a_check_in_beyond_the_cap(club, organiser):
    crowd(club, algorithm.MAX_PLAYERS)
    extra = Member.objects.create(club=club, name="遅刻")
    with pytest.raises(ServiceError) as caught:
        draw.attendance_check_in(club=club, user=organiser, date=DATE, member=extra)
    assert "member" in caught.value.errors
    assert Attendance.objects.count() == algorithm.MAX_PLAYERS


def test_a_day_over_the_cap_is_refused_when_drawn_not_a_500(organiser_client, club):
    crowd(club, algorithm.MAX_PLAYERS + 5)  # written around the check-in (an old day, the shell)
    response = organiser_client.post(reverse("draw:draw_round", args=[club.slug, DATE]), {})
    assert response.status_code in (200, 302)
    assert not DrawRound.objects.exists()
