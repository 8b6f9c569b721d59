"""Check the club's book (league.models.books: Account, Transaction, Leg).

    python manage.py check_books              # every club
    python manage.py check_books mame-no-kai

Checks per club: every transaction's legs sum to zero; every account's balance (the sum of its
legs) equals the games, days and ledger entries re-settled from scratch by the same derivation
that posts the book (league.books.services.day_legs and entry_legs), part by part; every
account's kept balance equals the sum of its legs; and the kept open transfers equal the same
rows derived again; a chunk of days at a time. A progress line per club on stderr; one line on stdout,
`N transactions in M clubs: all balanced; the book equals the games`, or the first difference,
and exit status 1. Reads only: nothing is changed.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from league.books import services as books
from league.management.commands.rebuild_money import clubs_named


class Command(BaseCommand):
    help = "Check that the book balances and equals the games; exit 1 on the first difference."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*", help="clubs' short names (default: every club)")

    def handle(self, *args: Any, slugs: list[str], **options: Any) -> None:
        clubs = clubs_named(slugs)
        total = 0
        for i, club in enumerate(clubs, 1):
            count, difference = books.check_club(club.pk)
            total += count
            self.stderr.write(f"[{i}/{len(clubs)}] {club.slug}: {count} transactions")
            if difference is not None:
                self.stdout.write(f"{club.slug}: {difference}")
                sys.exit(1)
        self.stdout.write(
            f"{total} transactions in {len(clubs)} clubs: all balanced; the book equals the games"
        )
