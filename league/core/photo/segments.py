"""A seven-segment display read segment by segment, the fallback when ssocr's reading does not
pass the checksum: each number's band (display.bands) is cut into digits at the dark columns
between them, each digit's box is as wide as the widest digit's (right-aligned: a 7 or a 3,
whose left segments are dark, keeps its place), and each of the seven segments is lit or dark
by the share of lit pixels where it should be. A digit is as sure as its least clear segment;
one that matches no digit is unknown (`?`)."""

from __future__ import annotations

from pathlib import Path

from league.core.photo import display
from league.core.photo.lines import Line

DIGITS = {
    "abcdef": "0",
    "bc": "1",
    "abdeg": "2",
    "abcdg": "3",
    "bcfg": "4",
    "acdfg": "5",
    "acdefg": "6",
    "abc": "7",
    "abcdefg": "8",
    "abcdfg": "9",
    "g": "-",
}
# Where each segment is in a digit's box, as (left, top, right, bottom) in percent.
WHERE = {
    "a": (30, 0, 70, 14),
    "b": (78, 18, 100, 40),
    "c": (78, 60, 100, 82),
    "d": (30, 86, 70, 100),
    "e": (0, 60, 22, 82),
    "f": (0, 18, 22, 40),
    "g": (30, 43, 70, 57),
}
SURE_SHARE = 0.5  # a segment at least this lit (or dark) is clear


def _runs(columns) -> list[tuple[int, int]]:
    runs, start = [], None
    for x, lit in enumerate(columns):
        if lit and start is None:
            start = x
        elif not lit and start is not None:
            runs.append((start, x))
            start = None
    if start is not None:
        runs.append((start, len(columns)))
    return runs


def read(path: Path) -> list[Line]:
    from PIL import Image

    with Image.open(path) as opened:
        img = display.level(opened.convert("RGB"))
    mask = display._lit(img)
    lines = []
    for top, bottom in display.bands(mask):
        band = mask[top:bottom]
        runs = _runs(band.sum(axis=0) > 0)
        # Runs closer than a segment's thickness are one digit (a 4's f and b segments).
        merged: list[list[int]] = []
        for a, b in runs:
            if merged and a - merged[-1][1] <= max(2, (bottom - top) // 12):
                merged[-1][1] = b
            else:
                merged.append([a, b])
        if not merged:
            continue
        width = max(b - a for a, b in merged)
        text, unsure, sureness = "", "", 1.0
        for a, b in merged:
            rows_lit = band[:, a:b].any(axis=1).nonzero()[0]
            if rows_lit.size and rows_lit[-1] - rows_lit[0] < (bottom - top) * 35 // 100:
                # Only a middle bar: a minus sign, which sits anywhere in its digit's place.
                text += "-"
                unsure += " "
                continue
            left = max(0, b - width)
            box = band[:, left:b]
            h, w = box.shape
            lit, clear = "", 1.0
            for seg, (x0, y0, x1, y1) in WHERE.items():
                part = box[
                    y0 * h // 100 : max(y0 * h // 100 + 1, y1 * h // 100),
                    x0 * w // 100 : max(x0 * w // 100 + 1, x1 * w // 100),
                ]
                share = float(part.mean()) if part.size else 0.0
                if share >= SURE_SHARE:
                    lit += seg
                clear = min(clear, abs(share - SURE_SHARE) * 2)
            digit = DIGITS.get(lit)
            if digit is None:
                text += "?"
                unsure += "?"
                sureness = 0.0
            else:
                text += digit
                unsure += "x" if clear < 0.5 else " "
                sureness = min(sureness, clear)
        lines.append(
            Line(text=text, confidence=sureness, x=0, y=top, height=bottom - top, unsure=unsure)
        )
    return lines
