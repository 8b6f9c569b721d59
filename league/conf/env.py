"""Strict readers for settings that come from the environment.

A value that is set but cannot be understood stops start-up with ImproperlyConfigured naming the
variable, instead of being quietly read as some default. A variable set to the empty string counts
as unset.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})

# Engines that DATABASE_URL may select; the app is tested on these two only.
_ENGINES = frozenset({"django.db.backends.sqlite3", "django.db.backends.postgresql"})

DEV_SECRET_KEY = "django-insecure-dev-only-never-use-in-production"


def _get(name: str) -> str | None:
    return os.environ.get(name) or None


def env_bool(name: str, default: bool) -> bool:
    value = _get(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean: use true/false, 1/0 or yes/no.")


def env_str(name: str, default: str) -> str:
    value = _get(name)
    return default if value is None else value


def env_int(name: str, default: int) -> int:
    """A whole number (digits only, no sign); anything else is an error naming the variable."""
    value = _get(name)
    if value is None:
        return default
    if not value.isascii() or not value.isdigit():
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number.")
    return int(value)


def env_list(name: str, default: list[str]) -> list[str]:
    value = _get(name)
    if value is None:
        return list(default)
    items = [item.strip() for item in value.split(",")]
    if "" in items:
        raise ImproperlyConfigured(
            f"{name}={value!r} has an empty item in its comma-separated list."
        )
    return items


def env_secret_key(debug: bool) -> str:
    value = _get("SECRET_KEY")
    if value is not None:
        return value
    if debug:
        return DEV_SECRET_KEY
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is false.")


# SQLite with several writers (two gunicorn workers and the task worker): every transaction
# begins IMMEDIATE, so a writer waits for the write lock (up to `timeout` seconds) at its start.
# A DEFERRED transaction that read first and then writes is refused at once with "database is
# locked" when another writer holds the lock: load_bench's concurrent API records were 500s.
# WAL lets pages read while a game is written.
def sqlite_options() -> dict[str, Any]:
    return {
        "OPTIONS": {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    }


def env_database(default_sqlite: Path) -> dict[str, Any]:
    """DATABASE_URL if set (sqlite or postgres only), else the SQLite file default_sqlite."""
    url = _get("DATABASE_URL")
    if url is None:
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": default_sqlite, **sqlite_options()}
    try:
        config = dj_database_url.parse(url, conn_max_age=0)
    except ValueError as exc:
        # The URL itself is not repeated: it may hold a password.
        raise ImproperlyConfigured(f"DATABASE_URL cannot be parsed: {exc}") from exc
    if config.get("ENGINE") not in _ENGINES:
        scheme = url.partition(":")[0]
        raise ImproperlyConfigured(
            f"DATABASE_URL scheme {scheme!r} is not supported: use sqlite:// or postgres://."
        )
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config.update(sqlite_options())
    else:
        # PostgreSQL starts a process per connection (several ms): an app server's or worker's
        # connection is kept between requests, checked before reuse, and closed when idle.
        config["CONN_MAX_AGE"] = env_int("DATABASE_CONN_MAX_AGE", 60)
        config["CONN_HEALTH_CHECKS"] = True
        # The club's query, which every club page and 304 runs, prepared at its 5th run on a
        # connection (psycopg's prepare_threshold; Django turns it off by default, for poolers):
        # league.access._prepared_club. DATABASE_PREPARE=false behind a pooler in transaction
        # mode that cannot keep prepared statements (PgBouncer before 1.21).
        prepare = 5 if env_bool("DATABASE_PREPARE", True) else None
        config.setdefault("OPTIONS", {})["prepare_threshold"] = prepare
    return config


# Schemes CACHE_URL may use: Django's own Redis backend (redis-py), shared by every app server
# and worker.
_CACHE_SCHEMES = frozenset({"redis", "rediss", "unix"})


def env_cache() -> dict[str, Any]:
    """CACHE_URL if set (redis://host:port/db, rediss:// or unix://: Django's RedisCache, with
    its clients kept (league/conf/cache.py), which every app server and worker shares), else
    each process's own memory (LocMemCache: needs nothing beside the app, and is right for one
    process, as `dev.py start` runs)."""
    url = _get("CACHE_URL")
    if url is None:
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "jancho"}
    scheme = url.partition(":")[0].lower()
    if scheme not in _CACHE_SCHEMES:
        raise ImproperlyConfigured(
            f"CACHE_URL scheme {scheme!r} is not supported: use redis://, rediss:// or unix://."
        )
    return {"BACKEND": "league.conf.cache.RedisCache", "LOCATION": url}
