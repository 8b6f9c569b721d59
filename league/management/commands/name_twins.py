"""List members whose names are one name (ｱｵｷ and アオキ), kept apart by the name keys
(migration 0007, now in the squashed 0001)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from league.models import Member


class Command(BaseCommand):
    help = "List members of each club whose names are the same name once normalised."

    def handle(self, *args: Any, **options: Any) -> None:
        twins = Member.objects.filter(name_key__contains="#").select_related("club")
        count = 0
        for member in twins.order_by("club_id", "pk"):
            key = member.name_key.rpartition("#")[0]
            first = Member.objects.filter(club=member.club, name_key=key).first()
            other = f"{first.name} (#{first.pk})" if first else "?"
            self.stdout.write(
                f"{member.club.slug}: {member.name} (#{member.pk}) is the same name as {other}"
            )
            count += 1
        self.stdout.write(f"{count} twin(s); merge them or rename one.")
