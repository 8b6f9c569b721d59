"""Stages of an event or a team league, made by the organiser's action (league.teams.services'
stage_create)."""

from __future__ import annotations

import datetime
from typing import Any

from league.models import Season, Stage
from league.teams.services import StageInput, stage_create


def add_stage(
    season: Season,
    organiser: Any,
    name: str,
    first_day: datetime.date,
    last_day: datetime.date | None = None,
    **options: Any,
) -> Stage:
    """The stage `name` of `season` from `first_day` to `last_day` (the same day unless given);
    `options` are StageInput's (advance, advance_share, carry, bonus, ties, fixed_table, ...)."""
    data = StageInput(name, first_day, last_day or first_day, **options)
    return stage_create(season=season, user=organiser, data=data)
