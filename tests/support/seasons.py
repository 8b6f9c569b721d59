"""Seasons made as the organiser's season action makes them (league.club.services.season_create):
checked, audited, and their kept totals built from the games already recorded."""

from __future__ import annotations

from typing import Any

from league.club.services import season_create
from league.models import Season


def make_season(**fields: Any) -> Season:
    """A season (Season's fields); overlapping another of its kind is confirmed (tests often keep
    a spring season inside the year's)."""
    return season_create(user=None, confirm_overlap=True, **fields)
