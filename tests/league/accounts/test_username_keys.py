"""One account per user name whatever its case or width, held by the database (issue 26, item 5):
two sign-ups racing each other made the twins Zed6504 and ZED6504, which share throttle keys and
device cookies. Every user has a folded key (league.models.accounts.UsernameKey) written in the
same transaction as the user, unique in the database; a restore cannot add Demo beside demo."""

from __future__ import annotations

import copy

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse

from league.accounts import services
from league.core.errors import ServiceError
from league.core.names import username_key
from league.models import Club
from league.models.accounts import UsernameKey
from tests.support import restore as restore_support
from tests.support.clubs import make_user
from tests.support.concurrency import race
from tests.support.restore import nothing_restored, restore
from tests.support.signup import signup_data

User = get_user_model()


@pytest.fixture
def saved(club, organiser, members, tmp_path):
    return restore_support.saved_elsewhere(club, organiser, members, tmp_path)


def test_the_key_folds_case_and_width():
    assert username_key("Zed6504") == username_key("ZED6504") == username_key("ｚｅｄ６５０４")
    assert username_key("Ärger") == username_key("ärger")
    assert username_key("Straße") == username_key("STRASSE")
    assert username_key("zed6504") != username_key("zed6505")


def test_every_user_has_its_key(db):
    user = make_user("Zed6504")
    assert UsernameKey.objects.get(user=user).key == username_key("Zed6504")
    user.username = "Zed6505"
    user.save()
    assert UsernameKey.objects.get(user=user).key == username_key("Zed6505")
    user.save(update_fields=["last_login"])  # a login: no key rewritten
    assert UsernameKey.objects.count() == 1


@pytest.mark.parametrize("twin", ["ZED6504", "zed6504", "ｚｅｄ６５０４"])
def test_the_database_refuses_a_twin_on_any_path(db, twin):
    make_user("Zed6504")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username=twin, password="x")
    assert User.objects.count() == 1


@pytest.mark.parametrize(("first", "twin"), [("Ärger", "ärger"), ("Straße", "STRASSE")])
def test_sign_up_refuses_a_twin_beyond_ascii(db, first, twin):
    services.signup(username=first, password="tsumo-pinfu-2026")
    with pytest.raises(ServiceError) as caught:
        services.signup(username=twin, password="tsumo-pinfu-2026")
    assert "username" in caught.value.errors
    assert User.objects.count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="races are real on PostgreSQL")
def test_sign_ups_racing_in_every_case_make_one_account():
    names = ["Zed6504", "ZED6504", "zed6504", "zED6504", "ｚｅｄ６５０４", "ZeD6504"]
    clients = [Client(REMOTE_ADDR=f"192.0.2.{i + 1}") for i in range(len(names))]
    responses = race(
        [
            lambda c=c, n=n: c.post(reverse("accounts:signup"), signup_data(username=n))
            for c, n in zip(clients, names, strict=True)
        ]
    )
    assert sorted(r.status_code for r in responses) == [200] * (len(names) - 1) + [302]
    assert User.objects.count() == 1
    assert UsernameKey.objects.get().key == username_key("zed6504")


@pytest.mark.django_db(transaction=True)
def test_a_restore_cannot_add_a_case_twin(saved, tmp_path):
    make_user("Organiser")  # someone here whose name differs from the file's only in case
    with pytest.raises(CommandError, match="case or width"):
        restore(copy.deepcopy(saved), tmp_path)
    assert not Club.objects.filter(slug="mame").exists()
    assert User.objects.filter(username="organiser").count() == 0
    # Said whom it is: restored onto that account.
    restore(saved, tmp_path, "--map-user", "organiser=Organiser")
    assert Club.objects.filter(slug="mame").exists()
    assert User.objects.filter(username__iexact="organiser").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_restore_cannot_hold_two_twins(saved, tmp_path):
    saved["users"].append({**saved["users"][0], "username": "ORGANISER"})
    membership = next(o for o in saved["objects"] if o["model"] == "league.membership")
    copy_row = copy.deepcopy(membership)
    copy_row["pk"] += 1000
    copy_row["fields"]["user"] = ["ORGANISER"]
    saved["objects"].append(copy_row)
    with pytest.raises(CommandError, match="case or width"):
        restore(saved, tmp_path)
    assert nothing_restored()
