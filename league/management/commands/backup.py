"""`python manage.py backup <club-slug> <file.json>`: one club's complete data in one JSON file.

The file holds the club, its memberships, members, rules versions, seasons, days (with their
attendees), games with every revision's results and chip events, session shūgi, the table draw (check-ins, rounds, tables, seats), ledger entries, API
tokens (their hashes only) and the whole audit log, each row with its primary key, as Django's
serializers write it. Users are referred to by user name, and listed with their names and e-mail
addresses but without passwords: `manage.py restore` creates the missing ones with unusable
passwords. Datetimes keep their microseconds, so that a restore gives back exactly what was
backed up. Failed login attempts (league.throttle) and uploads waiting for an import's
confirmation (league.excel) are not club data and are left out, and so are the kept standings
totals (league.standings.services): `restore` rebuilds them from the results.

The rows are read in one transaction (repeatable read on PostgreSQL), so that a backup taken while
the club is recording is consistent.
"""

from __future__ import annotations

import datetime
import json
import os
import tempfile
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, models, transaction
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone

from league.models import (
    Account,
    Adjustment,
    ApiToken,
    Attendance,
    AuditLog,
    ChatCode,
    ChatEvent,
    ChatLink,
    ChatPush,
    ChatUser,
    ChipEvent,
    Club,
    ClubChronicle,
    Day,
    DayShugi,
    DrawRoom,
    DrawRound,
    DrawSeat,
    DrawTable,
    ExportFile,
    FinalSeat,
    Game,
    Hand,
    HandStat,
    HandStatTotal,
    ImportBatch,
    ImportUpload,
    Invitation,
    Job,
    LedgerEntry,
    Leg,
    LoginAttempt,
    Member,
    MemberDay,
    MemberGame,
    MemberRateTotal,
    MemberRating,
    Membership,
    MemberTotal,
    OnlineLog,
    OnlineName,
    OpenTransfer,
    PairTotal,
    ResettleRun,
    Result,
    RulesVersion,
    ScorePhoto,
    Season,
    SeatTotal,
    Stage,
    StageEntry,
    TableGame,
    Team,
    TeamMatch,
    TeamMember,
    TeamSlot,
    Transaction,
    UsernameKey,
)

FORMAT = "jancho-club-backup"
VERSION = 1

# In an order that restores: every row refers only to rows of the models before it, or to earlier
# rows of its own model (a ledger reversal to the entry it reverses).
MODELS: tuple[type[models.Model], ...] = (
    Club,
    Membership,
    Member,
    RulesVersion,
    Season,
    Day,
    ImportBatch,  # before Game: a game remembers the import it came in (voided as a whole)
    Game,
    Result,
    ChipEvent,
    OnlineName,
    OnlineLog,
    DayShugi,
    Attendance,
    DrawRound,
    DrawTable,
    DrawSeat,
    TableGame,
    Hand,
    HandStat,
    LedgerEntry,  # before Adjustment, whose yen is a ledger entry
    Team,
    TeamMember,
    Adjustment,
    TeamMatch,
    TeamSlot,
    Stage,
    StageEntry,
    FinalSeat,
    AuditLog,
    ApiToken,
    Invitation,
)
# User names' keys (UsernameKey) are written with each user that restore creates; spreadsheets
# made in the background (ExportFile) can be made again from the games; a re-settle's progress
# (ResettleRun) is the audit log's story told again, and a job's progress (Job) its worker's; kept rows (totals, statistics) are rebuilt
# by restore (league.standings.services.club_rebuild).
NOT_BACKED_UP: tuple[type[models.Model], ...] = (
    LoginAttempt,
    ImportUpload,
    ExportFile,
    ResettleRun,
    Job,
    MemberDay,
    MemberTotal,
    MemberRateTotal,
    UsernameKey,
    PairTotal,
    SeatTotal,
    MemberGame,
    MemberRating,
    ClubChronicle,
    HandStatTotal,
    # The kept books and the book (league.books): restore posts them again from the records.
    Account,
    Transaction,
    Leg,
    OpenTransfer,
    # The chats' links, codes, handled events and push counts (league.chat): a restored club
    # links its chats again with a new code (README: the club's chat).
    ChatLink,
    ChatUser,
    ChatCode,
    ChatEvent,
    ChatPush,
    # A photo waiting to be confirmed (kept 24 hours at most), and a room's countdown: of the
    # moment, not of the club's records.
    ScorePhoto,
    DrawRoom,
)
USER_FIELDS = ("username", "email", "first_name", "last_name", "is_active")


