"""A second review of the hands engine against docs/hands.md: edge cases worked out by hand from
the document (the arithmetic is in the comments) and played through the command line
(`python -m scoring hands`, JSON in and out).

Notation: b = base points; up100 rounds up to a hundred; h = honba; s = sticks on the table.
Seats A, B, C, D in order from 起家; every game starts at the preset's `start` unless it says.
Each expected hand is (round, honba, sticks, dealer, deltas in seat order).
"""

from __future__ import annotations

import io
import json

import pytest

from scoring.cli import main

ABCD = ["A", "B", "C", "D"]
ABC = ["A", "B", "C"]
NOTEN = {"result": "draw"}


def cli(data, capsys):
    """The JSON answer of `python -m scoring hands` for `data` (exit status 0)."""
    code = main(["hands"], stdin=io.StringIO(json.dumps(data, ensure_ascii=False)))
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    return json.loads(out)


def game(rules, *hands, players=ABCD, start=None):
    data = {"rules": rules, "players": players, "hands": list(hands)}
    if start is not None:
        data["start"] = start
    return data


def ron(discarder, *winners, riichi=()):
    return {"result": "ron", "from": discarder, "winners": list(winners), "riichi": list(riichi)}


def w(player, han=None, fu=None, yakuman=None, pao=None):
    out = {"player": player}
    if han is not None:
        out["han"] = han
    if fu is not None:
        out["fu"] = fu
    if yakuman is not None:
        out["yakuman"] = yakuman
    if pao is not None:
        out["pao"] = {"player": pao[0], "yaku": pao[1]}
    return out


def tsumo(winner, han=None, fu=None, yakuman=None, pao=None, riichi=()):
    return (
        {"result": "tsumo", "winner": winner}
        | {k: v for k, v in w(winner, han, fu, yakuman, pao).items() if k != "player"}
        | {"riichi": list(riichi)}
    )


def draw(tenpai=(), nagashi=(), riichi=()):
    out = {"result": "draw", "tenpai": list(tenpai), "riichi": list(riichi)}
    if nagashi:
        out["nagashi"] = list(nagashi)
    return out


def abortive(kind, riichi=(), discarder=None):
    out = {"result": "abortive", "kind": kind, "riichi": list(riichi)}
    if discarder is not None:
        out["from"] = discarder
    return out


def chombo(player):
    return {"result": "chombo", "player": player}


def check(out, players, hands, points, deposits=0, ended=None, chombo_names=None):
    """Every hand's record, the running scores and the final object, exactly."""
    got = [
        (h["round"], h["honba"], h["sticks"], h["dealer"], [h["deltas"][p] for p in players])
        for h in out["hands"]
    ]
    assert got == [tuple(h) for h in hands]
    for h in out["hands"]:
        assert list(h) == ["round", "honba", "sticks", "dealer", "deltas", "scores"]
        assert list(h["deltas"]) == list(h["scores"]) == players
    final = out["final"]
    expected_final = {
        "players": [{"name": n, "points": p} for n, p in zip(players, points, strict=True)],
        "deposits": deposits,
        "ended": ended,
    }
    if chombo_names:
        expected_final["chombo"] = chombo_names
    assert final == expected_final
    assert list(final) == list(expected_final)
    if out["hands"]:
        assert [out["hands"][-1]["scores"][p] for p in players] == points


# --- arithmetic --------------------------------------------------------------------------------


def test_kiriage_on_a_non_dealer_tsumo_wrc(capsys):
    # wrc (kiriage, start 30,000). 東1: B tsumo 4 han 30 fu, b = 1,920 → 2,000:
    # dealer A up100(4,000), C and D up100(2,000): 8,000. Then 東2 0本.
    out = cli(game("wrc", tsumo("B", 4, 30), NOTEN), capsys)
    check(
        out,
        ABCD,
        [("東1", 0, 0, "A", [-4000, 8000, -2000, -2000]), ("東2", 0, 0, "B", [0, 0, 0, 0])],
        [26000, 38000, 28000, 28000],
    )


@pytest.mark.parametrize(("preset", "paid"), [("takabari-kenko", 12000), ("tenhou", 11600)])
def test_dealer_3_han_60_fu_ron_with_and_without_kiriage(preset, paid, capsys):
    # 3 han 60 fu: b = 60 × 2^5 = 1,920. Dealer ron: kiriage → 6 × 2,000 = 12,000;
    # without, up100(6 × 1,920 = 11,520) = 11,600. The dealer keeps the deal: 東1 1本.
    out = cli(game(preset, ron("C", w("A", 3, 60)), NOTEN), capsys)
    check(
        out,
        ABCD,
        [("東1", 0, 0, "A", [paid, 0, -paid, 0]), ("東1", 1, 0, "A", [0, 0, 0, 0])],
        [25000 + paid, 25000, 25000 - paid, 25000],
    )


