"""The architecture contract (.importlinter): it holds on the code, and it fails when a lower layer
imports a higher one or two modules import each other, even inside a function."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LINT, "--config", str(ROOT / ".importlinter"), "--no-cache"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the code, to break on purpose."""
    for package in ("league", "scoring"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("*.pyc"))
    return tmp_path


def add_line(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n" + line + "\n", encoding="utf-8")


def test_the_code_keeps_every_contract():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_model_importing_a_view_breaks_the_layers(tree):
    add_line(tree / "league/models/clubs.py", "from league.recording import views  # noqa")
    result = lint_imports(tree)
    assert result.returncode != 0
    assert "league.models.clubs" in result.stdout
    assert "BROKEN" in result.stdout


def test_a_service_importing_a_form_is_refused(tree):
    add_line(tree / "league/money/services.py", "from league.recording import forms  # noqa")
    result = lint_imports(tree)
    assert result.returncode != 0
    assert "league.money.services is not allowed to import league.recording.forms" in result.stdout


def test_an_import_inside_a_function_still_makes_a_cycle(tree):
    add_line(
        tree / "league/standings/stats.py",
        "def _late():\n    from league.club import services  # noqa\n    return services",
    )
    result = lint_imports(tree)
    assert result.returncode != 0
    assert "No import cycle between the parts of league, at any depth BROKEN" in " ".join(
        result.stdout.split()
    )


def test_scoring_importing_django_is_refused(tree):
    add_line(tree / "scoring/game.py", "import django  # noqa")
    result = lint_imports(tree)
    assert result.returncode != 0
    assert "scoring is pure Python: no Django, no league BROKEN" in " ".join(result.stdout.split())
