"""Who is signed in, read from the shared cache (league.accounts.backends.CachedUserBackend):
a repeat request reads no user from the database, and a user saved anywhere (a new password, a
deactivation) is read again at once. Django's ModelBackend stays listed for the sessions signed
in before, and a wrong password is hashed once, not once per backend.

The backend is listed when the cache is shared (settings.CACHE_SHARED: .ci/run's Redis leg);
elsewhere these tests list it themselves over the process's own cache, which is one process's
view of the same thing."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league import settings as league_settings
from league.accounts.backends import CachedUserBackend
from league.conf.cache import RedisCache
from tests.support.clubs import PASSWORD

CACHED = "league.accounts.backends.CachedUserBackend"
MODEL = "django.contrib.auth.backends.ModelBackend"


@pytest.fixture(autouse=True)
def backends(settings):
    settings.AUTHENTICATION_BACKENDS = [CACHED, MODEL]


def user_queries(client: Client, address: str) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(address)
    return response.status_code, [
        q["sql"] for q in captured.captured_queries if '"auth_user"' in q["sql"].split("WHERE")[0]
    ]


def test_the_shared_cache_lists_the_backend_first():
    """As league/settings.py lists them (the fixture above lists both for the other tests)."""
    listed = league_settings.AUTHENTICATION_BACKENDS
    assert listed == ([CACHED, MODEL] if settings.CACHE_SHARED else [MODEL])


def test_a_repeat_request_reads_the_user_from_the_cache(club, member_user):
    client = Client()
    client.force_login(member_user)
    assert client.session[BACKEND_SESSION_KEY] == CACHED
    address = reverse("standings:standings", args=[club.slug])
    status, first = user_queries(client, address)
    assert status == 200 and len(first) == 1
    status, again = user_queries(client, address)
    assert status == 200 and again == []


def test_a_user_saved_elsewhere_is_read_again(club, member_user):
    client = Client()
    client.force_login(member_user)
    address = reverse("standings:standings", args=[club.slug])
    assert client.get(address).status_code == 200
    member_user.first_name = "新"
    member_user.save()
    status, queries = user_queries(client, address)
    assert status == 200 and len(queries) == 1


def test_a_new_password_or_a_deactivation_signs_the_session_out_at_once(club, member_user):
    """Django's session hash: a password changed elsewhere ends the other sessions. With the user
    kept in the cache, the very next request must see the new password, not the kept one."""
    address = reverse("standings:standings", args=[club.slug])
    client = Client()
    client.force_login(member_user)
    assert client.get(address).status_code == 200
    member_user.set_password("a-new-password-今")
    member_user.save()
    response = client.get(address)
    assert response.status_code == 404 and not response.wsgi_request.user.is_authenticated

    client.force_login(member_user)
    assert client.get(address).status_code == 200
    member_user.is_active = False
    member_user.save()
    response = client.get(address)
    assert response.status_code == 404 and not response.wsgi_request.user.is_authenticated


def test_a_session_signed_in_before_by_the_model_backend_stays_signed_in(club, member_user):
    client = Client()
    client.force_login(member_user, backend=MODEL)
    assert client.get(reverse("standings:standings", args=[club.slug])).status_code == 200


def test_signing_in_goes_through_the_cached_backend(club, member_user):
    client = Client()
    response = client.post(
        reverse("accounts:login"), {"username": member_user.username, "password": PASSWORD}
    )
    assert response.status_code == 302
    assert client.session[BACKEND_SESSION_KEY] == CACHED


def test_a_wrong_password_is_hashed_once(club, member_user, monkeypatch):
    """The ModelBackend listed after the cached one would hash a wrong guess a second time."""
    hashed = []
    verify = MD5PasswordHasher.verify
    monkeypatch.setattr(
        MD5PasswordHasher, "verify", lambda self, *a: hashed.append(1) or verify(self, *a)
    )
    response = Client().post(
        reverse("accounts:login"), {"username": member_user.username, "password": "wrong"}
    )
    assert response.status_code == 200  # the form again, with its error
    assert len(hashed) == 1


def test_the_cache_unreachable_reads_the_user_from_the_database(member_user, monkeypatch):
    def refused(*args, **kwargs):
        raise ConnectionError("the cache did not answer")

    monkeypatch.setattr(cache, "get", refused)
    monkeypatch.setattr(cache, "set", refused)
    assert CachedUserBackend().get_user(member_user.pk) == member_user


def test_the_redis_cache_keeps_one_client_per_pool():
    """Django's RedisCache builds a redis.Redis for every call; ours builds one per pool."""
    kept = RedisCache("redis://127.0.0.1:1/0", {})
    first = kept._cache.get_client()
    assert kept._cache.get_client() is first
    assert kept._cache.get_client(write=True) is first  # one server: one pool for both
