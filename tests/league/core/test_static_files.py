"""Static files under hashed names (ManifestStaticFilesStorage) and the service worker's precache
list built from their manifest (league.table.offline): nobody bumps a cache version by hand."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command

from league.table import offline

MANIFEST = "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"


def served_precache(client) -> dict:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Service-Worker-Allowed"] == "/"
    body = response.content.decode()
    assert offline.PLACEHOLDER not in body
    found = re.search(r"^var PRECACHE = (.*);$", body, re.MULTILINE)
    assert found, body[:500]
    return json.loads(found.group(1))


@pytest.fixture
def collected(settings, tmp_path) -> Path:
    """A copy of static/ as the app's static files, collected into a fresh STATIC_ROOT by the
    production storage, with DEBUG off."""
    source = tmp_path / "static"
    shutil.copytree(Path(django_settings.BASE_DIR) / "static", source)
    settings.STATICFILES_DIRS = [source]
    settings.STATIC_ROOT = tmp_path / "root"
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": MANIFEST}}
    settings.DEBUG = False
    call_command("collectstatic", interactive=False, verbosity=0)
    return source


def manifest_paths(root: Path) -> dict[str, str]:
    return json.loads((root / "staticfiles.json").read_text())["paths"]


def test_pages_and_the_service_worker_name_the_hashed_files(client, settings, collected):
    paths = manifest_paths(settings.STATIC_ROOT)
    hashed_css = paths["league/app.css"]
    assert hashed_css != "league/app.css" and re.fullmatch(
        r"league/app\.[0-9a-f]{12}\.css", hashed_css
    )
    # A page links the hashed name.
    page = client.get("/accounts/login/").content.decode()
    assert f"/static/{hashed_css}" in page

    precache = served_precache(client)
    manifest_hash = json.loads((settings.STATIC_ROOT / "staticfiles.json").read_text())["hash"]
    assert precache["cache"] == f"jancho-{manifest_hash}"
    assert precache["shell"] == [f"/static/{paths[name]}" for name in offline.SHELL]
    for url in precache["shell"]:  # every file the worker fetches was collected
        assert (settings.STATIC_ROOT / url.removeprefix("/static/")).is_file(), url


def test_a_changed_file_is_a_new_name_and_a_new_cache(client, settings, collected):
    before = served_precache(client)
    css = collected / "league" / "app.css"
    css.write_text(css.read_text() + "\n/* changed */\n")
    call_command("collectstatic", interactive=False, verbosity=0)

    after = served_precache(client)
    assert after["cache"] != before["cache"]
    changed = [old != new for old, new in zip(before["shell"], after["shell"], strict=True)]
    assert changed == [name == "league/app.css" for name in offline.SHELL]


def test_under_debug_the_plain_names_and_an_edit_still_renames_the_cache(
    client, settings, tmp_path
):
    source = tmp_path / "static"
    shutil.copytree(Path(django_settings.BASE_DIR) / "static", source)
    settings.STATICFILES_DIRS = [source]
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": MANIFEST}}
    settings.DEBUG = True  # runserver: no collectstatic, no manifest

    before = served_precache(client)
    assert before["shell"] == [f"/static/{name}" for name in offline.SHELL]
    js = source / "league" / "table.js"
    js.write_text(js.read_text() + "\n// changed\n")
    assert served_precache(client)["cache"] != before["cache"]
