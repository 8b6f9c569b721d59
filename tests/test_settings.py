"""The strict environment readers in league/conf/env.py, and the locale the settings fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import ImproperlyConfigured

from league.conf.env import (
    DEV_SECRET_KEY,
    env_bool,
    env_cache,
    env_database,
    env_list,
    env_secret_key,
    sqlite_options,
)


@pytest.mark.parametrize("value", ["true", "TRUE", "1", "yes", "Yes"])
def test_env_bool_true_spellings(monkeypatch, value):
    monkeypatch.setenv("DEBUG", value)
    assert env_bool("DEBUG", False) is True


@pytest.mark.parametrize("value", ["false", "False", "0", "no", "NO"])
def test_env_bool_false_spellings(monkeypatch, value):
    monkeypatch.setenv("DEBUG", value)
    assert env_bool("DEBUG", True) is False


@pytest.mark.parametrize("value", ["ture", "on", "2", " true"])
def test_env_bool_refuses_anything_else_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv("DEBUG", value)
    with pytest.raises(ImproperlyConfigured, match="DEBUG"):
        env_bool("DEBUG", True)


def test_env_bool_unset_or_empty_gives_the_default(monkeypatch):
    monkeypatch.delenv("DEBUG", raising=False)
    assert env_bool("DEBUG", True) is True
    monkeypatch.setenv("DEBUG", "")
    assert env_bool("DEBUG", False) is False


def test_env_list_splits_and_strips(monkeypatch):
    monkeypatch.setenv("ALLOWED_HOSTS", " example.org, .janchou.example ")
    assert env_list("ALLOWED_HOSTS", []) == ["example.org", ".janchou.example"]


@pytest.mark.parametrize("value", ["a,,b", "a,", ",a", "a, ,b"])
def test_env_list_refuses_an_empty_item(monkeypatch, value):
    monkeypatch.setenv("ALLOWED_HOSTS", value)
    with pytest.raises(ImproperlyConfigured, match="ALLOWED_HOSTS"):
        env_list("ALLOWED_HOSTS", ["localhost"])


def test_env_list_unset_gives_a_copy_of_the_default(monkeypatch):
    monkeypatch.delenv("ALLOWED_HOSTS", raising=False)
    default = ["localhost"]
    hosts = env_list("ALLOWED_HOSTS", default)
    assert hosts == default
    assert hosts is not default


def test_secret_key_is_required_in_production(monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY"):
        env_secret_key(debug=False)


def test_secret_key_has_a_dev_default_only_under_debug(monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    assert env_secret_key(debug=True) == DEV_SECRET_KEY
    monkeypatch.setenv("SECRET_KEY", "s3cret")
    assert env_secret_key(debug=False) == "s3cret"


def test_database_defaults_to_the_sqlite_file(monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    config = env_database(Path("/srv/db.sqlite3"))
    assert config == {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": Path("/srv/db.sqlite3"),
        **sqlite_options(),
    }
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    url_config = env_database_from("sqlite:////srv/other.sqlite3", monkeypatch)
    assert url_config["OPTIONS"] == config["OPTIONS"]


def test_the_cache_is_the_process_memory_unless_a_redis_url_is_given(monkeypatch):
    monkeypatch.delenv("CACHE_URL", raising=False)
    assert env_cache()["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    monkeypatch.setenv("CACHE_URL", "redis://127.0.0.1:6379/3")
    assert env_cache() == {
        "BACKEND": "league.conf.cache.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/3",
    }
    monkeypatch.setenv("CACHE_URL", "memcached://127.0.0.1:11211")
    with pytest.raises(ImproperlyConfigured, match="CACHE_URL scheme 'memcached'"):
        env_cache()


def test_sessions_live_in_the_cache_only_when_it_is_shared():
    """A cache of each process's own would keep a session that another process logged out; a
    shared one (Redis) holds them, and a page then reads none from the database."""
    shared = settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    assert settings.CACHE_SHARED is shared
    engine = "cached_db" if shared else "db"
    assert settings.SESSION_ENGINE.rpartition(".")[2] == engine


def test_the_shared_cache_leg_runs_on_redis():
    """.ci/run's third leg (JANCHO_REQUIRE_REDIS=1) must really run on Redis, and reach it."""
    if not os.environ.get("JANCHO_REQUIRE_REDIS"):
        pytest.skip("the shared cache leg of .ci/run (JANCHO_REQUIRE_REDIS=1) only")
    from django.core.cache import cache

    assert settings.CACHE_SHARED
    cache.set("leg", "redis")
    assert cache.get("leg") == "redis"


