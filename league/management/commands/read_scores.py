"""Read a game's scores from a photo, offline, and print them as JSON (README: "Scores from a
photo"). Exits 0 with the rows, or 2 with one line when the file cannot be read."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from league.core import photo


class Command(BaseCommand):
    help = (
        "Read a game's scores from a photo (an automatic table's display, a score sheet or an "
        "online game's result screen) and print them as JSON."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("image")
        parser.add_argument("--kind", choices=photo.KINDS, default="sheet")
        parser.add_argument("--players", type=int, choices=(3, 4), default=4)
        parser.add_argument(
            "--total", type=int, help="the points a game's rows add up to (default: 4 × 25,000)"
        )
        parser.add_argument("--reader", choices=photo.READERS, help="default: by --kind")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            reading = photo.read_scores(
                Path(options["image"]),
                kind=options["kind"],
                players=options["players"],
                total=options["total"],
                reader=options["reader"],
            )
        except photo.Unreadable as error:
            self.stderr.write(f"read_scores: {error}")
            sys.exit(2)
        self.stdout.write(json.dumps(reading.to_json(), ensure_ascii=False))
