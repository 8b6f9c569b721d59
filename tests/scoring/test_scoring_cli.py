"""The command-line contract: shapes in and out, and bad input as exactly one line on stderr."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.cli import main
from tests.support.scoring_cases import assert_one_line_error, run_cli

PLAYERS = [
    {"name": "Aoki", "points": 52000},
    {"name": "Baba", "points": 31000},
    {"name": "Chiba", "points": 19000},
    {"name": "Doi", "points": -3000},
]
DOC_EXAMPLE = {
    "rules": "mame-no-kai",
    "rate": "0.3",
    "players": PLAYERS,
    "deposits": 1000,
    "chombo": ["Baba"],
    "chips": [
        {"kind": "ippatsu", "winner": "Aoki"},
        {"kind": "yakuman", "winner": "Chiba", "from": "Doi", "multiplier": 1},
    ],
}


def settle_in_process(capsys, text: str, command: str = "settle") -> tuple[int, str, str]:
    code = main([command], stdin=io.StringIO(text))
    out, err = capsys.readouterr()
    return code, out, err


def refused_in_process(capsys, text: str, command: str = "settle") -> str:
    code, out, err = settle_in_process(capsys, text, command)
    assert code == 2
    return assert_one_line_error(err, out)


def test_the_documented_example(capsys):
    code, out, err = settle_in_process(capsys, json.dumps(DOC_EXAMPLE))
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "players": [
            {"name": "Aoki", "rank": 1, "score": "79.0", "chips": 3, "yen": 2640},
            {"name": "Baba", "rank": 2, "score": "-9.0", "chips": -1, "yen": -360},
            {"name": "Chiba", "rank": 3, "score": "-21.0", "chips": 2, "yen": -450},
            {"name": "Doi", "rank": 4, "score": "-50.0", "chips": -4, "yen": -1860},
        ]
    }


def test_yen_only_when_a_rate_is_given(capsys):
    game = {k: v for k, v in DOC_EXAMPLE.items() if k != "rate"}
    code, out, _ = settle_in_process(capsys, json.dumps(game))
    assert code == 0
    assert all(set(p) == {"name", "rank", "score", "chips"} for p in json.loads(out)["players"])


def test_object_in_object_out_list_in_list_out(capsys):
    _, out, _ = settle_in_process(capsys, json.dumps(DOC_EXAMPLE))
    assert isinstance(json.loads(out), dict)
    _, out_list, _ = settle_in_process(capsys, json.dumps([DOC_EXAMPLE]))
    assert json.loads(out_list) == [json.loads(out)]
    code, out_empty, _ = settle_in_process(capsys, "[]")
    assert (code, json.loads(out_empty)) == (0, [])


def test_names_are_written_as_they_are(capsys):
    game = {"rules": "kinyokai-2015", "players": [{"name": n, "points": 25000} for n in "東南西北"]}
    _, out, _ = settle_in_process(capsys, json.dumps(game))
    assert "東" in out  # not \\u6771


def test_real_subprocess_exit_status_and_streams():
    ok = run_cli("settle", input=json.dumps(DOC_EXAMPLE))
    assert (ok.returncode, ok.stderr) == (0, "")
    bad = run_cli("settle", input=json.dumps({**DOC_EXAMPLE, "rate": "9.9"}))
    assert bad.returncode == 2
    assert assert_one_line_error(bad.stderr, bad.stdout).startswith("game 0: rate: ")


@pytest.mark.parametrize(
    ("text", "start"),
    [
        pytest.param("", "input: not valid JSON", id="empty"),
        pytest.param("{", "input: not valid JSON", id="truncated"),
        pytest.param("{'a': 1}", "input: not valid JSON", id="python-not-json"),
        pytest.param("3", "game 0: must be an object", id="a-number"),
        pytest.param('"kinyokai-2015"', "game 0: must be an object", id="a-string"),
        pytest.param("[1]", "game 0: must be an object", id="list-of-number"),
        pytest.param("{}", "game 0: rules: is required", id="no-rules"),
        pytest.param('{"rules": "kinyokai-2015"}', "game 0: players: is required", id="no-players"),
    ],
)
def test_bad_input_is_one_line(capsys, text, start):
    assert refused_in_process(capsys, text).startswith(start)


def test_every_problem_goes_on_the_one_line(capsys):
    players = [dict(p) for p in PLAYERS]
    players[0]["points"] = 52050
    players[1]["name"] = "Aoki"
    line = refused_in_process(capsys, json.dumps({**DOC_EXAMPLE, "players": players}))
    assert "players[0].points" in line
    assert "players[1].name" in line


def test_names_with_newlines_still_give_one_line(capsys):
    game = {**DOC_EXAMPLE, "chombo": ["Zed\nZed"]}
    line = refused_in_process(capsys, json.dumps(game))
    assert line.startswith("game 0: chombo[0]: ")


def test_nan_and_infinity_are_not_points(capsys):
    text = json.dumps(DOC_EXAMPLE).replace("52000", "NaN").replace("31000", "Infinity")
    line = refused_in_process(capsys, text)
    assert "players[0].points" in line and "players[1].points" in line


def test_non_utf8_file_is_one_line(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(json.dumps(DOC_EXAMPLE).encode() + b"\xff")
    proc = run_cli("settle", str(path))
    assert proc.returncode == 2
    assert assert_one_line_error(proc.stderr, proc.stdout).startswith("input: ")


def test_ledger_bad_input_names_the_day(capsys):
    assert refused_in_process(capsys, "{}", "ledger").startswith("day 0: ")
    line = refused_in_process(capsys, json.dumps({"rules": "kagetsu-cup", "games": {}}), "ledger")
    assert line.startswith("day 0: games: ")


# --- found while writing these tests: inputs that escape as a traceback ---------------------------


def test_a_number_too_long_to_read_is_bad_input_not_a_traceback():
    """json.loads raises ValueError (not JSONDecodeError) past 4,300 digits."""
    text = '{"rules": "kinyokai-2015", "players": [{"name": "A", "points": ' + "1" * 5000 + "}]}"
    proc = run_cli("settle", input=text)
    assert proc.returncode == 2
    assert_one_line_error(proc.stderr, proc.stdout)


def test_deeply_nested_json_is_bad_input_not_a_traceback():
    proc = run_cli("settle", input="[" * 100_000 + "]" * 100_000)
    assert proc.returncode == 2
    assert_one_line_error(proc.stderr, proc.stdout)


@pytest.mark.parametrize("mode", [[], {}, ["penalty"]], ids=["list", "object", "list-of-str"])
def test_an_unhashable_chombo_mode_is_bad_input_not_a_traceback(capsys, mode):
    game = {**DOC_EXAMPLE, "rules": {"preset": "kinyokai-2015", "chombo": {"mode": mode}}}
    game.pop("rate")
    game.pop("chips")
    line = refused_in_process(capsys, json.dumps(game))
    assert line.startswith("game 0: rules.chombo.mode: ")


def test_a_reader_that_stops_early_is_not_an_error():
    """`python -m scoring hand-presets | head -c 120` (as in the README) prints no traceback."""
    root = Path(__file__).resolve().parents[2]
    shell = f"{sys.executable} -m scoring hand-presets | head -c 120 >/dev/null"
    run = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell], cwd=root, capture_output=True, text=True
    )
    assert run.stderr == ""
    assert run.returncode == 0
