"""The club's query (league.access._club_sql), which every club page and every 304 runs, reads
the same few rows however long the club's history: whether a day holds results back is asked
of the holding rooms, not of every day of the club. PostgreSQL, without statistics on a table
that grew since they were gathered, planned the old join from the club's days, and walked each
of them (1,800 buffers a request at 10,000 games)."""

from __future__ import annotations

import datetime
import json

import pytest
from django.db import connection
from django.urls import reverse

from league import access
from league.models import Day, DrawRoom


def buffers(plan: dict) -> int:
    return plan.get("Shared Hit Blocks", 0) + plan.get("Shared Read Blocks", 0)


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_the_club_query_reads_no_more_with_a_longer_history(club, member_user):
    def read() -> int:
        sql, params = access._club_sql(connection.vendor)
        values = {access._SLUG: club.slug, access._USER: member_user.pk}
        with connection.cursor() as cursor:
            cursor.execute(
                "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql,
                [values.get(p, p) for p in params],
            )
            (plan,) = cursor.fetchone()[0]
        if isinstance(plan, str):
            plan = json.loads(plan)[0]
        return buffers(plan["Plan"])

    start = datetime.date(2020, 1, 1)
    Day.objects.bulk_create(
        Day(club=club, date=start + datetime.timedelta(days=n)) for n in range(20)
    )
    short = read()
    days = [Day(club=club, date=start + datetime.timedelta(days=n)) for n in range(20, 1500)]
    Day.objects.bulk_create(days)
    # A room on some of the days (none of them holding results): as a club that draws tables.
    rooms = Day.objects.filter(club=club).order_by("date")[::5]
    DrawRoom.objects.bulk_create(DrawRoom(day=day) for day in rooms)
    long = read()
    assert long <= short + 10, (short, long)


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_the_club_query_is_prepared_on_a_kept_connection(club, member_client):
    """PostgreSQL plans the club's query once per connection, not on every page (DATABASE_PREPARE,
    league/conf/env.py): psycopg prepares it at its 5th run."""
    address = reverse("standings:standings", args=[club.slug])
    for _ in range(6):
        assert member_client.get(address).status_code == 200
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%data_version%"],
        )
        assert cursor.fetchone()[0] == 1
