"""Online games (scoring/online.py): real Tenhou logs in both formats (tests/data/online/) are read
into the hands engine's input, recomputed hand by hand, and give Tenhou's own final points and
scores; tampered logs are refused, naming the hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import InputError, rules_from_json, settle_game
from scoring.hands import play_game
from scoring.hands_json import hand_rules_from_json, hands_game_from_json
from scoring.online import LOG_FORMAT, LOG_MISMATCH, check_online_game, parse_online_log

DATA = Path(__file__).resolve().parents[1] / "data" / "online"
GAMES = sorted(p.stem for p in DATA.glob("*.xml"))  # real Tenhou games, in both formats
# Written by hand (tests/data/online/README.md): JSON only, results worked out by Tenhou's rules.
HANDMADE = sorted(p.stem for p in DATA.glob("handmade-*.json") if "-3p-" not in p.stem)
# 2019 results and the hand-written ones are rounded (half up on the magnitude); 2023 exact.
ROUNDED = [g for g in GAMES + HANDMADE if not g.startswith("2023")]


def read(name: str, ext: str) -> str:
    return (DATA / f"{name}.{ext}").read_text(encoding="utf-8")


def refused(text: str) -> tuple[str, str, str]:
    with pytest.raises(InputError) as caught:
        check_online_game(parse_online_log(text))
    problem = caught.value.problems[0]
    return problem.field, problem.code, problem.message


def test_there_are_real_games_in_both_formats():
    assert len(GAMES) == 6
    for name in GAMES:
        assert (DATA / f"{name}.xml").exists()


@pytest.mark.parametrize("ext", ["json", "xml"])
@pytest.mark.parametrize("name", GAMES)
def test_a_real_log_gives_tenhous_own_final_points(name, ext):
    game = parse_online_log(read(name, ext))
    out = check_online_game(game)
    final = [p["points"] for p in out["final"]["players"]]
    # Tenhou's result line adds leftover sticks to the first; none of these games has any.
    assert out["final"]["deposits"] == 0
    assert tuple(final) == game.final_points
    assert out["final"]["ended"] in ("last-hand", "bust", "agari-yame", "tenpai-yame", "extension")
    assert [p["name"] for p in out["final"]["players"]] == list(game.names)
    assert len(out["hands"]) == len(game.events)


@pytest.mark.parametrize("name", GAMES + HANDMADE)
def test_settling_under_the_tenhou_preset_gives_tenhous_own_scores(name):
    game = parse_online_log(read(name, "json"))
    out = check_online_game(game)
    rules = {"preset": "tenhou"} if name in ROUNDED else {"preset": "tenhou", "rounding": "none"}
    result = play_game(hand_rules_from_json(game.rules), hands_game_from_json(game.hands_input()))
    settled = settle_game(rules_from_json(rules), result.settlement_game())
    scores = tuple(f"{p.score / 10:.1f}" for p in settled.players)
    assert scores == game.final_scores
    assert out["final"]["ended"] is not None


def test_the_known_json_game_hand_by_hand():
    # 2019021004gm: ten hands; 東1 C (西) tsumo haneman 3,000/6,000 (the dealer A pays 6,000).
    game = parse_online_log(read("2019021004gm-00a9-0000-e2f6516d", "json"))
    assert game.log_id == "2019021004gm-00a9-0000-e2f6516d"
    assert game.rules == "tenhou" and game.start == 25_000
    assert game.events[0] == {"result": "tsumo", "winner": "Sidecar", "han": 6}
    out = check_online_game(game)
    assert out["hands"][0]["deltas"] == {
        "鬼ヅモ@川村軍団": -6000,
        "HN-Koda": -3000,
        "Sidecar": 12000,
        "あがれる間6s": -3000,
    }
    assert [h["round"] for h in out["hands"]][-1] == "南4"


def test_pao_double_yakuman_game_reads_the_liable_player():
    game = parse_online_log(read("2019103023gm-00a9-0000-f90e0fe9", "json"))
    pao = [w for e in game.events for w in e.get("winners", [e]) if "pao" in w]
    assert pao and pao[0]["yakuman"] == 2
    assert check_online_game(game)["final"]["ended"] == "bust"


@pytest.mark.parametrize("name", GAMES)
def test_one_game_has_one_fingerprint_in_either_format(name):
    a = parse_online_log(read(name, "json"))
    b = parse_online_log(read(name, "xml"))
    assert a.fingerprint == b.fingerprint
    assert a.events == b.events
    assert b.log_id == b.fingerprint  # an mjlog carries no id of its own


# --- every log played to its end is read (issue 40) -------------------------------------------


def test_an_east_only_game_into_the_south_round_with_an_all_tenpai_draw_is_read():
    game = parse_online_log(read("handmade-tonpuu-south", "json"))
    assert game.rules == "tenhou-tonpuu"
    # 東2's draw is written 「流局」 with no payments: all four tenpai, since 東2 is dealt again.
    assert game.events[1] == {"result": "draw", "tenpai": list(game.names)}
    assert game.events[0] == {"result": "draw"}  # 「全員不聴」: nobody tenpai
    out = check_online_game(game)
    assert [h["round"] for h in out["hands"]] == ["東1", "東2", "東2", "東3", "東4", "南1"]
    assert out["final"]["ended"] == "extension"
    assert tuple(p["points"] for p in out["final"]["players"]) == (25_000, 25_000, 34_500, 15_500)


def test_a_hanchan_into_the_west_round_with_three_noname_seats_is_read_by_seat():
    game = parse_online_log(read("handmade-west-noname", "json"))
    assert game.names == ("NoName (東)", "NoName (南)", "NoName (西)", "千葉")
    out = check_online_game(game)
    assert out["hands"][-1]["round"] == "西1" and out["final"]["ended"] == "extension"
    # The seat decides: 南's tsumo is 南's, whatever the name.
    assert out["hands"][-1]["deltas"]["NoName (南)"] == 10_400


def test_a_three_player_east_only_game_with_an_all_tenpai_draw_is_read():
    game = parse_online_log(read("handmade-3p-tonpuu", "json"))
    assert game.rules == "tenhou-3p-tonpuu" and len(game.names) == 3
    assert game.events[1] == {"result": "draw", "tenpai": ["青木", "馬場", "千葉"]}
    out = check_online_game(game)
    assert [h["round"] for h in out["hands"]] == ["東1", "東2", "東2", "東3"]
    assert tuple(p["points"] for p in out["final"]["players"]) == game.final_points


def test_read_as_all_noten_the_all_tenpai_draw_is_refused_at_the_next_hand():
    # The guard of the reading above: were 東2's 「流局」 all noten, 東3 would follow.
    data = json.loads(read("handmade-tonpuu-south", "json"))
    data["log"][1][-1] = ["全員不聴", [0, 0, 0, 0]]
    field, code, message = refused(json.dumps(data, ensure_ascii=False))
    assert (field, code) == ("hands[2]", LOG_MISMATCH)
    assert message.startswith("東2局 2本場:")


def test_a_hand_the_rules_refuse_is_named_as_a_player_says_it_with_the_rule():
    data = json.loads(read("handmade-tonpuu-south", "json"))
    # 南1 5本場: a ron of 1 han 20 fu, which no hand can be.
    data["log"][5][-1] = ["和了", [0, 0, 2500, -2500], [2, 3, 2, "20符1飜1000点", "断幺九(1飜)"]]
    with pytest.raises(InputError) as caught:
        check_online_game(parse_online_log(json.dumps(data, ensure_ascii=False)))
    problem = caught.value.problems[0]
    assert problem.field.startswith("log.hands[5]")
    assert problem.code == "impossible_hand"
    assert problem.params["hand"] == "南1局 5本場"
    assert problem.message.startswith("南1局 5本場: ") and "20" in problem.message


def test_a_hand_that_cannot_be_read_is_named_as_a_player_says_it():
    data = json.loads(read("handmade-tonpuu-south", "json"))
    data["log"][2][-1] = ["謎の流局", [0, 0, 0, 0]]
    with pytest.raises(InputError) as caught:
        parse_online_log(json.dumps(data, ensure_ascii=False))
    problem = caught.value.problems[0]
    assert (problem.field, problem.code) == ("log[2].result", LOG_FORMAT)
    assert problem.params["hand"] == "東2局 2本場"


# --- tampered logs ---------------------------------------------------------------------------


def test_a_json_log_whose_points_were_changed_is_refused_naming_the_hand():
    data = json.loads(read("2019021004gm-00a9-0000-e2f6516d", "json"))
    # The second hand's starting points: C's haneman made worth 1,000 more, A's 1,000 less.
    data["log"][1][1] = [18000, 22000, 38000, 22000]
    field, code, message = refused(json.dumps(data, ensure_ascii=False))
    assert (field, code) == ("hands[0]", LOG_MISMATCH)
    assert "東1局" in message and "18,000 / 22,000 / 38,000 / 22,000" in message


def test_a_json_log_with_a_changed_hand_value_is_refused():
    data = json.loads(read("2019021004gm-00a9-0000-e2f6516d", "json"))
    result = data["log"][0][-1]
    result[2][4] = "対々和(3飜)"  # 7 han: still a haneman: the points agree …
    check_online_game(parse_online_log(json.dumps(data, ensure_ascii=False)))
    result[2][4] = "対々和(4飜)"  # … 8 han is a baiman: they do not
    field, code, _message = refused(json.dumps(data, ensure_ascii=False))
    assert (field, code) == ("hands[0]", LOG_MISMATCH)


def test_a_json_log_with_a_changed_result_line_is_refused():
    data = json.loads(read("2019021004gm-00a9-0000-e2f6516d", "json"))
    data["sc"][0] += 1000
    data["sc"][6] -= 1000
    field, code, message = refused(json.dumps(data, ensure_ascii=False))
    assert (field, code) == ("final", LOG_MISMATCH)
    assert "5,400" in message


def test_an_xml_log_with_changed_points_is_refused():
    text = read("2019021004gm-00a9-0000-e2f6516d", "xml")
    # 東1's AGARI: sc="250,-60,250,-30,250,120,250,-30" (hundreds): C +12,000 made +13,000.
    tampered = text.replace(
        'sc="250,-60,250,-30,250,120,250,-30"', 'sc="250,-60,250,-40,250,130,250,-30"'
    )
    assert tampered != text
    field, code, _message = refused(tampered)
    assert (field, code) == ("hands[0]", LOG_MISMATCH)


def test_a_log_cut_short_is_refused():
    data = json.loads(read("2019021004gm-00a9-0000-e2f6516d", "json"))
    data["log"] = data["log"][:5]
    _field, code, _message = refused(json.dumps(data, ensure_ascii=False))
    assert code == LOG_MISMATCH


# --- not a log -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("", "log"),
        ("hello", "log"),
        ("{not json", "log"),
        ('{"log": "x"}', "log"),
        ('{"log": [], "name": ["a", "b", "c", "d"]}', "log"),
        ('{"log": [[1]], "name": ["a", "", "c", "d"]}', "name"),
        ("<mjloggm><UN/></mjloggm>", "name"),
        ("<html></html>", "log"),
        ('<!DOCTYPE x [<!ENTITY a "b">]><mjloggm/>', "log"),
        ("<mjloggm", "log"),
    ],
)
def test_what_is_not_a_log_is_refused_naming_the_field(text, field):
    with pytest.raises(InputError) as caught:
        parse_online_log(text)
    problem = caught.value.problems[0]
    assert (problem.field, problem.code) == (field, LOG_FORMAT)


def test_a_log_too_large_is_refused():
    with pytest.raises(InputError):
        parse_online_log(b"{" + b" " * 2_000_001 + b"}")


# --- the whole game: each win's marks (issue 40) ---------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_a_games_marks_are_the_same_read_from_either_format(name):
    # The JSON names yaku and dora in words, the XML by Tenhou's ids and its meld codes.
    json_game = parse_online_log(read(name, "json"))
    xml_game = parse_online_log(read(name, "xml"))
    assert len(json_game.marks) == len(json_game.events)
    assert json_game.marks == xml_game.marks
    assert any(json_game.marks)


def test_the_marks_of_the_first_hands_as_the_log_says_them():
    game = parse_online_log(read("2019021004gm-00a9-0000-e2f6516d", "json"))
    # 東1: Sidecar's open (c/p calls) 跳満 対々和 場風 東 自風 西 混一色.
    assert game.marks[0] == {
        "Sidecar": {"called": True, "yaku": ["対々和", "場風 東", "自風 西", "混一色"]}
    }
    # 東2: a closed riichi tsumo with 赤ドラ 1 and 裏ドラ 3.
    assert game.marks[1] == {
        "あがれる間6s": {"ura": 3, "aka": 1, "yaku": ["立直", "門前清自摸和", "断幺九"]}
    }
    assert game.marks[4] == {}  # 東4's draw: no winner


def test_ippatsu_is_marked():
    game = parse_online_log(read("2019123123gm-00a9-0000-f4386d0e", "xml"))
    assert sum(1 for m in game.marks for w in m.values() if w.get("ippatsu")) == 2


# Four more real Tenhou games, mjlog XML only (tests/data/online/README.md): two 3-player 鳳南
# games with 北抜き, and two 4-player east-only games ended by a yakuman that busts a seat.
MORE = sorted((DATA / "more").glob("*.xml"))


@pytest.mark.parametrize("path", MORE, ids=lambda p: p.stem)
def test_more_real_logs_give_tenhous_points_and_scores_under_the_tenhou_presets(path):
    game = parse_online_log(path.read_text(encoding="utf-8"))
    out = check_online_game(game)
    assert tuple(p["points"] for p in out["final"]["players"]) == game.final_points
    preset = {3: "tenhou-3p", 4: "tenhou"}[len(game.names)]
    assert game.rules == ("tenhou-3p" if len(game.names) == 3 else "tenhou-tonpuu")
    result = play_game(hand_rules_from_json(game.rules), hands_game_from_json(game.hands_input()))
    settled = settle_game(rules_from_json({"preset": preset}), result.settlement_game())
    assert tuple(f"{p.score / 10:.1f}" for p in settled.players) == game.final_scores


def test_a_three_player_ron_pays_200_a_honba_and_a_north_set_aside_is_not_a_call():
    game = parse_online_log(
        (DATA / "more" / "2018110809gm-00b9-0000-00a79b89.xml").read_text(encoding="utf-8")
    )
    out = check_online_game(game)
    # 東1局 2本場: 伏屋 declares riichi (1,000 to the table) and takes 32,000 by ron from
    # リコ・バンデラス, who pays 32,400 (two honba at 200, not 300); 伏屋 gets the stick back.
    last = out["hands"][-1]
    assert last["deltas"] == {"あたらないで！": 0, "リコ・バンデラス": -32400, "伏屋": 32400}
    # The game's winners set 北 aside (N with m & 0x20) and called nothing else: no open hand.
    assert not any(mark.get("called") for marks in game.marks for mark in marks.values())
    two = parse_online_log(
        (DATA / "more" / "2009060321gm-00b9-0000-75b25bcf.xml").read_text(encoding="utf-8")
    )
    assert two.marks[0]["トバゾ"].get("called") is None
