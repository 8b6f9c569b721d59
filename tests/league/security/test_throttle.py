"""Login throttling that cannot be raced and cannot be turned against a user (league/throttle.py):
atomic counting under concurrency (PostgreSQL), and device cookies that keep a user's own phone
working while their name is locked out for everyone else."""

from __future__ import annotations

import contextlib
import datetime
import threading
import time
from unittest import mock

import pytest
from django.contrib.auth import forms as auth_forms
from django.core import signing
from django.db import connection
from django.test import Client

from league import throttle
from league.models import LoginAttempt
from tests.support.clubs import PASSWORD, make_user
from tests.support.security import fail, logged_in, login

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL's concurrency"
)


@pytest.fixture
def aoki(db):
    return make_user("aoki")


def phone_of(username: str = "aoki", address: str = "10.0.0.7") -> Client:
    """A client that has logged in once (so holds the device cookie), then logged out."""
    phone = Client()
    response = login(phone, username, PASSWORD, address)
    assert response.status_code == 302
    assert throttle.device_cookie_name(username) in response.cookies
    phone.post("/accounts/logout/")
    return phone


# --- atomic counting -------------------------------------------------------------------------


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_wrong_passwords_never_check_more_than_the_limit(aoki):
    checked = 0
    lock = threading.Lock()
    real = auth_forms.authenticate

    def counting(*args, **kwargs):
        nonlocal checked
        with lock:
            checked += 1
        time.sleep(0.05)  # a slow hash: every thread is inside the check at once
        return real(*args, **kwargs)

    start = threading.Barrier(24)
    statuses: list[int] = []

    def attempt() -> None:
        try:
            start.wait()
            statuses.append(login(Client(), "aoki", "wrong", "10.0.0.1").status_code)
        finally:
            connection.close()

    with mock.patch("django.contrib.auth.forms.authenticate", counting):
        threads = [threading.Thread(target=attempt) for _ in range(24)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert checked == throttle.PAIR_LIMIT
    assert sorted(statuses) == [200] * 5 + [429] * 19
    assert LoginAttempt.objects.count() == throttle.PAIR_LIMIT


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_attempts_on_one_device_never_exceed_its_limit(aoki):
    phone = phone_of()
    cookie = phone.cookies[throttle.device_cookie_name("aoki")].value
    statuses: list[int] = []
    start = threading.Barrier(12)

    def attempt() -> None:
        try:
            client = Client()
            client.cookies[throttle.device_cookie_name("aoki")] = cookie
            start.wait()
            statuses.append(login(client, "aoki", "wrong", "10.0.0.7").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(statuses) == [200] * throttle.DEVICE_LIMIT + [429] * 7
    assert LoginAttempt.objects.exclude(device="").count() == throttle.DEVICE_LIMIT


def test_an_attempt_is_counted_before_its_password_is_checked(aoki):
    seen: list[int] = []
    real = auth_forms.authenticate

    def spy(*args, **kwargs):
        seen.append(LoginAttempt.objects.count())
        return real(*args, **kwargs)

    with mock.patch("django.contrib.auth.forms.authenticate", spy):
        login(Client(), "aoki", "wrong", "10.0.0.1")
        login(Client(), "aoki", PASSWORD, "10.0.0.1")
    assert seen == [1, 2]  # the second sees the first failure and itself
    assert LoginAttempt.objects.count() == 1  # the success is not kept


# --- device cookies --------------------------------------------------------------------------


def test_a_locked_out_name_still_logs_in_from_a_known_device(aoki):
    phone = phone_of()
    for i in range(5):  # an attacker: the name everywhere, and the phone's own address
        fail("aoki", f"10.9.0.{i}", 4)
    fail("someone", "10.0.0.7", throttle.ADDRESS_LIMIT)
    assert login(Client(), "aoki", PASSWORD, "10.0.0.8").status_code == 429
    assert login(Client(), "aoki", PASSWORD, "10.0.0.7").status_code == 429
    response = login(phone, "aoki", PASSWORD, "10.0.0.7")
    assert response.status_code == 302 and logged_in(phone)


def test_a_devices_failures_are_counted_per_cookie(aoki):
    phone = phone_of()
    for _ in range(throttle.DEVICE_LIMIT):
        assert login(phone, "aoki", "wrong", "10.0.0.7").status_code == 200
    assert login(phone, "aoki", PASSWORD, "10.0.0.7").status_code == 429
    # …and not against the name: another client may still log in, another device too.
    assert login(Client(), "aoki", PASSWORD, "10.0.0.8").status_code == 302
    assert login(phone_of(address="10.0.0.9"), "aoki", PASSWORD, "10.0.0.9").status_code == 302


def test_a_login_keeps_the_devices_id(aoki):
    phone = phone_of()
    name = throttle.device_cookie_name("aoki")
    first = signing.loads(phone.cookies[name].value, salt=throttle.DEVICE_SALT)
    login(phone, "aoki", PASSWORD, "10.0.0.7")
    again = signing.loads(phone.cookies[name].value, salt=throttle.DEVICE_SALT)
    assert first == again and first["u"] == "aoki"
    cookie = phone.cookies[name]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    assert int(cookie["max-age"]) == int(throttle.DEVICE_COOKIE_AGE.total_seconds())


@pytest.mark.parametrize("forgery", ["tampered", "other_user", "expired", "junk"])
def test_a_forged_copied_or_expired_cookie_is_an_untrusted_client(aoki, forgery):
    make_user("baba")
    baba_phone = phone_of("baba")
    aoki_cookie = phone_of().cookies[throttle.device_cookie_name("aoki")].value
    value = {
        "tampered": aoki_cookie[:-2] + ("AA" if not aoki_cookie.endswith("AA") else "BB"),
        "other_user": baba_phone.cookies[throttle.device_cookie_name("baba")].value,
        "expired": aoki_cookie,
        "junk": "x" * 5000,
    }[forgery]
    fail("aoki", "10.0.0.1", throttle.NAME_LIMIT)
    client = Client()
    client.cookies[throttle.device_cookie_name("aoki")] = value
    later = time.time() + throttle.DEVICE_COOKIE_AGE.total_seconds() + 60
    clock = mock.patch("django.core.signing.time.time", return_value=later)
    with clock if forgery == "expired" else contextlib.nullcontext():
        assert login(client, "aoki", PASSWORD, "10.0.0.7").status_code == 429


def test_the_function_api_takes_other_limits(db):
    limits = throttle.Limits(
        pair=1, name=2, address=3, device=1, window=datetime.timedelta(hours=1)
    )
    first = throttle.attempt_begin(username="new", address="10.0.0.1", limits=limits)
    assert first is not None
    throttle.attempt_failed(first)
    assert throttle.attempt_begin(username="new", address="10.0.0.1", limits=limits) is None
    assert throttle.is_throttled(username="new", address="10.0.0.1", limits=limits)
    second = throttle.attempt_begin(username="new", address="10.0.0.2", limits=limits)
    assert second is not None
    throttle.attempt_succeeded(second)
    assert LoginAttempt.objects.count() == 1
