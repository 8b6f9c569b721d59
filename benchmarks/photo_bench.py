"""Scores from a photo: accuracy and time per image of each reader on the generated photos
(tests/league/photo_samples.py: printed sheets, seven-segment displays, result screens).

    .venv/bin/python benchmarks/photo_bench.py [--sheets 40 --displays 40 --screens 20]
        [--readers ssocr,rapidocr,tesseract]

A row is right when the checksum passed it and its points (and name, where the photo has names)
are the truth; a row that is wrong but passed is a false pass, the failure that matters."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "league")]

import photo_samples  # noqa: E402

from league.core import photo  # noqa: E402


def same_name(got: str | None, want: str | None) -> bool:
    if want is None:
        return True
    return (got or "").replace(" ", "") == want.replace(" ", "")


def score(sample, reading) -> tuple[int, int]:
    """(rows right, rows wrongly passed)."""
    right = false_pass = 0
    for i, want in enumerate(sample.points):
        row = reading.rows[i] if i < len(reading.rows) else None
        ok = (
            row is not None
            and row.points == want
            and same_name(row.name, sample.names[i])
            and len(reading.rows) == len(sample.points)
        )
        if row is not None and row.checksum and ok:
            right += 1
        elif row is not None and row.checksum:
            false_pass += 1
    false_pass += sum(1 for r in reading.rows[len(sample.points) :] if r.checksum)
    return right, false_pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sheets", type=int, default=40)
    parser.add_argument("--displays", type=int, default=40)
    parser.add_argument("--screens", type=int, default=20)
    parser.add_argument("--readers", default="ssocr,segments,rapidocr,tesseract")
    args = parser.parse_args()
    counts = {"sheet": args.sheets, "display": args.displays, "screen": args.screens}
    readers = args.readers.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        samples = photo_samples.make_set(Path(tmp), counts)
        print(
            f"{'kind':8} {'reader':10} {'rows':>5} {'right':>6} {'%':>6} {'false pass':>10} "
            f"{'s/image':>8} {'max s':>6}"
        )
        for kind in counts:
            for reader in readers:
                if reader in ("ssocr", "segments") and kind != "display":
                    continue
                mine = [s for s in samples if s.kind == kind]
                if not mine:
                    continue
                rows = right = false_pass = 0
                times = []
                for sample in mine:
                    started = time.monotonic()
                    reading = photo.read_scores(
                        sample.path, kind=kind, players=len(sample.points), reader=reader
                    )
                    times.append(time.monotonic() - started)
                    r, f = score(sample, reading)
                    rows += len(sample.points)
                    right += r
                    false_pass += f
                print(
                    f"{kind:8} {reader:10} {rows:5} {right:6} {100 * right / rows:6.1f} "
                    f"{false_pass:10} {sum(times) / len(times):8.2f} {max(times):6.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
