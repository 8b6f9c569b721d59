"""Bad input to `python -m scoring hands` (docs/hands.md, "Bad input"): refused as a whole, one line
on standard error naming the game and the field, nothing on standard output, exit status 2."""

from __future__ import annotations

import contextlib
import copy
import io
import json

import pytest

from scoring import (
    HAND_PRESETS,
    Draw,
    HandsGame,
    InputError,
    Ron,
    Win,
    hand_rules_from_json,
    hands_json,
    play_game,
)
from scoring.cli import main
from tests.support.scoring_cases import assert_one_line_error, run_cli

ABCD = ["A", "B", "C", "D"]


def game(*hands, rules="tenhou", players=ABCD, **extra):
    return {"rules": rules, "players": players, "hands": list(hands), **extra}


def ron(frm, *winners, riichi=()):
    return {"result": "ron", "from": frm, "winners": list(winners), "riichi": list(riichi)}


def w(player, han=None, fu=None, **extra):
    out = {"player": player, **extra}
    if han is not None:
        out["han"] = han
    if fu is not None:
        out["fu"] = fu
    return out


def tsumo_(winner, **fields):
    return {"result": "tsumo", "winner": winner, **fields}


NOTEN = {"result": "draw"}


def refused(data) -> str:
    """The one error line of the command line, checked against the contract."""
    return refused_text(json.dumps(data, ensure_ascii=False))


