"""Hostile workbooks against the import's reader: time and peak memory per file.

    .venv/bin/python benchmarks/hostile_import_bench.py [--short]

Builds every workbook of tests/support/hostile_workbooks.py (at the sizes of issue 15's reports;
`--short`: the tests' smaller sizes, for CI), then reads each one in a fresh process the way the
upload page does (league.excel.imports.workbook_read: the guard, then the rows) and prints the
outcome (refused with its message, or the games read), the wall-clock and CPU time (CPU time
is steadier on a busy machine), and the process's peak resident set (VmHWM) next to that of a
process that only imported Django and the reader, so the difference is what the file cost. Aims: under 5 s and under 200 MB each.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def peak_kb() -> int:
    """This process's peak resident set: VmHWM (per address space, so a fresh process starts
    from its own), else ru_maxrss (which a forked child inherits from its parent's peak)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def read_one(path: str) -> None:
    """In the child: read one file, print a JSON line."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
    import django

    django.setup()
    from django.utils import translation

    from league.excel import imports

    translation.activate("en")
    baseline = peak_kb()
    outcome = "nothing read"
    started, cpu_started = time.perf_counter(), time.process_time()
    if path:
        data = Path(path).read_bytes()
        try:
            parsed = imports.workbook_read(data, players=4)
            outcome = f"previewed: {len(parsed.games)} games, {len(parsed.problems)} problems"
        except imports.WorkbookError as e:
            outcome = f"refused: {e.message}"
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    result = {"outcome": outcome, "seconds": seconds, "cpu": cpu, "peak_kb": peak_kb()}
    print(json.dumps({**result, "base_kb": baseline}))


def run(path: str) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", path],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="the tests' smaller files")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        read_one(args.child)
        return
    from tests.support import hostile_workbooks as hostile

    empty = run("")
    print(f"a process that read nothing: peak {empty['peak_kb'] / 1024:.0f} MB")
    print(f"{'file':<28} {'size':>11} {'time':>8} {'cpu':>7} {'peak':>7} {'growth':>7}  outcome")
    worst_time = worst_growth = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for name, (full, small, _refused) in hostile.HOSTILE.items():
            data = (small if args.short else full)()
            path = Path(folder) / f"{name}.xlsx"
            path.write_bytes(data)
            del data
            result = run(str(path))
            growth = (result["peak_kb"] - empty["peak_kb"]) / 1024
            worst_time = max(worst_time, result["seconds"])
            worst_growth = max(worst_growth, growth)
            print(
                f"{name:<28} {path.stat().st_size:>11,} {result['seconds']:>7.2f}s "
                f"{result['cpu']:>6.2f}s {result['peak_kb'] / 1024:>5.0f}MB {growth:>5.0f}MB  "
                f"{result['outcome'][:70]}"
            )
            path.unlink()
    print(
        f"worst: {worst_time:.2f} s (aim 5 s), {worst_growth:.0f} MB over an idle process (aim 200 MB)"
    )


if __name__ == "__main__":
    main()
