"""`manage.py restore` trusts nothing in its file (league/management/commands/restore.py): rows of
other clubs, references outside the file, users no row names and same-name users of the target
are refused, naming the row, with nothing restored; `--map-user` says whom a name means."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection

from league.management.commands.restore import LABELS
from league.models import (
    AuditLog,
    Club,
    Game,
    ImportUpload,
    LedgerEntry,
    Member,
    Membership,
    Result,
)
from tests.support import restore as restore_support
from tests.support.backup import backup, build_club
from tests.support.clubs import make_user
from tests.support.restore import nothing_restored, restore

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def saved(club, organiser, members, tmp_path) -> dict[str, Any]:
    return restore_support.saved_elsewhere(club, organiser, members, tmp_path)


def first(data: dict[str, Any], model: str) -> dict[str, Any]:
    return next(o for o in data["objects"] if o["model"] == model)


def add_copy(data: dict[str, Any], model: str, **fields: Any) -> dict[str, Any]:
    """A new row of `model`, a copy of the file's first, with a fresh id and these fields."""
    row = copy.deepcopy(first(data, model))
    row["pk"] = max(o["pk"] for o in data["objects"] if o["model"] == model) + 1000
    row["fields"].update(fields)
    data["objects"].append(row)
    return row


@pytest.mark.parametrize("model", ["league.membership", "league.ledgerentry", "league.auditlog"])
def test_a_row_of_another_club_refuses_the_whole_file(saved, tmp_path, model):
    other = Club.objects.get(slug="kinyokai").pk
    row = add_copy(saved, model, club=other)
    with pytest.raises(CommandError, match=rf"{model} #{row['pk']}: club is club #{other}"):
        restore(saved, tmp_path)
    assert nothing_restored()
    assert not Membership.objects.filter(club_id=other, user__username="organiser").exists()
    assert not LedgerEntry.objects.exists()
    # Only the audit row of 金曜会's own organiser's membership (made by the fixture).
    assert list(AuditLog.objects.values_list("club__slug", "action")) == [
        ("kinyokai", "membership.create")
    ]


def test_a_reference_outside_the_file_is_refused_naming_the_row(saved, tmp_path):
    result = first(saved, "league.result")
    result["fields"]["member"] = 999_999  # a member of no club in the file (or anywhere)
    with pytest.raises(CommandError, match=rf"league.result #{result['pk']}: member refers to"):
        restore(saved, tmp_path)
    assert nothing_restored() and not Result.objects.exists()


def test_an_attendee_of_another_club_is_refused(saved, tmp_path):
    day = first(saved, "league.day")
    day["fields"]["attendees"].append(424_242)
    with pytest.raises(CommandError, match=rf"league.day #{day['pk']}: attendees refers to"):
        restore(saved, tmp_path)
    assert nothing_restored()


def test_a_user_no_row_names_is_refused(saved, tmp_path):
    saved["users"].append({"username": "intruder", "email": "", "first_name": "",
                           "last_name": "", "is_active": True})  # fmt: skip
    with pytest.raises(CommandError, match="intruder"):
        restore(saved, tmp_path)
    assert nothing_restored()


def test_a_second_club_in_the_file_is_refused(saved, tmp_path):
    add_copy(saved, "league.club", slug="second")
    with pytest.raises(CommandError, match="exactly one club"):
        restore(saved, tmp_path)
    assert nothing_restored()


def test_a_database_error_is_a_command_error_not_a_traceback(saved, tmp_path):
    # Two memberships of one user in one club break a unique constraint only the database sees.
    add_copy(saved, "league.membership")
    with pytest.raises(CommandError, match="cannot be loaded"):
        restore(saved, tmp_path)
    assert nothing_restored()


def test_a_same_name_user_of_the_target_is_refused_unless_mapped(saved, tmp_path):
    existing = make_user("organiser")  # someone else, who happens to have the name
    with pytest.raises(CommandError, match="--map-user"):
        restore(saved, tmp_path)
    assert not Club.objects.filter(slug="mame").exists()
    assert not Membership.objects.filter(user=existing).exists()

    out = restore(copy.deepcopy(saved), tmp_path, "--map-user", "organiser=organiser-mame")
    club = Club.objects.get(slug="mame")
    renamed = get_user_model().objects.get(username="organiser-mame")
    assert Membership.objects.get(club=club, user=renamed).role == Membership.ORGANISER
    assert not Membership.objects.filter(user=existing).exists()
    assert "organiser-mame" in out


def test_mapping_a_name_onto_the_same_person_keeps_their_account(saved, tmp_path):
    existing = make_user("organiser")
    restore(saved, tmp_path, "--map-user", "organiser=organiser")
    assert Membership.objects.get(club__slug="mame", user=existing).role == Membership.ORGANISER
    assert existing.has_usable_password()  # not replaced by the file's user


@pytest.mark.parametrize(("option", "message"), [("nobody=x", "no user"), ("organiser", "OLD=NEW")])
def test_a_bad_mapping_is_refused(saved, tmp_path, option, message):
    with pytest.raises(CommandError, match=message):
        restore(saved, tmp_path, "--map-user", option)
    assert nothing_restored()


