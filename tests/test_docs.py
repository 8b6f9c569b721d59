"""The repository's own documents: links stay inside the repository and point at files that
exist, and docs/rules.md names every field the engine accepts, so it cannot fall behind."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scoring import PRESETS, Rules

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_links_point_at_files_in_the_repository(doc: Path) -> None:
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "#", "mailto:")):
            continue
        assert not target.startswith("../"), f"{doc.name} links outside the repository: {target}"
        path = (doc.parent / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT), f"{doc.name} links outside the repository: {target}"
        assert path.exists(), f"{doc.name} links to a missing file: {target}"


def test_rules_reference_names_every_field_and_preset() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    # Every key of a full rules object, taken from the engine's own JSON form.
    keys = set(Rules.__dataclass_fields__) - {"return_points", "floating"}
    keys |= {"return", "floating_line", "by_floating", "default"}
    for preset in PRESETS.values():
        keys |= set(preset.rules.to_json())
    for key in sorted(keys):
        assert f"`{key}`" in text or f'"{key}"' in text, f"docs/rules.md lacks the field {key!r}"
    for name in PRESETS:
        assert f"`{name}`" in text, f"docs/rules.md does not list the preset {name!r}"


def test_rules_reference_names_every_value_of_the_choice_fields() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    from scoring import rules as rules_module

    source = Path(rules_module.__file__).read_text(encoding="utf-8")
    for value in [
        "none",
        "gosha-rokunyu",
        "shisha-gonyu",
        "kirisute",
        "kiriage",
        "toward-return",
        "magnitude",
        "number-line",
        "seat",
        "split",
        "top",
        "house",
        "settle",
        "floor",
        "penalty",
        "pay_top",
        "pay_each",
        "buster",
    ]:
        assert f'"{value}"' in source, f"the engine no longer knows {value!r}: update this test"
        assert f"`{value}`" in text, f"docs/rules.md does not explain the value {value!r}"


def test_the_readme_scoring_example_prints_what_the_readme_shows() -> None:
    """README's command line example, run as written (its JSON into `python -m scoring settle`),
    prints exactly the output block under it."""
    import subprocess
    import sys

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(
        r"```sh\necho '(?P<input>.*?)' \| \.venv/bin/python -m scoring settle\n```\n\n"
        r"```json\n(?P<output>.*?)```\n",
        text,
        re.S,
    )
    assert found, "README's scoring example (an echo into settle, then its output) is missing"
    run = subprocess.run(
        [sys.executable, "-m", "scoring", "settle"],
        input=found["input"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert run.stdout == found["output"]
