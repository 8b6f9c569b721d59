"""Smaller points of issue 26, item 6: changing one's e-mail asks for the password; login counts an
IPv6 client by its /64, as sign-up and reset do; a password reset takes the same time whether or
not the address is known (the mail is sent after the response); whether a club address is taken
is answered only to someone who may start that club, at sign-up's pace."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from league.accounts import services as account_services
from league.accounts.views import account as account_views
from league.models import Club, LoginAttempt
from tests.support.clubs import PASSWORD, make_user

LOGIN = "/accounts/login/"


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- the e-mail address needs the password ------------------------------------------------------


def test_changing_the_e_mail_address_asks_for_the_password(organiser):
    client = logged_in(organiser)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ja"
    address = reverse("accounts:account")
    assert 'name="password"' in client.get(address).content.decode()
    for sent in ({}, {"password": "wrong-password"}):
        response = client.post(address, {"email": "thief@example.com", **sent})
        assert response.status_code == 200
        assert "password" in response.context["email_form"].errors
        assert "パスワード" in response.content.decode()
        organiser.refresh_from_db()
        assert organiser.email == ""
    response = client.post(address, {"email": "yamada@example.jp", "password": PASSWORD})
    assert response.status_code == 302
    organiser.refresh_from_db()
    assert organiser.email == "yamada@example.jp"


# --- login counts an IPv6 client by its /64 ------------------------------------------------------


def test_login_counts_ipv6_clients_by_their_64(db):
    make_user("aoki")
    for i in range(1, 6):  # five wrong passwords, each from another address of one /64
        Client().post(
            LOGIN, {"username": "aoki", "password": "wrong"}, REMOTE_ADDR=f"2001:db8:1:2::{i}"
        )
    assert set(LoginAttempt.objects.values_list("address", flat=True)) == {"2001:db8:1:2::"}
    same_64 = Client().post(
        LOGIN, {"username": "aoki", "password": PASSWORD}, REMOTE_ADDR="2001:db8:1:2::ffff"
    )
    assert same_64.status_code == 429
    other_64 = Client().post(
        LOGIN, {"username": "aoki", "password": PASSWORD}, REMOTE_ADDR="2001:db8:1:3::1"
    )
    assert other_64.status_code == 302


# --- a reset mail is sent after the response -----------------------------------------------------


@pytest.mark.database_tasks
def test_a_reset_mail_is_sent_by_the_worker_not_during_the_response(organiser):
    """The request only queues the mail (league.accounts.tasks): a known address and an
    unknown one take the same path through the request, and the worker sends the one mail."""
    organiser.email = "organiser@example.jp"
    organiser.save()
    for email in ("organiser@example.jp", "nobody@example.jp"):
        response = Client().post(reverse("accounts:password_reset"), {"email": email})
        assert response.status_code == 302 and response.url == reverse(
            "accounts:password_reset_done"
        )
    assert mail.outbox == []  # nothing was sent inside the requests
    queued = DBTaskResult.objects.get()  # one task, for the known address
    # What the worker does with it (tests/league/core/test_worker.py runs a real worker process).
    queued.task.call(*queued.task_result.args, **queued.task_result.kwargs)
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["organiser@example.jp"]
    assert "/reset/" in mail.outbox[0].body


# --- whether a club address is taken --------------------------------------------------------------


def test_the_slug_check_answers_only_those_who_may_start_a_club(db, settings, club):
    settings.SIGNUP = False  # a private installation: members do not start clubs
    invited = make_user("invited", club)
    response = logged_in(invited).get(reverse("accounts:slug_check"), {"slug": "mame"})
    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")


def test_the_slug_check_says_taken_at_sign_ups_pace(db, club):
    client = logged_in(make_user("prober"))
    address = reverse("accounts:slug_check")

    def check(slug: str, ip: str):
        return client.get(address, {"slug": slug}, REMOTE_ADDR=ip)

    for i in range(account_views.SIGNUP_LIMIT):  # each "taken" counts, from one /64
        # A free name and a badly formed one are not counted: typing goes on being checked.
        assert json.loads(check("free-name", "2001:db8::99").content)["error"] == ""
        assert json.loads(check("x", "2001:db8::99").content)["error"]
        answer = json.loads(check("mame", f"2001:db8::{i + 1}").content)
        assert answer["error"]
    for slug in ("mame", "free-name"):  # over the limit: no answer about any address
        refused = check(slug, "2001:db8::ffff")
        assert refused.status_code == 429
        assert json.loads(refused.content)["error"]
    assert check("x", "2001:db8::ffff").status_code == 200  # the format is no secret
    other = logged_in(make_user("elsewhere"))
    assert other.get(address, {"slug": "mame"}, REMOTE_ADDR="192.0.2.9").status_code == 200


def test_the_new_club_form_also_says_taken_at_sign_ups_pace(db, club):
    """Sending the new-club form with taken short names is the same question as the live check:
    each "taken" counts, and over the pace the form says nothing about the name (429)."""
    from tests.support.signup import club_data

    client = logged_in(make_user("form-prober"))
    for _i in range(account_views.SIGNUP_LIMIT):
        taken = client.post(
            reverse("accounts:club_new"), club_data(slug="mame"), REMOTE_ADDR="192.0.2.7"
        )
        assert taken.status_code == 200
        assert str(account_services.SLUG_TAKEN) in taken.content.decode()
    refused = client.post(
        reverse("accounts:club_new"), club_data(slug="mame"), REMOTE_ADDR="192.0.2.7"
    )
    assert refused.status_code == 429
    assert str(account_services.SLUG_TAKEN) not in refused.content.decode()
    assert Club.objects.count() == 1
