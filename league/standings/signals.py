"""A season's kept totals follow its dates, whichever path saved it (service, admin, restore)."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

from league.models import Season
from league.standings import services


@receiver(post_save, sender=Season, dispatch_uid="aggregates_season_saved")
def season_saved(sender: type[Season], instance: Season, raw: bool = False, **kwargs: Any) -> None:
    if raw:  # loaddata / restore: the club's rebuild after loading covers it
        return
    services.season_rebuild(season=instance)