def test_rounding_is_not_kiriage(capsys):
    # tenhou. 東1: dealer A ron 1 han 40 fu off B: b = 320, up100(1,920) = 2,000 (plain rounding).
    # 東1 1本: C ron 1 han 40 fu off D: up100(1,280) = 1,300 + 300 honba. Then 東2 0本.
    out = cli(game("tenhou", ron("B", w("A", 1, 40)), ron("D", w("C", 1, 40)), NOTEN), capsys)
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [2000, -2000, 0, 0]),
            ("東1", 1, 0, "A", [0, 0, 1600, -1600]),
            ("東2", 0, 0, "B", [0, 0, 0, 0]),
        ],
        [27000, 23000, 26600, 23400],
    )


def test_dealer_1_han_40_fu_tsumo_and_pinfu_tsumo_with_honba(capsys):
    # tenhou. 東1: dealer A tsumo 1 han 40 fu: b = 320, each up100(640) = 700: +2,100.
    # 東1 1本: C tsumo 2 han 20 fu: b = 320: dealer up100(640) 700 + 100, the others
    # up100(320) 400 + 100: C +1,800. The deal passes: 東2 0本.
    out = cli(game("tenhou", tsumo("A", 1, 40), tsumo("C", 2, 20), NOTEN), capsys)
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [2100, -700, -700, -700]),
            ("東1", 1, 0, "A", [-800, -500, 1800, -500]),
            ("東2", 0, 0, "B", [0, 0, 0, 0]),
        ],
        [26300, 23800, 26100, 23800],
    )


def test_13_han_is_a_sanbaiman_without_kazoe_and_a_bust_follows(capsys):
    # takabari-kenko (kazoe: sanbaiman). 東1: B ron 13 han off D: b = 6,000, 24,000; D 1,000.
    # 東2 0本: dealer B tsumo 13 han: 12,000 all, +36,000; D −11,000 < 0: bust.
    out = cli(game("takabari-kenko", ron("D", w("B", 13)), tsumo("B", 13)), capsys)
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [0, 24000, 0, -24000]),
            ("東2", 0, 0, "B", [-12000, 36000, -12000, -12000]),
        ],
        [13000, 85000, 13000, -11000],
        ended="bust",
    )


# --- multiple ron, atamahane -------------------------------------------------------------------


def test_triple_ron_honba_each_sticks_to_the_first_ema(capsys):
    # ema (30,000; triple, honba each, renchan any).
    # 東1: A tenpai alone (+3,000, −1,000 each), B riichi: s = 1; A keeps the deal, h = 1.
    # 東1 1本: D deals in to C (2/30), A (1/30) and B (3/40), C declares riichi (s = 2).
    # Order after D: A, B, C → A first: 1,500 + 300 + 2,000 sticks = 3,800.
    # B: up100(5,120) 5,200 + 300; C: up100(1,920) 2,000 + 300 − 1,000 riichi.
    # D pays 1,800 + 5,500 + 2,300 = 9,600. The dealer won: 東1 2本.
    out = cli(
        game(
            "ema",
            draw(tenpai=["A"], riichi=["B"]),
            ron("D", w("C", 2, 30), w("A", 1, 30), w("B", 3, 40), riichi=["C"]),
            NOTEN,
        ),
        capsys,
    )
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [3000, -2000, -1000, -1000]),
            ("東1", 1, 1, "A", [3800, 5500, 1300, -9600]),
            ("東1", 2, 0, "A", [0, 0, 0, 0]),
        ],
        [36800, 33500, 30300, 19400],
    )


def test_atamahane_gives_honba_and_sticks_to_the_one_winner_jpml(capsys):
    # jpml (30,000, atamahane, kyuushu renchan). 東1: kyuushu, C riichi: s = 1, 東1 1本.
    # 東1 1本: A deals in; D and B claim. First after A is B: up100(3,840) 3,900 + 300 + 1,000.
    # D gets nothing. A non-dealer won: 東2 0本.
    out = cli(
        game(
            "jpml",
            abortive("kyuushu", riichi=["C"]),
            ron("A", w("D", 1, 30), w("B", 3, 30)),
            NOTEN,
        ),
        capsys,
    )
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [0, 0, -1000, 0]),
            ("東1", 1, 1, "A", [-4200, 5200, 0, 0]),
            ("東2", 0, 0, "B", [0, 0, 0, 0]),
        ],
        [25800, 35200, 29000, 30000],
    )


