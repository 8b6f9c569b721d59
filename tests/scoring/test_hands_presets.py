"""One short game per hand-rules preset, worked out by hand from docs/hands.md (the arithmetic is in
the comments), played through the Python API, and its final points settled with `settle_game`
under the club's settlement preset.

Notation: b = base points; up100 rounds up to a hundred; h = honba; s = sticks on the table.
"""

from __future__ import annotations

import pytest

from scoring import (
    HAND_PRESETS,
    PRESETS,
    Abortive,
    Chombo,
    Draw,
    HandsGame,
    Pao,
    Ron,
    Tsumo,
    Win,
    play_game,
    settle_game,
)

ABCD = ("A", "B", "C", "D")


def noten(count: int) -> tuple[Draw, ...]:
    """Exhaustive draws with nobody tenpai: no payment, the deal passes, one more honba."""
    return (Draw(),) * count


def play(preset: str, hands, players=ABCD):
    return play_game(HAND_PRESETS[preset].rules, HandsGame(players=players, hands=tuple(hands)))


def check_settles(result, club: str) -> None:
    """The final output is a game settlement takes as it is."""
    assert result.ended is not None
    settled = settle_game(PRESETS[club].rules, result.settlement_game())
    assert [p.name for p in settled.players] == list(result.players)
    assert all(1 <= p.rank <= len(result.players) for p in settled.players)
    assert sum(p.score for p in settled.players) == settled.total_score
    top = max(result.seats, key=lambda s: s.points)
    assert next(p for p in settled.players if p.rank == 1).name == top.name


def points(result) -> tuple[int, ...]:
    return tuple(s.points for s in result.seats)


def test_every_preset_has_a_worked_game_here():
    tested = {name.removeprefix("test_").replace("_", "-") for name in globals()}
    assert {name.replace("_", "-") for name in HAND_PRESETS} <= tested


def test_tenhou():
    result = play(
        "tenhou",
        [
            # 東1 0本: A and B tenpai, B's riichi stick stays: ±1,500; B −1,000 more.
            Draw(tenpai=("A", "B"), riichi=("B",)),
            # 東1 1本, s = 1: double ron on A's discard. After A the order is B, C: B first.
            # B: yakuman, C pao (daisangen, not the discarder): V = 32,000, A and C 16,000 each;
            # Tenhou's honba go through pao: C pays 300 more. B also takes the stick: +33,300.
            # C: 2 han 30 fu, b = 480, 4b = 1,920 → 2,000 from A, no honba (second winner).
            # The dealer A did not win: the deal passes, h = 0.
            Ron(
                "A",
                (Win("C", han=2, fu=30), Win("B", yakuman=1, pao=Pao("D", "daisangen"))),
            ),
            # 東2 0本: D deals in a mangan: 8,000 → D below 0: bust.
            Ron("D", (Win("C", han=5),)),
        ],
    )
    deltas = [h.deltas for h in result.hands]
    assert deltas[0] == (1500, 500, -1500, -1500)
    # A −16,000 − 2,000; B +32,000 + 300 + 1,000; C +2,000; D −16,300.
    assert deltas[1] == (-18000, 33300, 2000, -16300)
    assert [h.round for h in result.hands] == ["東1", "東1", "東2"]
    assert points(result) == (8500, 58800, 33500, -800)
    assert (result.ended, result.deposits) == ("bust", 0)
    check_settles(result, "m-league")


def test_tenhou_tonpuu():
    result = play(
        "tenhou-tonpuu",
        [
            *noten(4),  # 東1 … 東4: nobody has 30,000 after 東4, so the South round is played
            # 南1 4本: C tsumo 4 han 30 fu, b = 1,920 (no kiriage): dealer up100(3,840) = 3,900,
            # others 2,000; + 400 honba each: 4,300 / 2,400 / 2,400 → C +9,100 = 34,100.
            Tsumo(Win("C", han=4, fu=30)),
        ],
    )
    assert [h.round for h in result.hands] == ["東1", "東2", "東3", "東4", "南1"]
    assert result.hands[-1].honba == 4
    assert result.hands[-1].deltas == (-4300, -2400, 9100, -2400)
    assert points(result) == (20700, 22600, 34100, 22600)
    assert result.ended == "extension"  # sudden death: C reached 30,000
    check_settles(result, "kagetsu-cup")


