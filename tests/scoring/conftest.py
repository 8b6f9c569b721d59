"""pytest wiring for the tests of the pure settlement engine `scoring/`.

These tests never touch the database and never import Django (the engine is checked for that in a
subprocess). The worked cases live outside the project, in ../shared/cases/; a missing shared/
directory is an error at collection, never a reason to skip.
"""

from __future__ import annotations

import pytest
from scoring_test_support import load_cases


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`settle_case` / `ledger_case` arguments run once per case of the shared files."""
    for fixture, name in (("settle_case", "settle"), ("ledger_case", "ledger")):
        if fixture in metafunc.fixturenames:
            cases = load_cases(name)
            metafunc.parametrize(fixture, cases, ids=[c["name"] for c in cases])
