"""What the service worker (static/league/sw.js, served at /sw.js) keeps for a lost signal: the
app shell and table mode's files, under their hashed names, in a cache named for this build.

Static files are stored by ManifestStaticFilesStorage: `collectstatic` gives every file a name
with a hash of its content (app.3f2a….css) and writes a manifest of them. The worker's precache
list is those names, and its cache is named after the manifest's own hash, so that a changed file
is a new URL and a new build a new cache, which drops the old one when it activates. Nobody bumps
a version by hand. Under DEBUG (runserver, no collectstatic) the names are the plain ones and
the cache is named after the files' contents, found by the static finders."""

from __future__ import annotations

import hashlib
import json
import os

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage

# The app shell and table mode: what a scorer needs to keep counting with no signal.
SHELL = (
    "league/app.css",
    "league/table.css",
    "league/table.js",
    "league/table_engine.js",
    "league/confirm.js",
    "league/manifest.webmanifest",
    "league/icon.svg",
)
# The line of sw.js that the served worker has in its place (the worker's own copy keeps the
# plain names, for reading).
PLACEHOLDER = 'var PRECACHE = {"cache": "jancho-dev", "shell": []};'


def _build() -> str:
    """A name for this build of the static files: the manifest's hash where there is one; else
    (DEBUG, plain names) one from every static file's name, size and time of change, so that an
    edited file is not served from the cache of before."""
    if isinstance(staticfiles_storage, ManifestFilesMixin) and not settings.DEBUG:
        return staticfiles_storage.manifest_hash
    digest = hashlib.sha256()
    for finder in finders.get_finders():
        for name, storage in sorted(finder.list([]), key=lambda found: found[0]):
            stat = os.stat(storage.path(name))
            digest.update(f"{name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:12]


def precache() -> dict[str, object]:
    """The worker's cache name and the URLs it fetches when it installs."""
    return {
        "cache": f"jancho-{_build()}",
        "shell": [staticfiles_storage.url(name) for name in SHELL],
    }


def service_worker_source() -> bytes:
    """sw.js with this build's precache list in place of its placeholder line."""
    path = finders.find("league/sw.js")
    with open(path, encoding="utf-8") as f:  # type: ignore[arg-type]
        source = f.read()
    if PLACEHOLDER not in source:
        raise ValueError(f"static/league/sw.js lacks the line {PLACEHOLDER!r}")
    line = f"var PRECACHE = {json.dumps(precache(), ensure_ascii=False)};"
    return source.replace(PLACEHOLDER, line, 1).encode()
