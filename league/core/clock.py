"""The club's clock: what day it is where the games are played (Japan), whatever the server's
time zone."""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

TOKYO = ZoneInfo("Asia/Tokyo")


def today(now: datetime.datetime | None = None) -> datetime.date:
    """The club's today: games are played in Japan whatever the server's clock says."""
    return (now or datetime.datetime.now(datetime.UTC)).astimezone(TOKYO).date()