def test_tenhou_3p():
    result = play(
        "tenhou-3p",
        [
            # 東1: B alone tenpai, pot 2,000: +2,000 / −1,000 each. Dealer noten: the deal passes.
            Draw(tenpai=("B",)),
            # 東2 1本: dealer B tsumo 1 han 30 fu, b = 240: up100(480) = 500 + 100 from each.
            Tsumo(Win("B", han=1, fu=30)),
            # 東2 2本: A riichi and tsumo a yakuman (ツモ損): dealer B 16,000, C 8,000, + 200 each.
            Tsumo(Win("A", yakuman=1), riichi=("A",)),
            # 東3 0本: dealer C rons B for a yakuman: 48,000 → B below 0.
            Ron("B", (Win("C", yakuman=1),)),
        ],
        players=("A", "B", "C"),
    )
    assert [h.deltas for h in result.hands] == [
        (-1000, 2000, -1000),
        (-600, 1200, -600),
        (24400, -16200, -8200),  # A: −1,000 stick + 24,400 + 1,000 stick back
        (0, -48000, 48000),
    ]
    assert points(result) == (57800, -26000, 73200)
    assert result.ended == "bust"
    check_settles(result, "pairon-kansai-3p")


def test_tenhou_3p_tonpuu():
    result = play(
        "tenhou-3p-tonpuu",
        [
            # 東1: C rons B, 5 han (a mangan, 8,000): 35,000 / 27,000 / 43,000.
            Ron("B", (Win("C", han=5),)),
            # 東2: nobody tenpai: the deal passes. 東3 1本, the last hand of an east-only
            # 3-player game: all three tenpai, and dealer C, first with 43,000 (at least the
            # 40,000 target), stops there (テンパイ止め): no South round.
            Draw(),
            Draw(tenpai=("A", "B", "C")),
        ],
        players=("A", "B", "C"),
    )
    assert [h.round for h in result.hands] == ["東1", "東2", "東3"]
    assert [h.honba for h in result.hands] == [0, 0, 1]
    assert points(result) == (35000, 27000, 43000)
    assert result.ended == "tenpai-yame"
    check_settles(result, "pairon-kansai-3p")


def test_m_league():
    result = play(
        "m-league",
        [
            # 東1: B and C claim A's discard; 頭ハネ: B (next after A) wins alone, 32,000.
            Ron("A", (Win("C", han=3, fu=30), Win("B", yakuman=1))),
            # 東2: B (dealer) and D tenpai: ±1,500; B keeps the deal.
            Draw(tenpai=("B", "D")),
            *noten(6),  # 東2 1本 … 南3 6本: the deal passes each time
            # 南4 7本: A, at −8,500, may still riichi (no minimum, no bust). C tsumo 1 han 30 fu:
            # dealer D 500 + 700, A and B 300 + 700; C +3,200 + the stick.
            Tsumo(Win("C", han=1, fu=30), riichi=("A",)),
        ],
    )
    assert result.hands[0].deltas == (-32000, 32000, 0, 0)
    assert result.hands[1].deltas == (-1500, 1500, -1500, 1500)
    assert result.hands[-1].round == "南4" and result.hands[-1].honba == 7
    assert result.hands[-1].deltas == (-2000, -1000, 4200, -1200)
    assert points(result) == (-10500, 57500, 27700, 25300)
    assert result.ended == "last-hand"
    check_settles(result, "m-league")


