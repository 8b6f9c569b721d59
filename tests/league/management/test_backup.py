"""Nothing lost: `manage.py backup` and `manage.py restore` give back a club exactly, and the audit log
and the ledger cannot be changed or deleted, not even by a superuser in the admin."""

from __future__ import annotations

import datetime
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import QuerySet
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league import money
from league.books import selectors as book_selectors
from league.management.commands.backup import MODELS, NOT_BACKED_UP, club_backup
from league.models import (
    AuditLog,
    Club,
    Day,
    Game,
    LedgerEntry,
    Member,
    Membership,
)
from league.recording import services
from league.standings import stats
from tests.support.backup import DAY_1, DAY_2, backup, build_club, game


def _rows(rows: QuerySet[Any], user_field: str) -> list[dict[str, Any]]:
    """Every column, with the user by name: a restore creates users anew, with new ids."""
    fields = [f.attname for f in rows.model._meta.concrete_fields if f.name != user_field]
    return list(rows.values(*fields, f"{user_field}__username").order_by("pk"))


def snapshot(slug: str) -> dict[str, Any]:
    """What the club's members see: standings, day ledgers, statements, the audit log."""
    club = Club.objects.get(slug=slug)
    ledgers = []
    for day in Day.objects.filter(club=club).order_by("date"):
        ledger = money.day_ledger(day=day)
        ledgers.append(
            (
                day.date,
                ledger.players,
                ledger.house,
                ledger.outstanding,
                ledger.transfers,
                [e.pk for e in ledger.entries],
            )
        )
    statements = {}
    for member in Member.objects.filter(club=club).order_by("pk"):
        statement = book_selectors.full_statement(member=member)
        statements[member.name] = (
            [
                (s.date, s.what, s.yen, s.balance, s.entry and s.entry.pk, _parts(s.parts))
                for s in statement.lines
            ],
            [
                (d.entry.pk, d.debtor.pk, d.creditor and d.creditor.pk, d.principal, d.repaid)
                for d in statement.debts
            ],
        )
    audit = [
        (
            a.pk,
            a.at,
            a.action,
            a.target,
            a.before,
            a.after,
            a.actor and a.actor.username,
            a.reason,
            a.game_id,
        )
        for a in AuditLog.objects.filter(club=club).select_related("actor").order_by("at", "id")
    ]
    return {
        "standings": list(stats.standings(club=club)),
        "ledgers": ledgers,
        "statements": statements,
        "debts": [(d.entry.pk, d.remaining) for d in money.open_debts(club=club)],
        "audit": audit,
        "members": _rows(Member.objects.filter(club=club), "user"),
        "games": _rows(Game.objects.filter(club=club), "recorded_by"),
        "memberships": sorted(
            Membership.objects.filter(club=club).values_list("user__username", "role")
        ),
        "attendees": sorted(
            Day.attendees.through.objects.filter(day__club=club).values_list("day_id", "member_id")
        ),
    }


def restore(path: Path) -> str:
    out = StringIO()
    call_command("restore", str(path), stdout=out)
    return out.getvalue()


@pytest.fixture
def built(club, organiser, members, other_club, stranger) -> Club:
    build_club(club, organiser, members)
    # Another club in the same database, which must stay out of the file.
    outsiders = [Member.objects.create(club=other_club, name=f"余所{i}") for i in range(4)]
    services.game_record(
        club=other_club,
        user=stranger,
        data=services.GameInput(
            date=DAY_1,
            seats=[services.SeatInput(m, 25000) for m in outsiders],
        ),
    )
    return club


def _parts(kept):  # a statement line's day: its figures (the kept row is posted again)
    return kept and (kept.games, kept.score, kept.yen, kept.game_yen, kept.fees, kept.shugi)


@pytest.mark.django_db(transaction=True)
def test_backup_flush_restore_gives_back_the_same_club(built, tmp_path):
    before = snapshot("mame")
    assert len(before["audit"]) >= 12 and before["debts"] and len(before["ledgers"]) == 3
    first = backup("mame", tmp_path / "mame.json")
    assert "余所0" not in json.dumps(first, ensure_ascii=False)

    call_command("flush", interactive=False, verbosity=0)
    assert not Club.objects.exists() and not get_user_model().objects.exists()
    out = restore(tmp_path / "mame.json")

    after = snapshot("mame")
    for key in before:
        assert after[key] == before[key], key
    second = backup("mame", tmp_path / "again.json")
    assert {**second, "created_at": None} == {**first, "created_at": None}
    # Users come back without a usable password, and are told to set one.
    for name in ["organiser", "editor"]:
        user = get_user_model().objects.get(username=name)
        assert not user.has_usable_password() and not user.is_staff and not user.is_superuser
        assert name in out
    assert "changepassword" in out


@pytest.mark.django_db(transaction=True)
def test_new_rows_after_a_restore_get_new_ids(built, tmp_path, members):
    backup("mame", tmp_path / "mame.json")
    highest = Game.objects.filter(club=built).order_by("-pk").first().pk
    call_command("flush", interactive=False, verbosity=0)
    restore(tmp_path / "mame.json")
    club = Club.objects.get(slug="mame")
    user = get_user_model().objects.get(username="organiser")
    players = list(Member.objects.filter(club=club, name__in=[m.name for m in members[:4]]))
    new = game(club, user, players, (40000, 30000, 20000, 10000), date=DAY_2)
    assert new.pk > highest  # on PostgreSQL: the sequences were moved past the restored ids


