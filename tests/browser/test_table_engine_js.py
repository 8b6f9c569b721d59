"""table_engine.js, the phone's display copy of the hand arithmetic (used while offline), agrees
with the engine on every shared case it covers (tests/data/cases/hands.json: those without pao
or nagashi, which the table mode does not record) and on the whole hanchan of test_table."""

from __future__ import annotations

import json
from pathlib import Path

from scoring import InputError
from scoring.hands_json import hand_rules_from_json, hands_json

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((ROOT / "tests/data/cases/hands.json").read_text(encoding="utf-8"))


def _covered(game: dict) -> bool:
    for hand in game.get("hands", []):
        if hand.get("nagashi") or "pao" in json.dumps(hand):
            return False
    return isinstance(game.get("hands"), list)


def _games() -> list[tuple[str, dict]]:
    out = []
    for case in CASES:
        games = case["input"] if isinstance(case["input"], list) else [case["input"]]
        for i, game in enumerate(games):
            if _covered(game):
                out.append((f"{case['name']}[{i}]", game))
    return out


def test_the_display_copy_agrees_with_the_engine(phone) -> None:
    phone.add_script_tag(path=str(ROOT / "static/league/table_engine.js"))
    checked = 0
    for name, game in _games():
        try:
            expected = hands_json(game)
        except InputError:  # a case of bad input: the engine refuses it, nothing to display
            continue
        rules = hand_rules_from_json(game["rules"]).to_json()
        start = game.get("start") or rules["start"]
        got = phone.evaluate(
            "([r, players, start, hands]) => JanchoHands.playAll(r, players, start, hands)",
            [rules, game["players"], start, game["hands"]],
        )
        players = game["players"]
        assert [r["deltas"] for r in got["records"]] == [
            [h["deltas"][p] for p in players] for h in expected["hands"]
        ], name
        assert got["state"]["points"] == [p["points"] for p in expected["final"]["players"]], name
        assert got["state"]["sticks"] * 1000 == expected["final"]["deposits"], name
        assert got["state"]["ended"] == expected["final"]["ended"], name
        checked += 1
    assert checked >= 5, checked