def test_jpml():
    result = play(
        "jpml",
        [
            Abortive("kyuushu"),  # 東1: the dealer keeps the deal, h = 1
            # 東1 1本: dealer A rons B 1 han 30 fu: up100(6 × 240) = 1,500 + 300.
            Ron("B", (Win("A", han=1, fu=30),)),
            *noten(7),  # 東1 2本 … 南3 8本
            # 南4 9本: dealer D tsumo 3 han 25 fu, b = 800: 1,600 all + 900 honba each. D is
            # first with 37,500, but there is no agari-yame: D deals again.
            Tsumo(Win("D", han=3, fu=25)),
            # 南4 10本: C rons D 2 han 40 fu: up100(4 × 640) = 2,600 + 3,000. The deal passes.
            Ron("D", (Win("C", han=2, fu=40),)),
        ],
    )
    assert result.hands[1].deltas == (1800, -1800, 0, 0)
    assert result.hands[-2].deltas == (-2500, -2500, -2500, 7500)
    assert (result.hands[-1].round, result.hands[-1].honba) == ("南4", 10)
    assert result.hands[-1].deltas == (0, 0, 5600, -5600)
    assert points(result) == (29300, 25700, 33100, 31900)
    assert result.ended == "last-hand"
    check_settles(result, "jpml")


def test_ema():
    result = play(
        "ema",
        [
            Draw(tenpai=("A",)),  # 東1: +3,000 / −1,000 each; A keeps the deal, h = 1
            # 東1 1本: triple ron on B's discard, C riichi. Order after B: C, D, A.
            # C 2 han 30 fu: 1,920 → 2,000; D 3 han 30 fu: 3,840 → 3,900; A (dealer) 1 han 40
            # fu: 6 × 320 = 1,920 → 2,000. Every winner is paid 300 honba (EMA); the stick goes
            # to C, the first. B pays 2,300 + 4,200 + 2,300 = 8,800.
            Ron(
                "B",
                (Win("A", han=1, fu=40), Win("C", han=2, fu=30), Win("D", han=3, fu=30)),
                riichi=("C",),
            ),
            *noten(8),  # the dealer A won, so 東1 2本; then 8 hands to 南4 9本, all noten
        ],
    )
    assert result.hands[1].deltas == (2300, -8800, 2300, 4200)
    assert points(result) == (35300, 20200, 31300, 33200)
    assert (result.hands[-1].round, result.ended) == ("南4", "last-hand")
    check_settles(result, "ema-2016")


def test_wrc():
    result = play(
        "wrc",
        [
            # 東1: C and A claim D's discard; 頭ハネ: A is next after D. 3 han 60 fu is 1,920:
            # kiriage mangan, dealer 12,000. C's claim is void.
            Ron("D", (Win("C", han=4, fu=30), Win("A", han=3, fu=60))),
            # 東1 1本: dealer A tsumo 4 han 30 fu: kiriage, 4,000 all + 100 each.
            Tsumo(Win("A", han=4, fu=30)),
            *noten(8),  # 東1 2本 … 南4 9本
        ],
    )
    assert result.hands[0].deltas == (12000, 0, 0, -12000)
    assert result.hands[1].deltas == (12300, -4100, -4100, -4100)
    assert points(result) == (54300, 25900, 25900, 13900)
    assert result.ended == "last-hand"
    check_settles(result, "ema-2016")


def test_saikouisen():
    result = play(
        "saikouisen",
        [
            # 東1: dealer A rons C with 13 han: no kazoe yakuman, a sanbaiman: 6 × 6,000. C is at
            # −6,000 and plays on (no bust).
            Ron("C", (Win("A", han=13, fu=40),)),
            # 東1 1本: A and B tenpai (±1,500), B's riichi stick stays; A keeps the deal.
            Draw(tenpai=("A", "B"), riichi=("B",)),
            *noten(8),  # 東1 2本 … 南4 9本: nobody tenpai, the deal passes
        ],
    )
    assert result.hands[0].deltas == (36000, 0, -36000, 0)
    assert result.hands[1].deltas == (1500, 500, -1500, -1500)
    assert points(result) == (67500, 30500, -7500, 28500)
    assert (result.ended, result.deposits) == ("last-hand", 1000)
    check_settles(result, "saikouisen")


