"""Helpers shared by the tests of `scoring/` (conftest.py wires the shared cases into pytest).

A module of its own, with a name no other test directory uses, so that test modules can import it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the project: the directory holding scoring/
# The worked cases, copied into the repository (tests/data/cases/README.md says from where).
CASES = ROOT / "tests" / "data" / "cases"


def load_cases(name: str) -> list[dict[str, Any]]:
    """The worked cases of tests/data/cases/<name>.json; raises (a loud collection error) if
    absent."""
    path = CASES / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(f"the worked cases are missing: {path}")
    cases = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(cases, list) or not cases:
        raise ValueError(f"{path} must hold a non-empty list of cases")
    return cases


def is_error_case(case: dict[str, Any]) -> bool:
    return case.get("expected") is None


def run_cli(*args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m scoring ARGS` from the project root, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "scoring", *args],
        input=input,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        timeout=60,
    )


def assert_one_line_error(stderr: str, stdout: str) -> str:
    """The bad-input contract: nothing on stdout, exactly one line on stderr. Returns the line."""
    assert stdout == "", f"stdout must be empty on bad input, got {stdout!r}"
    lines = stderr.splitlines()
    assert len(lines) == 1, f"stderr must be exactly one line, got {stderr!r}"
    assert "Traceback" not in stderr
    return lines[0]


def check_transfers(day: dict[str, Any]) -> None:
    """A ledger's transfers (JSON form): positive, exact, at most parties − 1, club = None."""
    balance: dict[str | None, int] = {p["name"]: p["yen"] for p in day["players"]}
    assert None not in balance
    balance[None] = day["house"]
    assert sum(balance.values()) == 0, "players' yen and the house must balance"
    parties = sum(1 for v in balance.values() if v)
    transfers = day["transfers"]
    assert len(transfers) <= max(parties - 1, 0)
    for t in transfers:
        assert set(t) == {"from", "to", "yen"}
        assert isinstance(t["yen"], int) and not isinstance(t["yen"], bool)
        assert t["yen"] > 0
        assert t["from"] != t["to"]
        assert t["from"] in balance and t["to"] in balance
        balance[t["from"]] += t["yen"]
        balance[t["to"]] -= t["yen"]
    assert not any(balance.values()), f"transfers leave balances open: {balance}"
