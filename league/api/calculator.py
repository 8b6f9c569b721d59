"""/api/clubs/<slug>/calculator: the point calculator (issue 23). A winning hand's tiles to its
han, fu (or yakuman), yaku and points under the club's rules in force on a date: its hand rules
(切り上げ満貫, 数え役満, double yakuman) and its hand options (喰いタン, 赤ドラ, 後付け). Nothing is
stored. With `table` (a table game's key), the table's own hand rules are used, as kept when
it started: table mode's 牌から計算 on the phone.

Bad input (tiles that cannot be read, a hand that is not a winning hand, a wrong type) is a 400
`{"errors": {field: [messages]}}` naming the field.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any, Literal

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy
from ninja import Field, Schema

from league.api.auth import api_club
from league.api.base import READ, ApiErrors, Errors, Slug, _text, api
from league.core import clock
from league.core.errors import ServiceError
from league.models import RulesVersion, TableGame
from league.table import services

Tiles = _text(40, min_length=1)
Wind = Literal["east", "south", "west", "north"]
NO_RULES = gettext_lazy("No rules are in force on this date.")


class MeldIn(Schema):
    kind: Literal["chi", "pon", "kan", "ankan"] = Field(description="ankan: a closed kan.")
    tiles: Tiles = Field(description='The called tiles, e.g. "234s", "777z", "0555p".')


class CalculatorIn(Schema):
    date: datetime.date | None = Field(
        None, description="The rules in force on this date are used; today if left out."
    )
    table: uuid.UUID | None = Field(
        None,
        description="A table game's key: its hand rules and its rules version's options are "
        "used (the date is then not read).",
    )
    tiles: Tiles = Field(
        description="The closed tiles with the winning tile, in Tenhou's one-line notation: "
        '"22444m333067p444s" (0 is a red five; 1z-7z are 東南西北白發中).'
    )
    win: Tiles = Field(description='The winning tile, e.g. "4s".')
    melds: list[MeldIn] = Field(default_factory=list, max_length=4)
    dora: list[Tiles] = Field(default_factory=list, max_length=10, description="Indicators.")
    ura: list[Tiles] = Field(
        default_factory=list, max_length=10, description="Ura indicators (counted after riichi)."
    )
    tsumo: bool = False
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    rinshan: bool = False
    chankan: bool = False
    haitei: bool = Field(False, description="The last tile: 海底 on a tsumo, 河底 on a ron.")
    tenhou: bool = Field(False, description="天和: the dealer's tsumo on the first draw.")
    chiihou: bool = Field(False, description="地和: a non-dealer's tsumo on the first draw.")
    renhou: bool = Field(
        False,
        description="人和: a non-dealer's ron before their first draw; only where the club's "
        "hand options count it (renhou: mangan or yakuman).",
    )
    kita: int = Field(
        0, ge=0, le=4, description="北抜き (3-player tables only): 北 set aside, each a dora."
    )
    seat_wind: Wind = Field("east", description="east: the dealer.")
    round_wind: Wind = "east"


class CalculatorOut(Schema):
    han: int | None = Field(description="Han, dora included; null for a yakuman.")
    fu: int | None
    yakuman: int | None = Field(description="How many yakuman (double yakuman: 2).")
    yaku: list[str] = Field(description="The yaku in Japanese, dora aside.")
    aka: int = Field(description="Red fives counted (0 unless the club plays 赤ドラ).")
    ura: int
    pao: list[str] = Field(description="Yakuman of the hand that can have a liable player.")
    points: int = Field(description="What the winner receives in all, honba and sticks aside.")
    ron: int | None = Field(description="What the discarder pays on a ron.")
    tsumo_dealer: int | None = Field(description="What the dealer pays on a non-dealer's tsumo.")
    tsumo_others: int | None = Field(description="What each non-dealer pays on a tsumo.")
    payment: str = Field(description="The payment as the table says it.")
    check_atozuke: bool = Field(
        description="The club has no 後付け and the hand is open: the table judges whether the "
        "yaku was there before the call."
    )


@api.post(
    "/clubs/{slug}/calculator",
    response={200: CalculatorOut, 400: Errors, **READ},
    url_name="calculator",
)
def calculator(request: HttpRequest, slug: Slug, data: CalculatorIn) -> dict[str, Any]:
    """Value a winning hand from its tiles under the club's rules and hand options."""
    club = api_club(request, slug)
    body = data.model_dump(exclude={"date", "table"})
    try:
        if data.table is not None:
            tg = get_object_or_404(
                TableGame.objects.select_related("rules_version"), club=club, key=data.table
            )
            return services.hand_value(tg=tg, data=body)
        date = data.date or clock.today()
        version = RulesVersion.in_force(club, date)
        if version is None:
            raise ApiErrors(400, {"date": [str(NO_RULES)]})
        return services.club_hand_value(version=version, data=body)
    except ServiceError as e:
        raise ApiErrors(400, {k: [str(m) for m in v] for k, v in e.errors.items()}) from None
