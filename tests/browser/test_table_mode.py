"""Table mode (点数係) on a 390×844 phone: a whole hanchan recorded hand by hand, with a double ron,
a draw with tenpai payments, riichi sticks carried over, an undo, and a bust; the signal cut for
three hands (Playwright's offline mode) and back; the saved game settles as `settle` does on the
engine's final output, and every hand is stored once."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

import scoring
from league.core.clock import today
from league.models import Game, Hand, Member, Result, TableGame
from league.table import services
from tests.support.clubs import make_playing_club
from tests.support.table_mode import assert_points, panel_pick, record, synced, table_ready, win

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)
NAMES = ["青木", "馬場", "千葉", "土井"]


@pytest.fixture
def club_setup():
    return make_playing_club()


def seat(page: Page, name: str) -> int:
    return NAMES.index(name)


def riichi(page: Page, name: str) -> None:
    page.locator(f"[data-seat='{seat(page, name)}'] [data-riichi]").click()


def start_page(page: Page, live_server, club) -> dict[str, Member]:
    """Table mode's start page from the record form's link, with NAMES chosen in seat order;
    the club's members by name."""
    page.goto(f"{live_server.url}/c/mame/games/new/")
    page.locator("[data-table-mode]").click()
    page.wait_for_selector("[data-start]")
    members = {m.name: m for m in Member.objects.filter(club=club)}
    for i, name in enumerate(NAMES):
        page.select_option(f"#id_member_{i}", str(members[name].pk))
    return members


def start(page: Page) -> None:
    page.locator("[data-start]").click()
    table_ready(page)


