"""pytest wiring for the tests of the pure settlement engine `scoring/`.

These tests never touch the database and never import Django (the engine is checked for that in a
subprocess). The worked cases are in tests/data/cases/; a missing file is an error at collection,
never a reason to skip.
"""

from __future__ import annotations

import pytest

from tests.support.scoring_cases import load_cases


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`settle_case` runs once per case of settle.json and settle-v2.json (the rule variants of
    version 2), `ledger_case` once per case of ledger.json, `hands_case` once per case of
    hands.json (games recorded hand by hand)."""
    for fixture, names in (
        ("settle_case", ("settle", "settle-v2")),
        ("ledger_case", ("ledger",)),
        ("hands_case", ("hands",)),
    ):
        if fixture in metafunc.fixturenames:
            cases = [(name, c) for name in names for c in load_cases(name)]
            metafunc.parametrize(
                fixture, [c for _n, c in cases], ids=[f"{n}: {c['name']}" for n, c in cases]
            )
