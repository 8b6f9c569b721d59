"""`python -m scoring settle|ledger|hands|presets|hand-presets`: the command-line contract of
settlement.md and hands.md.

Bad input: exit status 2, one line on standard error naming the game and the field, nothing on
standard output.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from .errors import InputError
from .hand_presets import HAND_PRESETS
from .hands_json import hands_json
from .parse import ledger_json, settle_json
from .presets import PRESETS

BAD_INPUT = 2


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    runs: dict[str, tuple[str, Callable[[object], Any]]] = {
        "settle": ("game", settle_json),
        "ledger": ("day", ledger_json),
        "hands": ("game", hands_json),
    }
    for name, what in (
        ("settle", "settle games"),
        ("ledger", "settle a day's payments"),
        ("hands", "play games hand by hand into final points"),
    ):
        sub = commands.add_parser(name, help=what)
        sub.add_argument("file", nargs="?", help="a JSON file (default: standard input)")
    commands.add_parser("presets", help="print every settlement preset's rules as JSON")
    commands.add_parser("hand-presets", help="print every hand-rules preset as JSON")
    args = parser.parse_args(argv)

    if args.command == "presets":
        _print({name: preset.rules.to_json() for name, preset in PRESETS.items()})
        return 0
    if args.command == "hand-presets":
        _print({name: preset.rules.to_json() for name, preset in HAND_PRESETS.items()})
        return 0
    label, run = runs[args.command]
    return _run(args.file, stdin or sys.stdin, label, run)


def _run(file: str | None, stdin: TextIO, label: str, run: Callable[[object], Any]) -> int:
    try:
        if file is None:
            text = stdin.read()
        else:
            with open(file, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        return _fail(f"input: cannot read {file or 'standard input'}: {e}")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:  # JSONDecodeError, too many digits, too deep
        return _fail(f"input: not valid JSON: {e}")
    items = data if isinstance(data, list) else [data]
    out = []
    for i, item in enumerate(items):
        try:
            out.append(run(item))
        except InputError as e:
            return _fail(f"{label} {i}: {e}")
    _print(out if isinstance(data, list) else out[0])
    return 0


def _fail(line: str) -> int:
    print(" ".join(line.split()), file=sys.stderr)
    return BAD_INPUT


def _print(value: object) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))
