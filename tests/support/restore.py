"""Restoring a backup file in tests."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db.models import QuerySet

from league.models import (
    AuditLog,
    Club,
    Membership,
)
from tests.support.backup import backup, build_club
from tests.support.clubs import make_user


def restore(data: dict[str, Any], tmp_path: Path, *options: str) -> str:
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    out = StringIO()
    call_command("restore", str(path), *options, stdout=out)
    return out.getvalue()


def nothing_restored() -> bool:
    users = set(get_user_model().objects.values_list("username", flat=True))
    return list(Club.objects.values_list("slug", flat=True)) == ["kinyokai"] and users == {
        "stranger"
    }


def saved_elsewhere(club, organiser, members, tmp_path) -> dict[str, Any]:
    """マメの会 backed up, then a database holding only another club, 金曜会, and its organiser."""
    build_club(club, organiser, members)
    data = backup("mame", tmp_path / "mame.json")
    call_command("flush", interactive=False, verbosity=0)
    # Ids far from the file's, so that only the checks under test can refuse it.
    other = Club.objects.create(pk=500, slug="kinyokai", name="金曜会")
    Membership.objects.create(pk=500, club=other, user=make_user("stranger"), role="organiser")
    # The membership's own audit row too (after the flush its id would restart at 1, which the
    # file may hold, depending on what ran before).
    # The log is append-only for the app; the test moves the row with the plain queryset update.
    QuerySet.update(AuditLog.objects.filter(club=other), id=500_000)
    return data
