"""{% load jancho %}: the display functions of league.core.format as template filters (the
same functions format the tables, the charts, the LINE text and the spreadsheets)."""

from __future__ import annotations

from django import template

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
    wind,
    yen,
)

register = template.Library()

for _filter in (
    score,
    yen,
    count,
    chombo,
    points,
    sign_class,
    wind,
    chip_kind,
    percent,
    hundredths,
    average,
    rating,
    seat_name,
):
    register.filter(_filter.__name__, _filter)
