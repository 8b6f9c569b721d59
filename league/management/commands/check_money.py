"""Compare the kept books (league.books) with the money derived from the whole history.

    python manage.py check_money              # every club
    python manage.py check_money mame-no-kai

Prints each difference (a day's total or outstanding amount, an open transfer, a debt, a
statement line, the club's account) and exits with status 1 when there is any; then
`manage.py rebuild_money <club>` posts the club's rows again. Reads only: nothing is changed.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from league.management.commands.rebuild_money import clubs_named
from league.money import reference


class Command(BaseCommand):
    help = "Report where the kept money rows differ from the history; exit 1 on any drift."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*", help="clubs' short names (default: every club)")

    def handle(self, *args: Any, slugs: list[str], **options: Any) -> None:
        drifting = 0
        for club in clubs_named(slugs):
            problems = reference.drift(club)
            for line in problems:
                self.stdout.write(line)
            if problems:
                drifting += 1
            elif options["verbosity"]:
                self.stdout.write(f"{club.slug}: kept money agrees with the history")
        if drifting:
            self.stderr.write(f"{drifting} club(s) drift: run manage.py rebuild_money")
            sys.exit(1)
