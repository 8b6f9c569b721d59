"""Login throttling, the Content-Security-Policy with pages that keep to it, and production settings
that pass `manage.py check --deploy`."""

from __future__ import annotations

import datetime
import os
import secrets
import subprocess
import sys
from unittest import mock

import pytest
from django.conf import settings
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone

from league import throttle
from league.conf import csp
from league.models import Day, LoginAttempt, Member, Season
from tests.support import paths
from tests.support.clubs import PASSWORD, make_user
from tests.support.games import record_game
from tests.support.isolation import club_routes, populate
from tests.support.security import LOGIN, POLICY, fail, inline_code, logged_in, login, policy

ROOT = paths.ROOT
DATE = datetime.date(2026, 11, 21)


# --- login throttling ------------------------------------------------------------------------


@pytest.fixture
def aoki(db):
    return make_user("aoki")


@pytest.fixture
def baba(db):
    return make_user("baba")


def test_five_failures_block_the_name_at_that_address_only(aoki, baba):
    for _ in range(throttle.PAIR_LIMIT):
        response = login(Client(), "aoki", "wrong", "10.0.0.1")
        assert response.status_code == 200  # an ordinary wrong password
    assert LoginAttempt.objects.filter(username="aoki", address="10.0.0.1").count() == 5

    refused = Client()
    response = login(refused, "aoki", PASSWORD, "10.0.0.1")
    assert response.status_code == 429 and not logged_in(refused)

    # Another member at the same parlour network, and aoki from elsewhere, are not affected.
    for name, address in [("baba", "10.0.0.1"), ("aoki", "10.0.0.2")]:
        client = Client()
        response = login(client, name, PASSWORD, address)
        assert response.status_code == 302 and logged_in(client), (name, address)


def test_a_throttled_login_checks_no_password_and_says_why(aoki):
    fail("aoki", "10.0.0.1", throttle.PAIR_LIMIT)
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    with mock.patch("django.contrib.auth.forms.authenticate") as authenticate:
        response = login(client, "aoki", PASSWORD, "10.0.0.1")
    authenticate.assert_not_called()
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert response.context["form"].non_field_errors()
    # A refused attempt is not a failure: it adds nothing, so waiting is enough to get back in.
    assert LoginAttempt.objects.count() == throttle.PAIR_LIMIT


def test_user_names_are_counted_case_insensitively(aoki):
    for name in ["AOKI", "Aoki", " aoki", "aOKI", "aoki"]:
        login(Client(), name, "wrong", "10.0.0.1")
    assert set(LoginAttempt.objects.values_list("username", flat=True)) == {"aoki"}
    assert login(Client(), "aoki", PASSWORD, "10.0.0.1").status_code == 429


def test_twenty_failures_from_any_addresses_block_the_name_everywhere(aoki, baba):
    for i in range(5):  # 4 from each of 5 addresses: never 5 from one
        fail("aoki", f"10.0.1.{i}", 4)
    assert throttle.is_throttled(username="aoki", address="10.0.9.9")
    assert login(Client(), "aoki", PASSWORD, "10.0.9.9").status_code == 429
    assert login(Client(), "baba", PASSWORD, "10.0.1.0").status_code == 302


def test_nineteen_failures_from_any_addresses_do_not(aoki):
    for i in range(19):
        fail("aoki", f"10.0.1.{i}", 1)
    assert login(Client(), "aoki", PASSWORD, "10.0.9.9").status_code == 302


def test_a_hundred_failures_from_one_address_block_every_name_there(aoki, baba):
    for i in range(25):  # 4 names × 25 = 100 failures, none at the per-name limits
        fail(f"guess{i}", "10.0.0.1", 4)
    assert login(Client(), "baba", PASSWORD, "10.0.0.1").status_code == 429
    assert login(Client(), "baba", PASSWORD, "10.0.0.2").status_code == 302


def test_failures_older_than_the_window_do_not_count(aoki):
    fail("aoki", "10.0.0.1", 50)
    LoginAttempt.objects.update(at=timezone.now() - throttle.WINDOW - datetime.timedelta(seconds=1))
    assert login(Client(), "aoki", PASSWORD, "10.0.0.1").status_code == 302


def test_a_successful_login_does_not_clear_earlier_failures(aoki):
    fail("aoki", "10.0.0.1", throttle.PAIR_LIMIT - 1)
    assert login(Client(), "aoki", PASSWORD, "10.0.0.1").status_code == 302
    login(Client(), "aoki", "wrong", "10.0.0.1")
    assert login(Client(), "aoki", PASSWORD, "10.0.0.1").status_code == 429


def test_failures_older_than_a_day_are_deleted_on_the_next_failure(aoki):
    fail("aoki", "10.0.0.1", 3)
    LoginAttempt.objects.update(at=timezone.now() - throttle.KEEP - datetime.timedelta(minutes=1))
    fail("baba", "10.0.0.2", 1)
    login(Client(), "aoki", "wrong", "10.0.0.1")
    assert sorted(LoginAttempt.objects.values_list("username", flat=True)) == ["aoki", "baba"]