def club_rows(club: Club, model: type[models.Model]) -> models.QuerySet[Any]:
    """The club's rows of `model`, with what serialising them reads loaded in a few queries."""
    if model is Club:
        rows = Club.objects.filter(pk=club.pk)
    elif model is ChipEvent:
        rows = model._base_manager.filter(game__club=club)
    elif model in (DayShugi, Attendance, DrawRound):
        rows = model._base_manager.filter(day__club=club)
    elif model in (DrawTable, DrawSeat):
        rows = model._base_manager.filter(round__day__club=club)
    elif model is TeamMember:
        rows = model._base_manager.filter(team__club=club)
    elif model is TeamSlot:
        rows = model._base_manager.filter(match__club=club)
    elif model in (StageEntry, FinalSeat):
        rows = model._base_manager.filter(stage__club=club)
    elif model is Hand:
        rows = model._base_manager.filter(table_game__club=club)
    else:
        rows = model._base_manager.filter(club=club)
    if users := user_fields(model):
        rows = rows.select_related(*users)
    rows = rows.order_by("pk")
    if model is Day:
        rows = rows.prefetch_related("attendees", "scorers")
    return rows


def user_fields(model: type[models.Model]) -> list[str]:
    user = get_user_model()
    return [
        f.name for f in model._meta.concrete_fields if f.is_relation and f.related_model is user
    ]


def schema_version() -> str:
    """The league app's latest applied migration: a restore needs at least this schema."""
    applied = MigrationRecorder(connection).applied_migrations()
    return max((name for app, name in applied if app == "league"), default="")


def _users(objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    fields = {f"league.{m._meta.model_name}": user_fields(m) for m in MODELS}
    names = {
        value[0]
        for obj in objects
        for name in fields[obj["model"]]
        if (value := obj["fields"][name]) is not None
    }
    user = get_user_model()
    rows = user._default_manager.filter(**{f"{user.USERNAME_FIELD}__in": names})
    return list(rows.order_by(user.USERNAME_FIELD).values(*USER_FIELDS))


def club_backup(club: Club) -> dict[str, Any]:
    """The club's data as one JSON-ready object (values that JSON lacks are handled by `_json`)."""
    objects: list[dict[str, Any]] = []
    for model in MODELS:
        objects += serializers.serialize(
            "python", club_rows(club, model), use_natural_foreign_keys=True
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "club": club.slug,
        "schema": schema_version(),
        "created_at": timezone.now(),
        "users": _users(objects),
        "objects": objects,
    }


def _json(value: object) -> object:
    """Dates and times in full ISO 8601 (Django's JSON encoder would cut microseconds)."""
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"{type(value).__name__} cannot be written to a backup")


def write_json(data: dict[str, Any], path: Path) -> None:
    """Write all of the file or none of it: a half-written backup is worse than none."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, default=_json, ensure_ascii=False, indent=1)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_consistently(club_slug: str) -> dict[str, Any]:
    # Inside a caller's transaction (a test's), that transaction decides what is seen.
    snapshot = connection.vendor == "postgresql" and not connection.in_atomic_block
    with transaction.atomic():
        if snapshot:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        club = Club.objects.filter(slug=club_slug).first()
        if club is None:
            raise CommandError(f"There is no club {club_slug!r}.")
        return club_backup(club)


class Command(BaseCommand):
    help = "Write one club's complete data (games, ledger, audit log...) to a JSON file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("club", help="the club's short name (slug)")
        parser.add_argument("file", type=Path, help="the JSON file to write")

    def handle(self, *args: Any, club: str, file: Path, **options: Any) -> None:
        if not file.parent.is_dir():
            raise CommandError(f"The folder {file.parent} does not exist.")
        data = _read_consistently(club)
        write_json(data, file)
        counts: dict[str, int] = {}
        for obj in data["objects"]:
            counts[obj["model"]] = counts.get(obj["model"], 0) + 1
        summary = ", ".join(
            f"{m._meta.model_name} {counts.get(f'league.{m._meta.model_name}', 0)}"
            for m in MODELS[1:]
        )
        self.stdout.write(f"Wrote club {club} to {file}: {summary}, users {len(data['users'])}.")
