"""Scores from a photo, read for real (league/core/photo): the generated photos of
tests/support/photo_samples.py through ssocr and rapidocr, with the network blocked, and the
`read_scores` command.

These need requirements-photo.txt and Debian's ssocr (README: "Scores from a photo"); without
them they are skipped, unless JANCHO_REQUIRE_PHOTO is set, as .ci/run does. The suite reads a
part of the issue's set (40 sheets, 40 displays, 20 screens) to keep it short on a shared 2-core
machine; JANCHO_PHOTO_FULL=1 reads all of it, and benchmarks/photo_bench.py prints the figures
per kind and reader."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from league.core import photo
from tests.support import paths
from tests.support.network import NetworkUsed

READY = photo.available("display") and photo.available("sheet")
if not READY and os.environ.get("JANCHO_REQUIRE_PHOTO"):
    raise RuntimeError("JANCHO_REQUIRE_PHOTO is set but requirements-photo.txt or ssocr is missing")
pytestmark = pytest.mark.skipif(not READY, reason="needs requirements-photo.txt and ssocr")

ROOT = paths.ROOT
FULL = bool(os.environ.get("JANCHO_PHOTO_FULL"))
COUNTS = (
    {"sheet": 40, "display": 40, "screen": 20} if FULL else {"sheet": 4, "display": 16, "screen": 2}
)


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    from tests.support import photo_samples

    if not photo_samples.fonts_present():
        pytest.skip("needs fonts-noto-cjk")
    return photo_samples.make_set(tmp_path_factory.mktemp("photos"), COUNTS)


def test_the_network_block_is_real(no_network):
    with pytest.raises(NetworkUsed):
        socket.create_connection(("127.0.0.1", 9))
    with pytest.raises(NetworkUsed):
        socket.socket().connect(("127.0.0.1", 9))


def same_name(got, want):
    return want is None or (got or "").replace(" ", "") == want.replace(" ", "")


def test_the_checksum_leaves_95_percent_of_rows_right_and_flags_the_rest(no_network, samples):
    right = dict.fromkeys(COUNTS, 0)
    rows = dict.fromkeys(COUNTS, 0)
    wrongly_passed = []
    for sample in samples:
        reading = photo.read_scores(sample.path, kind=sample.kind, players=len(sample.points))
        rows[sample.kind] += len(sample.points)
        exact = len(reading.rows) == len(sample.points) and all(
            r.points == p and same_name(r.name, n)
            for r, p, n in zip(reading.rows, sample.points, sample.names, strict=False)
        )
        if reading.valid and exact:
            right[sample.kind] += len(sample.points)
        elif any(r.checksum for r in reading.rows):
            wrongly_passed.append((sample.path.name, [r.to_json() for r in reading.rows]))
    assert wrongly_passed == []
    print({kind: f"{right[kind]}/{rows[kind]}" for kind in COUNTS})
    assert sum(right.values()) * 100 >= 95 * sum(rows.values()), (right, rows)


def test_the_command_prints_the_rows_as_json(samples):
    sample = next(s for s in samples if s.kind == "screen")
    done = subprocess.run(
        [sys.executable, "manage.py", "read_scores", str(sample.path), "--kind", "screen"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [r["points"] for r in out["rows"]] == sample.points
    assert [r["name"] for r in out["rows"]] == [n.replace(" ", "") for n in sample.names]
    assert all(r["checksum"] is True and 0 < r["confidence"] <= 1 for r in out["rows"])


def test_the_command_exits_2_with_one_line_for_an_unreadable_file(tmp_path):
    junk = tmp_path / "scores.png"
    junk.write_bytes(b"not a picture")
    for path in (junk, tmp_path / "missing.png"):
        done = subprocess.run(
            [sys.executable, "manage.py", "read_scores", str(path), "--kind", "display"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 2
        assert done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_display_ssocr_misreads_is_read_again_segment_by_segment(tmp_path):
    from tests.support import photo_samples

    # ssocr reads both 7s of this display as 3s (37,000 → 33,000, 8,700 → 8,300): two changes,
    # more than its one; the segment reading passes, minus sign and all.
    sample = photo_samples.display(15, tmp_path, points=[45800, 37000, 8700, 8500])
    reading = photo.read_scores(sample.path, kind="display", reader="ssocr")
    assert reading.reader == "ssocr+segments"
    assert [r.points for r in reading.rows] == sample.points
    assert reading.valid
    negative = photo_samples.display(3, tmp_path, points=[62700, 22000, 18700, -3400])
    by_segment = photo.read_scores(negative.path, kind="display", reader="segments")
    assert [r.points for r in by_segment.rows] == negative.points
