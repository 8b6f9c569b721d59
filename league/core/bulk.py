"""bulk_set: Django's QuerySet.bulk_update without its cost in Python.

bulk_update writes the same statement (UPDATE … SET f = CASE WHEN id = … THEN … END) but builds
it from a Case(When(pk=…)) expression per row and field, resolved and compiled one by one: for
the kept totals of a re-settle's batch or an import (thousands of rows) that took most of the
job's time. bulk_set writes the SQL directly, with the values as parameters."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection
from django.db.models import Model


def bulk_set(
    model: type[Model], rows: Sequence[Any], fields: Iterable[str], *, batch_size: int = 500
) -> int:
    """Save `fields` of `rows` (instances of `model` with their primary keys), in statements of
    at most `batch_size` rows (fewer where the database takes fewer parameters); returns the
    number of rows updated. Inside the caller's transaction; no signals, as bulk_update."""
    opts = model._meta
    columns = [opts.get_field(name) for name in fields]
    if not rows or not columns:
        return 0
    quote = connection.ops.quote_name
    pk = opts.pk
    limit = connection.features.max_query_params
    per_row = 2 * len(columns) + 1
    size = max(1, min(batch_size, limit // per_row)) if limit else batch_size
    typed = connection.vendor == "postgresql"  # a CASE of NULLs only is text there: cast it
    updated = 0
    with connection.cursor() as cursor:
        for start in range(0, len(rows), size):
            chunk = rows[start : start + size]
            keys = [pk.get_db_prep_value(row.pk, connection) for row in chunk]
            sets: list[str] = []
            params: list[Any] = []
            for field in columns:
                column = quote(field.column)
                value = f"CAST(%s AS {field.cast_db_type(connection)})" if typed else "%s"
                whens = " ".join(f"WHEN %s THEN {value}" for _row in chunk)
                sets.append(f"{column} = CASE {quote(pk.column)} {whens} ELSE {column} END")
                for key, row in zip(keys, chunk, strict=True):
                    params += [key, field.get_db_prep_save(getattr(row, field.attname), connection)]
            marks = ", ".join(["%s"] * len(chunk))
            cursor.execute(
                f"UPDATE {quote(opts.db_table)} SET {', '.join(sets)} "
                f"WHERE {quote(pk.column)} IN ({marks})",
                [*params, *keys],
            )
            updated += cursor.rowcount
    return updated
