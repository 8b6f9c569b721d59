"""Table mode (点数係) on a 390×844 phone with a nagashi mangan, a yakuman counted from its tiles
by the point calculator with 責任払い (pao) on a ron, and a pao tsumo recorded offline: each hand
is the engine's on the server, and the phone's own count agrees while the signal is gone."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import scoring
from league.models import Hand, HandStat, Member, Result, TableGame
from tests.support.clubs import MEMBER_NAMES, make_playing_club
from tests.support.table_mode import (
    assert_points,
    panel_pick,
    start_table,
    synced,
    winner_box,
)

if TYPE_CHECKING:
    pass

pytestmark = pytest.mark.django_db(transaction=True)
NAMES = ["青木", "馬場", "千葉", "土井"]


@pytest.fixture
def club_setup():
    return make_playing_club()  # マメの会: nagashi as a win; pao with honba split


def tap_tiles(box, suit: str, digits: str) -> None:
    box.locator(f"[data-suit='{suit}']").click()
    for d in digits:
        box.locator(f"[data-tile='{d}{suit}']").click()


def test_nagashi_and_pao_on_the_phone(phone, live_server, log_in, club_setup, screenshot):
    page = phone
    log_in("organiser")
    members = {m.name: m for m in Member.objects.filter(club=club_setup)}
    start_table(page, live_server.url, club_setup, [members[n] for n in NAMES])

    # 東1: 馬場 riichi; at the draw 青木 is tenpai and 千葉 made nagashi mangan (a win here).
    page.locator("[data-seat='1'] [data-riichi]").click()
    page.locator("[data-result='draw']").click()
    panel_pick(page, "tenpai", "青木")
    panel_pick(page, "nagashi", "千葉")
    screenshot("table-nagashi")
    page.locator("[data-record]").click()
    synced(page)
    assert_points(page, ["21,000", "22,000", "34,000", "23,000"])
    assert "流し満貫 千葉" in page.locator("[data-hands] .hand-text").first.inner_text()

    # 東2: 千葉 wins on 青木's discard; the hand is counted from its tiles: 大三元, 土井 liable.
    page.locator("[data-result='ron']").click()
    panel_pick(page, "winners", "千葉")
    panel_pick(page, "from", "青木")
    box = winner_box(page, "千葉")
    box.locator("[data-mark='calc']").click()
    calc = box.locator("[data-calc]")
    tap_tiles(calc, "z", "555666")
    tap_tiles(calc, "m", "123")
    tap_tiles(calc, "p", "44")
    calc.locator("[data-call='pon']").click()
    tap_tiles(calc, "z", "777")
    screenshot("table-calculator")
    calc.locator("[data-calc-go]").click()
    valued = box.locator("[data-valued]")
    valued.wait_for()
    screenshot("table-calculated")
    assert "32,000" in valued.inner_text() and "大三元" in valued.inner_text()
    assert box.locator("[data-yakuman]").get_attribute("aria-pressed") == "true"
    assert box.locator("[data-mark='called']").get_attribute("aria-pressed") == "true"
    page.locator("[data-record]").click()
    # Without the liable player the hand is an ordinary yakuman ron: undo and record it again.
    synced(page)
    assert_points(page, ["▲11,000", "22,000", "66,000", "23,000"])
    page.once("dialog", lambda d: d.accept())
    page.locator("[data-undo]").click()
    synced(page)
    page.locator("[data-result='ron']").click()
    panel_pick(page, "winners", "千葉")
    panel_pick(page, "from", "青木")
    box = winner_box(page, "千葉")
    box.locator("[data-yakuman]").click()
    box.locator(".pao-player button", has_text="土井").click()
    box.locator("[data-pao-yaku='daisangen']").click()
    screenshot("table-pao")
    page.locator("[data-record]").click()
    synced(page)
    assert_points(page, ["5,000", "22,000", "66,000", "7,000"])
    assert "パオ 土井" in page.locator("[data-hands] .hand-text").first.inner_text()

    # 東3, offline: 馬場 tsumo 大四喜 fed by 青木, who pays it all and busts.
    page.context.set_offline(True)
    page.locator("[data-result='tsumo']").click()
    panel_pick(page, "winners", "馬場")
    box = winner_box(page, "馬場")
    box.locator("[data-yakuman]").click()
    box.locator(".pao-player button", has_text="青木").click()
    page.locator("[data-record]").click()
    assert page.locator("[data-message]").inner_text() == "責任払いの役満を選んでください。"
    box.locator("[data-pao-yaku='daisuushii']").click()
    page.locator("[data-record]").click()
    page.wait_for_selector("[data-sync].waiting")
    assert_points(page, ["▲27,000", "54,000", "66,000", "7,000"])
    screenshot("table-pao-offline")
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    synced(page)
    page.wait_for_selector("[data-finish]:visible")
    assert_points(page, ["▲27,000", "54,000", "66,000", "7,000"])
    screenshot("table-pao-ended")

    tg = TableGame.objects.get()
    live = list(Hand.objects.filter(table_game=tg, live=True).order_by("index"))
    events = [h.event for h in live]
    pk = {n: str(members[n].pk) for n in NAMES}
    assert events[0]["nagashi"] == [pk["千葉"]]
    assert events[1]["winners"][0]["pao"] == {"player": pk["土井"], "yaku": "daisangen"}
    assert events[2]["pao"] == {"player": pk["青木"], "yaku": "daisuushii"}
    undone = Hand.objects.get(table_game=tg, live=False)
    assert undone.marks[pk["千葉"]]["yaku"] == ["大三元"]
    out = scoring.hands_json(
        {"rules": tg.hand_rules, "players": [pk[n] for n in NAMES], "hands": events}
    )
    assert out["final"]["ended"] == "bust"

    page.locator("[data-finish]").click()
    page.wait_for_selector("[data-preview]")
    page.locator("[data-save]").click()
    page.wait_for_url("**/games/*/")
    screenshot("table-pao-saved-game")
    detail = page.locator(".hands-detail").inner_text()
    assert "流し満貫 千葉" in detail and "（パオ 土井）" in detail and "（パオ 青木）" in detail
    tg.refresh_from_db()
    results = list(Result.objects.filter(game=tg.game_id, counted=True).order_by("seat"))
    assert [r.points for r in results] == [p["points"] for p in out["final"]["players"]]
    assert HandStat.objects.filter(game=tg.game_id).count() == 4


def test_three_players_on_the_phone(phone, live_server, log_in, screenshot):
    """関西ぱいろん 3人: three seats on the score display, ツモ損 counted by the phone and the server."""
    club = make_playing_club("pairon3", "pairon-kansai-3p", "関西ぱいろん", MEMBER_NAMES[:3])
    page = phone
    log_in("organiser")
    members = list(Member.objects.filter(club=club).order_by("pk"))
    start_table(page, live_server.url, club, members)
    assert page.locator("[data-seat]").count() == 3
    names = [m.name for m in members]
    # 東1: the second seat tsumo mangan: the dealer pays 4,000, the other 2,000 (North absent).
    page.locator("[data-result='tsumo']").click()
    panel_pick(page, "winners", names[1])
    winner_box(page, names[1]).locator("[data-han='5']").first.click()
    page.locator("[data-record]").click()
    synced(page)
    shown = [page.locator(f"[data-seat='{i}'] [data-points]").inner_text() for i in range(3)]
    assert shown == ["31,000", "41,000", "33,000"]
    screenshot("table-three-players")
