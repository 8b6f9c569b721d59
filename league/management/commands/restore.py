"""`python manage.py restore <file.json>`: load a club written by `manage.py backup`.

The database must be migrated (`manage.py migrate`) and must not have the club. Rows keep their
primary keys, because the audit log's before/after snapshots refer to members, games and ledger
entries by id; so the restore refuses when any of those ids is taken in this database: restore
into an empty one. It is all or nothing (one transaction).

Users the file names that do not exist here are created with unusable passwords: each sets a new
one (`manage.py changepassword NAME`, or a superuser in the admin). Staff and superuser status are
never taken from a file, and a file can only hold the club's own kinds of rows.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.management.color import no_style
from django.core.serializers.base import DeserializationError
from django.db import DatabaseError, connection, transaction
from django.db.migrations.recorder import MigrationRecorder

from league.management.commands.backup import FORMAT, MODELS, USER_FIELDS, VERSION
from league.models import Club

LABELS = {f"league.{m._meta.model_name}": m for m in MODELS}


def read_backup(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CommandError(f"{path} cannot be read as a backup: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CommandError(f"{path} is not a Janchō club backup.")
    if not all(isinstance(data.get(key), list) for key in ("users", "objects")):
        raise CommandError(f"{path} is an incomplete backup.")
    if data.get("version") != VERSION:
        raise CommandError(f"{path} is a backup of version {data.get('version')!r}: not known.")
    unknown = {o.get("model") for o in data["objects"]} - LABELS.keys()
    if unknown:
        raise CommandError(
            f"{path} holds rows that are not club data: {sorted(map(str, unknown))}."
        )
    return data


def _check_target(data: dict[str, Any]) -> None:
    """Refuse a database that has the club, an older schema, or any of the backup's ids."""
    if Club.objects.filter(slug=data["club"]).exists():
        raise CommandError(f"The club {data['club']!r} exists in this database: nothing restored.")
    applied = MigrationRecorder(connection).applied_migrations()
    if data["schema"] and ("league", data["schema"]) not in applied:
        raise CommandError(
            f"This database lacks migration league.{data['schema']}: run manage.py migrate first."
        )
    ids: dict[str, list[Any]] = defaultdict(list)
    for obj in data["objects"]:
        ids[obj["model"]].append(obj["pk"])
    taken = [
        label
        for label, pks in ids.items()
        if LABELS[label]._base_manager.filter(pk__in=pks).exists()
    ]
    if taken:
        raise CommandError(
            "Rows with the backup's ids exist in this database "
            f"({', '.join(sorted(taken))}): restore into an empty database. Nothing restored."
        )


def _create_users(users: list[dict[str, Any]]) -> list[str]:
    """Create the users that do not exist, without a usable password; return their names."""
    model = get_user_model()
    created = []
    for fields in users:
        name = fields["username"]
        if model._default_manager.filter(**{model.USERNAME_FIELD: name}).exists():
            continue
        user = model(**{f: fields[f] for f in USER_FIELDS})
        user.set_unusable_password()
        user.save()
        created.append(name)
    return created


def _insert(objects: list[dict[str, Any]]) -> None:
    try:
        for row in serializers.deserialize("python", objects):
            row.save()
    except (DeserializationError, DatabaseError) as e:
        raise CommandError(f"The backup cannot be loaded: {e}") from None


def _reset_sequences() -> None:
    """Rows came with their ids: new rows must be numbered after them (PostgreSQL sequences)."""
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), list(MODELS)):
            cursor.execute(sql)


def restore(data: dict[str, Any]) -> list[str]:
    """Load a read backup; return the names of the users created."""
    with transaction.atomic():
        _check_target(data)
        created = _create_users(data["users"])
        _insert(data["objects"])
        _reset_sequences()
    return created


class Command(BaseCommand):
    help = "Load a club from a file written by manage.py backup, into a database without it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="the JSON file written by manage.py backup")

    def handle(self, *args: Any, file: Path, **options: Any) -> None:
        data = read_backup(file)
        created = restore(data)
        self.stdout.write(f"Restored club {data['club']} from {file}: {len(data['objects'])} rows.")
        if created:
            self.stdout.write(
                f"Created {len(created)} users without a usable password: {', '.join(created)}. "
                "Each must be given a new one: python manage.py changepassword NAME."
            )
