"""Migration tests: the database taken back to an earlier migration of league's, and forward again."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def _migrate(targets: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


@contextlib.contextmanager
def migrated_back(name: str) -> Iterator[Any]:
    """The database at league's migration `name`, as that state's apps (for rows as they were
    stored then); at the end, whatever happened, migrated forward to the latest again."""
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    target = [("league", name)]
    _migrate(target)
    try:
        yield MigrationExecutor(connection).loader.project_state(target).apps
    finally:
        _migrate(latest)


def old_club_and_user(apps: Any) -> tuple[Any, Any]:
    """A club and a user made with an earlier state's models."""
    club = apps.get_model("league", "Club").objects.create(slug="m", name="m")
    return club, apps.get_model("auth", "User").objects.create(username="m")