def test_double_ron_dealer_second_passes_the_deal_pairon(capsys):
    # pairon-kansai (double, honba first, renchan first).
    # 東1: A tenpai alone, D riichi: A +3,000, B −1,000, C −1,000, D −2,000; 東1 1本, s = 1.
    # 東1 1本: B deals in to the dealer A (2/30: up100(2,880) 2,900) and C (1/30: 1,000).
    # Order after B: C, D, A → C first: 1,000 + 300 + 1,000. The dealer is second: the deal
    # passes and a non-dealer won: 東2 0本.
    out = cli(
        game(
            "pairon-kansai",
            draw(tenpai=["A"], riichi=["D"]),
            ron("B", w("A", 2, 30), w("C", 1, 30)),
            NOTEN,
        ),
        capsys,
    )
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [3000, -1000, -1000, -2000]),
            ("東1", 1, 1, "A", [2900, -4200, 2300, 0]),
            ("東2", 0, 0, "B", [0, 0, 0, 0]),
        ],
        [30900, 19800, 26300, 23000],
    )


def test_three_player_double_ron_dealer_first_keeps_the_deal(capsys):
    # tenhou-3p (35,000). 東1: nobody tenpai: 東2 1本 (dealer B).
    # 東2 1本: A deals in to C (2/30, riichi) and B (dealer 1/30). Order after A: B, C → B first:
    # up100(1,440) 1,500 + 200 (Tenhou's 3-player honba on a ron) + C's stick 1,000;
    # C: 2,000 − 1,000. The dealer first: 東2 2本.
    out = cli(
        game(
            "tenhou-3p",
            NOTEN,
            ron("A", w("C", 2, 30), w("B", 1, 30), riichi=["C"]),
            NOTEN,
            players=ABC,
        ),
        capsys,
    )
    check(
        out,
        ABC,
        [
            ("東1", 0, 0, "A", [0, 0, 0]),
            ("東2", 1, 0, "B", [-3700, 2700, 1000]),
            ("東2", 2, 0, "B", [0, 0, 0]),
        ],
        [31300, 37700, 36000],
    )


def test_triple_ron_with_the_dealer_third_and_kiriage_kagetsu(capsys):
    # kagetsu-cup (triple, renchan any, kiriage). 東1: B deals in to the dealer A (4/30, riichi),
    # C (1/30) and D (3/60). A: kiriage 6 × 2,000 = 12,000; D: 4 × 2,000 = 8,000; C: 1,000.
    # Order after B: C, D, A → C first takes A's stick. The dealer won: 東1 1本.
    out = cli(
        game(
            "kagetsu-cup",
            ron("B", w("A", 4, 30), w("C", 1, 30), w("D", 3, 60), riichi=["A"]),
            NOTEN,
        ),
        capsys,
    )
    check(
        out,
        ABCD,
        [("東1", 0, 0, "A", [11000, -21000, 2000, 8000]), ("東1", 1, 0, "A", [0, 0, 0, 0])],
        [36000, 4000, 27000, 33000],
    )


# --- pao -----------------------------------------------------------------------------------------


def test_pao_on_the_first_of_a_double_ron_pays_the_honba_tenhou(capsys):
    # tenhou (pao_ron_honba: pao). 東1: kyuushu: 東1 1本.
    # 東1 1本: B deals in to A (dealer 1/30: 1,500) and C (yakuman, D fed daisangen).
    # Order after B: C, D, A → C first. C: 32,000 halved, B 16,000 and D 16,000 + the 300 honba.
    # A: 1,500 from B, no honba. The dealer won (second, renchan any): 東1 2本.
    out = cli(
        game(
            "tenhou",
            abortive("kyuushu"),
            ron("B", w("A", 1, 30), w("C", yakuman=1, pao=("D", "daisangen"))),
            NOTEN,
        ),
        capsys,
    )
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [0, 0, 0, 0]),
            ("東1", 1, 0, "A", [1500, -17500, 32300, -16300]),
            ("東1", 2, 0, "A", [0, 0, 0, 0]),
        ],
        [26500, 7500, 57300, 8700],
    )


def test_pao_on_a_second_winner_pays_no_honba(capsys):
    # tenhou. 東1: kyuushu: 東1 1本. A (dealer) deals in to B (1/30) and C (yakuman, D fed it).
    # Order after A: B first: 1,000 + 300 from A. C: 16,000 from A, 16,000 from D, no honba.
    # The dealer did not win: 東2 0本.
    out = cli(
        game(
            "tenhou",
            abortive("kyuushu"),
            ron("A", w("C", yakuman=1, pao=("D", "daisangen")), w("B", 1, 30)),
            NOTEN,
        ),
        capsys,
    )
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [0, 0, 0, 0]),
            ("東1", 1, 0, "A", [-17300, 1300, 32000, -16000]),
            ("東2", 0, 0, "B", [0, 0, 0, 0]),
        ],
        [7700, 26300, 57000, 9000],
    )


