"""WSGI entry point: exposes ``application``.

Every module a request needs is imported here (the URLconf imports every view), and what was
loaded is then frozen out of Python's cyclic garbage collector (gc.freeze): the collector's full
passes otherwise walk every object of Django and the app again and again, a pause of tens of ms in
an unlucky request (load_bench's standings p99 was six times its p50 at one client). With
gunicorn's --preload the workers fork from a process that did this once."""

from __future__ import annotations

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")

application = get_wsgi_application()
get_resolver().url_patterns  # noqa: B018  (imports the views)
gc.collect()
gc.freeze()
