"""Memberships and sign-ups under concurrent requests, on PostgreSQL: two organisers stepping down
at once leave one organiser; two sign-ups for one club address make one club."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from league.models import Club, Membership
from tests.support.clubs import make_club, make_user
from tests.support.concurrency import race

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="concurrency is only real on PostgreSQL"
    ),
    pytest.mark.django_db(transaction=True),
]


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_two_organisers_stepping_down_at_once_leave_one():
    club = make_club("mame")
    users = [make_user(f"organiser-{i}", club, Membership.ORGANISER) for i in range(2)]
    clients = [logged_in(u) for u in users]
    address = reverse("accounts:memberships", args=[club.slug])

    def step_down(i: int):
        mine = Membership.objects.get(user=users[i], club=club)
        return lambda: clients[i].post(
            address, {"membership": mine.pk, "role": "member", "action": "role"}
        )

    responses = race([step_down(0), step_down(1)])
    assert all(r.status_code == 302 for r in responses)
    assert Membership.objects.filter(club=club, role=Membership.ORGANISER).count() == 1


def test_two_clubs_created_at_once_with_one_short_name_make_one_club():
    users = [make_user(f"founder-{i}") for i in range(4)]
    clients = [logged_in(u) for u in users]
    data = {"name": "マメの会", "slug": "mame-no-kai", "rules_from": "preset:mame-no-kai"}
    responses = race([lambda c=c: c.post(reverse("accounts:club_new"), data) for c in clients])
    assert sorted(r.status_code for r in responses) == [200, 200, 200, 302]
    club = Club.objects.get(slug="mame-no-kai")
    assert Membership.objects.filter(club=club).count() == 1
    assert Club.objects.count() == 1