def test_npm():
    result = play(
        "npm",
        [
            # 東1: B tsumo a double yakuman (allowed up to three): dealer A 2 × 16,000, C and D
            # 2 × 8,000 each. A is at −7,000 and plays on (no bust).
            Tsumo(Win("B", yakuman=2)),
            *noten(7),  # 東2 … 南4 6本
        ],
    )
    assert result.hands[0].deltas == (-32000, 64000, -16000, -16000)
    assert points(result) == (-7000, 89000, 9000, 9000)
    assert result.ended == "last-hand"
    check_settles(result, "npm")


def test_rmu_a():
    result = play(
        "rmu-a",
        [
            # 東1: C and B claim A's discard; 上家優先: B (next after A) alone, 2 han 30 fu: 2,000,
            # and D's riichi stick.
            Ron("A", (Win("C", yakuman=1), Win("B", han=2, fu=30)), riichi=("D",)),
            # 東2: dealer B tsumo a double yakuman (composite yakuman count): 32,000 all.
            Tsumo(Win("B", yakuman=2)),
            *noten(7),  # 東2 1本 … 南4 7本
        ],
    )
    assert result.hands[0].deltas == (-2000, 3000, 0, -1000)
    assert result.hands[1].deltas == (-32000, 96000, -32000, -32000)
    assert points(result) == (-4000, 129000, -2000, -3000)
    assert result.ended == "last-hand"
    check_settles(result, "rmu-a")


def test_rmu_m():
    result = play(
        "rmu-m",
        [
            # 東1: dealer A tsumo 4 han 30 fu, no kiriage: b = 1,920, up100(3,840) = 3,900 all.
            Tsumo(Win("A", han=4, fu=30)),
            Draw(tenpai=ABCD),  # 東1 1本: everyone tenpai, no payment; A keeps the deal
            *noten(8),  # 東1 2本 … 南4 9本
        ],
    )
    assert result.hands[0].deltas == (11700, -3900, -3900, -3900)
    assert result.hands[1].deltas == (0, 0, 0, 0)
    assert points(result) == (36700, 21100, 21100, 21100)
    assert result.ended == "last-hand"
    check_settles(result, "rmu-m")


def test_kinyokai_2015():
    result = play(
        "kinyokai-2015",
        [
            # 東1: only A tenpai: +3,000. In the East round tenpai does not keep the deal (D-5).
            Draw(tenpai=("A",)),
            Abortive("suufon"),  # 東2 1本: 四風連打 passes the deal (I-1), h = 2
            # 東3 2本: D's chombo: 3,000 to each (G-7); nothing moves.
            Chombo("D"),
            # 東3 2本: three claim the dealer C's discard: 三家和, C was not a claimant, so the
            # deal passes (I-3); A's riichi stick stays on the table.
            Abortive("sanchahou", discarder="C", riichi=("A",)),
            # 東4 3本, s = 1: B made nagashi mangan, a tsumo win (C-5): dealer D 4,000 + 300,
            # A and C 2,000 + 300; B takes the stick; no tenpai payments (D-7). The dealer did
            # not make it: the deal passes and the honba goes back to 0.
            Draw(tenpai=("D",), nagashi=("B",)),
            # 南1 0本: A tenpai keeps the deal from the South round on.
            Draw(tenpai=("A",)),
            # 南1 1本: 13 han is a yakuman (L): D pays 32,000 + 300 and busts.
            Ron("D", (Win("B", han=13, fu=40),)),
        ],
    )
    rounds = [(h.round, h.honba, h.sticks) for h in result.hands]
    assert rounds == [
        ("東1", 0, 0),
        ("東2", 1, 0),
        ("東3", 2, 0),
        ("東3", 2, 0),
        ("東4", 3, 1),
        ("南1", 0, 0),
        ("南1", 1, 0),
    ]
    assert result.hands[2].deltas == (3000, 3000, 3000, -9000)
    assert result.hands[4].deltas == (-2300, 9900, -2300, -4300)
    assert points(result) == (30700, 68200, 23700, -22600)
    assert (result.ended, result.chombo) == ("bust", ("D",))
    check_settles(result, "kinyokai-2015")