def test_pao_tsumo_double_yakuman_scope_yakuman_with_honba(capsys):
    # tenhou with pao_scope: yakuman. 東1: kyuushu: 東1 1本.
    # B tsumo double yakuman, C fed daisuushii (L = 1 of k = 2). b = 16,000: A's share 32,000,
    # C's and D's 16,000. C pays half of each (16,000 + 8,000 + 8,000), all 3 × 100 honba, and
    # its own other half 8,000: 40,300; A 16,000; D 8,000. C is below 0: bust.
    rules = {"preset": "tenhou", "pao_scope": "yakuman"}
    out = cli(
        game(rules, abortive("kyuushu"), tsumo("B", yakuman=2, pao=("C", "daisuushii"))), capsys
    )
    check(
        out,
        ABCD,
        [("東1", 0, 0, "A", [0, 0, 0, 0]), ("東1", 1, 0, "A", [-16000, 64300, -40300, -8000])],
        [9000, 89300, -15300, 17000],
        ended="bust",
    )


def test_pao_ron_dealer_winner_split_honba_mame(capsys):
    # mame-no-kai (pao_ron_honba: split). Three draws with A tenpai alone: +3,000 / −1,000 each,
    # A keeps the deal: 東1 3本, A 34,000, the others 22,000.
    # 東1 3本: A (dealer) ron yakuman off B, C fed suukantsu: V = 48,000, B and C 24,000 each.
    # Honba 900: B the even half rounded down to 100 (400), C the rest (500). B and C bust.
    out = cli(
        game(
            "mame-no-kai",
            *[draw(tenpai=["A"])] * 3,
            ron("B", w("A", yakuman=1, pao=("C", "suukantsu"))),
        ),
        capsys,
    )
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [3000, -1000, -1000, -1000]),
            ("東1", 1, 0, "A", [3000, -1000, -1000, -1000]),
            ("東1", 2, 0, "A", [3000, -1000, -1000, -1000]),
            ("東1", 3, 0, "A", [48900, -24400, -24500, 0]),
        ],
        [82900, -2400, -2500, 22000],
        ended="bust",
    )


def test_pao_tsumo_with_three_players(capsys):
    # tenhou-3p (ツモ損). 東1: nobody tenpai: 東2 1本 (dealer B).
    # C tsumo yakuman, A fed daisangen: shares B 16,000 and A 8,000 (no North), both paid by A,
    # with both payers' honba (2 × 100): 24,200. The deal passes: 東3 0本.
    out = cli(
        game("tenhou-3p", NOTEN, tsumo("C", yakuman=1, pao=("A", "daisangen")), NOTEN, players=ABC),
        capsys,
    )
    check(
        out,
        ABC,
        [
            ("東1", 0, 0, "A", [0, 0, 0]),
            ("東2", 1, 0, "B", [-24200, 0, 24200]),
            ("東3", 0, 0, "C", [0, 0, 0]),
        ],
        [10800, 35000, 59200],
    )


# --- draws ---------------------------------------------------------------------------------------


def test_nagashi_as_a_draw_by_a_noten_dealer_passes_the_deal(capsys):
    # tenhou (nagashi: draw). 東1: the dealer A makes nagashi but is noten; B is tenpai.
    # A: dealer mangan tsumo, 4,000 all; B's tenpai payment is replaced. A noten: 東2 1本.
    out = cli(game("tenhou", draw(tenpai=["B"], nagashi=["A"]), NOTEN), capsys)
    check(
        out,
        ABCD,
        [("東1", 0, 0, "A", [12000, -4000, -4000, -4000]), ("東2", 1, 0, "B", [0, 0, 0, 0])],
        [37000, 21000, 21000, 21000],
    )


def test_nagashi_as_a_win_with_three_players_and_honba(capsys):
    # pairon-kansai-3p (35,000, nagashi win, 300 a payer a honba on a tsumo, ツモ損).
    # 東1: nobody tenpai, B riichi: s = 1; 東2 1本 (dealer B).
    # 東2 1本: C nagashi (A tenpai: no tenpai payment): B 4,000 + 300, A 2,000 + 300; C takes
    # the stick. A non-dealer win: 東3 0本.
    out = cli(
        game(
            "pairon-kansai-3p",
            draw(riichi=["B"]),
            draw(tenpai=["A"], nagashi=["C"]),
            NOTEN,
            players=ABC,
        ),
        capsys,
    )
    check(
        out,
        ABC,
        [
            ("東1", 0, 0, "A", [0, -1000, 0]),
            ("東2", 1, 1, "B", [-2300, -4300, 7600]),
            ("東3", 0, 0, "C", [0, 0, 0]),
        ],
        [32700, 29700, 42600],
    )


def test_nagashi_as_a_draw_by_the_tenpai_last_dealer_is_tenpai_yame(capsys):
    # tenhou. Seven draws nobody tenpai: 南4 7本 (dealer D).
    # 南4: D makes nagashi and is tenpai: 4,000 all (no honba), D 37,000, first and over
    # 30,000; a draw with the dealer tenpai: tenpai-yame.
    out = cli(game("tenhou", *[NOTEN] * 7, draw(tenpai=["D"], nagashi=["D"])), capsys)
    assert out["hands"][-1]["round"] == "南4"
    assert out["hands"][-1]["honba"] == 7
    check(
        out,
        ABCD,
        [(h["round"], h["honba"], 0, h["dealer"], [0, 0, 0, 0]) for h in out["hands"][:7]]
        + [("南4", 7, 0, "D", [-4000, -4000, -4000, 12000])],
        [21000, 21000, 21000, 37000],
        ended="tenpai-yame",
    )


