"""The club's clock: what day it is where the games are played (Japan), whatever the server's
time zone."""

from __future__ import annotations

import datetime
import re
import unicodedata
from zoneinfo import ZoneInfo

from django.utils.translation import gettext_lazy as _

TOKYO = ZoneInfo("Asia/Tokyo")


def today(now: datetime.datetime | None = None) -> datetime.date:
    """The club's today: games are played in Japan whatever the server's clock says."""
    return (now or datetime.datetime.now(datetime.UTC)).astimezone(TOKYO).date()


_DATE = re.compile(r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?")


def parse_date(text: str) -> datetime.date:
    """ "2026-11-21", "2026/11/21", "2026年11月21日", full-width digits too; ValueError otherwise."""
    match = _DATE.fullmatch(unicodedata.normalize("NFKC", text).strip())
    if match is None:
        raise ValueError(f"not a date: {text!r}")
    year, month, day = (int(part) for part in match.groups())
    return datetime.date(year, month, day)


BAD_DATE = _("Enter a date such as 2026/11/21.")