BAD = [
    # (id, game, what the error line must contain)
    ("unknown preset", game(rules="tenhou-9p"), "rules: unknown preset 'tenhou-9p'"),
    ("settlement preset", game(rules="ema-2016"), "rules: unknown preset"),
    ("unknown rules field", game(rules={"preset": "tenhou", "uma": [1]}), "rules.uma: unknown"),
    ("value out of set", game(rules={"preset": "tenhou", "bust": "never"}), "rules.bust:"),
    ("missing field in full rules", game(rules={"players": 4}), "rules.length: is required"),
    (
        "draw pot does not split",
        game(rules={"preset": "tenhou", "draw_pot": 1000}),
        "rules.draw_pot: must be a multiple of 600",
    ),
    (
        "3-player pot",
        game(rules={"preset": "tenhou-3p", "draw_pot": 1100}, players=["A", "B", "C"]),
        "rules.draw_pot: must be a multiple of 200 with 3 players",
    ),
    (
        "dealer-claimed on kyuushu",
        game(rules={"preset": "tenhou", "abortive": {"kyuushu": "dealer-claimed"}}),
        "rules.abortive.kyuushu: dealer-claimed is only for sanchahou",
    ),
    (
        "extension too long",
        game(
            rules={
                "preset": "tenhou",
                "extension": {"target": 30000, "winds": 3, "sudden_death": True},
            }
        ),
        "rules.extension.winds",
    ),
    (
        "unknown pao yaku in rules",
        game(rules={"preset": "tenhou", "pao": ["rinshan"]}),
        "rules.pao[0]",
    ),
    ("unknown game field", game(rate="0.3"), "game 0: rate: unknown field"),
    (
        "three players at a 4-player table",
        game(players=["A", "B", "C"]),
        "players: needs exactly 4",
    ),
    ("a name twice", game(players=["A", "B", "A", "D"]), "players[2]: 'A' is listed twice"),
    ("an empty name", game(players=["A", "", "C", "D"]), "players[1]"),
    ("start not in hundreds", game(start=25050), "start: must be a positive multiple of 100"),
    ("start zero", game(start=0), "start:"),
    (
        "hands not a list",
        {"rules": "tenhou", "players": ABCD, "hands": {}},
        "hands: must be a list",
    ),
    ("unknown result", game({"result": "win"}), "hands[0].result: must be one of"),
    ("tenpai on a ron", game(ron("C", w("B", 1, 30)) | {"tenpai": []}), "hands[0].tenpai: unknown"),
    (
        "riichi on a chombo",
        game({"result": "chombo", "player": "A", "riichi": []}),
        "riichi: unknown",
    ),
    ("unknown discarder", game(ron("Z", w("B", 1, 30))), "hands[0].from: 'Z' is not at the table"),
    ("unknown winner", game(ron("C", w("Z", 1, 30))), "hands[0].winners[0].player: 'Z' is not"),
    ("unknown tsumo winner", game(tsumo_("Z", han=1, fu=30)), "hands[0].winner: 'Z' is not"),
    ("unknown riichi", game(ron("C", w("B", 1, 30), riichi=["Q"])), "hands[0].riichi[0]: 'Q'"),
    ("unknown tenpai", game({"result": "draw", "tenpai": ["Q"]}), "hands[0].tenpai[0]: 'Q'"),
    ("unknown nagashi", game({"result": "draw", "nagashi": ["Q"]}), "hands[0].nagashi[0]: 'Q'"),
    ("unknown chombo player", game({"result": "chombo", "player": "Q"}), "hands[0].player: 'Q'"),
    (
        "unknown pao player",
        game(ron("C", w("B", yakuman=1, pao={"player": "Q", "yaku": "daisangen"}))),
        "hands[0].winners[0].pao.player: 'Q'",
    ),
    (
        "riichi twice",
        game(ron("C", w("B", 1, 30), riichi=["A", "A"])),
        "hands[0].riichi: lists 'A' twice",
    ),
    ("tenpai twice", game({"result": "draw", "tenpai": ["A", "A"]}), "hands[0].tenpai: lists 'A'"),
    (
        "winner twice",
        game(ron("C", w("B", 1, 30), w("B", 2, 30))),
        "hands[0].winners: lists 'B' twice",
    ),
    (
        "winner is the discarder",
        game(ron("C", w("C", 1, 30))),
        "hands[0].winners[0].player: 'C' cannot win",
    ),
    (
        "han 0",
        game(ron("C", w("B", 0, 30))),
        "hands[0].winners[0].han: must be an integer of at least 1",
    ),
    ("han not an integer", game(ron("C", w("B", "2", 30))), "winners[0].han"),
    ("han a float", game(ron("C", w("B", 2.0, 30))), "winners[0].han"),
    ("han true", game(ron("C", w("B", True, 30))), "winners[0].han"),
    ("han missing", game(ron("C", w("B", fu=30))), "winners[0].han: is required"),
    ("fu 35", game(ron("C", w("B", 2, 35))), "hands[0].winners[0].fu: must be one of 20, 25, 30"),
    ("fu 120", game(ron("C", w("B", 2, 120))), "winners[0].fu: must be one of"),
    ("fu 10", game(ron("C", w("B", 2, 10))), "winners[0].fu: must be one of"),
    (
        "fu missing below 5 han",
        game(ron("C", w("B", 4))),
        "hands[0].winners[0].fu: is required below 5 han",
    ),
    ("fu missing on a tsumo", game(tsumo_("B", han=3)), "hands[0].fu: is required below 5 han"),
    ("20 fu ron", game(ron("C", w("B", 3, 20))), "winners[0].fu: 20 fu on a ron"),
    ("20 fu ron at 5 han", game(ron("C", w("B", 5, 20))), "winners[0].fu: 20 fu on a ron"),
    (
        "20 fu tsumo 1 han",
        game(tsumo_("B", han=1, fu=20)),
        "hands[0].fu: 20 fu needs at least 2 han",
    ),
    (
        "25 fu 1 han",
        game(ron("C", w("B", 1, 25))),
        "hands[0].winners[0].fu: 25 fu needs at least 2 han",
    ),
    (
        "25 fu tsumo 2 han",
        game(tsumo_("B", han=2, fu=25)),
        "hands[0].fu: 25 fu on a tsumo needs at least 3 han",
    ),
    (
        "yakuman and han",
        game(ron("C", w("B", 13, yakuman=1))),
        "winners[0].yakuman: give han and fu, or yakuman",
    ),
    ("yakuman 0", game(ron("C", w("B", yakuman=0))), "winners[0].yakuman: must be from 1 to 6"),
    ("yakuman 7", game(ron("C", w("B", yakuman=7))), "winners[0].yakuman: must be from 1 to 6"),
    (
        "double yakuman in m-league",
        game(ron("C", w("B", yakuman=2)), rules="m-league"),
        "must be from 1 to 1",
    ),
    (
        "three winners under double",
        game(ron("A", w("B", 1, 30), w("C", 1, 30), w("D", 1, 30))),
        "hands[0].winners: at most 2 winners under multi_ron: double",
    ),
    ("no winners", game(ron("A")), "hands[0].winners: needs at least one winner"),
    ("winners missing", game({"result": "ron", "from": "A"}), "hands[0].winners: is required"),
    (
        "pao on a han hand",
        game(ron("C", w("B", 13, 30, pao={"player": "D", "yaku": "daisangen"}))),
        "hands[0].winners[0].pao: pao is only for a hand given as yakuman",
    ),
    (
        "pao yaku not in the rules",
        game(ron("C", w("B", yakuman=1, pao={"player": "D", "yaku": "suukantsu"}))),
        "hands[0].winners[0].pao.yaku: must be one of daisangen, daisuushii",
    ),
    (
        "pao without pao rules",
        game(
            ron("C", w("B", yakuman=1, pao={"player": "D", "yaku": "daisangen"})),
            rules="kagetsu-cup",
        ),
        "pao.yaku: these rules have no pao",
    ),
    (
        "pao naming the winner",
        game(tsumo_("B", yakuman=1, pao={"player": "B", "yaku": "daisangen"})),
        "hands[0].pao.player: the winner cannot be liable",
    ),
    (
        "nagashi without nagashi rules",
        game({"result": "draw", "nagashi": ["B"]}, rules="jpml"),
        "hands[0].nagashi: these rules have no nagashi mangan",
    ),
    (
        "abortive kind none in the rules",
        game({"result": "abortive", "kind": "suucha"}, rules="kagetsu-cup"),
        "hands[0].kind: suucha is not an abortive draw in these rules",
    ),
    (
        "abortive in m-league",
        game({"result": "abortive", "kind": "kyuushu"}, rules="m-league"),
        "hands[0].kind",
    ),
    (
        "unknown abortive kind",
        game({"result": "abortive", "kind": "sanrenkou"}),
        "hands[0].kind: must be one of",
    ),
    (
        "suufon with 3 players",
        game(
            {"result": "abortive", "kind": "suufon"},
            rules={"preset": "tenhou-3p", "abortive": {"suufon": "renchan"}},
            players=["A", "B", "C"],
        ),
        "hands[0].kind: suufon cannot happen with 3 players",
    ),
    (
        "from on kyuushu",
        game({"result": "abortive", "kind": "kyuushu", "from": "A"}),
        "hands[0].from: only a sanchahou",
    ),
    (
        "dealer-claimed without from",
        game({"result": "abortive", "kind": "sanchahou"}, rules="kinyokai-2015"),
        "hands[0].from: is required",
    ),
    (
        "riichi below riichi_min",
        game(ron("C", w("B", 1, 30), riichi=["C"]), start=900),
        "hands[0].riichi: 'C' had 900 points; riichi needs at least 1000",
    ),
    (
        "a hand after a bust",
        game(ron("C", w("B", yakuman=1)), NOTEN),
        "game 0: hands[1]: the game has already ended (bust)",
    ),
    (
        "a hand after the last hand",
        game(*[NOTEN] * 8, NOTEN, rules="m-league"),
        "hands[8]: the game has already ended (last-hand)",
    ),
    (
        "a chombo after agari-yame",  # 東4 3本: the dealer D tsumo 4,300 all, first with 37,900
        game(
            *[NOTEN] * 3,
            tsumo_("D", han=5),
            {"result": "chombo", "player": "B"},
            rules="tenhou-tonpuu",
        ),
        "hands[4]: the game has already ended (agari-yame)",
    ),
    (
        "a hand after the extension",  # 西1 8本: B tsumo a mangan, 35,400: sudden death
        game(*[NOTEN] * 8, tsumo_("B", han=5), NOTEN),
        "hands[9]: the game has already ended (extension)",
    ),
]