def test_tenpai_from_south_east_4_passes_the_deal(capsys):
    # kinyokai-2015 (tenpai-from-south). Three draws nobody tenpai: 東4 3本 (dealer D).
    # D tenpai alone: +3,000 / −1,000 each, but in the East round only a win keeps the deal:
    # 南1 4本.
    out = cli(game("kinyokai-2015", *[NOTEN] * 3, draw(tenpai=["D"]), NOTEN), capsys)
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [0, 0, 0, 0]),
            ("東2", 1, 0, "B", [0, 0, 0, 0]),
            ("東3", 2, 0, "C", [0, 0, 0, 0]),
            ("東4", 3, 0, "D", [-1000, -1000, -1000, 3000]),
            ("南1", 4, 0, "A", [0, 0, 0, 0]),
        ],
        [24000, 24000, 24000, 28000],
    )


# --- abortive draws, chombo -----------------------------------------------------------------------


def test_abortive_rotate_at_the_last_hand_ends_the_game_with_the_stick_left(capsys):
    # kagetsu-cup (tonpuu, kyuushu rotate, no extension). Three draws: 東4 3本.
    # 東4: kyuushu, A riichi: the deal passes at r = L: last-hand; 1,000 left on the table.
    out = cli(game("kagetsu-cup", *[NOTEN] * 3, abortive("kyuushu", riichi=["A"])), capsys)
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [0, 0, 0, 0]),
            ("東2", 1, 0, "B", [0, 0, 0, 0]),
            ("東3", 2, 0, "C", [0, 0, 0, 0]),
            ("東4", 3, 0, "D", [-1000, 0, 0, 0]),
        ],
        [24000, 25000, 25000, 25000],
        deposits=1000,
        ended="last-hand",
    )


def test_suucha_at_south_4_rotates_into_the_west_and_the_sticks_go_to_the_next_winner(capsys):
    # mame-no-kai (suucha rotate; extension 30,000, 2 winds, sudden death; agari-yame).
    # Seven draws: 南4 7本. 南4: suucha, four riichi: everyone 24,000, s = 4; the deal passes,
    # nobody has 30,000: 西1 8本.
    # 西1: the dealer A tsumo 1/30: up100(480) 500 + 800 from each, +3,900, and 4 sticks:
    # 31,900, first and over 30,000 after the last hand: agari-yame.
    out = cli(
        game("mame-no-kai", *[NOTEN] * 7, abortive("suucha", riichi=ABCD), tsumo("A", 1, 30)),
        capsys,
    )
    hands = [(h["round"], h["honba"], 0, h["dealer"], [0, 0, 0, 0]) for h in out["hands"][:7]]
    check(
        out,
        ABCD,
        [
            *hands,
            ("南4", 7, 0, "D", [-1000, -1000, -1000, -1000]),
            ("西1", 8, 4, "A", [7900, -1300, -1300, -1300]),
        ],
        [31900, 22700, 22700, 22700],
        ended="agari-yame",
    )


def test_chombo_each_keeps_the_sticks_and_the_hand(capsys):
    # kinyokai-2015 (chombo: 3,000 to each). 東1: nobody tenpai, B riichi: 東2 1本, s = 1.
    # 東2 1本: A chombo: −9,000, +3,000 each; replayed as 東2 1本 with the stick.
    # C tsumo 1/30: dealer B 500 + 100, A and D 300 + 100: 1,400 and the stick: 東3 0本.
    out = cli(
        game("kinyokai-2015", draw(riichi=["B"]), chombo("A"), tsumo("C", 1, 30), NOTEN), capsys
    )
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [0, -1000, 0, 0]),
            ("東2", 1, 1, "B", [-9000, 3000, 3000, 3000]),
            ("東2", 1, 1, "B", [-400, -600, 2400, -400]),
            ("東3", 0, 0, "C", [0, 0, 0, 0]),
        ],
        [15600, 26400, 30400, 27600],
        chombo_names=["A"],
    )


