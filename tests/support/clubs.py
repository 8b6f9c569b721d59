"""Clubs, users and logged-in clients for the tests, made the way the app makes them."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.test import Client

from league.models import Club, Member, Membership, RulesVersion

PASSWORD = "correct horse battery"
MEMBER_NAMES = [
    ("青木", "あおき"),
    ("馬場", "ばば"),
    ("千葉", "ちば"),
    ("土井", "どい"),
    ("江藤", "えとう"),
]


def make_club(slug: str, preset: str = "mame-no-kai", name: str | None = None) -> Club:
    import scoring

    club = Club.objects.create(slug=slug, name=name or slug)
    RulesVersion.objects.create(
        club=club,
        effective_from=datetime.date(2020, 1, 1),
        rules_json=scoring.PRESETS[preset].rules.to_json(),
        preset=preset,
    )
    return club


def make_user(username: str, club: Club | None = None, role: str = Membership.MEMBER):
    user = get_user_model().objects.create_user(username=username, password=PASSWORD)
    if club is not None:
        Membership.objects.create(user=user, club=club, role=role)
    return user


def make_playing_club(
    slug: str = "mame",
    preset: str = "mame-no-kai",
    name: str = "マメの会",
    names: Sequence[tuple[str, str]] = MEMBER_NAMES,
) -> Club:
    """A club with a member for each (name, kana) of `names` and the login `organiser`."""
    club = make_club(slug, preset, name)
    for member_name, kana in names:
        Member.objects.create(club=club, name=member_name, kana=kana)
    make_user("organiser", club, Membership.ORGANISER)
    return club


def client_for(user) -> Client:
    """A test client logged in as `user`."""
    c = Client()
    c.force_login(user)
    return c