@pytest.mark.parametrize(("data", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_naming_the_game_and_the_field(data, message):
    line = refused(data)
    assert line.startswith("game 0: "), line
    assert message in line, line


@pytest.mark.parametrize(("data", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_raises_the_same_error_in_python(data, message):
    with pytest.raises(InputError) as caught:
        hands_json(copy.deepcopy(data))
    assert message.removeprefix("game 0: ") in str(caught.value)


def test_the_20_fu_and_25_fu_hands_that_do_exist_are_accepted():
    hands = [
        tsumo_("B", han=2, fu=20),  # pinfu tsumo
        ron("C", w("D", 2, 25)),  # chiitoitsu ron
        tsumo_("A", han=3, fu=25),  # chiitoitsu tsumo
        ron("B", w("C", 5, 30)),  # fu may be given at 5 han
    ]
    assert hands_json(game(*hands))["final"]["ended"] is None


def test_three_claims_under_atamahane_pay_only_the_first():
    out = hands_json(game(ron("A", w("D", 1, 30), w("C", 1, 30), w("B", 2, 30)), rules="m-league"))
    assert out["hands"][0]["deltas"] == {"A": -2000, "B": 2000, "C": 0, "D": 0}


def test_claimants_that_are_not_paid_are_still_checked():
    line = refused(game(ron("A", w("B", 1, 30), w("C", 1, 25)), rules="m-league"))
    assert "hands[0].winners[1].fu: 25 fu needs at least 2 han" in line


def test_riichi_with_exactly_riichi_min_is_allowed_and_null_means_no_minimum():
    assert hands_json(game(ron("C", w("B", 1, 30), riichi=["C"]), start=1000))
    assert hands_json(game(ron("C", w("B", 1, 30), riichi=["C"]), start=100, rules="m-league"))


def test_riichi_min_is_checked_against_the_points_at_the_start_of_that_hand():
    # B rons C for 8,000 at 8,500 start: C has 500 left and may not riichi in the next hand.
    data = game(ron("C", w("B", 5)), ron("A", w("D", 1, 30), riichi=["C"]), start=8500)
    assert "hands[1].riichi: 'C' had 500 points" in refused(data)


def test_a_list_with_one_bad_game_names_that_game(capsys):
    good = game(NOTEN)
    bad = game(ron("C", w("B", 2, 20)))
    code = main(["hands"], stdin=io.StringIO(json.dumps([good, good, bad])))
    out, err = capsys.readouterr()
    assert code == 2
    assert assert_one_line_error(err, out).startswith("game 2: hands[0].winners[0].fu: 20 fu")


def test_not_json_and_not_an_object():
    assert refused_text("{").startswith("input: not valid JSON")
    assert refused(["tenhou"]).startswith("game 0: must be an object")
    assert refused({"players": ABCD, "hands": []}) == "game 0: rules: is required"


def refused_text(text: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["hands"], stdin=io.StringIO(text))
    assert code == 2
    return assert_one_line_error(err.getvalue(), out.getvalue())


def test_real_subprocess_streams_and_exit_status():
    proc = run_cli("hands", input=json.dumps(game(ron("C", w("C", 1, 30)))))
    assert proc.returncode == 2
    line = assert_one_line_error(proc.stderr, proc.stdout)
    assert line == "game 0: hands[0].winners[0].player: 'C' cannot win on their own discard"


def test_the_python_api_checks_what_it_is_given():
    rules = HAND_PRESETS["tenhou"].rules
    with pytest.raises(InputError, match=r"hands\[1\]\.winners\[0\]\.fu"):
        play_game(
            rules,
            HandsGame(players=tuple(ABCD), hands=(Draw(), Ron("B", (Win("A", han=2, fu=21),)))),
        )
    with pytest.raises(InputError, match="players"):
        play_game(rules, HandsGame(players=("A", "B"), hands=()))


def test_rules_objects_are_refused_with_every_problem_named():
    with pytest.raises(InputError) as caught:
        hand_rules_from_json({"preset": "tenhou", "kiriage": "yes", "yakuman_max": 0})
    text = str(caught.value)
    assert "rules.kiriage: must be true or false" in text
    assert "rules.yakuman_max: must be from 1" in text