def test_chombo_at_the_last_hand_does_not_end_the_game(capsys):
    # tenhou. 東1: C ron a mangan off B: C 33,000. Six draws: 南4 6本.
    # 南4: D chombo (record): nothing moves and the game goes on although C has 30,000.
    # 南4 6本 replayed: nobody tenpai, A riichi: the deal passes, C has 30,000: last-hand,
    # A's stick left on the table.
    out = cli(
        game("tenhou", ron("B", w("C", 5)), *[NOTEN] * 6, chombo("D"), draw(riichi=["A"])),
        capsys,
    )
    rounds = [(h["round"], h["honba"]) for h in out["hands"]]
    assert rounds[-3:] == [("南3", 5), ("南4", 6), ("南4", 6)]
    assert out["hands"][-1]["deltas"] == {"A": -1000, "B": 0, "C": 0, "D": 0}
    assert out["final"] == {
        "players": [
            {"name": "A", "points": 24000},
            {"name": "B", "points": 17000},
            {"name": "C", "points": 33000},
            {"name": "D", "points": 25000},
        ],
        "deposits": 1000,
        "ended": "last-hand",
        "chombo": ["D"],
    }


# --- the end of the game -----------------------------------------------------------------------


def test_tenpai_yame_with_three_players(capsys):
    # tenhou-3p (35,000; 40,000 target). 東1: C ron a mangan off B: C 43,000, B 27,000.
    # Draws nobody tenpai: 東2 0本, 東3 1本, 南1 2本, 南2 3本: 南3 4本 (dealer C).
    # 南3: C tenpai alone: +2,000, −1,000 each: C 45,000, first and over 40,000: tenpai-yame.
    out = cli(
        game("tenhou-3p", ron("B", w("C", 5)), *[NOTEN] * 4, draw(tenpai=["C"]), players=ABC),
        capsys,
    )
    check(
        out,
        ABC,
        [
            ("東1", 0, 0, "A", [0, -8000, 8000]),
            ("東2", 0, 0, "B", [0, 0, 0]),
            ("東3", 1, 0, "C", [0, 0, 0]),
            ("南1", 2, 0, "A", [0, 0, 0]),
            ("南2", 3, 0, "B", [0, 0, 0]),
            ("南3", 4, 0, "C", [-1000, -1000, 2000]),
        ],
        [34000, 26000, 45000],
        ended="tenpai-yame",
    )


def test_west_entry_then_sudden_death_on_a_ron(capsys):
    # tenhou. Eight draws nobody tenpai: 南4 7本 passes with nobody at 30,000: 西1 8本.
    # 西1: B ron 3/40 off C: 5,200 + 8 × 300: 32,600 ≥ 30,000, the deal passes: extension.
    out = cli(game("tenhou", *[NOTEN] * 8, ron("C", w("B", 3, 40))), capsys)
    assert [h["round"] for h in out["hands"]][-2:] == ["南4", "西1"]
    assert out["hands"][-1]["honba"] == 8
    assert out["hands"][-1]["deltas"] == {"A": 0, "B": 7600, "C": -7600, "D": 0}
    assert out["final"]["ended"] == "extension"


def test_west_dealer_renchan_beats_another_players_target(capsys):
    # tenhou. Eight draws: 西1 8本 (dealer A). C deals in to B (mangan) and A (1/30).
    # Order after C: D, A, B → A first: 1,500 + 2,400 honba; B 8,000 → 33,000 ≥ 30,000.
    # The dealer won: A deals again (not first, so no stop): 西1 9本.
    # 西1 9本: nobody tenpai, the deal passes, B has 30,000: extension.
    out = cli(game("tenhou", *[NOTEN] * 8, ron("C", w("B", 5), w("A", 1, 30)), NOTEN), capsys)
    last = [
        (h["round"], h["honba"], h["sticks"], h["dealer"], list(h["deltas"].values()))
        for h in out["hands"][-2:]
    ]
    assert last == [
        ("西1", 8, 0, "A", [3900, 8000, -11900, 0]),
        ("西1", 9, 0, "A", [0, 0, 0, 0]),
    ]
    assert out["final"]["ended"] == "extension"
    assert [p["points"] for p in out["final"]["players"]] == [28900, 33000, 13100, 25000]


def test_agari_yame_without_an_extension_needs_no_target(capsys):
    # kinyokai-2015 (no extension, agari-yame). Seven draws: 南4 7本 (dealer D).
    # D ron 1/30 off A: up100(1,440) 1,500 + 2,100 honba: 28,600, first: agari-yame.
    out = cli(game("kinyokai-2015", *[NOTEN] * 7, ron("A", w("D", 1, 30))), capsys)
    assert out["hands"][-1]["deltas"] == {"A": -3600, "B": 0, "C": 0, "D": 3600}
    assert out["final"]["ended"] == "agari-yame"


def test_no_tenpai_yame_plays_on_then_the_passed_deal_ends(capsys):
    # kinyokai-2015 (tenpai_yame false). Seven draws: 南4 7本. D tenpai alone: 28,000, first,
    # but no tenpai stop: 南4 8本. Then nobody tenpai: the deal passes: last-hand.
    out = cli(game("kinyokai-2015", *[NOTEN] * 7, draw(tenpai=["D"]), NOTEN), capsys)
    assert [(h["round"], h["honba"]) for h in out["hands"][-2:]] == [("南4", 7), ("南4", 8)]
    assert out["final"]["ended"] == "last-hand"
    assert [p["points"] for p in out["final"]["players"]] == [24000, 24000, 24000, 28000]


