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


def test_a_service_importing_a_page_module_of_a_views_package_is_refused(tree):
    """A domain with several page modules keeps them in a views/ package (league/money/views/):
    the contract's league.*.views covers each of them."""
    add_line(tree / "league/rules/services.py", "from league.money.views import statements  # noqa")
    result = lint_imports(tree)
    assert result.returncode != 0
    assert "league.rules.services is not allowed to import league.money.views" in result.stdout


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


# --- the domain speaks no HTTP (issue 36: errors in domain terms) ------------------------------

WEB_ONLY = ("django.forms", "django.http", "django.contrib.messages")


def domain_modules() -> list[Path]:
    """Core, every domain's services and selectors, and the member directory."""
    league = ROOT / "league"
    found = [*sorted((league / "core").rglob("*.py"))]
    for name in ("services.py", "selectors.py"):
        found += sorted(league.glob(f"*/{name}"))
    return [*found, league / "club" / "directory.py"]


def web_imports(path: Path) -> list[str]:
    """The web-only modules a file imports, at any depth of its code (a function's too)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [
            n for n in names if n in WEB_ONLY or n.startswith(tuple(f"{w}." for w in WEB_ONLY))
        ]
    return found


def test_core_and_the_domains_import_no_forms_http_or_messages():
    """A ServiceError is the domain's answer; league.web (and each form) turn it into a page's
    errors. So nothing under core/, no services or selectors module and not the member directory
    imports django.forms, django.http or django.contrib.messages."""
    modules = domain_modules()
    assert len(modules) > 30
    offending = {str(p.relative_to(ROOT)): web_imports(p) for p in modules if web_imports(p)}
    assert offending == {}


def test_a_domain_module_importing_forms_is_found(tmp_path):
    module = tmp_path / "services.py"
    module.write_text("def f():\n    from django import forms\n    return forms\n")
    assert web_imports(module) == ["django.forms"]
    module.write_text("from django.contrib.messages import add_message\n")
    assert web_imports(module) == ["django.contrib.messages", "django.contrib.messages.add_message"]


def imported_test_modules(path: Path, bare: frozenset[str] = frozenset()) -> list[str]:
    """The test modules `path` imports, at any depth of its code: anything under tests/ but
    tests/support (a conftest, a test module, a folder's module), and a test module, conftest
    or any other name in `bare` imported by its bare name (pytest puts each test folder on
    sys.path, so `from scoring_cases import x` would work from the right folder)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            top, _, rest = name.partition(".")
            outside_support = top == "tests" and not rest.startswith("support")
            if outside_support or top in bare or top == "conftest" or top.startswith("test_"):
                found.append(name)
    return found


def test_no_test_module_imports_another():
    """Tests share code through tests/support (plain functions and factories) and conftest.py
    fixtures that pytest finds by name, never by importing another test module or a conftest:
    a test module can then move, or be deleted, without breaking another."""
    modules = sorted((ROOT / "tests").rglob("*.py"))
    assert len(modules) > 200
    bare = frozenset(p.stem for p in modules)  # a module of tests/ by its name alone
    offending = {
        str(p.relative_to(ROOT)): imported_test_modules(p, bare)
        for p in modules
        if imported_test_modules(p, bare)
    }
    assert offending == {}


def test_a_test_module_importing_another_is_found(tmp_path):
    module = tmp_path / "test_x.py"
    module.write_text("from tests.support.clubs import make_club\nimport pytest\n")
    assert imported_test_modules(module) == []
    module.write_text("def f():\n    from tests.league.api.test_api import call\n    return call\n")
    assert imported_test_modules(module) == ["tests.league.api.test_api.call"]
    module.write_text("from tests.conftest import make_user\nfrom tests import conftest\n")
    assert imported_test_modules(module) == ["tests.conftest.make_user", "tests.conftest"]
    module.write_text("import test_api\nfrom conftest import PASSWORD\n")
    assert imported_test_modules(module) == ["test_api", "conftest.PASSWORD"]
    module.write_text("from scoring_cases import run_cli\n")
    assert imported_test_modules(module, frozenset({"scoring_cases"})) == ["scoring_cases.run_cli"]