def test_mame_no_kai():
    result = play(
        "mame-no-kai",
        [
            # 東1: 四家立直 passes the deal; the four sticks stay: s = 4.
            Abortive("suucha", riichi=ABCD),
            *noten(7),  # 東2 1本 … 南4 7本: nobody has 30,000 after 南4, so 西入
            # 西1 8本: C tsumo 1 han 30 fu: dealer A 500 + 800, B and D 300 + 800; + 4 sticks.
            Tsumo(Win("C", han=1, fu=30)),
        ],
    )
    assert result.hands[0].deltas == (-1000,) * 4
    assert (result.hands[-1].round, result.hands[-1].honba, result.hands[-1].sticks) == (
        "西1",
        8,
        4,
    )
    assert result.hands[-1].deltas == (-1300, -1100, 7500, -1100)
    assert points(result) == (22700, 22900, 31500, 22900)
    assert result.ended == "extension"  # sudden death at 30,000
    check_settles(result, "mame-no-kai")


def test_kagetsu_cup():
    result = play(
        "kagetsu-cup",
        [
            Chombo("A"),  # dealer A: reverse mangan, 4,000 to each
            Abortive("kyuushu"),  # 九種九牌 passes the deal (輪荘) with one honba
            # 東2 1本: triple ron on C's discard. Order after C: D, A, B.
            # D 3 han 60 fu: kiriage mangan 8,000 + 300 honba (the first); A 2 han 25 fu:
            # 4 × 400 = 1,600; B (dealer) 1 han 30 fu: 6 × 240 = 1,440 → 1,500. B keeps the deal.
            Ron("C", (Win("B", han=1, fu=30), Win("A", han=2, fu=25), Win("D", han=3, fu=60))),
            # 東2 2本: D's nagashi is a win: dealer B 4,000 + 200, A and C 2,000 + 200.
            Draw(nagashi=("D",)),
            Draw(tenpai=("C",)),  # 東3 0本: the dealer C tenpai keeps the deal
            Ron("C", (Win("D", han=1, fu=30),)),  # 東3 1本: 1,000 + 300
            # 東4 0本: dealer D tsumo 1 han 30 fu, 500 all: D is first at the last hand → stop.
            Tsumo(Win("D", han=1, fu=30)),
        ],
    )
    assert result.hands[0].deltas == (-12000, 4000, 4000, 4000)
    assert result.hands[2].deltas == (1600, 1500, -11400, 8300)
    assert result.hands[3].deltas == (-2200, -4200, -2200, 8600)
    assert [h.round for h in result.hands][-1] == "東4"
    assert points(result) == (10900, 24800, 16600, 47700)
    assert (result.ended, result.chombo) == ("agari-yame", ("A",))
    check_settles(result, "kagetsu-cup")