@pytest.mark.parametrize(
    ("bust", "ended", "hands"), [("at-zero", "bust", 1), ("below-zero", None, 2)]
)
def test_exactly_zero_busts_only_at_zero(bust, ended, hands, capsys):
    # start 8,000. 東1: B ron a mangan off the dealer A: A has 0.
    # at-zero: bust; below-zero: 0 plays on (東2 0本 is played).
    rules = {"preset": "tenhou", "bust": bust}
    data = game(rules, ron("A", w("B", 5)), NOTEN, start=8000)
    if ended:
        data["hands"].pop()
    out = cli(data, capsys)
    assert len(out["hands"]) == hands
    assert out["final"]["ended"] == ended
    assert out["final"]["players"][0]["points"] == 0


def test_a_riichi_stick_to_zero_busts_at_zero(capsys):
    # tenhou with bust at-zero, start 1,000: A may riichi (riichi_min 1,000); nobody tenpai:
    # A has 0: bust, and the stick is left on the table.
    out = cli(game({"preset": "tenhou", "bust": "at-zero"}, draw(riichi=["A"]), start=1000), capsys)
    check(
        out,
        ABCD,
        [("東1", 0, 0, "A", [-1000, 0, 0, 0])],
        [0, 1000, 1000, 1000],
        deposits=1000,
        ended="bust",
    )


def test_tonpuu_extension_is_the_south_round(capsys):
    # tenhou-tonpuu: 東4 passes with nobody at 30,000: the South round; 南4 is the very last.
    out = cli(game("tenhou-tonpuu", *[NOTEN] * 8), capsys)
    assert [h["round"] for h in out["hands"]] == [
        *("東1", "東2", "東3", "東4", "南1", "南2", "南3", "南4")
    ]
    assert out["final"]["ended"] == "extension"


def test_the_documents_example_exactly(capsys):
    # hands.md's example. 東1: 青木 (dealer) ron 3/40 off 馬場: up100(7,680) 7,700, the two
    # sticks. 東1 1本: 千葉 tsumo 1/30: 500 + 100, 300 + 100 twice: 1,400. 東2: 青木 tenpai alone.
    # 東3 1本: double ron on 土井: 青木 3/30 3,900 + 300 + 1,000; 千葉 (dealer) 2/30 2,900.
    # 東3 2本: kyuushu (renchan); 東3 3本: 土井 chombo (record).
    names = ["青木", "馬場", "千葉", "土井"]
    data = {
        "rules": "tenhou",
        "players": names,
        "start": 25000,
        "hands": [
            ron("馬場", w("青木", 3, 40), riichi=["青木", "千葉"]),
            tsumo("千葉", 1, 30),
            draw(tenpai=["青木"]),
            ron("土井", w("千葉", 2, 30), w("青木", 3, 30), riichi=["土井"]),
            abortive("kyuushu"),
            chombo("土井"),
        ],
    }
    out = cli(data, capsys)
    assert out["hands"][0] == {
        "round": "東1",
        "honba": 0,
        "sticks": 0,
        "dealer": "青木",
        "deltas": {"青木": 8700, "馬場": -7700, "千葉": -1000, "土井": 0},
        "scores": {"青木": 33700, "馬場": 17300, "千葉": 24000, "土井": 25000},
    }
    check(
        out,
        names,
        [
            ("東1", 0, 0, "青木", [8700, -7700, -1000, 0]),
            ("東1", 1, 0, "青木", [-600, -400, 1400, -400]),
            ("東2", 0, 0, "馬場", [3000, -1000, -1000, -1000]),
            ("東3", 1, 0, "千葉", [5200, 0, 2900, -8100]),
            ("東3", 2, 0, "千葉", [0, 0, 0, 0]),
            ("東3", 3, 0, "千葉", [0, 0, 0, 0]),
        ],
        [41300, 15900, 27300, 15500],
        chombo_names=["土井"],
    )


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize("result", [[], {}, ["ron"], None, 3])
def test_a_result_that_is_not_a_string_is_bad_input_not_a_crash(result, capsys):
    # hands.md: `result` not one of the five is refused: exit 2, one line naming game and field
    # (a list or an object used to raise TypeError: unhashable, a traceback and exit 1).
    data = game("tenhou", {"result": result})
    code = main(["hands"], stdin=io.StringIO(json.dumps(data)))
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("game 0: hands[0].result: must be one of ron, tsumo, draw")


