"""The database's own guarantees (constraints) and the append-only audit log, in league/models.py.

Rows are written with the ORM directly, past the services, because these are the checks that hold
when a service has a bug. Each refused write runs in its own transaction.atomic() so that the test
database stays usable after the IntegrityError (PostgreSQL aborts the whole transaction otherwise).
"""

from __future__ import annotations

import datetime
import uuid

import pytest
from django.db import IntegrityError, transaction

from league.models import AuditLog, Club, Day, Game, Member, Result, RulesVersion, Season

DATE = datetime.date(2024, 5, 10)


def _game(club: Club, number: int = 1, **fields) -> Game:
    day, _ = Day.objects.get_or_create(club=club, date=DATE)
    return Game.objects.create(
        club=club,
        day=day,
        date=DATE,
        number=number,
        rules_version=RulesVersion.objects.filter(club=club).first(),
        **fields,
    )


def _result(game: Game, member: Member, seat: int, revision: int = 1, **fields) -> Result:
    values = {"points": 25_000, "rank": seat + 1, "score": 0, **fields}
    return Result.objects.create(
        game=game,
        revision=revision,
        member=member,
        seat=seat,
        club=game.club,
        date=game.date,
        **values,
    )


def _refused(create) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        create()


# --- results -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_one_result_per_seat_of_a_revision(club, members):
    game = _game(club)
    _result(game, members[0], seat=0, counted=False)
    _refused(lambda: _result(game, members[1], seat=0, counted=False))
    _result(game, members[1], seat=0, revision=2)  # another revision may reuse the seat
    assert Result.objects.count() == 2


@pytest.mark.django_db
def test_a_member_plays_once_in_a_revision(club, members):
    game = _game(club)
    _result(game, members[0], seat=0, counted=False)
    _refused(lambda: _result(game, members[0], seat=1, counted=False))
    _result(game, members[0], seat=1, revision=2)
    _result(_game(club, number=2), members[0], seat=0)  # and once in every other game
    assert Result.objects.count() == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fields", [{"seat": 4}, {"rank": 0}, {"rank": 5}], ids=["seat-4", "rank-0", "rank-5"]
)
def test_seat_and_rank_stay_in_range(club, members, fields):
    game = _game(club)
    values = {"seat": 0, **fields}
    _refused(lambda: _result(game, members[0], **values))
    assert not Result.objects.exists()


# --- games, days, seasons, members, rules ------------------------------------------------------


@pytest.mark.django_db
def test_deposits_cannot_be_negative(club):
    _refused(lambda: _game(club, deposits=-100))
    assert _game(club, deposits=0).deposits == 0
    assert Game.objects.count() == 1


@pytest.mark.django_db
def test_game_numbers_are_unique_within_a_day(club):
    _game(club, number=1)
    _refused(lambda: _game(club, number=1))
    _game(club, number=2)


@pytest.mark.django_db
def test_a_submission_key_is_stored_once_per_club(club, other_club):
    key = uuid.uuid4()
    _game(club, number=1, submission_key=key)
    _refused(lambda: _game(club, number=2, submission_key=key))
    _game(other_club, number=1, submission_key=key)
    # Games entered without a key are not tied to each other.
    _game(club, number=3)
    _game(club, number=4)
    assert Game.objects.count() == 4


@pytest.mark.django_db
def test_a_season_ends_on_or_after_its_start(club):
    start = datetime.date(2024, 4, 1)

    def season(end: datetime.date) -> Season:
        return Season.objects.create(club=club, name="2024", start=start, end=end)

    _refused(lambda: season(start - datetime.timedelta(days=1)))
    season(start)
    season(datetime.date(2025, 3, 31))
    assert Season.objects.count() == 2


@pytest.mark.django_db
def test_one_day_per_club_and_date(club, other_club):
    Day.objects.create(club=club, date=DATE)
    _refused(lambda: Day.objects.create(club=club, date=DATE))
    Day.objects.create(club=other_club, date=DATE)
    Day.objects.create(club=club, date=DATE + datetime.timedelta(days=1))
    assert Day.objects.count() == 3


@pytest.mark.django_db
def test_member_names_are_unique_within_a_club(club, other_club):
    Member.objects.create(club=club, name="青木")
    _refused(lambda: Member.objects.create(club=club, name="青木"))
    Member.objects.create(club=other_club, name="青木")
    assert Member.objects.filter(name="青木").count() == 2


@pytest.mark.django_db
def test_one_rules_version_per_club_and_date(club, other_club):
    version = RulesVersion.objects.get(club=club)

    def copy(to: Club) -> RulesVersion:
        return RulesVersion.objects.create(
            club=to, effective_from=version.effective_from, rules_json=version.rules_json
        )

    _refused(lambda: copy(club))
    assert RulesVersion.objects.filter(effective_from=version.effective_from).count() == 2


@pytest.mark.django_db
def test_the_rules_in_force_on_a_date(club):
    first = RulesVersion.objects.get(club=club)
    later = RulesVersion.objects.create(
        club=club, effective_from=datetime.date(2024, 4, 1), rules_json="kagetsu-cup"
    )
    assert RulesVersion.in_force(club, datetime.date(2019, 12, 31)) is None
    assert RulesVersion.in_force(club, datetime.date(2020, 1, 1)) == first
    assert RulesVersion.in_force(club, datetime.date(2024, 3, 31)) == first
    assert RulesVersion.in_force(club, datetime.date(2024, 4, 1)) == later
    assert later.rules.players == 4


# --- the audit log -----------------------------------------------------------------------------


@pytest.fixture
def entry(club) -> AuditLog:
    return AuditLog.objects.create(
        club=club, action="member.create", target="member:1", after={"name": "青木"}
    )


@pytest.mark.django_db
def test_an_audit_entry_cannot_be_saved_again(entry):
    entry.reason = "rewritten"
    with pytest.raises(PermissionError):
        entry.save()
    entry.refresh_from_db()
    assert entry.reason == ""


@pytest.mark.django_db
def test_an_audit_entry_cannot_be_deleted(entry):
    with pytest.raises(PermissionError):
        entry.delete()
    assert AuditLog.objects.filter(pk=entry.pk).exists()


@pytest.mark.django_db
def test_audit_entries_cannot_be_updated_or_deleted_in_bulk(club, entry):
    with pytest.raises(PermissionError):
        AuditLog.objects.filter(pk=entry.pk).update(reason="rewritten")
    with pytest.raises(PermissionError):
        AuditLog.objects.all().delete()
    with pytest.raises(PermissionError):
        AuditLog.objects.filter(club=club).delete()
    entry.reason = "rewritten"
    # bulk_update runs in an atomic block of its own (without a savepoint): give it one.
    with pytest.raises(PermissionError), transaction.atomic():
        AuditLog.objects.bulk_update([entry], ["reason"])
    assert AuditLog.objects.get().reason == ""


@pytest.mark.django_db
def test_a_games_history_cannot_be_rewritten(club):
    game = _game(club)
    AuditLog.objects.create(club=club, action="game.create", target=f"game:{game.pk}", game=game)
    with pytest.raises(PermissionError):
        game.history.update(reason="rewritten")
    with pytest.raises(PermissionError):
        game.history.all().delete()
    assert game.history.count() == 1


@pytest.mark.django_db
def test_what_the_audit_log_refers_to_cannot_be_deleted(club, entry):
    from django.db.models import ProtectedError

    with pytest.raises(ProtectedError), transaction.atomic():
        club.delete()
    assert AuditLog.objects.filter(pk=entry.pk).exists()
