"""The arithmetic and the game flow of docs/hands.md, one rule at a time, with the document's own
examples."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scoring import (
    HAND_PRESETS,
    Abortive,
    Chombo,
    Draw,
    Extension,
    GameState,
    HandsGame,
    Pao,
    Ron,
    Tsumo,
    Win,
    game_end,
    play_game,
    play_hand,
)
from scoring.hand_points import base_points, ron_value, tsumo_shares, up100

TENHOU = HAND_PRESETS["tenhou"].rules
ABCD = ("A", "B", "C", "D")


def rules(preset: str = "tenhou", **changes):
    return replace(HAND_PRESETS[preset].rules, **changes)


def play(hands, r=TENHOU, players=ABCD, start=None):
    return play_game(r, HandsGame(players=players, hands=tuple(hands), start=start))


def deltas(hands, r=TENHOU, players=ABCD, start=None):
    return [h.deltas for h in play(hands, r, players, start).hands]


# --- 1. base points ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("han", "fu", "kiriage", "kazoe", "base"),
    [
        (1, 30, False, "yakuman", 240),
        (3, 40, False, "yakuman", 1280),
        (4, 30, False, "yakuman", 1920),
        (4, 30, True, "yakuman", 2000),
        (3, 60, True, "yakuman", 2000),
        (3, 50, True, "yakuman", 1600),  # 3 han 50 fu is not rounded up
        (4, 40, False, "yakuman", 2000),  # b = 2,560 ≥ 2,000: mangan
        (5, None, False, "yakuman", 2000),
        (6, None, False, "yakuman", 3000),
        (7, None, False, "yakuman", 3000),
        (8, None, False, "yakuman", 4000),
        (10, None, False, "yakuman", 4000),
        (11, None, False, "yakuman", 6000),
        (12, None, False, "yakuman", 6000),
        (13, None, False, "yakuman", 8000),
        (26, None, False, "yakuman", 8000),  # kazoe counts as one yakuman, never more
        (13, None, False, "sanbaiman", 6000),
    ],
)
def test_base_points(han, fu, kiriage, kazoe, base):
    assert base_points(rules(kiriage=kiriage, kazoe=kazoe), han, fu, None) == base


def test_yakuman_counts_add_up():
    assert base_points(TENHOU, None, None, 2) == 16000


@pytest.mark.parametrize(
    ("han", "fu", "non_dealer", "dealer"),
    [
        (1, 30, 1000, 1500),
        (3, 40, 5200, 7700),
        (4, 30, 7700, 11600),
        (2, 25, 1600, 2400),
        (5, None, 8000, 12000),
    ],
)
def test_ron_examples(han, fu, non_dealer, dealer):
    base = base_points(TENHOU, han, fu, None)
    assert (ron_value(base, False), ron_value(base, True)) == (non_dealer, dealer)


def test_ron_examples_with_kiriage_and_yakuman():
    base = base_points(rules(kiriage=True), 4, 30, None)
    assert (ron_value(base, False), ron_value(base, True)) == (8000, 12000)
    assert (ron_value(8000, False), ron_value(8000, True)) == (32000, 48000)


def test_up100_rounds_up():
    assert [up100(x) for x in (0, 1, 100, 101, 5120, -50)] == [0, 100, 100, 200, 5200, 0]


def test_tsumo_shares_four_players():
    assert tsumo_shares(TENHOU, 240, 1, 0, 4) == {0: 500, 2: 300, 3: 300}
    assert tsumo_shares(TENHOU, 240, 0, 0, 4) == {1: 500, 2: 500, 3: 500}
    assert tsumo_shares(TENHOU, 2000, 2, 0, 4) == {0: 4000, 1: 2000, 3: 2000}


def test_three_player_tsumo_loss_and_split():
    loss = rules("tenhou-3p")
    split = replace(loss, sanma_tsumo="split")
    assert tsumo_shares(loss, 2000, 1, 0, 3) == {0: 4000, 2: 2000}  # 6,000
    assert tsumo_shares(loss, 2000, 0, 0, 3) == {1: 4000, 2: 4000}  # 8,000
    assert tsumo_shares(split, 2000, 1, 0, 3) == {0: 5000, 2: 3000}  # 8,000 like a ron
    assert tsumo_shares(split, 2000, 0, 0, 3) == {1: 6000, 2: 6000}
    assert tsumo_shares(split, 240, 1, 0, 3) == {0: 600, 2: 400}


def test_sanma_split_tsumo_in_a_game():
    r = replace(rules("pairon-kansai-3p"), sanma_tsumo="split")
    # 東1 0本: B tsumo mangan: dealer A 5,000, C 3,000.
    assert deltas([Tsumo(Win("B", han=5))], r, ("A", "B", "C")) == [(-5000, 8000, -3000)]


# --- honba, sticks ------------------------------------------------------------------------------


def test_three_player_honba_per_payer():
    r = rules("pairon-kansai-3p")  # 600 a honba on a ron, 300 from each of the two on a tsumo
    got = deltas([Draw(), Tsumo(Win("C", han=1, fu=30))], r, ("A", "B", "C"))
    # 東2 1本: C tsumo 1 han 30 fu: dealer B 500 + 300, A 300 + 300.
    assert got[1] == (-600, -800, 1400)


def test_sticks_stay_through_abortive_and_exhaustive_draws():
    result = play(
        [
            Abortive("kyuushu", riichi=("B",)),
            Draw(tenpai=("A", "C"), riichi=("C",)),
            Tsumo(Win("D", han=1, fu=30), riichi=("A",)),
        ]
    )
    assert [h.sticks for h in result.hands] == [0, 1, 2]
    # 東1 2本: D tsumo 300/500 + 200 each; takes 3 sticks; A paid its stick too.
    assert result.hands[2].deltas == (-1700, -500, -500, 4700)
    assert result.deposits == 0


# --- 5. multiple ron -----------------------------------------------------------------------------


def double_ron_on_b():
    # After B: C, D, A. A is the dealer and the last in that order.
    return Ron("B", (Win("A", han=1, fu=30), Win("D", han=1, fu=30)), riichi=("B",))


def test_double_ron_honba_first_or_each():
    first = deltas([Draw(tenpai=("A",)), double_ron_on_b()])[1]
    each = deltas([Draw(tenpai=("A",)), double_ron_on_b()], rules(multi_ron_honba="each"))[1]
    # D (first): 1,000 + 300 + the stick; A: 1,500 (+ 300 with `each`).
    assert first == (1500, -3800, 0, 2300)
    assert each == (1800, -4100, 0, 2300)


def test_multi_ron_renchan_any_or_first():
    any_ = play([double_ron_on_b(), Draw()])
    first = play([double_ron_on_b(), Draw()], rules(multi_ron_renchan="first"))
    assert (any_.hands[1].round, any_.hands[1].honba) == ("東1", 1)
    assert (first.hands[1].round, first.hands[1].honba) == ("東2", 0)


def test_triple_ron():
    r = rules("ema")
    hand = Ron("A", (Win("D", han=1, fu=30), Win("B", han=1, fu=30), Win("C", han=1, fu=30)))
    assert deltas([hand], r) == [(-3000, 1000, 1000, 1000)]


def test_atamahane_with_the_dealer_second_passes_the_deal():
    r = rules("m-league")
    result = play([Ron("C", (Win("A", han=1, fu=30), Win("D", han=1, fu=30))), Draw()], r)
    assert result.hands[0].deltas == (0, 0, -1000, 1000)
    assert result.hands[1].round == "東2"


# --- 6. pao --------------------------------------------------------------------------------------


def test_pao_tsumo_scope_hand_and_yakuman():
    hand = Tsumo(Win("B", yakuman=2, pao=Pao("C", "daisuushii")))
    # Double yakuman tsumo, b = 16,000: dealer A 32,000, C and D 16,000 each, 64,000 in all.
    assert deltas([hand]) == [(0, 64000, -64000, 0)]  # Tenhou: C pays the whole hand
    # scope yakuman: C answers for 1 of 2: half of each share.
    assert deltas([hand], rules(pao_scope="yakuman")) == [(-16000, 64000, -40000, -8000)]


@pytest.mark.parametrize(
    ("mode", "h", "discarder", "pao"),
    [
        ("discarder", 1, -16300, -16000),
        ("pao", 1, -16000, -16300),
        ("split", 1, -16100, -16200),  # 300 → 100 + 200 (the page's 1:2)
        ("split", 2, -16300, -16300),  # 600 → 300 + 300
    ],
)
def test_pao_ron_honba(mode, h, discarder, pao):
    r = rules(pao_ron_honba=mode, pao=("daisangen", "daisuushii", "suukantsu"))
    hands = [Draw(tenpai=("A",))] * h + [
        Ron("A", (Win("C", yakuman=1, pao=Pao("D", "suukantsu")),))
    ]
    got = deltas(hands, r)[-1]
    assert got == (discarder, 0, 32000 + 300 * h, pao)


def test_pao_ron_scope_yakuman_shares_only_the_fed_yakuman():
    hand = Ron("A", (Win("C", yakuman=2, pao=Pao("D", "daisangen")),))
    # V = 64,000; D answers for 32,000 of it, half of that on a ron: 16,000.
    assert deltas([hand], rules(pao_scope="yakuman")) == [(-48000, 0, 64000, -16000)]


def test_pao_by_the_discarder_is_an_ordinary_ron():
    hand = Ron("D", (Win("C", yakuman=1, pao=Pao("D", "daisangen")),))
    assert deltas([hand]) == [(0, 0, 32000, -32000)]


# --- 7. exhaustive draws -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tenpai", "change"),
    [
        ((), (0, 0, 0, 0)),
        (("B",), (-1000, 3000, -1000, -1000)),
        (("B", "C"), (-1500, 1500, 1500, -1500)),
        (("B", "C", "D"), (-3000, 1000, 1000, 1000)),
        (ABCD, (0, 0, 0, 0)),
    ],
)
def test_noten_penalty(tenpai, change):
    assert deltas([Draw(tenpai=tenpai)]) == [change]


def test_three_player_noten_penalty():
    r = rules("tenhou-3p")
    assert deltas([Draw(tenpai=("B",))], r, ("A", "B", "C")) == [(-1000, 2000, -1000)]
    assert deltas([Draw(tenpai=("A", "B"))], r, ("A", "B", "C")) == [(1000, 1000, -2000)]


def test_nagashi_as_a_win_with_two_players_and_honba():
    r = rules("kinyokai-2015")
    result = play([Draw(riichi=("C",)), Draw(nagashi=("D", "A"), tenpai=("B",))], r)
    # 東2 1本 (dealer B), s = 1. A and D each a non-dealer mangan tsumo + 100 honba a payer:
    # A: from B 4,100, C 2,100, D 2,100; D: from B 4,100, A 2,100, C 2,100.
    # Sticks to the first from the dealer B: C, D, A → D (+1,000). The dealer B did not make it.
    assert result.hands[1].deltas == (6200, -8200, -4200, 7200)
    assert (result.state.hand, result.state.honba, result.state.sticks) == (2, 0, 0)


def test_nagashi_as_a_win_by_the_dealer_keeps_the_deal_and_may_stop():
    r = rules("pairon-kansai", length="tonpuu")
    result = play([Draw()] * 3 + [Draw(nagashi=("D",))], r)
    assert result.hands[-1].deltas == (-4300, -4300, -4300, 12900)
    assert result.ended == "agari-yame"


def test_nagashi_as_a_draw_keeps_the_sticks_and_pays_no_honba():
    result = play([Draw(), Draw(nagashi=("A",), tenpai=("B",), riichi=("B",))])
    # 東2 1本: A's mangan from the dealer B 4,000 and the others 2,000; B's stick stays.
    assert result.hands[1].deltas == (8000, -5000, -2000, -2000)
    assert (result.state.hand, result.state.honba, result.state.sticks) == (1, 2, 1)


# --- 8. abortive draws, 9. chombo ----------------------------------------------------------------


@pytest.mark.parametrize(("discarder", "stays"), [("A", False), ("B", True)])
def test_sanchahou_dealer_claimed(discarder, stays):
    r = rules("kinyokai-2015")
    state = play([Abortive("sanchahou", discarder=discarder)], r).state
    assert (state.hand, state.honba) == ((0 if stays else 1), 1)


def test_abortive_rotate_keeps_counting_honba():
    state = play([Abortive("suufon")], rules("kinyokai-2015")).state
    assert (state.hand, state.honba) == (1, 1)


def test_chombo_changes_no_counter():
    result = play([Draw(tenpai=("A",)), Chombo("A")], rules("pairon-kansai"))
    assert result.hands[1].deltas == (-12000, 4000, 4000, 4000)
    assert (result.state.hand, result.state.honba, result.state.sticks) == (0, 1, 0)


def test_chombo_mangan_with_three_players():
    r = rules("pairon-kansai-3p")
    assert deltas([Chombo("A")], r, ("A", "B", "C")) == [(-8000, 4000, 4000)]
    assert deltas([Chombo("C")], r, ("A", "B", "C")) == [(4000, 2000, -6000)]


# --- who deals next ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("draw_renchan", "hands", "keeps"),
    [
        ("tenpai", 0, True),
        ("never", 0, False),
        ("tenpai-from-south", 0, False),  # 東1
        ("tenpai-from-south", 4, True),  # 南1
    ],
)
def test_draw_renchan(draw_renchan, hands, keeps):
    r = rules(draw_renchan=draw_renchan)
    before = [Draw()] * hands
    dealer = ABCD[hands % 4]
    state = play([*before, Draw(tenpai=(dealer,))], r).state
    assert state.hand == (hands if keeps else hands + 1)
    assert state.honba == hands + 1


# --- when the game ends --------------------------------------------------------------------------


def at(hand: int, points, r=TENHOU, stays=False, stop=None):
    return game_end(r, points, hand, stays, stop)


def test_the_documents_end_examples():
    even = (25000, 25000, 25000, 25000)
    assert at(7, (30000, 25000, 25000, 20000)) == "last-hand"  # 南4, deal passes, someone 30,000
    assert at(7, even) is None  # nobody has 30,000: 西1 is played
    assert at(7, (20000, 24000, 24000, 32000), stays=True, stop="agari-yame") == "agari-yame"
    assert at(7, (20000, 26000, 26000, 28000), stays=True, stop="agari-yame") is None
    assert at(9, (20000, 24000, 25100, 30900)) == "extension"  # 西2, a non-dealer reaches it
    assert at(11, even) == "extension"  # 西4: the deal passes, the game ends whatever the points
    assert at(11, (20000, 24000, 27000, 29000), stays=True, stop="agari-yame") is None


def test_bust_rules():
    zero = (0, 30000, 35000, 35000)
    assert at(0, zero) is None
    assert at(0, zero, rules(bust="at-zero")) == "bust"
    assert at(0, (-100, 30100, 35000, 35000), rules(bust="none")) is None


def test_stop_needs_first_place_with_ties_to_the_earlier_seat():
    r = rules("pairon-kansai")  # no extension, agari and tenpai yame
    assert at(7, (30000, 20000, 20000, 30000), r, True, "agari-yame") is None  # A ranks higher
    assert at(7, (20000, 20000, 30000, 30000), r, True, "tenpai-yame") is None  # C ranks higher
    assert at(7, (20000, 20000, 29000, 31000), r, True, "tenpai-yame") == "tenpai-yame"
    assert at(7, (20000, 20000, 29000, 31000), rules("kinyokai-2015"), True, "tenpai-yame") is None


def test_without_an_extension_a_passed_deal_at_the_last_hand_ends_the_game():
    assert at(7, (25000,) * 4, rules("kinyokai-2015")) == "last-hand"
    assert at(6, (25000,) * 4, rules("kinyokai-2015")) is None


def test_extension_without_sudden_death_ends_only_at_the_end_of_a_wind():
    r = rules(extension=Extension(30000, 2, False))
    high = (31000, 23000, 23000, 23000)
    assert at(8, high, r) is None  # 西1
    assert at(11, high, r) == "extension"  # 西4
    assert at(12, (25000,) * 4, r) is None  # 北1
    assert at(15, (25000,) * 4, r) == "extension"  # 北4: the very last hand


def test_the_very_last_hand_of_an_extension_and_labels():
    result = play([Draw()] * 12, rules(extension=Extension(30000, 1, True)))
    assert [h.round for h in result.hands][-4:] == ["西1", "西2", "西3", "西4"]
    assert result.ended == "extension"
    r3 = rules("tenhou-3p")
    result = play([Draw()] * 9, r3, ("A", "B", "C"))
    assert [h.round for h in result.hands] == [
        *("東1", "東2", "東3", "南1", "南2", "南3", "西1", "西2", "西3")
    ]
    assert result.ended == "extension"


def test_abortive_draws_never_stop_the_game():
    r = rules("pairon-kansai", length="tonpuu")
    result = play([Draw(), Draw(), Draw(), Abortive("kyuushu")], r)
    assert result.ended is None


def test_the_same_state_plays_the_same_from_a_fresh_start():
    history = play([Draw(tenpai=("A",)), Ron("C", (Win("B", han=3, fu=30),))])
    fresh = GameState(
        history.state.points, history.state.hand, history.state.honba, history.state.sticks
    )
    event = Tsumo(Win("D", han=2, fu=30))
    assert play_hand(TENHOU, ABCD, history.state, event) == play_hand(TENHOU, ABCD, fresh, event)


def test_final_points_and_deposits_always_add_up_to_the_start():
    result = play([Draw(riichi=("A", "B")), Draw(riichi=("C",))])
    assert sum(result.state.points) + result.deposits == 4 * 25000
    assert result.deposits == 3000
    game = result.settlement_game()
    assert (game.deposits, game.chombo) == (3000, ())


def test_the_example_in_docs_hands_md_plays():
    import json
    import re

    from scoring import hands_json
    from tests.support.scoring_cases import ROOT

    text = (ROOT / "docs" / "hands.md").read_text(encoding="utf-8")
    example = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    final = hands_json(example)["final"]
    assert final["ended"] is None
    assert final["chombo"] == ["土井"]
    assert sum(p["points"] for p in final["players"]) + final["deposits"] == 100000


def test_hand_presets_command_prints_every_preset_as_a_full_rules_object(capsys):
    import json

    from scoring import hand_rules_from_json
    from scoring.cli import main

    assert main(["hand-presets"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed) == set(HAND_PRESETS)
    for name, full in printed.items():
        assert hand_rules_from_json(full) == HAND_PRESETS[name].rules
