"""bulk_insert: Django's QuerySet.bulk_create without its cost in Python, kept only for the kept
books (league.books.services), which are being rewritten on their own branch and will replace
it; nothing else uses it. Recording, re-settling, the kept totals and statistics and the audit
log write with Django's own bulk_create and bulk_update, in batches (issue 38: no ORM bypass).
A first import's half of time was Django compiling its INSERTs and preparing each value; the
books' rows still go this way until their rewrite lands."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.db.models import Model

# Field types whose Python value is what the database driver takes as it is (get_db_prep_save
# returns it unchanged for the values models hold): no per-value call for them.
_AS_IS = frozenset(
    {
        "AutoField",
        "BigAutoField",
        "SmallAutoField",
        "IntegerField",
        "BigIntegerField",
        "SmallIntegerField",
        "PositiveIntegerField",
        "PositiveBigIntegerField",
        "PositiveSmallIntegerField",
        "BooleanField",
        "CharField",
        "TextField",
        "SlugField",
    }
)


def _converter(field: Any) -> Any:
    """How a field's Python value becomes the driver's: None (as it is), a function of it, or
    False (auto_now fields: pre_save sets the value, then get_db_prep_save, as bulk_create does).
    Dates are adapted directly (get_db_prep_save's to_python pass leaves a date as it is)."""
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return False
    target = field.target_field if field.is_relation else field
    kind = target.get_internal_type()
    if kind in _AS_IS:
        return None
    if kind == "DateField":
        adapt = connection.ops.adapt_datefield_value
        prepare = field.get_db_prep_save
        return lambda v: adapt(v) if type(v) is datetime.date else prepare(v, connection)
    return lambda v: field.get_db_prep_save(v, connection)


def bulk_insert(
    model: type[Model], rows: Iterable[Any], *, returning: bool = False, batch_size: int = 1_000
) -> list[Any]:
    """Insert `rows` (new instances of `model`) as bulk_create(rows) would, without Django's
    building of the INSERT in Python (a compiler pass and get_db_prep_save per value: half of an
    import's time). Each field's value is taken as bulk_create takes it (pre_save with add=True,
    then get_db_prep_save), except for the plain types of _AS_IS, which go to the driver as they
    are, and dates, adapted directly. `returning`: the new primary keys are set on the rows,
    ascending in the rows' order. Inside the caller's transaction; no signals, no conflict
    handling; returns the rows.

    PostgreSQL: one COPY (the keys drawn from the table's sequence first), since psycopg parses
    a statement's placeholders in Python, which for thousands of them cost more than the insert.
    SQLite: executemany of one row's INSERT, or multi-row INSERTs … RETURNING for the keys."""
    rows = list(rows)
    if not rows:
        return rows
    opts = model._meta
    pk = opts.pk
    if returning and connection.vendor == "postgresql":
        for row, key in zip(rows, _draw_keys(model, len(rows)), strict=True):
            row.pk = key
    with_pk = rows[0].pk is not None
    fields = [f for f in opts.concrete_fields if with_pk or f is not pk]
    how = [(f, f.attname, _converter(f)) for f in fields]
    values = []
    for row in rows:
        row._state.adding = False
        row._state.db = connection.alias
        values.append(
            [
                getattr(row, name)
                if convert is None
                else convert(getattr(row, name))
                if convert
                else field.get_db_prep_save(field.pre_save(row, True), connection)
                for field, name, convert in how
            ]
        )
    keys = _insert(
        model, fields, values, returning and connection.vendor != "postgresql", batch_size
    )
    if keys:  # SQLite's RETURNING (PostgreSQL's were drawn before)
        for row, key in zip(rows, keys, strict=True):
            row.pk = key
    return rows


def _draw_keys(model: type[Model], count: int) -> list[int]:
    """PostgreSQL: `count` new primary keys from the table's sequence, ascending."""
    opts = model._meta
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [opts.db_table, opts.pk.column, count],
        )
        return sorted(key for (key,) in cursor.fetchall())


def _insert(
    model: type[Model], fields: list[Any], values: list[Any], returning: bool, batch_size: int
) -> list[Any]:
    """Write prepared `values` (lists in `fields`' order); the new keys when `returning`."""
    if not values:
        return []
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(f.column) for f in fields)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for value in values:
                    copy.write_row(value)
            return []
        one = "(" + ", ".join(["%s"] * len(fields)) + ")"
        if not returning:
            cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES {one}", values)
            return []
        keys = []
        size = max(1, min(batch_size, connection.ops.bulk_batch_size(fields, values)))
        for start in range(0, len(values), size):
            chunk = values[start : start + size]
            cursor.execute(
                f"INSERT INTO {table} ({columns}) VALUES "
                + ", ".join([one] * len(chunk))
                + f" RETURNING {quote(model._meta.pk.column)}",
                [value for row in chunk for value in row],
            )
            keys += [key for (key,) in cursor.fetchall()]
        return keys