def test_the_throttle_check_is_one_query(db, django_assert_num_queries):
    fail("aoki", "10.0.0.1", 30)
    with django_assert_num_queries(1):
        assert throttle.is_throttled(username="aoki", address="10.0.0.1")


@pytest.mark.parametrize(
    ("remote_addr", "expected"),
    [("10.0.0.1", "10.0.0.1"), ("2001:db8::1", "2001:db8::1"), ("", "0.0.0.0"), ("x", "0.0.0.0")],
)
def test_client_address_is_remote_addr_or_a_placeholder(remote_addr, expected):
    request = RequestFactory().get("/", REMOTE_ADDR=remote_addr)
    assert throttle.client_address(request) == expected


def test_the_admin_login_is_throttled_by_the_same_counts(db):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_superuser("root", "root@example.jp", PASSWORD)
    admin_login = reverse("admin:login")
    for _ in range(throttle.PAIR_LIMIT - 1):
        Client().post(admin_login, {"username": "root", "password": "x"}, REMOTE_ADDR="10.0.0.1")
    login(Client(), "root", "wrong", "10.0.0.1")  # the fifth, on the ordinary login page
    client = Client()
    with mock.patch("django.contrib.auth.forms.authenticate") as authenticate:
        client.post(admin_login, {"username": "root", "password": PASSWORD}, REMOTE_ADDR="10.0.0.1")
    authenticate.assert_not_called()
    assert not logged_in(client)
    assert LoginAttempt.objects.filter(username="root").count() == throttle.PAIR_LIMIT


def test_the_login_page_still_logs_in_and_refuses_put(aoki):
    client = Client()
    assert client.get(LOGIN).status_code == 200
    assert client.put(LOGIN).status_code == 405
    assert login(client, "aoki", PASSWORD, "127.0.0.1").status_code == 302


# --- the Content-Security-Policy and pages that keep to it -----------------------------------


def test_the_inline_code_finder_finds_what_the_policy_blocks():
    html = (
        '<script>alert(1)</script><script src="/a.js"></script>'
        '<script type="application/json">{"a": 1}</script>'
        '<p style="color: red" onclick="x()"><a href="javascript:x()">x</a></p><style>p{}</style>'
    )
    assert len(inline_code(html)) == 5


@pytest.fixture
def pages(club, organiser, members) -> list[tuple[str, str]]:
    """A club with a day, games, a season and a player: (name, url) of its main pages."""
    for points in [(45000, 30000, 20000, 5000), (32000, 28000, 25000, 15000)]:
        record_game(club, organiser, members[:4], points, date=DATE)
    season = Season.objects.create(
        club=club, name="2026", start=datetime.date(2026, 1, 1), end=datetime.date(2026, 12, 31)
    )
    game = club.games.first()
    member: Member = members[0]
    day = Day.objects.get(club=club, date=DATE)
    named = [
        ("recording:club_home", [club.slug]),
        ("recording:day_detail", [club.slug, day.date]),
        ("recording:game_detail", [club.slug, game.pk]),
        ("recording:game_new", [club.slug]),
        ("recording:game_edit", [club.slug, game.pk]),
        ("standings:standings", [club.slug]),
        ("standings:season_standings", [club.slug, season.pk]),
        ("standings:player_detail", [club.slug, member.pk]),
        ("club:member_list", [club.slug]),
        ("club:member_new", [club.slug]),
        ("club:season_list", [club.slug]),
        ("club:season_new", [club.slug]),
        ("rules:rules_list", [club.slug]),
        ("rules:rules_new", [club.slug]),
    ]
    return [(name, reverse(name, args=args)) for name, args in named]


def test_every_main_page_sends_the_policy_and_has_no_inline_code(organiser_client, pages):
    for name, url in pages:
        response = organiser_client.get(url)
        assert response.status_code == 200, name
        assert policy(response).items() >= POLICY.items(), name
        assert inline_code(response.content.decode()) == [], name


def test_every_club_page_keeps_to_the_policy(organiser_client, club, organiser, members):
    """Every club-scoped route (read from the resolver, so later pages too) that answers GET with
    HTML, on a club with money, a deferred debt, a season and an API token."""
    values = populate(club, organiser, members[:4])
    checked = 0
    for name, params in club_routes():
        response = organiser_client.get(reverse(name, kwargs={p: values[p] for p in params}))
        if response.status_code != 200 or "text/html" not in response.headers["Content-Type"]:
            continue
        assert policy(response).items() >= POLICY.items(), name
        assert inline_code(response.content.decode()) == [], name
        checked += 1
    assert checked >= 20


def test_the_login_page_sends_the_policy_and_has_no_inline_code(client, db):
    response = client.get(LOGIN)
    assert policy(response).items() >= POLICY.items()
    assert inline_code(response.content.decode()) == []


def test_the_policy_is_django_6s_middleware_or_ours_on_django_5():
    import django

    ours = "league.conf.csp.ContentSecurityPolicyMiddleware"
    builtin = "django.middleware.csp.ContentSecurityPolicyMiddleware"
    expected = builtin if django.VERSION >= (6, 0) else ours
    assert expected in settings.MIDDLEWARE
    assert {ours, builtin} - {expected} & set(settings.MIDDLEWARE) == set()


