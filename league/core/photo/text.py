"""Printed sheets and result screens, read by an OCR whose models ship inside its package
(rapidocr with onnxruntime: PP-OCR's detection and recognition models are in the wheel, so
nothing is fetched at run time) or by Tesseract (`tesseract-ocr`, `-jpn`)."""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

from league.core.photo.lines import Line


def rapidocr_available() -> bool:
    from importlib.util import find_spec

    return find_spec("rapidocr") is not None and find_spec("onnxruntime") is not None


def tesseract_available() -> bool:
    if shutil.which("tesseract") is None:
        return False
    done = subprocess.run(
        ["tesseract", "--list-langs"], capture_output=True, text=True, timeout=10, check=False
    )
    return "jpn" in done.stdout.split()


@functools.cache
def _engine():
    from rapidocr import RapidOCR

    # Two threads: the machine's cores are shared with the web server and other tasks.
    return RapidOCR(
        params={
            "Global.log_level": "error",
            "EngineConfig.onnxruntime.intra_op_num_threads": 2,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        }
    )


def read_rapidocr(path: Path) -> list[Line]:
    result = _engine()(str(path))
    if result.txts is None:
        return []
    lines = []
    for text, score, box in zip(result.txts, result.scores, result.boxes, strict=True):
        xs = [int(p[0]) for p in box]
        ys = [int(p[1]) for p in box]
        lines.append(
            Line(
                text=text,
                confidence=float(score),
                x=min(xs),
                y=min(ys),
                height=max(ys) - min(ys),
                width=max(xs) - min(xs),
            )
        )
    return lines


def read_tesseract(path: Path) -> list[Line]:
    """Tesseract's words (Japanese and English), words close together joined into one text."""
    done = subprocess.run(
        ["tesseract", str(path), "-", "-l", "jpn+eng", "--psm", "6", "tsv"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    words = []
    for row in done.stdout.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or not cells[11].strip() or float(cells[10]) < 0:
            continue
        left, top, width, height = (int(c) for c in cells[6:10])
        key = (int(cells[2]), int(cells[3]), int(cells[4]))
        words.append((key, left, top, width, height, float(cells[10]) / 100, cells[11]))
    lines: list[Line] = []
    joined: list[list] = []
    for key, left, top, width, height, conf, text in words:
        last = joined[-1] if joined else None
        if last and last[0] == key and left - last[2] < height * 1.2:
            last[1] += text
            last[2] = left + width
            last[4] = min(last[4], conf)
        else:
            joined.append([key, text, left + width, (left, top, height), conf])
    for _, text, end, (left, top, height), conf in joined:
        lines.append(
            Line(text=text, confidence=conf, x=left, y=top, height=height, width=end - left)
        )
    return lines
