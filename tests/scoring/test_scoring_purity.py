"""scoring/ is a pure library: no Django, integers only (settlement.md: "Never floats")."""

from __future__ import annotations

import io
import pkgutil
import subprocess
import sys
import tokenize

import pytest

import scoring
from tests.support.scoring_cases import ROOT

SOURCES = sorted((ROOT / "scoring").glob("*.py"))


def module_names() -> list[str]:
    # __main__ runs the command line when imported, so it is left out (it imports only .cli).
    return sorted(
        f"scoring.{m.name}" for m in pkgutil.iter_modules(scoring.__path__) if m.name != "__main__"
    )


def test_the_engine_has_the_expected_modules():
    assert {"scoring.cli", "scoring.game", "scoring.day", "scoring.parse"} <= set(module_names())
    assert len(SOURCES) == len(module_names()) + 2  # plus __init__.py and __main__.py


def test_importing_every_module_of_scoring_does_not_import_django():
    imports = "; ".join(f"import {name}" for name in ["scoring", *module_names()])
    check = (
        f"import sys; {imports}; "
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')); "
        "assert not bad, bad; print('ok')"
    )
    proc = subprocess.run(
        [sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_running_the_command_line_does_not_import_django():
    check = (
        "import io, runpy, sys; sys.argv = ['scoring', 'presets']; "
        "sys.stdout = io.StringIO()\n"
        "try:\n    runpy.run_module('scoring', run_name='__main__')\n"
        "except SystemExit as e:\n    assert e.code == 0, e.code\n"
        "assert 'django' not in sys.modules"
    )
    proc = subprocess.run(
        [sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr


def float_uses(source: str) -> list[str]:
    """Code (not strings or comments) that makes floats: `float`, float literals, true division."""
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        line = f"line {tok.start[0]}: {tok.line.strip()}"
        if tok.type == tokenize.NAME and tok.string in ("float", "Decimal", "fractions", "math"):
            found.append(line)
        elif tok.type == tokenize.NUMBER:
            literal = tok.string.lower()
            is_hex = literal.startswith(("0x", "0o", "0b"))
            if "." in literal or "j" in literal or ("e" in literal and not is_hex):
                found.append(line)
        elif tok.type == tokenize.OP and tok.string in ("/", "/="):
            found.append(line)
    return found


@pytest.mark.parametrize("path", SOURCES, ids=[p.name for p in SOURCES])
def test_no_floats_in_the_engine(path):
    assert float_uses(path.read_text(encoding="utf-8")) == []


def test_the_float_check_can_fail():
    assert float_uses("x = 1.5\n")
    assert float_uses("y = a / b\n")
    assert float_uses("z = float(a)\n")
    assert float_uses("w = 1e3\n")
    assert not float_uses('"""1.5 / float"""\nq = a // b  # 2.5 float\nh = 0xE5\n')
