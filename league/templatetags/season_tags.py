"""{% closed_season_warning club date %}: the warning on the record, edit and void pages of a game
in a closed season's dates (its final standings will not change). One query."""

from __future__ import annotations

import datetime
from typing import Any

from django import template

from league.club.services import closed_seasons_on
from league.core.clock import parse_date

register = template.Library()


@register.inclusion_tag("league/club/_closed_warning.html")
def closed_season_warning(club: Any, date: Any) -> dict[str, Any]:
    if isinstance(date, str):
        try:
            date = parse_date(date)
        except ValueError:
            date = None
    if not isinstance(date, datetime.date):
        date = None
    return {"closed_seasons": closed_seasons_on(club=club, date=date)}
