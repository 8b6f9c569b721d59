"""Ledger entries written below league.books (a season adjustment's yen, league.teams) are posted
to the kept books in the writer's transaction, as every other money writer posts them."""

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
