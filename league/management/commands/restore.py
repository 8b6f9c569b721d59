"""`python manage.py restore <file.json>`: load a club written by `manage.py backup`.

The database must be migrated (`manage.py migrate`) and must not have the club. Rows keep their
primary keys, because the audit log's before/after snapshots refer to members, games and ledger
entries by id; so the restore refuses when any of those ids is taken in this database: restore
into an empty one. It is all or nothing (one transaction).

Users the file names that do not exist here are created with unusable passwords: each sets a new
one (`manage.py changepassword NAME`, or a superuser in the admin). Staff and superuser status are
never taken from a file, and a file can only hold the club's own kinds of rows.

Nothing in the file is trusted (`check_backup`): every row must belong to the club being restored
(its `club` is that club, and every reference points at a row of the file or at a user it lists);
every listed user must be referred to by some row; no two rows of a model share an id. A user
name that already exists in this database is refused, because its rows (an organiser's
membership…) would go to whoever has that name here, unless the command is told explicitly what
to do with it: `--map-user old=new` puts the file's user `old` on the user `new` of this database
(created when it does not exist). Anything else refuses the whole file, naming the row; so do
foreign-key and other database errors, as a CommandError, never a traceback.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.serializers.base import DeserializationError
from django.db import DatabaseError, connection, models, transaction
from django.db.migrations.recorder import MigrationRecorder

from league.core import changes
from league.core.names import username_key
from league.management.commands.backup import FORMAT, MODELS, USER_FIELDS, VERSION, user_fields
from league.models import Club, DrawTable, Member, TableGame, UsernameKey

LABELS = {f"league.{m._meta.model_name}": m for m in MODELS}

# The ids a backup may hold. The id sequences are shared by every club of the database and run to
# 2**63 - 1; a real club's rows are numbered far below this (two billion rows), so a file beyond
# it is tampered with: restoring it would move the sequences to their end, and no club could
# add a member or a game afterwards. Some ids are also kept in 32-bit columns (a table game's
# draw table), so the limit leaves half of 2**31 - 1 free after it: a backup whose draw-table id
# was 2,147,483,647 moved the shared counter to the top, and the next draw table of any club
# then failed with "integer out of range" (issue 39).
MAX_ID = 2**30


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


def _row(obj: dict[str, Any]) -> str:
    return f"{obj.get('model')} #{obj.get('pk')!r}"


def _references(model: type[models.Model]) -> list[tuple[str, type[models.Model], bool]]:
    """(field, related model, many) for each relation of `model` stored in a backup row."""
    out = [
        (f.name, f.related_model, False)
        for f in model._meta.concrete_fields
        if f.is_relation and f.related_model is not None
    ]
    out += [(f.name, f.related_model, True) for f in model._meta.many_to_many]
    return out  # type: ignore[return-value]


def map_users(data: dict[str, Any], mapping: dict[str, str]) -> None:
    """Rename the file's users as `--map-user old=new` says, in the user list and every row."""
    names = {u.get("username") for u in data["users"] if isinstance(u, dict)}
    for old in mapping:
        if old not in names:
            raise CommandError(f"--map-user {old}=…: the backup has no user {old!r}.")
    if not mapping:
        return
    for user in data["users"]:
        if isinstance(user, dict) and user.get("username") in mapping:
            user["username"] = mapping[user["username"]]
    for obj in data["objects"]:
        model = LABELS[obj["model"]]
        fields = obj.get("fields")
        for name in user_fields(model):
            value = fields.get(name) if isinstance(fields, dict) else None
            if isinstance(value, list) and len(value) == 1 and value[0] in mapping:
                fields[name] = [mapping[value[0]]]


def _check_json_references(
    objects: list[dict[str, Any]], ids: dict[type[models.Model], set[Any]]
) -> None:
    """A table-mode game names its players (`seats`) and its draw card (`draw_table`) by id in
    plain values: they too must be the backup's own rows."""
    for obj in objects:
        if LABELS[obj["model"]] is not TableGame:
            continue
        fields = obj["fields"]
        seats = fields.get("seats")
        if not isinstance(seats, list) or not all(
            isinstance(pk, int) and pk in ids[Member] for pk in seats
        ):
            raise CommandError(
                f"Row {_row(obj)}: seats {seats!r} are not members in the backup. Nothing restored."
            )
        card = fields.get("draw_table")
        if card is not None and card not in ids[DrawTable]:
            raise CommandError(
                f"Row {_row(obj)}: draw_table #{card!r} is not in the backup. Nothing restored."
            )


