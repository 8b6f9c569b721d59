"""The checksum decides: a game's rows must add up to its total (players × starting points). When
they do not, the digits the reader was unsure of are tried against the digits they are mistaken
for (1/7, 3/8, 5/6, 0/8), one change, then two; a row set that then sums, reached one way only,
is proposed. Anything else is flagged: no row is marked valid."""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass, replace

# The digits a reader mistakes each digit for.
ALTERNATIVES = {
    "0": "8",
    "1": "7",
    "3": "8",
    "5": "6",
    "6": "5",
    "7": "1",
    "8": "30",
}
# A line the reader was this sure of keeps its digits; below it, each digit may be another.
SURE = 0.95
MINUS = "▲△▼−-－ー‐–—"
_NUMBER = re.compile(r"^-?(\d{1,3}(,\d{3})+|\d+)$")


@dataclass(frozen=True)
class Row:
    name: str | None
    points: int | None
    confidence: float
    checksum: bool = False
    read: str = ""  # the reader's text for the points
    unsure: str = ""  # digit positions of `read` the reader was unsure of ("?" = unknown digit)
    fixed: bool = False

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "name": self.name,
            "points": self.points,
            "confidence": round(self.confidence, 2),
            "checksum": self.checksum,
        }
        if self.fixed:
            out["read"] = self.read
        return out


def points(text: str) -> int | None:
    """Points as people write them: full-width digits, ▲/△/− for minus, thousands commas (a
    reader may see a comma as a full stop: 3.200). None for anything else, a decimal 55.0 too."""
    clean = unicodedata.normalize("NFKC", text).replace(" ", "")
    if clean and clean[0] in MINUS:
        clean = "-" + clean[1:]
    clean = re.sub(r"(?<=\d)\.(?=\d{3}(\D|$))", ",", clean)
    if not _NUMBER.match(clean):
        return None
    return int(clean.replace(",", ""))


def _candidates(row: Row, alternatives: dict[str, str], signs: bool) -> list[tuple[int, int]]:
    """(index, alternative points) for each single-digit change the row allows, and with
    `signs` the minus a reader may have missed (▲ is small, and faint on paper)."""
    text = unicodedata.normalize("NFKC", row.read).replace(" ", "")
    out = []
    if signs and row.points and row.points > 0:
        out.append((-1, -row.points))
    for i, ch in enumerate(text):
        if i >= len(row.unsure) or row.unsure[i] == " ":
            continue
        options = "0123456789" if row.unsure[i] == "?" else alternatives.get(ch, "")
        for alt in options:
            if alt == ch:
                continue
            value = points(text[:i] + alt + text[i + 1 :])
            if value is not None and value % 100 == 0:
                out.append((i, value))
    return out


def settle(
    rows: list[Row],
    total: int,
    players: int,
    alternatives: dict[str, str] | None = None,
    most: int = 2,
    signs: bool = False,
) -> list[Row]:
    """The rows with `checksum` set: all of them when they (after at most `most` digit changes
    in as many rows, found one way only) add up to `total`, none otherwise. Scores are in
    hundreds: a change that leaves a row off the hundreds is not tried."""
    if len(rows) != players:
        return [replace(r, checksum=False) for r in rows]
    current = [r.points for r in rows]
    if None not in current and sum(current) == total:  # type: ignore[arg-type]
        return [replace(r, checksum=True) for r in rows]
    changes = [
        (ri, value)
        for ri, r in enumerate(rows)
        for _, value in _candidates(r, alternatives or ALTERNATIVES, signs)
    ]
    for count in range(1, most + 1):
        fixes = set()
        for combo in itertools.combinations(changes, count):
            if len({ri for ri, _ in combo}) < count:
                continue  # two changes in one row: too far from what was read
            trial = list(current)
            for ri, value in combo:
                trial[ri] = value
            if None not in trial and sum(trial) == total:  # type: ignore[arg-type]
                fixes.add(tuple(trial))
        if len(fixes) == 1:
            (fixed,) = fixes
            return [
                replace(r, points=p, checksum=True, fixed=p != r.points)
                for r, p in zip(rows, fixed, strict=True)
            ]
        if fixes:
            break  # more than one way to make it sum: the reader's digits cannot tell which
    return [replace(r, checksum=False) for r in rows]
