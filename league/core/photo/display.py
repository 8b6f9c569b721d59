"""An automatic table's seven-segment display, read by Debian's `ssocr`: the lit segments are
found by brightness, the photo is turned level, cut into one band per number, and each band is
handed to ssocr as black digits on white, the segments' gaps closed first."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from league.core.photo.lines import Line

SSOCR = "ssocr"
SSOCR_OPTIONS = [
    "--number-digits=-1",
    "--omit-decimal-point",
    "--minus-ratio=1.5",
    "--number-pixels=5",
]


def available() -> bool:
    return shutil.which(SSOCR) is not None


def _lit(img):
    import numpy as np

    bright = np.asarray(img.convert("RGB")).max(axis=2).astype(np.int32)
    top = np.percentile(bright, 99.5)
    return bright > top * 0.55


def _band_rows(mask) -> int:
    profile = mask.sum(axis=1)
    return int((profile > max(2, mask.shape[1] // 100)).sum())


def level(img):
    """The photo turned by the angle (within ±3°) that makes the lit rows tightest."""
    from PIL import Image

    small = img.resize((max(1, img.width // 2), max(1, img.height // 2)))
    best = min(
        range(-30, 31, 2),
        key=lambda tenth: (
            _band_rows(_lit(small.rotate(tenth / 10, resample=Image.BILINEAR))),
            abs(tenth),
        ),
    )
    return img.rotate(best / 10, resample=Image.BICUBIC)


def bands(mask) -> list[tuple[int, int]]:
    """Horizontal bands of lit rows, one per number, the small gaps inside a digit closed."""
    profile = mask.sum(axis=1)
    on = profile > max(2, mask.shape[1] // 100)
    found: list[list[int]] = []
    start = None
    for y, lit in enumerate(on):
        if lit and start is None:
            start = y
        elif not lit and start is not None:
            found.append([start, y])
            start = None
    if start is not None:
        found.append([start, len(on)])
    if not found:
        return []
    # The segments are apart, and a number without a middle segment (1, 7, 0) leaves a gap
    # across its middle: gaps shorter than the longest piece (about one vertical segment) are
    # closed; the gaps between numbers are wider.
    close = max(b - a for a, b in found)
    merged: list[list[int]] = []
    for band in found:
        if merged and band[0] - merged[-1][1] < close:
            merged[-1][1] = band[1]
        else:
            merged.append(band)
    tall = max(b - a for a, b in merged)
    return [(a, b) for a, b in merged if b - a > tall // 2]


def read(path: Path) -> list[Line]:
    """One line per number on the display, top to bottom. ssocr gives no confidence: a digit it
    could not tell is `_`, and the line's confidence is the share of digits it could tell."""
    import numpy as np
    from PIL import Image, ImageFilter

    with Image.open(path) as opened:
        img = level(opened.convert("RGB"))
    mask = _lit(img)
    lines = []
    with tempfile.TemporaryDirectory(prefix="jancho-ssocr-") as tmp:
        for index, (top, bottom) in enumerate(bands(mask)):
            crop = mask[max(0, top - 6) : bottom + 6]
            band = Image.fromarray(np.where(crop, 255, 0).astype(np.uint8))
            band = band.filter(ImageFilter.MaxFilter(5))
            band = Image.eval(band, lambda v: 255 - v)
            file = Path(tmp) / f"band-{index}.png"
            band.save(file)
            done = subprocess.run(
                [SSOCR, *SSOCR_OPTIONS, str(file)],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
            text = done.stdout.strip()
            known = sum(ch.isdigit() or ch == "-" for ch in text)
            confidence = known / len(text) if text else 0.0
            lines.append(Line(text=text, confidence=confidence, x=0, y=top, height=bottom - top))
    return lines
