"""Every club page to open on the phone, with long names and something on each."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from django.test import Client
from django.utils import translation

from league import limits, money
from league.draw import services as draw_services
from league.models import Day, DrawTable, Member, Membership, RulesVersion
from league.online import services as online_services
from league.recording import services
from league.table import services as table_services
from tests.support import paths
from tests.support.clubs import make_club, make_user
from tests.support.isolation import POINTS, club_routes, populate, url
from tests.support.table import game_hands

if TYPE_CHECKING:
    pass


ONLINE_LOG = paths.DATA / "online" / "2019021004gm-00a9-0000-e2f6516d.json"


LONG_NAMES = [
    ("長谷川 由美子", "はせがわ ゆみこ"),
    ("佐々木 美穂", "ささき みほ"),
    ("高橋 真由美", "たかはし まゆみ"),
    ("松本 和也", "まつもと かずや"),
    ("阿部 誠", "あべ まこと"),
]


def every_club_page() -> list[tuple[str, str]]:
    """マメの会 with something on every page, and (URL name, address) of each of its pages."""
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    players = [Member.objects.create(club=club, name=n, kana=k) for n, k in LONG_NAMES]
    players[0].user = organiser  # who also plays: My page shows their games and money
    players[0].save(update_fields=["user"])
    values: dict[str, Any] = populate(club, organiser, players[:4])
    chips_game = services.game_record(  # chips and a chombo: the widest game tables
        club=club,
        user=organiser,
        data=services.GameInput(
            date=values["date"],
            seats=[
                services.SeatInput(players[4], 62000, 1),
                services.SeatInput(players[1], 31000),
                services.SeatInput(players[2], 19000),
                services.SeatInput(players[3], -12000),
            ],
            rate="0.5",
            table="B",
            chips=[services.ChipInput("yakuman", players[4], players[3])],
        ),
    )
    # A club's first rules as club creation makes them (from limits.EARLIEST), and the rules in
    # force made from a preset.
    RulesVersion.objects.filter(club=club).exclude(pk=values["version_id"]).update(
        effective_from=limits.EARLIEST
    )
    RulesVersion.objects.filter(pk=values["version_id"]).update(preset="mame-no-kai")
    # The day's draw, its table recorded; a payment marked and undone by a Japanese reader.
    for member in players[:4]:
        draw_services.attendance_check_in(
            club=club, user=organiser, date=values["date"], member=member
        )
    draw_services.round_draw(club=club, user=organiser, date=values["date"])
    table = DrawTable.objects.get(round__day__club=club)
    drawn = [s.member for s in table.seats.order_by("seat")]
    game = services.game_record(
        club=club,
        user=organiser,
        data=services.GameInput(
            date=values["date"],
            seats=[services.SeatInput(m, p) for m, p in zip(drawn, POINTS[0], strict=True)],
            rate="0.3",
        ),
    )
    assert DrawTable.objects.get(pk=table.pk).game == game  # linked by its four players
    # An online game (a real Tenhou log): the online page lists it.
    online_services.online_game_record(
        club=club,
        user=organiser,
        read=online_services.log_read(ONLINE_LOG.read_text(encoding="utf-8")),
        members=players[:4],
        date=values["date"],
    )
    day = Day.objects.get(club=club, date=values["date"])
    transfer = next(
        t
        for t in money.day_ledger(day=day).transfers
        if t.payer is not None and t.payee is not None
    )
    with translation.override("ja"):
        paid = money.transfer_pay(
            day=day, user=organiser, payer=int(transfer.payer), payee=int(transfer.payee)
        )
        money.entry_undo(entry=paid, user=organiser)
    # Table mode (league.table): a game played to its end and not saved yet (the score display
    # ended, and its preview), and one saved (the game page with its hands and their chart).
    ended, saved = (
        table_services.table_start(
            club=club,
            user=organiser,
            key=uuid.uuid4(),
            date=values["date"],
            members=players[:4],
            rate="0.3",
        )
        for _ in range(2)
    )
    for tg in (ended, saved):
        for i, (event, marks) in enumerate(game_hands(players)):
            table_services.hand_record(
                tg=tg, user=organiser, index=i, key=uuid.uuid4(), event=event, marks=marks
            )
    hands_game = table_services.table_game_save(tg=saved, user=organiser)
    # Only the pages: a route that takes POST alone, redirects or sends a download is skipped.
    client = Client()
    client.force_login(organiser)
    pages = []
    for name, params in club_routes():
        address = url(name, params, values)
        response = client.get(address)
        if response.status_code == 200 and "text/html" in response.get("Content-Type", ""):
            pages.append((name, address))
        getattr(response, "close", lambda: None)()
    # The game of the draw and the widest game: their pages too, not only the first game's.
    pages.append(
        (
            "game_detail_drawn",
            url("recording:game_detail", ["slug", "game_id"], {**values, "game_id": game.pk}),
        )
    )
    pages.append(
        (
            "game_detail_chips",
            url("recording:game_detail", ["slug", "game_id"], {**values, "game_id": chips_game.pk}),
        )
    )
    pages += [
        (
            "table_play_ended",
            url("table:table_play", ["slug", "key"], {**values, "key": ended.key}),
        ),
        (
            "table:table_finish",
            url("table:table_finish", ["slug", "key"], {**values, "key": ended.key}),
        ),
        (
            "game_detail_hands",
            url("recording:game_detail", ["slug", "game_id"], {**values, "game_id": hands_game.pk}),
        ),
    ]
    return pages