# --- more flows ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "each"), [("split", 1800), ("loss", 1300)])
def test_three_player_dealer_tsumo_split_or_loss_with_honba(mode, each, capsys):
    # pairon-kansai-3p (300 a payer a honba on a tsumo). 東1: nobody tenpai: 東2 1本 (dealer B).
    # B tsumo 2 han 30 fu: b = 480, own share 2b = 960.
    # split: a = 2b = 960, up100(960 + 480) = 1,500 + 300 from each; loss: up100(960) 1,000 + 300.
    # The dealer won: 東2 2本.
    rules = {"preset": "pairon-kansai-3p", "sanma_tsumo": mode}
    out = cli(game(rules, NOTEN, tsumo("B", 2, 30), NOTEN, players=ABC), capsys)
    check(
        out,
        ABC,
        [
            ("東1", 0, 0, "A", [0, 0, 0]),
            ("東2", 1, 0, "B", [-each, 2 * each, -each]),
            ("東2", 2, 0, "B", [0, 0, 0]),
        ],
        [35000 - each, 35000 + 2 * each, 35000 - each],
    )


def test_sanchahou_keeps_the_sticks_for_the_next_winner_tenhou(capsys):
    # tenhou (sanchahou renchan, `from` optional). 東1: three claim A's tile; B and C had
    # declared riichi: s = 2, 東1 1本. D tsumo 1/30: dealer 500 + 100, B and C 300 + 100,
    # and both sticks: +3,400. The deal passes: 東2 0本.
    out = cli(
        game("tenhou", abortive("sanchahou", riichi=["B", "C"]), tsumo("D", 1, 30), NOTEN), capsys
    )
    check(
        out,
        ABCD,
        [
            ("東1", 0, 0, "A", [0, -1000, -1000, 0]),
            ("東1", 1, 2, "A", [-600, -400, -400, 3400]),
            ("東2", 0, 0, "B", [0, 0, 0, 0]),
        ],
        [24400, 23600, 23600, 28400],
    )


def test_a_chombo_payment_can_bust(capsys):
    # pairon-kansai (reverse mangan), start 10,000: the dealer A's chombo costs 4,000 to each:
    # −2,000 < 0: bust; the chombo is still listed for settlement.
    out = cli(game("pairon-kansai", chombo("A"), start=10000), capsys)
    check(
        out,
        ABCD,
        [("東1", 0, 0, "A", [-12000, 4000, 4000, 4000])],
        [-2000, 14000, 14000, 14000],
        ended="bust",
        chombo_names=["A"],
    )


def test_the_final_object_is_a_settle_game_as_it_is(capsys):
    # kinyokai-2015: 東1 B riichi, nobody tenpai; 東2 1本 A chombo (3,000 to each); then seven
    # more draws to 南4, the deal passes: last-hand with B's stick left (deposits 1,000).
    # `{"rules": club, "players": final.players, "deposits": …, "chombo": …}` settles.
    out = cli(game("kinyokai-2015", draw(riichi=["B"]), chombo("A"), *[NOTEN] * 7), capsys)
    final = out["final"]
    assert final["ended"] == "last-hand"
    assert final["deposits"] == 1000
    assert final["chombo"] == ["A"]
    assert [p["points"] for p in final["players"]] == [16000, 27000, 28000, 28000]
    settle = {
        "rules": "kinyokai-2015",
        "players": final["players"],
        "deposits": final["deposits"],
        "chombo": final["chombo"],
    }
    code = main(["settle"], stdin=io.StringIO(json.dumps(settle)))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out)


def test_pao_double_yakuman_ron_scope_hand_tenhou(capsys):
    # tenhou (pao_scope: hand, pao_ron_honba: pao). 東1: kyuushu: 東1 1本.
    # B ron double yakuman off A, C fed daisangen: V = 64,000, L = k = 2: the whole V is halved,
    # A 32,000 and C 32,000 + the 300 honba. The deal passes: 東2 0本.
    out = cli(
        game(
            "tenhou",
            abortive("kyuushu"),
            ron("A", w("B", yakuman=2, pao=("C", "daisangen"))),
        ),
        capsys,
    )
    check(
        out,
        ABCD,
        [("東1", 0, 0, "A", [0, 0, 0, 0]), ("東1", 1, 0, "A", [-32000, 64300, -32300, 0])],
        [-7000, 89300, -7300, 25000],
        ended="bust",
    )


def test_draw_renchan_never_ends_the_last_hand_as_last_hand_not_tenpai_yame(capsys):
    # pairon-kansai with draw_renchan: never (tenpai_yame true, no extension). Seven draws: 南4 7本.
    # D tenpai alone: 28,000, first; but tenpai does not keep the deal, so there is no stop to
    # take: the deal passes at r = L: last-hand.
    rules = {"preset": "pairon-kansai", "draw_renchan": "never"}
    out = cli(game(rules, *[NOTEN] * 7, draw(tenpai=["D"])), capsys)
    assert out["hands"][-1]["deltas"] == {"A": -1000, "B": -1000, "C": -1000, "D": 3000}
    assert out["final"]["ended"] == "last-hand"
