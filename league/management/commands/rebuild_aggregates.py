"""Recompute the standings and chart aggregates (league.standings.services) and the kept statistics
(league.standings.kept: head-to-head, seats, the rating replayed from the first game, the runs
behind the records) from the stored results.

    python manage.py rebuild_aggregates            # every club
    python manage.py rebuild_aggregates mame-no-kai other-club

Each club is rebuilt in its own transaction: its pages show either the old or the new rows.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from league.core import changes
from league.management.commands.rebuild_money import clubs_named


class Command(BaseCommand):
    help = (
        "Recompute the standings and chart aggregates and the kept statistics (head-to-head, "
        "seats, rating, records) from the stored results."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*", help="clubs' short names (default: every club)")

    def handle(self, *args: Any, slugs: list[str], **options: Any) -> None:
        for club in clubs_named(slugs):
            start = time.perf_counter()
            with transaction.atomic():
                for projection in changes.PROJECTIONS:  # the books: rebuild_money
                    if projection.name != "books":
                        projection.rebuild(club.pk)
            if options["verbosity"]:
                self.stdout.write(f"{club.slug}: rebuilt in {time.perf_counter() - start:.2f} s")
