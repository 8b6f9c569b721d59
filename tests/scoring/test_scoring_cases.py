"""Every worked case of tests/data/cases/ through the command line and through the Python API."""

from __future__ import annotations

import json

import pytest

from scoring import (
    InputError,
    Shugi,
    format_score,
    hand_rules_from_json,
    play_game,
    rules_from_json,
    settle_day,
    settle_game,
)
from scoring.hands_json import hands_game_from_json
from scoring.parse import game_from_json
from tests.support.scoring_cases import (
    CASES,
    ROOT,
    assert_one_line_error,
    check_transfers,
    is_error_case,
    load_cases,
    run_cli,
)

GAME_KEYS = ("players", "deposits", "chombo", "chips", "rate")


def _strip_transfers(day: dict) -> dict:
    return {k: v for k, v in day.items() if k != "transfers"}


# --- the command line --------------------------------------------------------------------------


def test_settle_case_on_the_command_line(settle_case):
    proc = run_cli("settle", input=json.dumps(settle_case["input"], ensure_ascii=False))
    if is_error_case(settle_case):
        assert proc.returncode == 2
        line = assert_one_line_error(proc.stderr, proc.stdout)
        assert settle_case["error"] in line
        assert "game 0" in line
    else:
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        assert json.loads(proc.stdout) == settle_case["expected"]


def test_ledger_case_on_the_command_line(ledger_case):
    proc = run_cli("ledger", input=json.dumps(ledger_case["input"], ensure_ascii=False))
    assert proc.returncode == 0, proc.stderr
    day = json.loads(proc.stdout)
    assert _strip_transfers(day) == ledger_case["expected"]
    check_transfers(day)
    again = run_cli("ledger", input=json.dumps(ledger_case["input"], ensure_ascii=False))
    assert json.loads(again.stdout)["transfers"] == day["transfers"]


def test_hands_case_on_the_command_line(hands_case):
    proc = run_cli("hands", input=json.dumps(hands_case["input"], ensure_ascii=False))
    if is_error_case(hands_case):
        assert proc.returncode == 2
        line = assert_one_line_error(proc.stderr, proc.stdout)
        assert hands_case["error"] in line
        assert line.startswith("game 0: ")
    else:
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        assert json.loads(proc.stdout) == hands_case["expected"]


def test_all_good_hands_cases_as_one_list_give_a_list_in_the_same_order():
    good = [c for c in load_cases("hands") if not is_error_case(c)]
    proc = run_cli("hands", input=json.dumps([c["input"] for c in good], ensure_ascii=False))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [c["expected"] for c in good]


def test_settle_reads_a_file_argument(tmp_path):
    case = next(c for c in load_cases("settle") if not is_error_case(c))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(case["input"], ensure_ascii=False), encoding="utf-8")
    proc = run_cli("settle", str(path))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == case["expected"]


def test_ledger_reads_a_file_argument(tmp_path):
    case = load_cases("ledger")[0]
    path = tmp_path / "day.json"
    path.write_text(json.dumps(case["input"], ensure_ascii=False), encoding="utf-8")
    proc = run_cli("ledger", str(path))
    assert proc.returncode == 0, proc.stderr
    assert _strip_transfers(json.loads(proc.stdout)) == case["expected"]


def test_all_good_settle_cases_as_one_list_give_a_list_in_the_same_order():
    good = [c for c in load_cases("settle") if not is_error_case(c)]
    proc = run_cli("settle", input=json.dumps([c["input"] for c in good], ensure_ascii=False))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [c["expected"] for c in good]


def test_a_list_with_one_bad_game_names_that_game_and_prints_nothing():
    cases = load_cases("settle")
    good = [c["input"] for c in cases if not is_error_case(c)]
    bad = next(c for c in cases if is_error_case(c))
    games = [*good[:2], bad["input"], *good[2:]]
    proc = run_cli("settle", input=json.dumps(games, ensure_ascii=False))
    assert proc.returncode == 2
    line = assert_one_line_error(proc.stderr, proc.stdout)
    assert line.startswith("game 2:")
    assert bad["error"] in line


def test_a_missing_file_is_one_line_of_bad_input(tmp_path):
    proc = run_cli("settle", str(tmp_path / "nowhere.json"))
    assert proc.returncode == 2
    assert "nowhere.json" in assert_one_line_error(proc.stderr, proc.stdout)


# --- the Python API ------------------------------------------------------------------------------


