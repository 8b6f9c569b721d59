"""Undoing an import: its batch voided as a whole, in one action with one audit entry, and the
kept totals, statistics and books back to what they were before it (league.excel.imports
.batch_void, behind the status page's button)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db.models import Sum
from django.urls import reverse

from league.books import selectors as book_selectors
from league.core.errors import ServiceError
from league.excel import imports
from league.models import (
    Account,
    AuditLog,
    Game,
    ImportBatch,
    ImportUpload,
    Leg,
    Member,
    Result,
    RulesVersion,
)
from league.recording.services import GameInput, SeatInput, game_record
from tests.support.aggregates import assert_kept_equals_rebuilt_and_live, kept
from tests.support.imports import STANDARD, english, game, simple, upload
from tests.support.stats import stats_snapshot

DAYS = [datetime.date(2024, 5, d) for d in (1, 2, 3)]


def _nth(i: int) -> tuple[tuple[str, int], ...]:
    (a, pa), b, c, (d, pd) = STANDARD
    return ((a, pa - 1000 * i), b, c, (d, pd + 1000 * i))


def books_snapshot(club) -> dict[str, Any]:
    """What the book says: each member's open days and debts (a member without any left out),
    the club's account, every account's balance and every day's parts that are not zero, and
    the debts still open."""
    members = list(Member.objects.filter(club=club))
    legs = Leg.objects.filter(account__club=club).values("member_id", "date", "seq", "part")
    return {
        "balances": {
            m.pk: (position.open_days, position.debts)
            for m in members
            if (position := book_selectors.position(member=m)).open_days or position.debts
        },
        "club": sum(
            Account.objects.filter(club=club, kind=Account.CLUB).values_list("balance", flat=True)
        ),
        "accounts": sorted(
            Account.objects.filter(club=club)
            .exclude(balance=0)
            .values_list("kind", "member_id", "day_id", "debt_id", "balance")
        ),
        "days": sorted(
            (r["member_id"], r["date"], r["seq"], r["part"], r["y"])
            for r in legs.order_by().annotate(y=Sum("yen"))
            if r["y"]
        ),
        "debts": sorted(
            (d.debtor_id, d.creditor_id, d.remaining) for d in book_selectors.open_debts(club=club)
        ),
    }


@pytest.fixture
def earlier(club, members, organiser):
    """A game of the club's own, on the import's first day, before the import."""
    by_name = {m.name: m for m in members}
    return game_record(
        club=club,
        user=organiser,
        data=GameInput(
            date=DAYS[0],
            table="Z",
            seats=[SeatInput(by_name[n], p) for n, p in _nth(5)],
            rate=next(iter(RulesVersion.objects.get(club=club).rules.rates), ""),
        ),
    )


def test_voiding_an_import_takes_back_every_game_and_restores_the_projections(
    club, members, organiser_client, earlier
):
    before = (kept(), stats_snapshot(), books_snapshot(club))
    rows = [
        game(*_nth(2 * i + j), date=d, table="AB"[j]) for i, d in enumerate(DAYS) for j in (0, 1)
    ]
    rows.append(game(("新人", 45000), *STANDARD[1:], date=DAYS[2], table="C"))
    client = english(organiser_client)
    assert upload(client, club, simple(*rows)).status_code == 302
    assert client.post(reverse("excel:import_confirm", args=[club.slug]), {}).status_code == 302
    batch = ImportBatch.objects.get(club=club)
    assert (batch.status, batch.days_planned, batch.days_done, batch.games) == (
        ImportBatch.DONE,
        3,
        3,
        7,
    )
    assert Game.objects.filter(import_batch=batch).count() == 7
    assert (kept(), stats_snapshot(), books_snapshot(club)) != before
    status = client.get(reverse("excel:import_status", args=[club.slug])).content.decode()
    assert "Void this import" in status and "data-confirm=" in status

    response = client.post(reverse("excel:import_void", args=[club.slug]))
    assert response.status_code == 302
    assert Game.objects.filter(import_batch=batch, voided=False).count() == 0
    assert not Result.objects.filter(game__import_batch=batch, counted=True).exists()
    assert Game.objects.filter(pk=earlier.pk, voided=False).exists()  # the club's own stays
    (entry,) = AuditLog.objects.filter(action="import.void")
    assert entry.target == f"import:{batch.pk}" and len(entry.after["games"]) == 7
    assert not AuditLog.objects.filter(action="game.void").exists()  # one entry, not seven
    assert (kept(), stats_snapshot(), books_snapshot(club)) == before
    assert_kept_equals_rebuilt_and_live(club)
    page = client.get(response.url).content.decode()
    assert "This import was voided on" in page and "Void this import" not in page
    # A second void is refused, and changes nothing.
    with pytest.raises(ServiceError):
        imports.batch_void(club=club, batch_id=batch.pk, user=None)
    assert AuditLog.objects.filter(action="import.void").count() == 1


def test_a_running_import_cannot_be_voided(club, members, organiser):
    batch = ImportBatch.objects.create(club=club, user=organiser, days_planned=3)
    with pytest.raises(ServiceError):
        imports.batch_void(club=club, batch_id=batch.pk, user=organiser)
    assert not ImportBatch.objects.get(pk=batch.pk).voided


def test_the_void_button_is_the_organisers_own(club, members, organiser_client, member_client):
    assert member_client.post(reverse("excel:import_void", args=[club.slug])).status_code == 403
    # Nothing imported yet: back to the upload.
    response = organiser_client.post(reverse("excel:import_void", args=[club.slug]))
    assert response.status_code == 302 and response.url.endswith("/import/")
    assert not ImportUpload.objects.exists()