def test_pairon_kansai():
    result = play(
        "pairon-kansai",
        [
            # 東1: double ron on D's discard; after D comes the dealer A, so A is first and keeps
            # the deal (親が上). A 2 han 30 fu 2,900; C 3 han 30 fu 3,900.
            Ron("D", (Win("C", han=3, fu=30), Win("A", han=2, fu=30))),
            # 東1 1本: double ron on B's discard; after B: C, D, A. D is first (1,000 + 300);
            # the dealer A, second, is paid 6 × 640 → 3,900 but the deal passes (頭ハネなら親流れ).
            Ron("B", (Win("A", han=2, fu=40), Win("D", han=1, fu=30))),
            Abortive("suufon"),  # 東2 0本: every abortive draw keeps the deal, one more honba
            # 東2 1本: C yakuman off D, pao A: V = 32,000 split 16,000 / 16,000; the honba (300)
            # is the discarder's alone.
            Ron("D", (Win("C", yakuman=1, pao=Pao("A", "daisangen")),)),
            Ron("D", (Win("B", han=5),)),  # 東3 0本: D pays 8,000 and busts
        ],
    )
    assert [h.deltas for h in result.hands][:2] == [
        (2900, 0, 3900, -6800),
        (3900, -5200, 0, 1300),
    ]
    assert [(h.round, h.honba) for h in result.hands] == [
        ("東1", 0),
        ("東1", 1),
        ("東2", 0),
        ("東2", 1),
        ("東3", 0),
    ]
    assert result.hands[3].deltas == (-16000, 0, 32300, -16300)
    assert points(result) == (15800, 27800, 61200, -4800)
    assert result.ended == "bust"
    check_settles(result, "pairon-kansai")


def test_pairon_kansai_3p():
    result = play(
        "pairon-kansai-3p",
        [
            Draw(tenpai=("A",)),  # 3,000 pot: +3,000 / −1,500 each; the dealer keeps the deal
            Chombo("B"),  # 東1 1本: 子 pays the dealer 4,000 and C 2,000
            Ron("B", (Win("C", han=2, fu=30),)),  # 東1 1本: 2,000 + 600 a honba (seed 003)
            Abortive("suukan"),  # 東2 0本: the dealer keeps the deal, h = 1
            # 東2 1本: C tsumo mangan, ツモ減り: dealer B 4,000, A 2,000, + 300 each.
            Tsumo(Win("C", han=5)),
            # 東3 0本: double ron on B's discard; after B: C (the dealer) then A.
            # C 3 han 30 fu: 6 × 960 → 5,800; A 4 han 30 fu: 4 × 1,920 → 7,700 (no kiriage).
            Ron("B", (Win("A", han=4, fu=30), Win("C", han=3, fu=30))),
            # 東3 1本: dealer C tsumo a yakuman: 16,000 + 300 from each; B busts.
            Tsumo(Win("C", yakuman=1)),
        ],
        players=("A", "B", "C"),
    )
    assert [h.deltas for h in result.hands] == [
        (3000, -1500, -1500),
        (4000, -6000, 2000),
        (0, -2600, 2600),
        (0, 0, 0),
        (-2300, -4300, 6600),
        (7700, -13500, 5800),
        (-16300, -16300, 32600),
    ]
    assert points(result) == (31100, -9200, 83100)
    assert (result.ended, result.chombo) == ("bust", ("B",))
    check_settles(result, "pairon-kansai-3p")


def test_takabari_kenko():
    result = play(
        "takabari-kenko",
        [
            Ron("D", (Win("A", han=4, fu=30),)),  # kiriage: dealer mangan 12,000
            # 東1 1本: 13 han is only a sanbaiman here: 4 × 6,000 = 24,000 + 300.
            Ron("C", (Win("B", han=13, fu=30),)),
            Chombo("C"),  # 東2 0本: 3,000 to each of the three; C falls below 0: bust
        ],
    )
    assert [h.deltas for h in result.hands] == [
        (12000, 0, 0, -12000),
        (0, 24300, -24300, 0),
        (3000, 3000, -9000, 3000),
    ]
    assert points(result) == (40000, 52300, -8300, 16000)
    assert (result.ended, result.chombo) == ("bust", ("C",))
    check_settles(result, "takabari-kenko")


@pytest.mark.parametrize("name", sorted(HAND_PRESETS))
def test_every_preset_round_trips_through_json(name):
    from scoring import hand_rules_from_json

    rules = HAND_PRESETS[name].rules
    assert hand_rules_from_json(rules.to_json()) == rules
    assert hand_rules_from_json(name) == rules
    assert HAND_PRESETS[name].sources