# --- ids (issue 26, item 7) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "pk", "fields"),
    [
        ("league.member", 2**63 - 1, {"name": "侵入者", "name_key": "侵入者", "user": None}),
        ("league.game", 2**63 - 2, {"number": 999, "submission_key": None}),
        ("league.auditlog", 2**31, {}),
        ("league.auditlog", 2**31 - 1, {}),  # the top of a 32-bit column (issue 39)
        ("league.auditlog", 2**30 + 1, {}),
    ],
)
def test_an_id_beyond_the_sane_range_is_refused_naming_the_row(saved, tmp_path, model, pk, fields):
    """A tampered file with huge ids would set the shared sequences to their maximum: afterwards
    no club could add a member or a game."""
    add_copy(saved, model, **fields)["pk"] = pk
    with pytest.raises(CommandError, match=rf"{model} #{pk}: its id is beyond {2**30}"):
        restore(saved, tmp_path)
    assert nothing_restored()
    other = Club.objects.get(slug="kinyokai")
    member = Member.objects.create(club=other, name="新人")  # the sequences are untouched
    assert member.pk < 2**31


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's sequences")
def test_restore_moves_sequences_only_forward_and_only_those_it_wrote(saved, tmp_path):
    """A sequence ahead of the file's ids stays where it is (a concurrent transaction may hold
    the numbers after it); the sequences of tables the file wrote nothing into are not touched."""

    def sequence(model) -> int:
        with connection.cursor() as cursor:
            table = model._meta.db_table
            cursor.execute(f"SELECT last_value FROM {connection.ops.quote_name(table + '_id_seq')}")
            return cursor.fetchone()[0]

    def set_sequence(model, value: int) -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence(%s, 'id'), %s)", [model._meta.db_table, value]
            )

    written = {LABELS[o["model"]] for o in saved["objects"]}
    assert Game in written and ImportUpload not in written
    set_sequence(Game, 70_000)
    set_sequence(ImportUpload, 70_000)
    restore(saved, tmp_path)
    assert sequence(Game) >= 70_000
    assert sequence(ImportUpload) == 70_000
    biggest = max(o["pk"] for o in saved["objects"] if o["model"] == "league.member")
    assert sequence(Member) >= biggest
    new = Member.objects.create(club=Club.objects.get(slug="mame"), name="新人")
    assert new.pk > biggest


def _adjustment_with_yen(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    adjustment = next(
        o for o in data["objects"] if o["model"] == "league.adjustment" and o["fields"]["yen"]
    )
    entry = next(
        o
        for o in data["objects"]
        if o["model"] == "league.ledgerentry" and o["pk"] == adjustment["fields"]["entry"]
    )
    return adjustment, entry


@pytest.mark.parametrize(
    "tamper",
    [
        lambda adj, entry: entry["fields"].update(amount=entry["fields"]["amount"] + 100),
        lambda adj, entry: adj["fields"].update(yen=adj["fields"]["yen"] - 1000),
        lambda adj, entry: entry["fields"].update(payee=entry["fields"]["borrower"], borrower=None),
        lambda adj, entry: adj["fields"].update(entry=None),
    ],
    ids=["entry-amount", "adjustment-yen", "the-other-way", "no-entry"],
)
def test_an_adjustment_whose_yen_disagrees_with_its_ledger_is_refused(saved, tmp_path, tamper):
    # Issue 39: restore accepted an adjustment whose yen disagreed with its ledger entry.
    data = copy.deepcopy(saved)
    adjustment, entry = _adjustment_with_yen(data)
    tamper(adjustment, entry)
    with pytest.raises(CommandError, match=r"league\.(adjustment|ledgerentry) #\d+") as caught:
        restore(data, tmp_path)
    assert "Nothing restored" in str(caught.value)
    assert not Club.objects.filter(slug="mame").exists()


def test_the_untampered_backup_with_its_adjustment_restores(saved, tmp_path):
    restore(copy.deepcopy(saved), tmp_path)
    assert Club.objects.filter(slug="mame").exists()


def test_a_reversed_adjustment_restores_and_a_tampered_reversal_is_refused(
    club, organiser, members, tmp_path
):
    from league.models import Adjustment
    from league.teams import services as teams

    build_club(club, organiser, members)
    booked = Adjustment.objects.get(club=club, yen__isnull=False)
    teams.adjustment_reverse(entry=booked, user=organiser, reason="取り消し")
    data = backup("mame", tmp_path / "mame.json")
    call_command("flush", interactive=False, verbosity=0)
    tampered = copy.deepcopy(data)
    reversal = next(
        o
        for o in tampered["objects"]
        if o["model"] == "league.adjustment" and o["fields"]["kind"] == "reversal"
    )
    entry = next(
        o
        for o in tampered["objects"]
        if o["model"] == "league.ledgerentry" and o["pk"] == reversal["fields"]["entry"]
    )
    entry["fields"]["amount"] += 100
    with pytest.raises(CommandError, match=r"league\.adjustment #\d+.*reversal|amount"):
        restore(tampered, tmp_path)
    assert not Club.objects.filter(slug="mame").exists()
    restore(data, tmp_path)
    assert Adjustment.objects.filter(club__slug="mame", kind="reversal").count() == 1
