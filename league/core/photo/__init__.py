"""Scores from a photo, offline (README: "Scores from a photo"). Pure Python, no Django: the
command `read_scores` and the record form's 「写真から」 use the same `read_scores`.

The heavy packages (Pillow, numpy, rapidocr, onnxruntime) are the optional extra
`requirements-photo.txt`, and `ssocr` / `tesseract` are Debian packages: `available()` says
whether photos can be read here, and nothing in this package imports them before it is asked to
read."""

from __future__ import annotations

import itertools
import re
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from league.core.photo.checksum import MINUS, SURE, Row, points, settle
from league.core.photo.lines import Line

KINDS = ("display", "sheet", "screen")
READERS = ("ssocr", "segments", "rapidocr", "tesseract")
DEFAULT_READER = {"display": "ssocr", "sheet": "rapidocr", "screen": "rapidocr"}
# The digits ssocr was seen to mistake on the generated displays (benchmarks/photo_bench.py): a 7
# read as a 3 (its box is narrower than the other digits'). A digit it cannot tell (`_`) is any.
SSOCR_MISTAKES = {"3": "7", "7": "3"}
# Words on a sheet or a result screen that are not a player's name.
NOT_NAMES = re.compile(
    r"(成績|名前|氏名|点数|得点|合計|順位|対局|結果|半荘|回戦|^第?\d+位$|^\d+$|^[+\-]?\d+\.\d$)"
)


class Unreadable(Exception):
    """The file is not an image that can be read (one line for the command's exit 2)."""


@dataclass
class Reading:
    rows: list[Row]
    reader: str
    seconds: float
    lines: list[Line] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return bool(self.rows) and all(r.checksum for r in self.rows)

    def to_json(self) -> dict[str, object]:
        return {"rows": [r.to_json() for r in self.rows]}


def available(kind: str = "sheet") -> bool:
    """Whether a photo of this kind can be read on this machine."""
    from importlib.util import find_spec

    if find_spec("PIL") is None or find_spec("numpy") is None:
        return False
    from league.core.photo import display, text

    if DEFAULT_READER[kind] == "ssocr":
        return display.available()
    return text.rapidocr_available()


def check_image(path: Path | BinaryIO) -> None:
    """Unreadable unless `path` (a file name or an open binary file) is an image Pillow reads."""
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError as error:  # the extra is not installed
        raise Unreadable("reading photos needs requirements-photo.txt installed") from error
    try:
        with Image.open(path) as img:
            img.verify()
    except FileNotFoundError as error:
        raise Unreadable(f"{path}: no such file") from error
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as error:
        raise Unreadable(f"{path}: not an image that can be read") from error


