"""Post the kept books (league.books) of clubs again from their records.

    python manage.py rebuild_money            # every club
    python manage.py rebuild_money mame-no-kai other-club

Each club in its own transaction holding its lock (lock_club), as every writer does: its pages
show either the old or the new rows. The records (games, entries) are not touched.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from league.books import services as books
from league.core.locks import lock_club
from league.models import Club


def clubs_named(slugs: list[str]) -> list[Club]:
    clubs = Club.objects.order_by("slug")
    if slugs:
        clubs = clubs.filter(slug__in=slugs)
        missing = set(slugs) - set(clubs.values_list("slug", flat=True))
        if missing:
            raise CommandError(f"No such club: {', '.join(sorted(missing))}")
    return list(clubs)


class Command(BaseCommand):
    help = "Post the kept money rows of clubs again from their games and ledger entries."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*", help="clubs' short names (default: every club)")

    def handle(self, *args: Any, slugs: list[str], **options: Any) -> None:
        for club in clubs_named(slugs):
            start = time.perf_counter()
            with transaction.atomic():
                lock_club(club.pk)
                books.club_rebuild(club_id=club.pk)
            if options["verbosity"]:
                self.stdout.write(f"{club.slug}: rebuilt in {time.perf_counter() - start:.2f} s")
