"""league.core.bulk: bulk_insert (left for the kept books only) writes what bulk_create writes."""

from __future__ import annotations

import datetime

import pytest

from league.core.bulk import bulk_insert
from league.models import AuditLog, Day, Game, Result, RulesVersion
from league.recording.services import ResultRow

pytestmark = pytest.mark.django_db

SNAPSHOTS = [None, {"players": [{"member": 1, "points": 25000}], "note": "全角　▲"}, [1, 2]]


def _entries(club, game, user) -> list[AuditLog]:
    return [
        AuditLog(
            club=club,
            actor=user if i % 2 else None,
            action=f"test.{i}",
            target=f"game:{game.pk}",
            game=game if i % 3 else None,
            before=SNAPSHOTS[i % 3],
            after=SNAPSHOTS[(i + 1) % 3],
            reason="理由" * (i % 2),
        )
        for i in range(7)
    ]


def _stored(actions_from: int) -> list[dict]:
    fields = ("club_id", "actor_id", "action", "target", "game_id", "before", "after", "reason")
    return list(AuditLog.objects.filter(pk__gte=actions_from).order_by("pk").values(*fields))


def test_bulk_insert_stores_what_bulk_create_stores(club, organiser):
    day = Day.objects.create(club=club, date=datetime.date(2026, 1, 5))
    rv = RulesVersion.objects.filter(club=club).first()
    game = Game.objects.create(
        club=club, day=day, date=day.date, table="A", number=1, rules_version=rv
    )
    first = AuditLog.objects.create(club=club, action="mark", target="").pk
    AuditLog.objects.bulk_create(_entries(club, game, organiser))
    by_django = _stored(first + 1)
    mark = AuditLog.objects.create(club=club, action="mark", target="").pk
    rows = bulk_insert(AuditLog, _entries(club, game, organiser))
    assert _stored(mark + 1) == by_django
    assert all(not r._state.adding for r in rows)
    stamps = AuditLog.objects.filter(pk__gt=mark).values_list("at", flat=True)
    assert all(s is not None and s.tzinfo is not None for s in stamps)  # auto_now_add


def test_bulk_insert_returns_ascending_keys_in_the_rows_order(club):
    day = Day.objects.create(club=club, date=datetime.date(2026, 1, 5))
    rv = RulesVersion.objects.filter(club=club).first()
    games = [
        Game(
            club=club,
            day=day,
            date=day.date,
            table="AB"[i % 2],
            number=i + 1,
            deposits=i,
            rules_version=rv,
        )
        for i in range(1_203)  # more than one statement's worth on SQLite
    ]
    bulk_insert(Game, games, returning=True, batch_size=500)
    keys = [g.pk for g in games]
    assert None not in keys and keys == sorted(keys) and len(set(keys)) == len(keys)
    stored = dict(Game.objects.filter(day=day).values_list("pk", "number"))
    assert {g.pk: g.number for g in games} == stored
    assert Game.objects.get(pk=games[7].pk).deposits == 7


def test_bulk_insert_of_nothing_touches_nothing(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert bulk_insert(Game, []) == []


def test_result_rows_name_every_column_of_a_result():
    """recording's ResultRow is a Result's column values (written as Result(**row)): it gives
    every column but the key, so a column added to Result without a ResultRow field fails here,
    not on an insert."""
    columns = {f.attname for f in Result._meta.concrete_fields if not f.primary_key}
    assert set(ResultRow._fields) == columns
