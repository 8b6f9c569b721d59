"""A name's key fits its column on every path (issue 26, item 9): a 50-character name whose key
folds longer (ß → ss, ΐ → three characters) was a PostgreSQL DataError, a 500, on seven paths.
SQLite does not enforce a column's length, so the paths are tested on PostgreSQL; the bound itself
(how far one character can grow) is checked everywhere."""

from __future__ import annotations

import datetime
import sys
import unicodedata

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from league.accounts import invitations
from league.core.names import clean_name, name_key
from league.draw import services as draw_services
from league.models import Member
from league.models.members import NAME_KEY_LENGTH, NAME_LENGTH
from tests.support.clubs import make_user
from tests.support.imports import STANDARD, game, simple, upload
from tests.support.record import new_url, posted
from tests.support.signup import club_data

LONG_FOLDS = ["ß" * 50, "ΐ" * 30, "ΐ" * 50]

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite does not enforce a column's length"
)


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_key_column_holds_the_key_of_the_longest_storable_name():
    """A stored name is NFKC, so each of its characters is NFKC on its own, and none of those
    folds to more than 3: 50 characters make a key of at most 150, and a twin's key marked by the
    0007 migration ("#" and an id) fits beside it."""
    stable = (chr(i) for i in range(sys.maxunicode + 1) if not 0xD800 <= i <= 0xDFFF)
    grows = max(len(name_key(c)) for c in stable if unicodedata.normalize("NFKC", c) == c)
    assert grows == 3
    assert NAME_LENGTH * grows + len("#") + len(str(2**63)) <= NAME_KEY_LENGTH
    assert Member._meta.get_field("name_key").max_length == NAME_KEY_LENGTH
    for name in LONG_FOLDS:
        assert len(clean_name(name)) <= NAME_LENGTH < len(name_key(name)) <= NAME_KEY_LENGTH


@postgresql_only
@pytest.mark.parametrize("name", LONG_FOLDS)
def test_a_long_folding_name_is_stored_on_every_path(
    club, organiser, organiser_client, members, name
):
    slug = club.slug
    # 1. The member form.
    response = organiser_client.post(reverse("club:member_new", args=[slug]), {"name_0": name})
    assert response.status_code == 302
    created = Member.objects.get(club=club, name=name)
    assert created.name_key == name_key(name)
    # 2. Member edit: another member takes a long name that differs (ẞ is not ß's key twin).
    edited = "ẞ" * 49 + "x"
    response = organiser_client.post(
        reverse("club:member_edit", args=[slug, members[4].pk]),
        {"name": edited, "kana": "", "is_active": "on"},
    )
    assert response.status_code == 302, response.content.decode()[:500]
    assert Member.objects.get(pk=members[4].pk).name == edited
    # 3. A guest on the record form.
    guest = name[:-1] + "g"
    response = organiser_client.post(new_url(club), posted(member_3=guest, guest_3="on"))
    assert response.status_code == 302
    assert Member.objects.filter(club=club, name=guest, is_guest=True).exists()
    # 4. A guest checked in on the draw.
    day = draw_services.day_open(club=club, user=organiser, date=datetime.date(2026, 11, 21))
    drawn = name[:-1] + "d"
    response = organiser_client.post(
        reverse("draw:draw_check_in", args=[slug, day.date]), {"name": drawn, "guest": "on"}
    )
    assert response.status_code == 302
    assert Member.objects.filter(club=club, name=drawn).exists()
    # 5. A new player joining by invitation.
    _, secret = invitations.invitation_create(club=club, user=organiser)
    joining = name[:-1] + "j"
    response = logged_in(make_user("newcomer")).post(
        reverse("accounts:invitation_join", args=[secret]), {"who": "new", "name": joining}
    )
    assert response.status_code == 302
    assert Member.objects.filter(club=club, name=joining).exists()
    # 6. A new club's organiser's player name.
    response = organiser_client.post(reverse("accounts:club_new"), club_data(player_name=name))
    assert response.status_code == 302
    assert Member.objects.filter(club__slug="mame-no-kai", name=name).exists()
    # 7. An import confirmed with a new player.
    imported = name[:-1] + "i"
    data = simple(game((imported, 45000), *STANDARD[1:]))
    assert upload(organiser_client, club, data).status_code == 302
    response = organiser_client.post(reverse("excel:import_confirm", args=[slug]))
    assert response.status_code == 302
    assert Member.objects.filter(club=club, name=imported).exists()