def _through_the_api(case: dict, run):
    """The case's result through `run`; None for an error case, which must be refused with its
    message."""
    if is_error_case(case):
        with pytest.raises(InputError) as caught:
            run(case["input"])
        assert case["error"] in str(caught.value)
        return None
    return run(case["input"])


def _settle_via_api(data: dict):
    rules = rules_from_json(data["rules"])
    game = game_from_json({k: v for k, v in data.items() if k != "rules"})
    return settle_game(rules, game)


def test_settle_case_through_the_api(settle_case):
    result = _through_the_api(settle_case, _settle_via_api)
    if result is None:
        return
    expected = settle_case["expected"]["players"]
    assert [p.name for p in result.players] == [e["name"] for e in expected]
    for got, want in zip(result.players, expected, strict=True):
        assert got.rank == want["rank"], got.name
        assert format_score(got.score) == want["score"], got.name
        assert got.chips == want["chips"], got.name
        assert got.yen == want.get("yen"), got.name


def test_ledger_case_through_the_api(ledger_case):
    data = ledger_case["input"]
    rules = rules_from_json(data["rules"])
    results = [
        settle_game(rules, game_from_json({"rate": data.get("rate"), **g})) for g in data["games"]
    ]
    shugi = [Shugi(s["winner"], s.get("multiplier", 1)) for s in data.get("shugi", [])]
    day = settle_day(rules, results, attendees=data.get("attendees", []), shugi=shugi)
    expected = ledger_case["expected"]
    assert day.house == expected["house"]
    assert [
        {
            "name": p.name,
            "games": p.games,
            "score": format_score(p.score),
            "chips": p.chips,
            "yen": p.yen,
        }
        for p in day.players
    ] == expected["players"]
    again = settle_day(rules, results, attendees=data.get("attendees", []), shugi=shugi)
    assert again.transfers == day.transfers
    check_transfers(
        {
            "players": [{"name": p.name, "yen": p.yen} for p in day.players],
            "house": day.house,
            "transfers": [{"from": t.payer, "to": t.payee, "yen": t.yen} for t in day.transfers],
        }
    )


def _hands_via_api(data: dict):
    rules = hand_rules_from_json(data["rules"])
    return play_game(rules, hands_game_from_json(data))


def test_hands_case_through_the_api(hands_case):
    result = _through_the_api(hands_case, _hands_via_api)
    if result is None:
        return
    expected = hands_case["expected"]
    names = result.players
    assert len(result.hands) == len(expected["hands"])
    for got, want in zip(result.hands, expected["hands"], strict=True):
        assert got.round == want["round"]
        assert (got.honba, got.sticks) == (want["honba"], want["sticks"])
        assert names[got.dealer] == want["dealer"]
        assert dict(zip(names, got.deltas, strict=True)) == want["deltas"]
        assert dict(zip(names, got.scores, strict=True)) == want["scores"]
    final = expected["final"]
    assert [(s.name, s.points) for s in result.seats] == [
        (p["name"], p["points"]) for p in final["players"]
    ]
    assert result.deposits == final["deposits"]
    assert result.ended == final["ended"]
    assert list(result.chombo) == final.get("chombo", [])


def test_the_shared_files_have_both_kinds_of_case():
    """Guards the parametrised tests above against silently running on nothing."""
    assert len(load_cases("settle-v2")) >= 10
    settle = load_cases("settle")
    assert sum(is_error_case(c) for c in settle) >= 1
    assert sum(not is_error_case(c) for c in settle) >= 5
    assert all("error" in c for c in settle if is_error_case(c))
    assert all(not is_error_case(c) for c in load_cases("ledger"))
    hands = load_cases("hands")
    assert sum(is_error_case(c) for c in hands) >= 1
    assert sum(not is_error_case(c) for c in hands) >= 10


SHARED_CASES = ROOT.parent / "shared" / "cases"  # the team's working copy, when it is beside us


@pytest.mark.skipif(not SHARED_CASES.is_dir(), reason="no ../shared/cases beside the project")
def test_the_copied_cases_are_the_shared_ones():
    """tests/data/cases/ holds copies of ../shared/cases/: a case added or changed there fails
    here until it is copied (cp ../shared/cases/*.json tests/data/cases/)."""
    shared = sorted(p.name for p in SHARED_CASES.glob("*.json"))
    copied = sorted(p.name for p in CASES.glob("*.json"))
    assert copied == shared
    for name in shared:
        assert (CASES / name).read_bytes() == (SHARED_CASES / name).read_bytes(), name
