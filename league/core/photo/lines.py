"""A line of text as a reader saw it, where it was, and how sure the reader was."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    text: str
    confidence: float  # 0..1, the reader's own
    x: int
    y: int  # top
    height: int
    unsure: str = ""  # per character: x = unsure digit, ? = unknown, space = sure
    width: int = 0  # 0: not known (ssocr, the segment reader)