def check_backup(data: dict[str, Any], mapped: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    """Refuse (CommandError naming the row) anything in the file that is not the club's own."""
    user_model = get_user_model()
    users: set[str] = set()
    for user in data["users"]:
        name = user.get("username") if isinstance(user, dict) else None
        if not isinstance(name, str) or not name or set(user) - set(USER_FIELDS):
            raise CommandError(f"The backup's user {user!r} is not a user as backups list them.")
        if name in users:
            raise CommandError(f"The backup lists the user {name!r} twice.")
        users.add(name)
    clubs = [o for o in data["objects"] if o.get("model") == "league.club"]
    if len(clubs) != 1 or (clubs[0].get("fields") or {}).get("slug") != data.get("club"):
        raise CommandError(f"The backup must hold exactly one club, {data.get('club')!r}.")
    club_pk = clubs[0].get("pk")
    ids: dict[type[models.Model], set[Any]] = defaultdict(set)
    for obj in data["objects"]:
        model = LABELS[obj["model"]]
        if not isinstance(obj.get("fields"), dict) or isinstance(obj.get("pk"), bool):
            raise CommandError(f"Row {_row(obj)} is not a row as backups write them.")
        if not isinstance(obj.get("pk"), int) or obj["pk"] in ids[model]:
            raise CommandError(f"Row {_row(obj)}: its id is missing or used twice.")
        if not 1 <= obj["pk"] <= MAX_ID:
            raise CommandError(
                f"Row {_row(obj)}: its id is beyond {MAX_ID} or below 1, where no backup's ids "
                "are (restoring it would use up the id sequences every club shares). Nothing "
                "restored."
            )
        ids[model].add(obj["pk"])
    used: set[str] = set()
    for obj in data["objects"]:
        model, fields = LABELS[obj["model"]], obj["fields"]
        for name, related, many in _references(model):
            value = fields.get(name)
            values = value if many and isinstance(value, list) else [value]
            for ref in values:
                if ref is None and not many:
                    continue
                if related is user_model:
                    ok = isinstance(ref, list) and len(ref) == 1 and ref[0] in users
                    if ok:
                        used.add(ref[0])
                    elif not many:
                        raise CommandError(
                            f"Row {_row(obj)}: {name} is {ref!r}, a user the backup does not list."
                        )
                elif related is Club:
                    if ref != club_pk:
                        raise CommandError(
                            f"Row {_row(obj)}: {name} is club #{ref!r}, not the club being "
                            f"restored ({data.get('club')!r}, #{club_pk}). Nothing restored."
                        )
                elif ref not in ids.get(related, set()):  # type: ignore[arg-type]
                    raise CommandError(
                        f"Row {_row(obj)}: {name} refers to {related._meta.label_lower} "
                        f"#{ref!r}, which is not in the backup. Nothing restored."
                    )
    _check_json_references(data["objects"], ids)
    _check_money(data["objects"])
    for name in sorted(users - used):
        raise CommandError(f"The backup lists the user {name!r}, whom no row of the club names.")
    existing = set(
        user_model._default_manager.filter(
            **{f"{user_model.USERNAME_FIELD}__in": users - set(mapped)}
        ).values_list(user_model.USERNAME_FIELD, flat=True)
    )
    if existing:
        names = ", ".join(sorted(existing))
        raise CommandError(
            f"Users with the backup's names exist in this database: {names}. Their rows would go "
            f"to those users. Say whom each is with --map-user NAME=USER (NAME=NAME for the same "
            f"person). Nothing restored."
        )
    _check_twins(users, user_model)


def _check_money(objects: list[dict[str, Any]]) -> None:
    """Every money row agrees with its ledger entry, as the app writes them (league.teams'
    adjustment_book and adjustment_reverse): a member's adjustment with yen has an entry of kind
    adjustment for that many yen, owed by the member for a penalty (yen below 0) or owed to them
    (above); its reversal has an entry of kind reversal of the same parties and amount that
    reverses the original's; an adjustment without yen, or a team's, has none; and every entry
    of kind adjustment or reversal of an adjustment belongs to exactly one adjustment. Else the
    file is refused, naming the row (issue 39: an adjustment whose yen disagreed with its entry
    was restored as it was)."""
    entries = {o["pk"]: o["fields"] for o in objects if o["model"] == "league.ledgerentry"}
    adjustments = {o["pk"]: o for o in objects if o["model"] == "league.adjustment"}
    claimed: set[Any] = set()
    for obj in adjustments.values():
        f = obj["fields"]
        yen, member, entry_id = f.get("yen"), f.get("member"), f.get("entry")
        problem = ""
        if not yen or member is None:
            if entry_id is not None:
                problem = "has a ledger entry but no yen of a member's"
        elif entry_id not in entries:
            problem = f"has {yen:,} yen but no ledger entry"
        else:
            e = entries[entry_id]
            if f.get("kind") == "reversal":
                original = adjustments.get(f.get("reverses"), {}).get("fields", {})
                first = entries.get(original.get("entry"), {})
                want = {
                    "kind": "reversal",
                    "amount": abs(yen),
                    "borrower": first.get("borrower"),
                    "payee": first.get("payee"),
                    "reverses": original.get("entry"),
                }
            else:
                want = {
                    "kind": "adjustment",
                    "amount": abs(yen),
                    "borrower": member if yen < 0 else None,
                    "payee": member if yen > 0 else None,
                }
            wrong = [k for k, v in want.items() if e.get(k) != v]
            if wrong:
                problem = (
                    f"has {yen:,} yen for member #{member}, and its ledger entry "
                    f"#{entry_id} disagrees ({', '.join(wrong)})"
                )
            claimed.add(entry_id)
        if problem:
            raise CommandError(f"Row {_row(obj)}: the adjustment {problem}. Nothing restored.")
    for pk, e in entries.items():
        of_adjustment = e.get("kind") == "adjustment" or (
            e.get("kind") == "reversal"
            and entries.get(e.get("reverses"), {}).get("kind") == "adjustment"
        )
        if of_adjustment and pk not in claimed:
            raise CommandError(
                f"Row league.ledgerentry #{pk}: an adjustment's entry that no adjustment of the "
                "backup books. Nothing restored."
            )


def _check_twins(users: set[str], user_model: Any) -> None:
    """Refuse user names that are one account's name in another case or width (Demo beside
    demo: UsernameKey), within the file or beside a user of this database that the file does not
    name exactly (a mapped user is that user itself)."""
    keys: dict[str, str] = {}
    for name in sorted(users):
        key = username_key(name)
        if key in keys:
            raise CommandError(
                f"The backup lists the users {keys[key]!r} and {name!r}, one name in another "
                "case or width. Nothing restored."
            )
        keys[key] = name
    exact = set(
        user_model._default_manager.filter(
            **{f"{user_model.USERNAME_FIELD}__in": users}
        ).values_list("pk", flat=True)
    )
    twins = (
        UsernameKey.objects.filter(key__in=keys)
        .exclude(user_id__in=exact)
        .values_list("key", "user__" + user_model.USERNAME_FIELD)
    )
    for key, here in twins.order_by("key"):
        raise CommandError(
            f"The backup's user {keys[key]!r} is this database's {here!r} in another case or "
            f"width. Say whom it is with --map-user {keys[key]}=USER ({keys[key]}={here} for the "
            "same person). Nothing restored."
        )


def _check_target(data: dict[str, Any], mapped: set[str]) -> None:
    """Refuse a database that has the club, an older schema, or any of the backup's ids; and a
    file with anything that is not the club's own (check_backup)."""
    if not isinstance(data.get("club"), str):
        raise CommandError("The backup does not name its club.")
    if Club.objects.filter(slug=data["club"]).exists():
        raise CommandError(f"The club {data['club']!r} exists in this database: nothing restored.")
    check_backup(data, mapped)
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


def _reset_sequences(objects: list[dict[str, Any]]) -> None:
    """Rows came with their ids: new rows must be numbered after them. Only the sequences of the
    tables the file wrote into move, only forward, and only to the largest id written (at most
    MAX_ID): a sequence already past it stays where it is, since a concurrent transaction may hold
    the numbers it gave out. PostgreSQL only: SQLite numbers new rows after the largest id by
    itself."""
    if connection.vendor != "postgresql":
        return
    written: dict[str, int] = {}
    for obj in objects:
        table = LABELS[obj["model"]]._meta.db_table
        written[table] = max(written.get(table, 0), obj["pk"])
    with connection.cursor() as cursor:
        for table, top in sorted(written.items()):
            # nextval() takes a number no one else can hold: the sequence moves on from `top`
            # only when it was behind it, never back.
            cursor.execute(
                "SELECT setval(s, %s) FROM (SELECT pg_get_serial_sequence(%s, 'id') AS s) q "
                "WHERE %s > nextval(s)",
                [top, table, top],
            )


def restore(data: dict[str, Any], user_map: dict[str, str] | None = None) -> list[str]:
    """Load a read backup; return the names of the users created."""
    mapping = dict(user_map or {})
    map_users(data, mapping)
    try:
        with transaction.atomic():
            _check_target(data, set(mapping.values()))
            created = _create_users(data["users"])
            _insert(data["objects"])
            _reset_sequences(data["objects"])
            if connection.vendor == "postgresql":  # deferred constraints: fail here, not at commit
                with connection.cursor() as cursor:
                    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            club = Club.objects.get(slug=data["club"])
            changes.club_rebuild(club.pk)  # every kept total (league.core.changes)
    except DatabaseError as e:  # IntegrityError included
        raise CommandError(f"The backup cannot be loaded, nothing restored: {e}") from None
    return created


def _mapping(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        old, sep, new = pair.partition("=")
        if not sep or not old or not new:
            raise CommandError(f"--map-user {pair!r}: write it as OLD=NEW.")
        if old in out:
            raise CommandError(f"--map-user names {old!r} twice.")
        out[old] = new
    return out


class Command(BaseCommand):
    help = "Load a club from a file written by manage.py backup, into a database without it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="the JSON file written by manage.py backup")
        parser.add_argument(
            "--map-user",
            action="append",
            default=[],
            metavar="OLD=NEW",
            help="put the backup's user OLD on this database's user NEW (created if missing); "
            "needed for every user name that exists here (NAME=NAME for the same person)",
        )

    def handle(self, *args: Any, file: Path, map_user: list[str], **options: Any) -> None:
        data = read_backup(file)
        created = restore(data, _mapping(map_user))
        self.stdout.write(f"Restored club {data['club']} from {file}: {len(data['objects'])} rows.")
        if created:
            self.stdout.write(
                f"Created {len(created)} users without a usable password: {', '.join(created)}. "
                "Each must be given a new one: python manage.py changepassword NAME."
            )
