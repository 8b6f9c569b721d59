"""The import's confirmation reports how far it has got (league.excel.progress): counted per game
over the checking and writing passes, written from a connection of its own so that any server can
read it while the import's transaction is open (PostgreSQL), and read by import/progress/."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.urls import reverse

from league.excel import imports
from league.excel.progress import ProgressWriter
from league.models import Game, ImportUpload
from tests.league.test_imports import STANDARD, game, simple, upload


def _nth(i: int) -> tuple[tuple[str, int], ...]:
    """STANDARD with 1,000 points moved from the top to the fourth `i` times: a different game
    (the same points again would be a duplicate, league.recording.services.duplicate_of)."""
    (a, pa), b, c, (d, pd) = STANDARD
    return ((a, pa - 1000 * i), b, c, (d, pd + 1000 * i))


def progress_url(club) -> str:
    return reverse("import_progress", args=[club.slug])


def test_progress_is_the_organisers_own_and_404_elsewhere(
    club, members, organiser_client, member_client, stranger_client, client
):
    assert client.get(progress_url(club)).status_code == 404  # logged out
    assert stranger_client.get(progress_url(club)).status_code == 404  # another club's
    assert member_client.get(progress_url(club)).status_code == 403  # not an organiser
    assert organiser_client.get(progress_url(club)).json() == {
        "known": False,
        "done": 0,
        "total": 0,
        "games": 0,
        "running": False,
        "status": "",
    }
    upload(organiser_client, club, simple(game(*STANDARD), game(*_nth(1), table="B")))
    state = organiser_client.get(progress_url(club)).json()
    assert (state["games"], state["running"], state["known"]) == (2, False, False)


def test_every_pass_reports_each_game(club, members, organiser):
    data = simple(*(game(*_nth(i), table=t) for i, t in enumerate("ABC")))
    steps: list[str] = []
    plan = imports.plan_settle(
        club=club,
        parsed=imports.workbook_read(data, players=4),
        progress=lambda: steps.append("check"),
    )
    assert steps == ["check"] * 3
    imports.plan_apply(plan=plan, user=organiser, progress=lambda: steps.append("write"))
    assert steps == ["check"] * 3 + ["write"] * 3
    assert Game.objects.filter(club=club).count() == 3


def test_the_confirmation_counts_every_step_and_imports_once(club, members, organiser_client):
    upload(organiser_client, club, simple(game(*STANDARD), game(*_nth(1), table="B")))
    confirm = reverse("import_confirm", args=[club.slug])
    assert organiser_client.post(confirm, {}).status_code == 302
    assert organiser_client.post(confirm, {}).status_code == 302  # nothing left to confirm
    assert Game.objects.filter(club=club).count() == 2
    done = ImportUpload.objects.get(club=club)  # kept for the status page, its data dropped
    assert done.status == ImportUpload.DONE and not done.parsed and not done.preview
    assert organiser_client.get(progress_url(club)).json()["status"] == "done"


@pytest.mark.django_db(transaction=True)
def test_progress_is_written_outside_the_imports_transaction(club, organiser):
    """On PostgreSQL the count is committed by its own connection: it stays even when the
    transaction around it rolls back, so other servers see it while an import runs."""
    if connection.vendor != "postgresql":
        writer = ProgressWriter(1, 10)
        assert not writer.enabled  # SQLite has one writer at a time: the page says "under way"
        return
    kept = ImportUpload.objects.create(
        club=club,
        user=organiser,
        parsed=b"",
        games=5,
        expires="2099-01-01T00:00:00Z",
        claimed=True,
    )
    writer = ProgressWriter(kept.pk, total=10)
    with pytest.raises(RuntimeError), transaction.atomic():
        for _ in range(4):
            writer.step()
        writer._write(force=True)
        raise RuntimeError("the import failed: its transaction rolls back")
    writer.close()
    kept.refresh_from_db()
    assert (kept.progress_done, kept.progress_total) == (4, 10)