def test_a_whole_hanchan_in_table_mode(phone, live_server, log_in, club_setup, screenshot):
    page = phone
    log_in("organiser")
    members = start_page(page, live_server, club_setup)
    page.select_option("#id_rate", "0.3")
    screenshot("table-start")
    start(page)
    assert_points(page, ["25,000"] * 4)
    assert page.locator("[data-round]").inner_text() == "東1"

    # 東1: 青木 (the dealer) declares riichi; a draw with 青木 and 馬場 tenpai.
    riichi(page, "青木")
    page.locator("[data-result='draw']").click()
    panel_pick(page, "tenpai", "青木")
    panel_pick(page, "tenpai", "馬場")
    screenshot("table-draw")
    record(page)
    synced(page)
    assert_points(page, ["25,500", "26,500", "23,500", "23,500"])
    assert page.locator("[data-honba]").inner_text() == "1"
    assert page.locator("[data-sticks]").inner_text() == "1"

    # A wrong hand, undone.
    page.locator("[data-result='tsumo']").click()
    panel_pick(page, "winners", "千葉")
    win(page, "千葉", han=1, fu=30)
    record(page)
    synced(page)
    page.once("dialog", lambda d: d.accept())
    page.locator("[data-undo]").click()
    synced(page)
    assert_points(page, ["25,500", "26,500", "23,500", "23,500"])

    # 東1 1本場: a double ron on 土井's discard; 馬場 (first in turn) takes the stick and honba.
    page.locator("[data-result='ron']").click()
    panel_pick(page, "winners", "馬場")
    panel_pick(page, "winners", "千葉")
    panel_pick(page, "from", "土井")
    win(page, "馬場", han=3, fu=40)
    win(page, "千葉", han=2, fu=30)
    # Beside each winner's han and fu: what the win pays (honba and the stick to 馬場).
    pays = "[data-panel] .win:has(.win-title:text-is('{}')) [data-win-pay]"
    expect(page.locator(pays.format("馬場"))).to_have_text("この和了： +6,500")
    expect(page.locator(pays.format("千葉"))).to_have_text("この和了： +2,000")
    page.locator("[data-panel] .win:has(.win-title:text-is('馬場')) [data-mark='called']").click()
    screenshot("table-double-ron")
    record(page)
    synced(page)
    assert_points(page, ["25,500", "33,000", "25,500", "16,000"])
    assert page.locator("[data-round]").inner_text() == "東2"

    # The signal goes: three hands recorded offline.
    page.context.set_offline(True)
    # 東2: 千葉 riichi, nobody tenpai: the stick stays on the table.
    riichi(page, "千葉")
    page.locator("[data-result='draw']").click()
    record(page)
    # 東3 1本場: 土井 riichi, tsumo mangan with ippatsu: both sticks to 土井.
    riichi(page, "土井")
    page.locator("[data-result='tsumo']").click()
    panel_pick(page, "winners", "土井")
    win(page, "土井", han=5)
    page.locator("[data-panel] [data-mark='ippatsu']").click()
    record(page)
    # 東4 (土井 deals): 青木 deals in a yakuman and busts.
    page.locator("[data-result='ron']").click()
    panel_pick(page, "winners", "土井")
    panel_pick(page, "from", "青木")
    win(page, "土井", yakuman=True)
    record(page)
    page.wait_for_selector("[data-sync].waiting")
    assert "3" in page.locator("[data-sync]").inner_text()
    assert_points(page, ["▲24,600", "30,900", "20,400", "73,300"])
    assert page.locator("[data-finish]").is_hidden()
    screenshot("table-offline")
    tg = TableGame.objects.get()
    assert Hand.objects.filter(table_game=tg, live=True).count() == 2  # nothing got through

    # The signal comes back: everything is sent once.
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    synced(page)
    page.wait_for_selector("[data-finish]:visible")
    screenshot("table-ended")
    live = list(Hand.objects.filter(table_game=tg, live=True).order_by("index"))
    assert [h.index for h in live] == [0, 1, 2, 3, 4]
    assert Hand.objects.filter(table_game=tg).count() == 6  # and the one undone, kept
    assert live[-1].ended == "bust"

    # A reload (the service worker or not) finds the same five hands.
    page.reload()
    page.wait_for_selector("[data-finish]:visible")
    assert page.locator("[data-hands] tr:not(.hand-text)").count() == 5

    page.locator("[data-finish]").click()
    page.wait_for_selector("[data-preview]")
    screenshot("table-finish")
    page.locator("[data-save]").click()
    page.wait_for_url("**/games/*/")
    screenshot("table-saved-game")

    game = Game.objects.get()
    assert game.date == today()
    out = scoring.hands_json(
        {
            "rules": services.hand_rules_for(game.rules_version).to_json(),
            "players": [str(members[n].pk) for n in NAMES],
            "hands": [h.event for h in live],
        }
    )["final"]
    pk = {n: str(members[n].pk) for n in NAMES}
    expected = scoring.settle_game(
        game.rules_version.rules,
        scoring.Game(
            seats=tuple(scoring.Seat(p["name"], p["points"]) for p in out["players"]),
            deposits=out["deposits"],
            chips=(
                scoring.ChipEvent("ippatsu", pk["土井"], None, 1),
                scoring.ChipEvent("yakuman", pk["土井"], pk["青木"], 1),
            ),
            rate="0.3",
        ),
    )
    results = list(Result.objects.filter(game=game, counted=True).order_by("seat"))
    assert [r.points for r in results] == [-24_600, 30_900, 20_400, 73_300]
    assert [(r.score, r.chips, r.yen) for r in results] == [
        (p.score, p.chips, p.yen) for p in expected.players
    ]
    assert game.deposits == out["deposits"] == 0

    # Corrected by its hands: the last hand was dealt in by 馬場, not 青木.
    page.locator("[data-edit-hands]").click()
    page.wait_for_selector("[data-save-edit]:visible")
    page.once("dialog", lambda d: d.accept())
    page.locator("[data-undo]").click()
    page.locator("[data-result='ron']").click()
    panel_pick(page, "winners", "土井")
    panel_pick(page, "from", "馬場")
    win(page, "土井", yakuman=True)
    record(page)
    assert_points(page, ["23,400", "▲17,100", "20,400", "73,300"])
    page.locator("[data-save-edit]").click()
    page.wait_for_url(f"**/games/{game.pk}/")
    expect(page.get_by_text(f"第{game.number}半荘を修正しました。")).to_be_visible()
    screenshot("table-corrected-game")
    game.refresh_from_db()
    assert game.revision == 2
    results = list(Result.objects.filter(game=game, counted=True).order_by("seat"))
    assert [r.points for r in results] == [23_400, -17_100, 20_400, 73_300]
    assert Hand.objects.filter(table_game=tg, live=True, revision=2).count() == 5


def deltas(page: Page) -> list[str]:
    return [page.locator(f"[data-seat='{i}'] [data-delta]").inner_text() for i in range(4)]


def test_a_game_over_in_the_first_hand_shows_the_seats_first_winds(
    phone, live_server, log_in, club_setup, screenshot
):
    """A bust in 東1 (the dealer deals in a yakuman): the next hand would have 馬場 as dealer,
    but there is none; the seats show the winds they started with, not the next hand's. Before
    the hand is recorded, each seat shows what it would move (screenshot table-preview.png)."""
    page = phone
    log_in("organiser")
    start_page(page, live_server, club_setup)
    start(page)
    page.locator("[data-result='ron']").click()
    panel_pick(page, "winners", "土井")
    assert deltas(page) == [""] * 4  # not complete yet: who dealt in is missing
    panel_pick(page, "from", "青木")
    win(page, "土井", yakuman=True)
    expect(page.locator("[data-seat='3'] [data-delta]")).to_have_text("+32,000")
    assert deltas(page) == ["▲32,000", "", "", "+32,000"]
    assert_points(page, ["25,000"] * 4)  # nothing counted before it is recorded
    screenshot("table-preview")
    record(page)
    page.wait_for_selector("[data-finish]:visible")
    assert deltas(page) == [""] * 4
    winds = [page.locator(f"[data-seat='{i}'] [data-wind]").inner_text() for i in range(4)]
    assert winds == ["東", "南", "西", "北"]
