"""Online games (Tenhou logs) recorded in tests."""

from __future__ import annotations

import datetime

from league.models import Club, Member, Membership
from league.online import services
from tests.support import paths
from tests.support.clubs import make_club, make_user

DATA = paths.DATA / "online"


GAME = "2019021004gm-00a9-0000-e2f6516d"  # 鳳南: 4,400 / 7,100 / 40,700 / 47,800


DAY = datetime.date(2024, 5, 1)


def text(name: str = GAME, ext: str = "json") -> str:
    return (DATA / f"{name}.{ext}").read_text(encoding="utf-8")


def record(club, user, players, log=None, **kw):
    read = services.log_read(log or text(), filename=kw.pop("filename", ""))
    return services.online_game_record(
        club=club, user=user, read=read, members=players, date=kw.pop("date", DAY)
    )


def make_tenhou_club() -> Club:
    """天鳳部: a club on Tenhou's rules."""
    return make_club("tenhou-club", "tenhou", "天鳳部")


def make_tenhou_organiser(club: Club):
    return make_user("tenhou-organiser", club, Membership.ORGANISER)


def make_tenhou_players(club: Club) -> list[Member]:
    return [Member.objects.create(club=club, name=n) for n in ("青木", "馬場", "千葉", "土井")]
