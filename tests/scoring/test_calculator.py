"""The point calculator (scoring/calculator.py): tiles to han, fu and yaku through the `mahjong`
package, with the club's options; its answer fills a `Win` the hands engine pays."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scoring import HAND_PRESETS, HandsGame, InputError, Ron, Tsumo, Win, play_game
from scoring.calculator import CalledMeld, ClubOptions, WinningHand, value_hand

TENHOU = HAND_PRESETS["tenhou"].rules
M_LEAGUE = HAND_PRESETS["m-league"].rules
OPEN_TANYAO = WinningHand(
    tiles="234m456p66s", win="6s", melds=(CalledMeld("chi", "234s"), CalledMeld("pon", "888p"))
)


def test_closed_ron_tanyao_is_1_han_40_fu():
    # 22 444m 333p 567p 444s, ron on 4s: tanyao; fu 30 (closed ron) + 4 + 4 (closed simples
    # pungs, 444m and 333p; 444s won by ron counts open, 2) = 40.
    valued = value_hand(TENHOU, ClubOptions(), WinningHand(tiles="22444m333567p444s", win="4s"))
    assert (valued.han, valued.fu, valued.yakuman) == (1, 40, None)
    assert valued.yaku == (("Tanyao", 1),)


def test_riichi_pinfu_tsumo_is_3_han_20_fu_and_the_engine_pays_it():
    hand = WinningHand(tiles="123456m234p56799s", win="7s", tsumo=True, riichi=True)
    valued = value_hand(TENHOU, ClubOptions(), hand)
    assert (valued.han, valued.fu) == (3, 20)
    assert {name for name, _han in valued.yaku} == {"Riichi", "Menzen Tsumo", "Pinfu"}
    # Filled into the engine: non-dealer tsumo 3 han 20 fu, b = 640: 1,300 / 700.
    game = HandsGame(("A", "B", "C", "D"), (Tsumo(Win("B", **valued.win_fields())),))
    assert play_game(TENHOU, game).hands[0].deltas == (-1300, 2700, -700, -700)


def test_kuitan_is_the_clubs_option():
    assert value_hand(TENHOU, ClubOptions(kuitan=True), OPEN_TANYAO).han == 1
    with pytest.raises(InputError) as caught:
        value_hand(TENHOU, ClubOptions(kuitan=False), OPEN_TANYAO)
    assert caught.value.problems[0].field == "tiles"


def test_aka_dora_is_the_clubs_option():
    hand = WinningHand(tiles="22444m333067p444s", win="4s")  # 0p: the red five
    assert value_hand(TENHOU, ClubOptions(aka=True), hand).han == 2
    assert value_hand(TENHOU, ClubOptions(aka=False), hand).han == 1


def test_yakuman_and_double_yakuman_follow_yakuman_max():
    daisangen = WinningHand(tiles="555666777z123m44p", win="4p")
    assert value_hand(TENHOU, ClubOptions(), daisangen).win_fields() == {"yakuman": 1}
    tanki = WinningHand(tiles="11122233344455m", win="5m", tsumo=True)  # 四暗刻単騎
    assert value_hand(TENHOU, ClubOptions(), tanki).yakuman == 2
    assert value_hand(M_LEAGUE, ClubOptions(), tanki).yakuman == 1  # yakuman_max 1


def test_kazoe_is_left_to_the_engine_as_13_han_or_more():
    # 11 234 234 567 567p, won on 7p (56-7): 二盃口 3 + 清一色 6 + 平和 1 + riichi, tsumo and
    # ippatsu 3 + dora 7p ×2: 15 han, no yakuman yaku: a counted (kazoe) hand.
    hand = WinningHand(
        tiles="11223344556677p", win="7p", tsumo=True, riichi=True, ippatsu=True, dora=("6p",)
    )
    valued = value_hand(TENHOU, ClubOptions(), hand)
    assert (valued.han, valued.yakuman) == (15, None)
    ron = lambda rules: play_game(  # noqa: E731
        rules, HandsGame(("A", "B", "C", "D"), (Ron("C", (Win("B", **valued.win_fields()),)),))
    )
    assert ron(TENHOU).hands[0].deltas[1] == 32000  # kazoe yakuman
    assert ron(M_LEAGUE).hands[0].deltas[1] == 24000  # capped at sanbaiman


@pytest.mark.parametrize(
    ("hand", "field"),
    [
        (WinningHand(tiles="22444m333567p444s", win="9s"), "win"),
        (WinningHand(tiles="22444m333567p44s", win="4s"), "tiles"),
        (WinningHand(tiles="xyz", win="4s"), "tiles"),
        (
            WinningHand(tiles="234m456p66s", win="6s", melds=(CalledMeld("pon", "88p"),)),
            "melds[0].tiles",
        ),
        (WinningHand(tiles="22444m333567p444s", win="4s", seat_wind="up"), "seat_wind"),
    ],
)
def test_what_cannot_be_valued_is_refused_naming_the_field(hand, field):
    with pytest.raises(InputError) as caught:
        value_hand(TENHOU, ClubOptions(), hand)
    assert caught.value.problems[0].field == field


def test_a_club_without_atozuke_gets_an_open_hand_valued_and_marked_for_the_table():
    valued = value_hand(TENHOU, ClubOptions(atozuke=False), OPEN_TANYAO)
    assert (valued.han, valued.check_atozuke) == (1, True)
    assert not value_hand(TENHOU, ClubOptions(), OPEN_TANYAO).check_atozuke
    closed = WinningHand(tiles="22444m333567p444s", win="4s")
    assert not value_hand(TENHOU, ClubOptions(atozuke=False), closed).check_atozuke


# --- 北抜き and the first-turn wins (issue 40) ------------------------------------------------

SANMA = HAND_PRESETS["tenhou-3p"].rules
# 11p 456p 789s 123s 555z: tsumo with 白, a non-dealer; the dora indicator 4z (北) makes 東 dora.
HAKU_TSUMO = WinningHand(
    tiles="11p456p789s123s555z", win="5z", tsumo=True, seat_wind="south", dora=("4z",)
)


def test_kita_set_aside_is_a_dora_each_at_a_3_player_table():
    assert (value_hand(SANMA, ClubOptions(), HAKU_TSUMO).han) == 2  # 門前清自摸和, 役牌 白
    valued = value_hand(SANMA, ClubOptions(), replace(HAKU_TSUMO, kita=2))
    assert (valued.han, valued.fu) == (4, 30)
    assert valued.dora_count("dora") == 2


@pytest.mark.parametrize(
    ("rules", "kita", "field"), [(TENHOU, 1, "kita"), (SANMA, 5, "kita"), (SANMA, -1, "kita")]
)
def test_kita_only_at_a_3_player_table_and_at_most_four(rules, kita, field):
    with pytest.raises(InputError) as caught:
        value_hand(rules, ClubOptions(), replace(HAKU_TSUMO, kita=kita))
    assert caught.value.problems[0].field == field


def test_tenhou_and_chiihou_are_yakuman():
    dealer = replace(HAKU_TSUMO, seat_wind="east", tenhou=True)
    assert value_hand(TENHOU, ClubOptions(), dealer).yakuman == 1
    assert "天和" in value_hand(TENHOU, ClubOptions(), dealer).yaku_names
    chiihou = replace(HAKU_TSUMO, chiihou=True)
    assert value_hand(TENHOU, ClubOptions(), chiihou).yakuman == 1
    assert "地和" in value_hand(TENHOU, ClubOptions(), chiihou).yaku_names


def test_renhou_is_the_clubs_option():
    ron = replace(HAKU_TSUMO, tsumo=False, renhou=True)
    with pytest.raises(InputError) as caught:  # Tenhou's (and the default): not a yaku
        value_hand(TENHOU, ClubOptions(), ron)
    assert caught.value.problems[0].field == "renhou"
    assert value_hand(TENHOU, ClubOptions(renhou="yakuman"), ron).yakuman == 1
    as_han = value_hand(TENHOU, ClubOptions(renhou="mangan"), ron)
    assert as_han.yakuman is None and as_han.han == 6  # 人和 5 + 役牌 白 1


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"tenhou": True}, "tenhou"),  # not the dealer
        ({"seat_wind": "east", "chiihou": True}, "chiihou"),  # the dealer
        ({"chiihou": True, "tsumo": False}, "chiihou"),  # a ron
        ({"renhou": True}, "renhou"),  # a tsumo
        ({"chiihou": True, "renhou": True, "tsumo": False}, "renhou"),  # two at once
        (
            {"chiihou": True, "melds": (CalledMeld("pon", "111p"),), "tiles": "456p789s123s555z"},
            "chiihou",
        ),
    ],
)
def test_first_turn_wins_only_as_they_can_happen(changes, field):
    with pytest.raises(InputError) as caught:
        value_hand(TENHOU, ClubOptions(renhou="yakuman"), replace(HAKU_TSUMO, **changes))
    assert caught.value.problems[0].field == field
