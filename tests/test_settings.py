"""The strict environment readers in league/conf/env.py, and the locale the settings fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import ImproperlyConfigured

from league.conf.env import DEV_SECRET_KEY, env_bool, env_database, env_list, env_secret_key


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
    assert config == {"ENGINE": "django.db.backends.sqlite3", "NAME": Path("/srv/db.sqlite3")}


def test_database_url_selects_postgres(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://jan:pw@db.example:5433/janchou")
    config = env_database(Path("unused"))
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["HOST"], config["PORT"], config["NAME"]) == ("db.example", 5433, "janchou")


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
