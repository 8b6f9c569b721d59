"""Every ledger entry, written by league.models.money.ledger_record (league.money's entries, and
below league.books league.teams' adjustment yen and its reversal), is posted to the kept books in
the writer's transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.dispatch import receiver

from league.books import services
from league.models import LedgerEntry
from league.models.money import entries_written


@receiver(entries_written, dispatch_uid="books_entries_written")
def entries_written_posted(
    sender: Any, club_id: int, entries: Sequence[LedgerEntry], **kwargs: Any
) -> None:
    services.post(club_id=club_id, entries=entries)
