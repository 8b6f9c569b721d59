"""The API's one entry point (league.urls mounts it at /api/): the NinjaAPI of league.api.base with
every resource's routes on it."""

from __future__ import annotations

# Importing a resource's module registers its routes on `api`, in this order: the order of the
# paths in the schema, as when the API was one module.
# isort: off
from league.api import days  # noqa: F401
from league.api import standings  # noqa: F401
from league.api import games  # noqa: F401
from league.api import tables  # noqa: F401
from league.api import stats  # noqa: F401
from league.api import teams  # noqa: F401
from league.api import calculator  # noqa: F401

# isort: on
from league.api.base import api

__all__ = ["api"]