def env_database_from(url, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", url)
    return env_database(Path("unused"))


# Two writers that each read, then write, in a transaction on their own connection: the way a
# game is recorded (look up the day, then insert). Run in a fresh process on a file database.
TWO_WRITERS = """
import os, sys, threading
import django
from django.conf import settings
django.setup()
if sys.argv[1] == "deferred":
    settings.DATABASES["default"]["OPTIONS"].pop("transaction_mode")
from django.db import connection, transaction
with connection.cursor() as cursor:
    cursor.execute("CREATE TABLE t (x integer)")
connection.close()
barrier = threading.Barrier(2)
outcome = []

def writer():
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM t")
            try:
                barrier.wait(timeout=1)
            except threading.BrokenBarrierError:
                pass  # IMMEDIATE: the other writer waits at its BEGIN, before it reads
            cursor.execute("INSERT INTO t VALUES (1)")
        outcome.append("ok")
    except Exception as error:
        outcome.append(str(error))
    finally:
        connection.close()

threads = [threading.Thread(target=writer) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(sorted(outcome))
"""


@pytest.mark.parametrize(
    ("mode", "expected"), [("immediate", "['ok', 'ok']"), ("deferred", "database is locked")]
)
def test_two_sqlite_writers_wait_for_each_other(tmp_path, mode, expected):
    """Several processes write to one SQLite file (the app servers and the task worker). With
    the settings' IMMEDIATE transactions both writers succeed; the default DEFERRED ones, shown
    for contrast, refuse one at once (load_bench's concurrent API records were 500s)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "league.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'two.sqlite3'}",
    }
    done = subprocess.run(
        [sys.executable, "-c", TWO_WRITERS, mode],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout


def test_database_url_selects_postgres(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://jan:pw@db.example:5433/janchou")
    config = env_database(Path("unused"))
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["HOST"], config["PORT"], config["NAME"]) == ("db.example", 5433, "janchou")
    assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (60, True)  # kept, checked
    monkeypatch.setenv("DATABASE_CONN_MAX_AGE", "0")
    assert env_database(Path("unused"))["CONN_MAX_AGE"] == 0  # a connection per request
    monkeypatch.setenv("DATABASE_CONN_MAX_AGE", "ten")
    with pytest.raises(ImproperlyConfigured, match="DATABASE_CONN_MAX_AGE"):
        env_database(Path("unused"))


def test_postgres_prepares_the_club_query_unless_told_not_to(monkeypatch):
    """Django turns psycopg's prepared statements off (for poolers); a kept connection of ours
    prepares the club's query at its 5th run (tests/league/core/test_club_query.py sees it)."""
    monkeypatch.setenv("DATABASE_URL", "postgres://jan:pw@db.example:5433/janchou")
    options = env_database(Path("unused"))["OPTIONS"]
    assert options["prepare_threshold"] == 5 and "server_side_binding" not in options
    monkeypatch.setenv("DATABASE_PREPARE", "false")
    assert env_database(Path("unused"))["OPTIONS"]["prepare_threshold"] is None


@pytest.mark.parametrize(
    "url", ["mysql://u:p@localhost/janchou", "postgis://localhost/janchou", "not a url"]
)
def test_database_url_refuses_other_schemes(monkeypatch, url):
    monkeypatch.setenv("DATABASE_URL", url)
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        env_database(Path("unused"))


def test_database_url_error_does_not_leak_the_password(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "mysql://u:hunter2@localhost/janchou")
    with pytest.raises(ImproperlyConfigured) as excinfo:
        env_database(Path("unused"))
    assert "hunter2" not in str(excinfo.value)


def test_locale_is_japanese_in_tokyo():
    assert settings.LANGUAGE_CODE == "ja"
    assert settings.TIME_ZONE == "Asia/Tokyo"
    assert settings.USE_TZ is True


@pytest.mark.django_db
def test_the_configured_database_migrates_and_stores():
    """Makes each CI leg create and use its test database (SQLite, or DATABASE_URL's)."""
    Group.objects.create(name="雀荘 東")
    assert Group.objects.get().name == "雀荘 東"


@pytest.mark.django_db
def test_the_suites_postgresql_connections_do_not_wait_for_the_disk():
    """tests/conftest.py: the suite's own PostgreSQL connections commit with
    synchronous_commit=off (the app's settings are not touched)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only (DATABASE_URL=postgres://…)")
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "off"
    assert "synchronous_commit" not in str(env_database(Path("unused")).get("OPTIONS", {}))


def test_the_wsgi_entry_point_loads_the_views_and_freezes_them_out_of_the_collector():
    """league/wsgi.py: every view imported before the first request, then gc.freeze()."""
    code = (
        "import gc, sys, league.wsgi; "
        "print(gc.get_freeze_count() > 10_000, 'league.standings.views.standings' in sys.modules)"
    )
    env = {**os.environ, "DEBUG": "false", "SECRET_KEY": "s" * 50, "ALLOWED_HOSTS": "x"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]
