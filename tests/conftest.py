"""Shared fixtures for the Django side: a club with an organiser, a plain member and a stranger
(a user of another club), members to seat, and the club's rules. scoring/ has its own tests."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.test import Client

from league.accounts import tokens as api_auth
from league.core.tasks import IMMEDIATE_BACKEND
from league.models import Club, Member, Membership
from league.table import services
from tests.support import table
from tests.support.clubs import MEMBER_NAMES, client_for, make_club, make_user
from tests.support.network import NetworkUsed


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """The suite's SQLite database is in memory, one connection that the live server's threads
    share with the test (pytest-django's live_server). IMMEDIATE transactions, which the settings
    ask for so that separate processes writing one SQLite file wait for each other, made the
    browser tests hang there; that connection has no other writer to wait for, so the suite's
    in-memory database begins transactions as SQLite does by default. The setting itself is
    checked on a file database in tests/test_settings.py.

    On PostgreSQL the suite's connections commit without waiting for the WAL to reach the disk
    (`synchronous_commit=off`, this session only): a test database is thrown away, and on this
    machine a commit then takes 0.3 ms instead of 3.7 ms (the transactional and browser tests
    commit every write). Nothing else about PostgreSQL's behaviour changes: locks, isolation and
    constraints are the same."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        database.get("OPTIONS", {}).pop("transaction_mode", None)
    elif database["ENGINE"] == "django.db.backends.postgresql":
        options = database.setdefault("OPTIONS", {})
        options["options"] = f"{options.get('options', '')} -c synchronous_commit=off".strip()


@pytest.fixture
def club(db) -> Club:
    return make_club("mame", "mame-no-kai", "マメの会")


@pytest.fixture
def other_club(db) -> Club:
    return make_club("kinyokai", "kinyokai-2015", "金曜会")


@pytest.fixture
def members(club) -> list[Member]:
    return [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES]


@pytest.fixture
def organiser(club):
    return make_user("organiser", club, Membership.ORGANISER)


@pytest.fixture
def member_user(club):
    return make_user("member", club, Membership.MEMBER)


@pytest.fixture
def stranger(other_club):
    return make_user("stranger", other_club, Membership.ORGANISER)


@pytest.fixture
def organiser_client(organiser) -> Client:
    return client_for(organiser)


@pytest.fixture
def member_client(member_user) -> Client:
    return client_for(member_user)


@pytest.fixture
def stranger_client(stranger) -> Client:
    return client_for(stranger)


@pytest.fixture(scope="session", autouse=True)
def cache_of_this_process(worker_id: str) -> None:
    """On a shared cache (CACHE_URL=redis://…, .ci/run's PostgreSQL leg), each test process
    keeps its keys in a Redis database of its own (1 for gw0, 2 for gw1, …; 1 without xdist), so
    that one process emptying the cache between its tests (cache_emptied) leaves the other's
    alone."""
    from django.conf import settings
    from django.test.signals import setting_changed

    config = settings.CACHES["default"]
    if not config["BACKEND"].endswith("RedisCache"):
        return
    number = 1 + (int(worker_id.removeprefix("gw")) if worker_id.startswith("gw") else 0)
    config["LOCATION"] = urlsplit(config["LOCATION"])._replace(path=f"/{number}").geturl()
    setting_changed.send(sender=None, setting="CACHES", value=settings.CACHES, enter=True)


@pytest.fixture(autouse=True)
def cache_emptied() -> None:
    """Each test starts with an empty cache: the pages' shared parts are kept under the club's
    data version, which an SQLite test database gives again to the next test's club (its ids
    restart when a test's transaction is rolled back)."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def default_language() -> Iterator[None]:
    """Each test starts in the site's default language (Japanese), whatever an earlier test in
    the same process left active: a request through LocaleMiddleware leaves its language active
    in the thread, and code called outside a request (the LINE text's lines, say) then spoke
    English after a test that had asked for English."""
    from django.conf import settings
    from django.utils import translation

    with translation.override(settings.LANGUAGE_CODE):
        yield


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:
    """Password hashing is deliberately slow; the tests log in hundreds of times."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def exports_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("exports")


@pytest.fixture(autouse=True)
def exports_kept_aside(settings, exports_root) -> None:
    """Finished background exports go to a temporary directory, not the checkout's exports/.
    Static files keep their plain names: the tests run with DEBUG off and no collectstatic, and
    the live server serves them from the finders (tests/league/core/test_static_files.py runs
    collectstatic and checks the hashed names)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        "exports": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(exports_root)},
        },
    }


@pytest.fixture(autouse=True)
def tasks_run_at_once(request, settings) -> None:
    """Background tasks run inside the test, at enqueue (Django's immediate backend), so that a
    test sees their effect; tests marked `database_tasks` keep the real database backend (a
    worker process runs them, tests/league/core/test_worker.py)."""
    if request.node.get_closest_marker("database_tasks") is None:
        settings.TASKS = {"default": {"BACKEND": IMMEDIATE_BACKEND}}


@pytest.fixture(autouse=True)
def fixtures_may_repeat_a_result(request, monkeypatch) -> None:
    """Tests build their days by calling league.recording.services directly, often with one
    standard result several times a day: that is test data, not the question the record form and
    the API ask before saving a repeated result (issue 21, item 3). So a direct call that does not
    say `confirm_duplicate` records it; the form, the edit page and the API always pass their
    answer explicitly and keep the rule. Tests marked `duplicate_rule` (tests/league/
    test_duplicates.py) get the services' own default, which asks."""
    if request.node.get_closest_marker("duplicate_rule") is not None:
        return
    from league.recording import services

    # The actions are as_action(…_in): the parts hold the defaults, whoever calls them.
    for writer in (services.game_record_in, services.game_edit_in):
        monkeypatch.setitem(writer.__kwdefaults__, "confirm_duplicate", True)


@pytest.fixture(autouse=True)
def fixtures_may_mix_rates(request, monkeypatch) -> None:
    """As fixtures_may_repeat_a_result, for the evening's rate (issue 37): tests build days with
    games at several rates by calling the services directly, which is test data, not the
    question the record form, table mode and the API ask before saving a game at a rate none of
    the day's other games has. So a direct call that does not say `confirm_rate` records it;
    the form, table mode's start and the API always pass their answer and keep the rule. Tests
    marked `rate_rule` (tests/league/recording/test_evening_rate.py) get the services' own default,
    which asks."""
    if request.node.get_closest_marker("rate_rule") is not None:
        return
    from league.recording import services
    from league.table import services as table

    for writer in (services.game_record_in, services.game_edit_in, table.table_start):
        monkeypatch.setitem(writer.__kwdefaults__, "confirm_rate", True)


# The slow job: what needs a browser, a worker process or LibreOffice, and the API's fuzzing. The
# fast job (`-m "not slow"`) runs everything else; `python3 dev.py test` runs the fast job first.
SLOW_FILES = ("test_worker.py", "test_export_pdf.py", "test_api_schemathesis.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    slow = pytest.mark.slow
    for item in items:
        path = item.path
        if (
            "browser" in path.parts
            or path.name in SLOW_FILES
            or item.get_closest_marker("database_tasks") is not None
        ):
            item.add_marker(slow)


@pytest.fixture
def secret(club, organiser) -> str:
    """An API token's secret of the club's organiser."""
    return api_auth.token_create(club=club, user=organiser, name="LINE bot")[1]


@pytest.fixture
def tg(club, members, organiser):
    """A table game (league.table) started with the first four members."""
    return services.table_start(
        club=club,
        user=organiser,
        key=uuid.uuid4(),
        date=table.DATE,
        members=members[:4],
        rate="0.3",
    )


@pytest.fixture
def no_network(monkeypatch):
    """Every way out of the machine refused, and the OCR engine loaded afresh behind it."""
    from league.core.photo import text

    def refuse(*args, **kwargs):
        raise NetworkUsed(f"network used: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    text._engine.cache_clear()
    yield
    text._engine.cache_clear()


@pytest.fixture(autouse=True)
def projections_guarded() -> Iterator[None]:
    """An action that writes a table a kept total follows and records no change for it fails
    (league.core.changes; tests/support/projections.py)."""
    from tests.support.projections import guarded

    with guarded():
        yield
