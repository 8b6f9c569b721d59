"""table_engine.js, the phone's display copy of the hand arithmetic (used while offline), agrees
with the engine on every shared case (tests/data/cases/hands.json, pao and nagashi mangan
included, as the table mode records them too) and on the whole hanchan of test_table."""

from __future__ import annotations

import json
from pathlib import Path

from scoring import InputError
from scoring.hands_json import hand_rules_from_json, hands_json

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((ROOT / "tests/data/cases/hands.json").read_text(encoding="utf-8"))


def _covered(game: dict) -> bool:
    return isinstance(game.get("hands"), list)


P = ["A", "B", "C", "D"]
# Pao on a ron (each way of paying its honba), a double yakuman with pao, nagashi mangan as a win:
# shapes the shared cases do not have, checked against the engine all the same.
EXTRA = [
    {
        "rules": {"preset": preset},
        "players": P,
        "hands": [
            {"result": "draw", "tenpai": ["B"], "riichi": ["C"]},
            {
                "result": "ron",
                "from": "A",
                "winners": [
                    {"player": "C", "yakuman": 1, "pao": {"player": "D", "yaku": "daisangen"}}
                ],
                "riichi": ["B"],
            },
            {
                "result": "tsumo",
                "winner": "B",
                "yakuman": 1,
                "pao": {"player": "A", "yaku": "daisuushii"},
            },
        ],
    }
    for preset in ("tenhou", "kinyokai-2015", "mame-no-kai")
] + [
    {
        "rules": {"preset": "pairon-kansai"},
        "players": P,
        "hands": [
            {"result": "draw", "tenpai": ["A"], "nagashi": ["C"], "riichi": ["B"]},
            {"result": "draw", "tenpai": [], "nagashi": ["B", "D"]},
            {
                "result": "ron",
                "from": "C",
                "winners": [
                    {"player": "A", "yakuman": 2, "pao": {"player": "B", "yaku": "daisangen"}},
                    {"player": "D", "han": 2, "fu": 30},
                ],
            },
        ],
    },
    {
        "rules": {"preset": "pairon-kansai-3p"},
        "players": P[:3],
        "hands": [
            {"result": "draw", "tenpai": ["A"], "nagashi": ["A"]},
            {
                "result": "tsumo",
                "winner": "C",
                "yakuman": 1,
                "pao": {"player": "B", "yaku": "daisangen"},
            },
        ],
    },
]


def _games() -> list[tuple[str, dict]]:
    out = [(f"extra[{i}]", game) for i, game in enumerate(EXTRA)]
    for case in CASES:
        games = case["input"] if isinstance(case["input"], list) else [case["input"]]
        for i, game in enumerate(games):
            if _covered(game):
                out.append((f"{case['name']}[{i}]", game))
    return out


def test_the_display_copy_agrees_with_the_engine(phone) -> None:
    phone.add_script_tag(path=str(ROOT / "static/league/table_engine.js"))
    checked = paos = nagashis = 0
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
        paos += '"pao"' in json.dumps(game["hands"])
        nagashis += any(h.get("nagashi") for h in game["hands"])
    assert checked >= 5, checked
    assert paos >= 1 and nagashis >= 1, (paos, nagashis)
