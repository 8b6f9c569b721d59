"""{% load jancho %}: the display functions of league.core.format as template filters (the
same functions format the tables, the charts, the LINE text and the spreadsheets)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from league import limits
from league.core.format import (
    average,
    chip_kind,
    chombo,
    count,
    hundredths,
    percent,
    points,
    rating,
    score,
    seat_name,
    sign_class,
    signed,
    wind,
    yen,
)
from league.models import Adjustment
from league.money.services import note_shown
from league.rules.presets import preset_label

register = template.Library()

for _filter in (
    score,
    yen,
    count,
    chombo,
    points,
    signed,
    sign_class,
    wind,
    chip_kind,
    percent,
    hundredths,
    average,
    note_shown,
    rating,
    seat_name,
):
    register.filter(_filter.__name__, _filter)


@register.filter
def rules_since(version: Any) -> str:
    """When a rules version starts, for a sentence ("from ..."): a club's first rules start at
    limits.EARLIEST, a date nobody chose, so they start at the club's start."""
    if version.effective_from <= limits.EARLIEST:
        return _("the club's start")
    return date_format(version.effective_from, "Y/m/d")


@register.filter
def preset_name(name: str) -> str:
    """A preset by the name people know it by (マメの会のルール), never its id (mame-no-kai)."""
    return preset_label(name)[0]


@register.filter
def adjustment_kind(kind: str) -> str:
    """An adjustment's kind as shown (league.models.teams.Adjustment.KINDS)."""
    return str(dict(Adjustment.KINDS).get(kind, kind))


@register.simple_tag
def chat_on() -> bool:
    """Whether any chat (league.chat) is configured: its pages are linked only then."""
    from league.chat.views import chat_enabled

    return chat_enabled()