def test_our_policy_is_written_as_django_6_writes_it():
    config = {"a": ["'self'"], "b": {"y", "x"}, "c": "one", "d": True, "e": None, "f": False}
    assert csp.build_policy(config) == "a 'self'; b x y; c one; d"
    django_csp = pytest.importorskip("django.utils.csp")
    assert csp.build_policy(settings.SECURE_CSP) == django_csp.build_policy(settings.SECURE_CSP)
    assert csp.build_policy(config) == django_csp.build_policy(config)


def _through_our_middleware(response: HttpResponse) -> HttpResponse:
    return csp.ContentSecurityPolicyMiddleware(lambda request: response)(RequestFactory().get("/"))


def test_our_middleware_leaves_a_views_own_policy_alone(settings):
    settings.SECURE_CSP = {"default-src": ["'self'"]}
    settings.SECURE_CSP_REPORT_ONLY = {"img-src": ["'none'"]}
    plain = _through_our_middleware(HttpResponse())
    assert plain.headers["Content-Security-Policy"] == "default-src 'self'"
    assert plain.headers["Content-Security-Policy-Report-Only"] == "img-src 'none'"
    own = HttpResponse(headers={"Content-Security-Policy": "default-src 'none'"})
    assert _through_our_middleware(own).headers["Content-Security-Policy"] == "default-src 'none'"
    opted_out = HttpResponse()
    opted_out._csp_config = {}  # as Django 6's csp_override({}) marks a response
    assert "Content-Security-Policy" not in _through_our_middleware(opted_out).headers


def test_our_middleware_spares_the_debug_error_pages(settings):
    settings.SECURE_CSP = {"default-src": ["'self'"]}
    settings.DEBUG = True
    assert "Content-Security-Policy" not in _through_our_middleware(HttpResponse(status=500))
    settings.DEBUG = False
    assert "Content-Security-Policy" in _through_our_middleware(HttpResponse(status=500))


# --- production settings ---------------------------------------------------------------------

PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "example.jp",
}
SETTINGS_SHOWN = [
    "SECURE_SSL_REDIRECT",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_PROXY_SSL_HEADER",
    "SECURE_CSP",
    "SECURE_CSP_REPORT_ONLY",
]


# What the subprocess keeps of the test run's environment: nothing that sets Django up (the
# browser tests set DJANGO_ALLOW_ASYNC_UNSAFE, which check --deploy rightly refuses).
KEPT = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "DATABASE_URL")


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`args` in a fresh Python with only the variables given (and the database's)."""
    base = {k: os.environ[k] for k in KEPT if k in os.environ}
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "league.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_under(env: dict[str, str]) -> dict[str, object]:
    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n) for n in {SETTINGS_SHOWN!r}}}))"
    )
    result = run(["-c", code], env)
    assert result.returncode == 0, result.stderr
    import json

    return json.loads(result.stdout)


def test_check_deploy_is_clean_with_production_settings():
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_defaults_are_safe_and_debug_relaxes_them():
    production = settings_under(PRODUCTION)
    assert production["SECURE_SSL_REDIRECT"] is True
    assert production["SESSION_COOKIE_SECURE"] is True and production["CSRF_COOKIE_SECURE"] is True
    assert production["SECURE_HSTS_SECONDS"] == 31_536_000
    assert production["SECURE_PROXY_SSL_HEADER"] is None
    assert production["SECURE_CSP"].items() >= POLICY.items()
    assert production["SECURE_CSP_REPORT_ONLY"] == {}

    development = settings_under({"DEBUG": "true"})
    assert development["SECURE_SSL_REDIRECT"] is False
    assert development["SESSION_COOKIE_SECURE"] is False
    assert development["SECURE_HSTS_SECONDS"] == 0
    assert development["SECURE_CSP"] == production["SECURE_CSP"]  # enforced in development too


def test_the_environment_can_set_each_one():
    chosen = settings_under(
        {
            **PRODUCTION,
            "SECURE_SSL_REDIRECT": "false",
            "SECURE_HSTS_SECONDS": "3600",
            "SECURE_HSTS_PRELOAD": "no",
            "BEHIND_HTTPS_PROXY": "true",
            "CSP_REPORT_ONLY": "true",
        }
    )
    assert chosen["SECURE_SSL_REDIRECT"] is False
    assert chosen["SECURE_HSTS_SECONDS"] == 3600
    assert chosen["SECURE_HSTS_PRELOAD"] is False
    assert chosen["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert chosen["SECURE_CSP"] == {}
    assert chosen["SECURE_CSP_REPORT_ONLY"].items() >= POLICY.items()


@pytest.mark.parametrize(
    ("name", "value"), [("SECURE_HSTS_SECONDS", "1y"), ("SECURE_HSTS_SECONDS", "-1")]
)
def test_a_bad_value_stops_start_up_naming_the_variable(name, value):
    result = run(["-c", "import league.settings"], {**PRODUCTION, name: value})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and name in result.stderr
