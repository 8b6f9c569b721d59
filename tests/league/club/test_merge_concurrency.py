"""A merge racing games and payments for either of its members, on PostgreSQL (SQLite serialises
every write): afterwards every counted result and every ledger entry is on a live record, and
the kept totals equal a rebuild from the stored results."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection

from league import money
from league.club import services as club_services
from league.core import errors
from league.models import (
    ChipEvent,
    Club,
    Day,
    LedgerEntry,
    Member,
    Result,
    RulesVersion,
    Season,
)
from league.models.totals import MemberTotal
from league.standings import services as aggregates
from tests.support.clubs import make_user
from tests.support.concurrency import attempt, kept, race
from tests.support.games import record_game
from tests.support.isolation import money_rules

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="concurrency is only real on PostgreSQL"
    ),
    pytest.mark.django_db(transaction=True),
]

DATE = datetime.date(2026, 6, 6)
POINTS = (52000, 31000, 19000, -2000)


def record(club, user, seats, date=DATE):
    return record_game(
        club, user, seats, POINTS, date=date, chips=[("ippatsu", seats[0], seats[1])]
    )


@pytest.mark.parametrize("round_", range(3))
def test_a_merge_racing_games_and_payments_leaves_nothing_on_the_merged_record(round_):
    club = Club.objects.create(slug=f"race{round_}", name="race")
    RulesVersion.objects.create(
        club=club, effective_from=datetime.date(2020, 1, 1), rules_json=money_rules()
    )
    Season.objects.create(
        club=club, name="夏", start=datetime.date(2026, 6, 1), end=datetime.date(2026, 6, 30)
    )
    user = make_user(f"boss{round_}")
    keep = Member.objects.create(club=club, name="青木", kana="あおき")
    gone = Member.objects.create(club=club, name="アオキ2", kana="あおき", is_guest=True)
    others = [Member.objects.create(club=club, name=f"相手{i}") for i in range(6)]
    record(club, user, [keep, *others[:3]], DATE - datetime.timedelta(days=7))
    record(club, user, [gone, *others[3:6]], DATE - datetime.timedelta(days=7))
    record(club, user, [gone, *others[:3]], DATE - datetime.timedelta(days=14))
    day = Day.objects.get(club=club, date=DATE - datetime.timedelta(days=14))
    owed = next(
        t for t in money.day_ledger(day=day).transfers if str(gone.pk) in (t.payer, t.payee)
    )

    calls = [
        lambda: attempt(lambda: club_services.member_merge(keep=keep, gone=gone, user=user)),
        lambda: attempt(lambda: record(club, user, [gone, *others[:3]])),
        lambda: attempt(lambda: record(club, user, [others[3], gone, others[4], others[5]])),
        lambda: attempt(lambda: record(club, user, [keep, *others[3:6]])),
        lambda: attempt(
            lambda: money.transfer_pay(
                day=day, user=user, payer=money.party(owed.payer), payee=money.party(owed.payee)
            )
        ),
    ]
    outcomes = race(calls)

    assert not isinstance(outcomes[0], errors.ServiceError), outcomes[0]
    gone.refresh_from_db()
    assert gone.merged_into_id == keep.pk and not gone.is_active
    for outcome in outcomes[1:3]:  # recorded (and moved) or refused naming the survivor
        if isinstance(outcome, errors.ServiceError):
            assert "青木" in str(outcome)
    assert not isinstance(outcomes[3], errors.ServiceError)  # the survivor's own game
    # Nothing counts, wins chips or owes money on the merged record.
    assert not Result.objects.filter(member=gone).exists()
    assert not ChipEvent.objects.filter(winner=gone).exists()
    assert not ChipEvent.objects.filter(discarder=gone).exists()
    touching = LedgerEntry.objects.filter(payer=gone) | LedgerEntry.objects.filter(payee=gone)
    assert not touching.exists()
    assert not LedgerEntry.objects.filter(borrower=gone).exists()
    assert not Result.objects.filter(counted=True, member__merged_into__isnull=False).exists()
    recorded = sum(1 for o in outcomes[1:4] if not isinstance(o, errors.ServiceError))
    assert Result.objects.filter(member=keep, counted=True).count() == 3 + recorded
    # The kept totals are those a rebuild computes from the stored results.
    before = kept(club)
    aggregates.club_rebuild(club=club)
    assert kept(club) == before
    assert not MemberTotal.objects.filter(member=gone).exists()
