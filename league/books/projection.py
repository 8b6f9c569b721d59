"""The money's kept rows and its book as the projection "books" of league.core.changes: the days
and ledger entries an action changed are posted once, as it ends (league.books.services.post),
and a merge posts again everything its two records take part in."""

from __future__ import annotations

from typing import Any

from league.books import services
from league.core import changes
from league.models import Day, DayShugi, LedgerEntry, Result


@changes.projection(
    "books",
    order=3,
    follows=(changes.DaysChanged, changes.EntriesWritten, changes.MembersMerged),
    sources=(
        LedgerEntry._meta.db_table,
        DayShugi._meta.db_table,
        Day.attendees.through._meta.db_table,
        Result._meta.db_table,
    ),
    rebuild=lambda club_id: services.club_rebuild(club_id=club_id),
)
def changes_applied(changed: list[Any]) -> None:
    by_club: dict[int, tuple[set[int], list[Any]]] = {}
    for change in changed:
        if isinstance(change, changes.DaysChanged):
            by_club.setdefault(change.club_id, (set(), []))[0].update(change.days)
        elif isinstance(change, changes.EntriesWritten):
            by_club.setdefault(change.club_id, (set(), []))[1].extend(change.entries)
    for club_id, (days, entries) in by_club.items():
        services.post(club_id=club_id, days=sorted(days), entries=entries)
    for change in changed:
        if isinstance(change, changes.MembersMerged):
            services.post_members(
                club_id=change.club_id, member_ids=[change.keep.pk, change.gone.pk]
            )
