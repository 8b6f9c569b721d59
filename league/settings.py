"""Settings for Janchō (雀帳).

Out of the box this runs on SQLite with DEBUG on and nothing else installed; production sets
DEBUG=false, SECRET_KEY, ALLOWED_HOSTS and DATABASE_URL in the environment (see league/conf/env.py).
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import Any

import django

from league.conf.env import (
    env_bool,
    env_cache,
    env_database,
    env_int,
    env_list,
    env_secret_key,
    env_str,
)

BASE_DIR: Path = Path(__file__).resolve().parent.parent

DEBUG: bool = env_bool("DEBUG", True)
SECRET_KEY: str = env_secret_key(DEBUG)
ALLOWED_HOSTS: list[str] = env_list(
    "ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"]
)

INSTALLED_APPS: list[str] = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_tables2",
    "django_filters",
    "league",
    # Background work (README: "Background work"): Django 6 has django.tasks built in; on Django
    # 5.2 the django-tasks backport provides it. Tasks wait in the app's own database
    # (django-tasks-db) until `manage.py db_worker` runs them.
    *([] if find_spec("django.tasks") else ["django_tasks"]),
    "django_tasks_db",
]

# A game log longer than this many rows (one per player per game: 400 is 100 games) is made by a
# worker rather than inside the request (league.excel.tasks): 100 games took 0.10 s of CPU
# (benchmarks/export_bench.py), so no request spends much more than 100 ms on one (issue 39:
# 40,000 rows took 10.5 s).
EXPORT_INLINE_ROWS: int = env_int("EXPORT_INLINE_ROWS", 400)
# A member's statement longer than this many lines (one per line of the kept books: a game, a
# payment) is made by a worker too (league.excel.tasks.export_statement): about 0.27 ms a line.
EXPORT_INLINE_LINES: int = env_int("EXPORT_INLINE_LINES", 300)
# Work a club may have queued at once (issue 39): game logs being made (one per user at a time,
# a repeat request is given the running one), imports waiting for a worker; and the bytes of
# finished game logs it keeps (past it, its oldest files are removed when a new one starts).
EXPORT_QUEUE_PER_CLUB: int = env_int("EXPORT_QUEUE_PER_CLUB", 3)
IMPORT_QUEUE_PER_CLUB: int = env_int("IMPORT_QUEUE_PER_CLUB", 3)
EXPORT_CLUB_QUOTA_BYTES: int = env_int("EXPORT_CLUB_QUOTA_BYTES", 50 * 1024 * 1024)
# Where a game log made by a worker is kept until it expires (league.excel.tasks): a private
# directory that no URL serves; the download view sends the file to its maker alone. Every app
# server and worker must see the same directory (or set STORAGES["exports"] to a shared storage).
EXPORT_ROOT: str = env_str("EXPORT_ROOT", str(BASE_DIR / "exports"))
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed names (app.3f2a….css) after collectstatic, so that a browser or the service
    # worker may keep a file for ever: a changed file is a new name (league/table/offline.py).
    # Under DEBUG, runserver serves the plain names and no collectstatic is needed.
    "staticfiles": {
        "BACKEND": env_str(
            "STATICFILES_BACKEND", "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"
        )
    },
    "exports": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": EXPORT_ROOT},
    },
}
# An edit or void of an old game replays the rating from that game on: inside the request when
# at most this many member games (one per player per game) follow it, else by a worker.
RATING_INLINE_GAMES: int = env_int("RATING_INLINE_GAMES", 2_000)

TASKS: dict[str, dict[str, Any]] = {
    "default": {
        "BACKEND": env_str("TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
        "QUEUES": ["default"],
    }
}

MIDDLEWARE: list[str] = [
    "django.middleware.security.SecurityMiddleware",
    # Django 6's own; on Django 5.2 (Python 3.11) league/conf/csp.py sends the same header.
    "django.middleware.csp.ContentSecurityPolicyMiddleware"
    if django.VERSION >= (6, 0)
    else "league.conf.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions (it may read the language from them), before CommonMiddleware.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Too many unknown club addresses from one user and network: 429 (league.access).
    "league.access.TooManyRequestsMiddleware",
]

ROOT_URLCONF = "league.urls"
WSGI_APPLICATION = "league.wsgi.application"

TEMPLATES: list[dict[str, object]] = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES: dict[str, dict[str, object]] = {"default": env_database(BASE_DIR / "db.sqlite3")}

# The cache (Django's cache framework): each process's memory by default; in production with more
# than one app server, CACHE_URL=redis://… (README: "Running in production"), which all of them
# and the worker share. It holds the parts of pages that a club's members share, kept under the
# club's data version (league.access.shared_part), and, when shared, the sessions: a session is
# then read from Redis and written to both (cached_db), so a page asks the database for none. A
# cache of each process's own cannot hold sessions: a logout in one would stay unseen in another.
CACHES: dict[str, dict[str, Any]] = {"default": env_cache()}
CACHE_SHARED: bool = CACHES["default"]["BACKEND"].endswith("RedisCache")
SESSION_ENGINE: str = (
    "django.contrib.sessions.backends.cached_db"
    if CACHE_SHARED
    else "django.contrib.sessions.backends.db"
)
# Who is signed in: with a shared cache, read from it before the database on every request
# (league.accounts.backends). Django's ModelBackend stays listed for sessions signed in before.
AUTHENTICATION_BACKENDS: list[str] = [
    *(["league.accounts.backends.CachedUserBackend"] if CACHE_SHARED else []),
    "django.contrib.auth.backends.ModelBackend",
]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS: list[dict[str, str]] = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "/"

# Anyone may sign up and start a club (league/accounts); a private installation sets SIGNUP=false:
# then only the holder of a valid invitation link may sign up (to join that club), and other
# accounts are made in the admin.
SIGNUP: bool = env_bool("SIGNUP", True)

# The club's chats (league.chat, README "The club's chat"): each one is off, its webhook answering
# 404, while its variables are unset. LINE_API_BASE lets tests point the LINE client at a fake.
LINE_CHANNEL_SECRET: str = env_str("LINE_CHANNEL_SECRET", "")
LINE_CHANNEL_ACCESS_TOKEN: str = env_str("LINE_CHANNEL_ACCESS_TOKEN", "")
LINE_API_BASE: str = env_str("LINE_API_BASE", "https://api.line.me")
LINE_PUSH_QUOTA: int = env_int("LINE_PUSH_QUOTA", 200)  # the free plan's messages a month
DISCORD_PUBLIC_KEY: str = env_str("DISCORD_PUBLIC_KEY", "")  # hex, the application's
TELEGRAM_SECRET_TOKEN: str = env_str("TELEGRAM_SECRET_TOKEN", "")  # setWebhook's secret_token
SLACK_SIGNING_SECRET: str = env_str("SLACK_SIGNING_SECRET", "")

# Password-reset mail: SMTP when EMAIL_HOST is set. Without it, development prints the mail on
# the console, and production offers no reset by mail at all (PASSWORD_RESET_BY_MAIL: a reset
# link printed to the server's log would let whoever reads the log into the account) and leaves
# Django's mail settings as they are. The tests use the in-memory outbox.
_email_host = env_str("EMAIL_HOST", "")  # not a setting of its own: deprecated on Django 6.1
PASSWORD_RESET_BY_MAIL: bool = bool(_email_host) or DEBUG
if PASSWORD_RESET_BY_MAIL:
    _mail_backend = (
        "django.core.mail.backends.smtp.EmailBackend"
        if _email_host
        else "django.core.mail.backends.console.EmailBackend"
    )
    _mail_options: dict[str, Any] = (
        {
            "host": _email_host,
            "port": env_int("EMAIL_PORT", 587),
            "username": env_str("EMAIL_HOST_USER", ""),
            "password": env_str("EMAIL_HOST_PASSWORD", ""),
            "use_tls": env_bool("EMAIL_USE_TLS", True),
        }
        if _email_host
        else {}
    )
    if django.VERSION >= (6, 1):  # MAILERS replaces EMAIL_BACKEND and the EMAIL_* options
        MAILERS = {"default": {"BACKEND": _mail_backend, "OPTIONS": _mail_options}}
    else:
        EMAIL_BACKEND = _mail_backend
        EMAIL_HOST = _email_host or "localhost"
        EMAIL_PORT = _mail_options.get("port", 25)
        EMAIL_HOST_USER = _mail_options.get("username", "")
        EMAIL_HOST_PASSWORD = _mail_options.get("password", "")
        EMAIL_USE_TLS = _mail_options.get("use_tls", False)
DEFAULT_FROM_EMAIL: str = env_str("DEFAULT_FROM_EMAIL", "webmaster@localhost")

LANGUAGE_CODE = "ja"
LANGUAGES: list[tuple[str, str]] = [("ja", "日本語"), ("en", "English")]
LOCALE_PATHS: list[Path] = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["league.conf.formats"]  # one date format, 2026/11/22, in both languages
USE_I18N = True
USE_TZ = True
TIME_ZONE = "Asia/Tokyo"

# How long after marking a payment its recorder can undo it with one tap (league.money.entry_undo);
# later, a correction with a reason is needed.
PAYMENT_UNDO_SECONDS: int = env_int("PAYMENT_UNDO_SECONDS", 600)

STATIC_URL = "static/"
STATICFILES_DIRS: list[Path] = [BASE_DIR / "static"]
STATIC_ROOT: Path = BASE_DIR / "staticfiles"


# --- security in production (README: "Running in production") -------------------------------
# Each defaults to the safe production value when DEBUG is false, and to what development over
# plain HTTP needs when DEBUG is true; the environment can set each one either way.


HTTPS: bool = not DEBUG
SECURE_SSL_REDIRECT: bool = env_bool("SECURE_SSL_REDIRECT", HTTPS)
SESSION_COOKIE_SECURE: bool = env_bool("SESSION_COOKIE_SECURE", HTTPS)
CSRF_COOKIE_SECURE: bool = env_bool("CSRF_COOKIE_SECURE", HTTPS)
SECURE_HSTS_SECONDS: int = env_int("SECURE_HSTS_SECONDS", 31_536_000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS: bool = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", HTTPS)
SECURE_HSTS_PRELOAD: bool = env_bool("SECURE_HSTS_PRELOAD", HTTPS)
# Only behind a reverse proxy that terminates HTTPS and sets X-Forwarded-Proto itself (a client
# could send the header too): without a proxy, trusting it would let anyone claim HTTPS.
SECURE_PROXY_SSL_HEADER: tuple[str, str] | None = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_HTTPS_PROXY", False) else None
)
CSRF_TRUSTED_ORIGINS: list[str] = env_list("CSRF_TRUSTED_ORIGINS", [])

# The pages load scripts and styles from our own static files only: no inline script, event
# handler or style attribute (tests/league/security/test_security.py checks every main page). The policy is
# enforced in development too, so that anything it would block shows up before production does;
# CSP_REPORT_ONLY=true sends it as Content-Security-Policy-Report-Only instead.
_CSP_POLICY: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}
_CSP_REPORT_ONLY: bool = env_bool("CSP_REPORT_ONLY", False)
SECURE_CSP: dict[str, list[str]] = {} if _CSP_REPORT_ONLY else _CSP_POLICY
SECURE_CSP_REPORT_ONLY: dict[str, list[str]] = _CSP_POLICY if _CSP_REPORT_ONLY else {}