def rows_from_lines(lines: list[Line]) -> list[Row]:
    """Lines grouped into rows by height on the page, each row its name (the words that are not
    a number or a heading) and its points (the one whole number in it)."""
    if not lines:
        return []
    ordered = sorted(lines, key=lambda line: line.y + line.height / 2)
    heights = sorted(line.height for line in ordered)
    tolerance = max(4, heights[len(heights) // 2] * 0.6)
    groups: list[list[Line]] = []
    for line in ordered:
        middle = line.y + line.height / 2
        if groups and abs(middle - _middle(groups[-1])) < tolerance:
            groups[-1].append(line)
        else:
            groups.append([line])
    rows = []
    for group in groups:
        group.sort(key=lambda line: line.x)
        numbers: list[tuple[str, float]] = []
        names: list[str] = []
        for line, text, signed in _signed_lines(group):
            if signed is not None:
                numbers.append((signed, line.confidence))
            elif not NOT_NAMES.search(text) and re.search(r"[^\W\d_]", text):
                names.append(text.replace(" ", ""))
        if len(numbers) != 1:
            continue
        read, confidence = numbers[0]
        unsure = "" if confidence >= SURE else "".join("x" if ch.isdigit() else " " for ch in read)
        rows.append(
            Row(
                name=" ".join(names) or None,
                points=points(read),
                confidence=confidence,
                read=read,
                unsure=unsure,
            )
        )
    return rows


def _signed_lines(group: list[Line]) -> Iterator[tuple[Line, str, str | None]]:
    """Each line of a row (left to right) with its text in NFKC and, when it reads as points
    (three digits or more, or 0), that text with the minus read just before it (a lone ▲ or −
    is its own line to the OCR); a lone minus is not a line of its own here."""
    sign = ""
    for line in group:
        text = unicodedata.normalize("NFKC", line.text).strip()
        if text and all(ch in MINUS for ch in text):
            sign = "-"
            continue
        digits = re.sub(r"\D", "", text)
        number = points(sign + text) is not None and (len(digits) >= 3 or digits == "0")
        yield line, text, sign + text if number else None
        sign = ""


def _middle(group: list[Line]) -> float:
    return sum(line.y + line.height / 2 for line in group) / len(group)


def rows_from_display(lines: list[Line]) -> list[Row]:
    rows = []
    for line in lines:
        text = line.text.replace("_", "?")
        value = points(line.text)
        rows.append(
            Row(
                name=None,
                points=value,
                confidence=line.confidence,
                read=line.text,
                unsure=line.unsure
                or "".join("?" if ch == "?" else ("x" if ch.isdigit() else " ") for ch in text),
            )
        )
    return rows


def read_scores(
    path: Path,
    *,
    kind: str = "sheet",
    players: int = 4,
    total: int | None = None,
    reader: str | None = None,
) -> Reading:
    """What a photo says: its rows, each with the checksum's verdict. `total` defaults to the
    usual starting points (25,000 for four players, 35,000 for three)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}")
    path = Path(path)
    check_image(path)
    total = total if total is not None else players * (25000 if players == 4 else 35000)
    reader = reader or DEFAULT_READER[kind]
    started = time.monotonic()
    from league.core.photo import display, segments, text

    if reader == "segments":
        lines = segments.read(path)
        settled = settle(rows_from_display(lines), total, players)
    elif reader == "ssocr":
        lines = display.read(path)
        rows = rows_from_display(lines)
        # ssocr says nothing of how sure it is, so every digit is tried, but only against the
        # mistake it was seen to make (SSOCR_MISTAKES), and one change only: with every digit
        # open to 1/7, 3/8, 5/6, 0/8, a game short by its deposits (1,000 left on the table)
        # was 'fixed' by turning a 5 into a 6.
        settled = settle(rows, total, players, alternatives=SSOCR_MISTAKES, most=1)
        if not all(r.checksum for r in settled):
            # ssocr's reading does not pass: the display read segment by segment, with how
            # sure each digit is, is taken when that passes.
            by_segment = segments.read(path)
            second = settle(rows_from_display(by_segment), total, players)
            # A digit both readers read alike is not changed: a game short by its deposits
            # was 'fixed' by turning a 5 both had seen into a 6.
            agreed = [
                r.fixed and i < len(lines) and r.read == lines[i].text for i, r in enumerate(second)
            ]
            if second and all(r.checksum for r in second) and not any(agreed):
                settled, lines, reader = second, by_segment, "ssocr+segments"
    else:
        lines = text.read_rapidocr(path) if reader == "rapidocr" else text.read_tesseract(path)
        rows = rows_from_lines(lines)
        # rapidocr was seen to drop a ▲ or a minus on a sheet (reading ▲5,000 as 5000, sure of
        # it): a missed minus is one more change to try.
        settled = settle(rows, total, players, signs=True)
    return Reading(rows=settled, reader=reader, seconds=time.monotonic() - started, lines=lines)


# --- a score sheet of several games --------------------------------------------------------------

DATE = re.compile(r"(20\d\d)\s*[/.\-年]\s*(\d{1,2})\s*[/.\-月]\s*(\d{1,2})")
# A row of totals under the games: not a game.
NOT_A_GAME = re.compile(r"(合計|小計|累計|トータル|計$)")


@dataclass
class SheetReading:
    """A score sheet of several games (成績表): the players' names across the top, and per game
    (a row of the sheet) its rows in the names' order, each game settled by the checksum on its
    own. `date` is a date written on the sheet (ISO), if one was read."""

    names: list[str]
    games: list[list[Row]]
    reader: str
    seconds: float
    date: str | None = None
    lines: list[Line] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "names": self.names,
            "date": self.date,
            "games": [[r.to_json() for r in game] for game in self.games],
        }


def _slope(lines: list[Line]) -> float:
    """How much the page is tilted: the median rise over run between the lines that sit side by
    side (close in height on the page, far apart across it)."""
    slopes = []
    for a, b in itertools.combinations(lines, 2):
        dx = (b.x + b.width / 2) - (a.x + a.width / 2)
        dy = (b.y + b.height / 2) - (a.y + a.height / 2)
        if abs(dx) > 3 * max(a.height, b.height) and abs(dy) < 0.6 * max(a.height, b.height):
            slopes.append(dy / dx)
    slopes.sort()
    return slopes[len(slopes) // 2] if slopes else 0.0


def _rows_of(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped into the sheet's rows, the tilt taken out, each row left to right."""
    slope = _slope(lines)

    def level(line: Line) -> float:
        return line.y + line.height / 2 - slope * (line.x + line.width / 2)

    ordered = sorted(lines, key=level)
    heights = sorted(line.height for line in ordered)
    tolerance = max(4, heights[len(heights) // 2] * 0.6)
    groups: list[list[Line]] = []
    levels: list[list[float]] = []
    for line in ordered:
        at = level(line)
        if groups and abs(at - sum(levels[-1]) / len(levels[-1])) < tolerance:
            groups[-1].append(line)
            levels[-1].append(at)
        else:
            groups.append([line])
            levels.append([at])
    for group in groups:
        group.sort(key=lambda line: line.x)
    return groups


def _is_name(text: str) -> bool:
    return bool(re.search(r"[^\W\d_]", text)) and not NOT_NAMES.search(text)


def games_from_lines(lines: list[Line], players: int) -> tuple[list[str], list[list[Row]]]:
    """The header (the first row with at least `players` names) gives the columns; each later
    row with points under them is a game: its points by column, a cell with none or with two
    numbers left unknown (None), rows of totals left out."""
    groups = _rows_of(lines)
    header_at = next(
        (
            i
            for i, group in enumerate(groups)
            if sum(_is_name(unicodedata.normalize("NFKC", g.text)) for g in group) >= players
        ),
        None,
    )
    if header_at is None:
        return [], []
    heads = [g for g in groups[header_at] if _is_name(unicodedata.normalize("NFKC", g.text))]
    names = [unicodedata.normalize("NFKC", g.text).replace(" ", "") for g in heads]
    centres = [g.x + g.width / 2 for g in heads]
    gaps = sorted(b - a for a, b in itertools.pairwise(centres)) or [float(heads[0].width or 100)]
    reach = 0.75 * gaps[len(gaps) // 2]
    games = []
    for group in groups[header_at + 1 :]:
        if any(NOT_A_GAME.search(unicodedata.normalize("NFKC", g.text)) for g in group):
            continue
        cells: list[list[tuple[str, float]]] = [[] for _ in heads]
        for line, _text, signed in _signed_lines(group):
            if signed is not None:
                middle = line.x + line.width / 2
                column = min(range(len(heads)), key=lambda c: abs(centres[c] - middle))
                if abs(centres[column] - middle) <= reach:
                    cells[column].append((signed, line.confidence))
        if not any(cells):
            continue
        game = []
        for name, found in zip(names, cells, strict=True):
            if len(found) != 1:
                game.append(Row(name=name, points=None, confidence=0.0))
                continue
            read, confidence = found[0]
            unsure = (
                "" if confidence >= SURE else "".join("x" if ch.isdigit() else " " for ch in read)
            )
            game.append(Row(name, points(read), confidence, read=read, unsure=unsure))
        games.append(game)
    if _totals(games):
        games.pop()
    return names, games


def _totals(games: list[list[Row]]) -> bool:
    """Whether the last row is the sheet's totals rather than a game (its 合計 not read): each
    column's sum of the games above, less the same amount in every column (the starting points
    a game, where the sheet totals points over the start)."""
    if len(games) < 2:
        return False
    *above, last = games
    if any(r.points is None for game in games for r in game):
        return False
    offsets = {
        last[c].points - sum(game[c].points for game in above)  # type: ignore[operator]
        for c in range(len(last))
    }
    # One game above and no offset: the same game twice, not a total.
    return len(offsets) == 1 and (len(above) > 1 or offsets != {0})


def read_score_sheet(
    path: Path,
    *,
    players: int = 4,
    total: int | None = None,
    reader: str | None = None,
) -> SheetReading:
    """What a score sheet of several games says: the names, and each game's rows settled by the
    checksum on its own (a game whose rows do not add up is all `checksum: false`)."""
    path = Path(path)
    check_image(path)
    total = total if total is not None else players * (25000 if players == 4 else 35000)
    reader = reader or "rapidocr"
    if reader not in ("rapidocr", "tesseract"):
        raise ValueError("a score sheet is read by rapidocr or tesseract")
    started = time.monotonic()
    from league.core.photo import text

    lines = text.read_rapidocr(path) if reader == "rapidocr" else text.read_tesseract(path)
    names, games = games_from_lines(lines, players) if lines else ([], [])
    settled = [settle(game, total, len(game), signs=True) for game in games]
    date = None
    for line in lines:
        if found := DATE.search(unicodedata.normalize("NFKC", line.text)):
            year, month, day = (int(g) for g in found.groups())
            if 1 <= month <= 12 and 1 <= day <= 31:
                date = f"{year:04d}-{month:02d}-{day:02d}"
                break
    return SheetReading(
        names=names,
        games=settled,
        reader=reader,
        seconds=time.monotonic() - started,
        date=date,
        lines=lines,
    )