def test_the_file_holds_every_kind_of_club_row(built, tmp_path):
    data = backup("mame", tmp_path / "mame.json")
    kinds = {o["model"] for o in data["objects"]}
    assert kinds == {f"league.{m._meta.model_name}" for m in MODELS}
    assert {u["username"] for u in data["users"]} == {"organiser", "editor"}
    assert "password" not in json.dumps(data["users"])
    day = next(
        o
        for o in data["objects"]
        if o["model"] == "league.day" and o["fields"]["date"] == "2026-11-21"
    )
    stored = Day.objects.get(club=built, date=DAY_1).attendees.values_list("pk", flat=True)
    assert sorted(day["fields"]["attendees"]) == sorted(stored) and len(stored) == 2


def test_every_model_of_the_app_is_backed_up_or_left_out_on_purpose():
    league = set(apps.get_app_config("league").get_models())
    assert league == set(MODELS) | set(NOT_BACKED_UP)


def test_reading_a_club_takes_the_same_queries_however_big(club, organiser, members):
    build_club(club, organiser, members)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            club_backup(club)
        return len(captured)

    small = queries()
    a, b, c, d, _e = members
    for week in range(1, 4):
        game(
            club,
            organiser,
            [a, b, c, d],
            (40000, 30000, 20000, 10000),
            date=DAY_2 + datetime.timedelta(weeks=week),
        )
    assert queries() == small


def test_restore_refuses_a_database_that_has_the_club(built, tmp_path):
    backup("mame", tmp_path / "mame.json")
    with pytest.raises(CommandError, match="exists"):
        restore(tmp_path / "mame.json")


@pytest.mark.django_db(transaction=True)
def test_restore_refuses_taken_ids_and_writes_nothing(built, tmp_path):
    backup("mame", tmp_path / "mame.json")
    call_command("flush", interactive=False, verbosity=0)
    Club.objects.create(pk=built.pk, slug="someone-else", name="別のクラブ")
    with pytest.raises(CommandError, match="empty database"):
        restore(tmp_path / "mame.json")
    assert Club.objects.count() == 1 and not get_user_model().objects.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "cannot be read"),
        ('{"format": "something else"}', "not a Janchō club backup"),
        ('{"format": "jancho-club-backup", "version": 99, "users": [], "objects": []}', "version"),
        (
            '{"format": "jancho-club-backup", "version": 1, "club": "x", "schema": "", "users": [],'
            ' "objects": [{"model": "auth.user", "pk": 1, "fields": {"username": "x",'
            ' "is_superuser": true}}]}',
            "not club data",
        ),
    ],
)
def test_restore_refuses_what_is_not_a_club_backup(db, tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        restore(path)
    assert not get_user_model().objects.exists()


def test_backup_of_an_unknown_club_writes_nothing(db, tmp_path):
    with pytest.raises(CommandError, match="no club"):
        backup("nobody", tmp_path / "x.json")
    assert list(tmp_path.iterdir()) == []


# --- the audit log and the ledger cannot be changed ------------------------------------------


@pytest.fixture
def admin_client(built) -> Client:
    user = get_user_model().objects.create_superuser("root", "root@example.jp", "pw-root-123")
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("model", [AuditLog, LedgerEntry])
def test_a_superuser_cannot_change_or_delete_in_the_admin(admin_client, model):
    row = model.objects.order_by("pk").first()
    before = model.objects.filter(pk=row.pk).values().get()
    change = f"/admin/league/{model._meta.model_name}/{row.pk}/change/"
    delete = f"/admin/league/{model._meta.model_name}/{row.pk}/delete/"
    assert admin_client.post(change, {"action": "changed", "amount": 1}).status_code in (403, 404)
    assert admin_client.get(delete).status_code in (403, 404)
    assert admin_client.post(delete, {"post": "yes"}).status_code in (403, 404)
    changelist = f"/admin/league/{model._meta.model_name}/"
    admin_client.post(
        changelist, {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"}
    )
    assert model.objects.filter(pk=row.pk).values().get() == before


def test_the_audit_log_admin_shows_entries_read_only(admin_client):
    row = AuditLog.objects.first()
    assert (
        admin_client.get(reverse("admin:league_auditlog_change", args=[row.pk])).status_code == 200
    )
    assert admin_client.get(reverse("admin:league_auditlog_add")).status_code == 403


@pytest.mark.parametrize("model", [AuditLog, LedgerEntry])
def test_the_models_refuse_edits_and_deletes_whatever_the_caller(built, model):
    row = model.objects.first()
    with pytest.raises(PermissionError):
        row.save()
    with pytest.raises(PermissionError):
        row.delete()
    with pytest.raises(PermissionError):
        model.objects.filter(pk=row.pk).update(club=row.club)
    with pytest.raises(PermissionError):
        model.objects.filter(pk=row.pk).delete()
    assert model.objects.filter(pk=row.pk).exists()
