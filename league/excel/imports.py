"""Historical score sheets in: an uploaded workbook becomes a plan, a confirmed plan becomes games.

Two layouts are read (README, "Importing score sheets"):

- the game log as league.excel.exports writes it: one row per player per game with the columns date,
  table, game, seat, player, final points, rank, score, chips, yen, chombo, told apart by their
  header texts (Japanese or English);
- the simple layout: a header row, then one row per game: date, table, then name and final points
  for each seat from 起家, optionally followed by deposits and rate.

Planning stores nothing: it reads the workbook (every cell as data; formulas are refused per cell),
resolves names to members and settles every game with services.game_preview under the rules in
force on its date; a worker does it once for the preview and keeps every settled game
(`Settled`). `import_stored` writes what was kept, a day per transaction, under an ImportBatch
that `batch_void` voids as a whole; `plan_apply` (a plan settled in the same process) creates the
new members and records the games in one transaction.
"""

from __future__ import annotations

import bisect
import datetime
import hashlib
import io
import itertools
import json
import re
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.conf import settings
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy
from openpyxl.reader.excel import ExcelReader
from openpyxl.styles.stylesheet import apply_stylesheet
from openpyxl.utils import get_column_letter
from openpyxl.worksheet._reader import WorkSheetParser
from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula

import scoring
from league.club import services as club_services
from league.core import names
from league.core.actions import action
from league.core.clock import BAD_DATE, parse_date
from league.core.directory import Ambiguous, Directory
from league.core.errors import NON_FIELD, ServiceError, form_field
from league.core.locks import WriterGap, for_update, lock_club
from league.excel import guard
from league.excel.exports import GAME_LOG_COLUMNS, GAME_LOG_PROPERTY, HANDS_TITLE, sheet_title
from league.models import (
    Club,
    Game,
    ImportBatch,
    ImportUpload,
    Member,
    Result,
    RulesVersion,
)
from league.models import audit as models_audit
from league.recording import services
from league.recording.forms import BAD_NUMBER, MAX_CHOMBO
from league.recording.services import GameInput, SeatInput

MAX_BYTES = 10 * 1024 * 1024
MAX_ROWS = guard.MAX_ROWS
MAX_COLUMNS = 40
MAX_TABLE = 20  # Game.table
MAX_NAME = 50  # Member.name

EMPTY_FILE = gettext_lazy("The file is empty.")
NOT_XLSX = gettext_lazy(
    "This is not an Excel workbook (.xlsx). Save the sheet as an .xlsx file and upload that."
)
TOO_BIG = gettext_lazy("The file is larger than %(mb)s MB. Split it into smaller workbooks.")
TOO_MANY_ROWS = guard.TOO_MANY_ROWS
NO_GAMES = gettext_lazy(
    "The workbook has no games: its sheets are empty or have only a header row."
)
WRONG_COLUMNS = gettext_lazy(
    "The columns match neither layout. A game log has the columns date, table, game, seat, "
    "player and final points; the simple layout has date, table, then name and final points "
    "for each of the %(players)s seats, optionally followed by deposits and rate (%(low)s to "
    "%(high)s columns). This sheet has %(width)s columns."
)
MISSING_COLUMNS = gettext_lazy("This game log has no column for: %(columns)s.")
NO_HEADER = gettext_lazy("The first row holds a game: add a header row above it.")
FORMULA = gettext_lazy("This cell holds a formula; enter the value itself.")
ERROR_VALUE = gettext_lazy("This cell holds an error (%(value)s).")
REQUIRED = gettext_lazy("This cell is empty.")
TOO_LONG = gettext_lazy("Enter at most %(n)s characters.")
NOT_TEXT = gettext_lazy("Enter text here.")
BAD_SEAT = gettext_lazy("Enter the seat from the first dealer: 1 to %(n)s.")
BAD_MARK = gettext_lazy("Mark it with ○ (or 1), or leave it blank.")
YES_MARKS = frozenset({"○", "◯", "〇", "●", "✓", "✔", "x", "1", "yes", "y", "true", "はい"})
NO_MARKS = frozenset({"×", "✕", "0", "no", "n", "false", "いいえ", "-", "−", "ー"})
SEAT_TWICE = gettext_lazy("Two rows of this game have seat %(seat)s.")
TABLES_DIFFER = gettext_lazy("The rows of this game name different tables.")
RATES_DIFFER = gettext_lazy("The rows of this game name different rates.")
BAD_COUNT = gettext_lazy("Enter a whole number from %(low)s to %(high)s.")
NO_RULES = gettext_lazy("No rules are in force on %(date)s.")
NO_RATE = gettext_lazy("These yen match no rate of the club's rules.")
ALREADY_MEMBER = gettext_lazy("“%(name)s” is already a member: upload the workbook again.")

# Hand-made score sheets' words for the game log's columns, besides the export's own headers
# (league.excel.exports.GAME_LOG_COLUMNS, read in every language of the site).
HEADER_ALIASES: Mapping[str, Sequence[str]] = {
    "date": ["日付", "開催日", "対局日"],
    "table": ["卓", "卓名", "テーブル"],
    "game": ["回戦", "半荘", "対局", "ゲーム"],
    "seat": ["席", "座席", "席順", "家"],
    "player": ["名前", "氏名", "プレイヤー", "プレーヤー", "選手"],
    "points": ["素点", "点数", "持ち点", "最終持ち点"],
    "rank": ["順位", "着順"],
    "score": ["スコア", "成績", "ポイント"],
    "chips": ["チップ", "祝儀"],
    "yen": ["金額", "円", "収支"],
    "chombo": ["チョンボ"],
    # 飛び賞 and 焼き鳥, for clubs whose rules have them: who busted this player (a seat, 東 or
    # 1–4), and a mark for a player who won no hand.
    "busted_by": ["飛ばした人", "飛ばされた相手", "busted by"],
    "yakitori": ["焼き鳥", "焼鳥", "yakitori"],
}
GAME_LOG_REQUIRED = ("date", "game", "seat", "player", "points")
# Only a game log has these; the simple layout repeats its name and points headers.
GAME_LOG_ONLY = ("game", "seat")
SEAT_WORDS = {"東": 1, "南": 2, "西": 3, "北": 4, "e": 1, "s": 2, "w": 3, "n": 4}


class WorkbookError(Exception):
    """The upload as a whole cannot be read (not a workbook, empty, too big)."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class CellError(Exception):
    """One cell cannot be read as what its column holds."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


@dataclass(frozen=True)
class Problem:
    """What is wrong, and where: a sheet, a row (None: the whole sheet) and a column letter."""

    sheet: str
    row: int | None
    column: str
    message: str
    order: tuple[int, int, int] = (0, 0, 0)  # sheet index, row, column number: display order


Place = tuple[int, int]  # row, column number (1-based)


@dataclass
class SheetGame:
    """A game as the workbook gives it, before names become members."""

    sheet: str
    sheet_index: int
    rows: list[int]
    date: datetime.date
    table: str
    number: int  # the game's number on its day in a game log; 0 in the simple layout
    names: list[str]
    points: list[int]
    chombo: list[int]
    deposits: int | None  # None: implied by the sum (the game log has no deposits column)
    rate: str | None  # None: found from the yen (the game log has no rate column)
    yen: list[int | None]
    chips: list[int]
    cells: dict[str, Place]  # a core_errors.ServiceError field → the cell it is about
    busted_by: list[int | None] = field(default_factory=list)  # seats from 0; [] = not given
    yakitori: list[bool] = field(default_factory=list)  # [] = not given

    @property
    def order(self) -> tuple[datetime.date, int, int, int]:
        return (self.date, self.number, self.sheet_index, self.rows[0])


@dataclass
class UnknownName:
    name: str
    key: str  # stable across requests: names the form fields of this name's choice
    places: list[tuple[str, int]] = field(default_factory=list)  # sheet, row

    @property
    def placeholder_pk(self) -> int:
        return -int(self.key, 16) - 1


@dataclass(frozen=True)
class PlannedGame:
    source: SheetGame
    data: GameInput  # seats hold members, or unsaved placeholders (negative pk) for new ones
    preview: services.Preview
    # The club has a game with this date, these members and points (and this table, when the
    # workbook gives one): skipped on import unless the organiser asks for it.
    duplicate: bool = False
    index: int = 0  # its place among the workbook's games in date order

    @property
    def seats(self) -> list[tuple[Member, scoring.PlayerResult]]:
        return list(zip(self.preview.members, self.preview.result.players, strict=True))


@dataclass
class Parsed:
    """Everything read from the workbook (the file is not needed again)."""

    games: list[SheetGame] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    rows: int = 0


@dataclass
class Plan:
    """What confirming would store; `ready` when nothing is wrong and every name is decided."""

    club: Club
    parsed: Parsed
    members: list[Member]
    versions: list[RulesVersion]
    mapping: dict[str, Member]  # UnknownName.key → the existing member chosen for it
    games: list[PlannedGame] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    unknown: list[UnknownName] = field(default_factory=list)
    by_reading: dict[str, Member] = field(default_factory=dict)  # name written → member
    chip_games: int = 0  # games whose chips a game log shows but cannot be imported
    # Games with no rate (a blank rate cell and no yen to find it from) under rules that have
    # rates: their points are recorded, their money is not. The preview says so.
    no_money_games: int = 0
    # Set by plan_apply: the games it skipped, and among them those the club recorded after
    # this plan was made (another organiser's import, the record form).
    skipped: int = 0
    recorded_meanwhile: int = 0
    # Counted over every game, also those a preview does not keep (_settle's `keep`).
    total: int = 0
    duplicate_total: int = 0
    duplicate_indexes: list[int] = field(default_factory=list)  # PlannedGame.index

    @property
    def ready(self) -> bool:
        return bool(self.games) and not self.problems

    @property
    def duplicates(self) -> int:
        return self.duplicate_total

    @property
    def new_names(self) -> list[UnknownName]:
        return [u for u in self.unknown if u.key not in self.mapping]

    def remap(
        self, mapping: Mapping[str, Member], progress: Callable[[], None] | None = None
    ) -> Plan:
        """The same workbook with unknown names mapped to existing members."""
        return _settle(self.club, self.parsed, self.members, self.versions, dict(mapping), progress)


# --- reading cells ---------------------------------------------------------------------------


def _raw(cell: Any) -> Any:
    """A cell's value as data; "" and blanks are None. Formulas and errors are refused."""
    if cell.data_type == "f" or isinstance(cell.value, ArrayFormula | DataTableFormula):
        raise CellError(str(FORMULA))
    if cell.data_type == "e":
        raise CellError(str(ERROR_VALUE) % {"value": cell.value})
    value = cell.value
    if isinstance(value, str):
        value = value.strip() or None
    return value


def _text(cell: Any, max_length: int, *, required: bool = False) -> str:
    value = _raw(cell)
    if value is None:
        if required:
            raise CellError(str(REQUIRED))
        return ""
    if isinstance(value, bool | datetime.date | datetime.time | datetime.timedelta):
        raise CellError(str(NOT_TEXT))
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = " ".join(str(value).split())
    if len(text) > max_length:
        raise CellError(str(TOO_LONG) % {"n": max_length})
    return text


def _integer(cell: Any, *, required: bool = True) -> int | None:
    """Numbers as cells hold them (whole numbers only) or as people type them ("▲3,000")."""
    value = _raw(cell)
    if value is None:
        if required:
            raise CellError(str(REQUIRED))
        return None
    if isinstance(value, bool):
        raise CellError(str(BAD_NUMBER))
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, str):
        try:
            return scoring.parse_integer(value)
        except ValueError:
            pass
    raise CellError(str(BAD_NUMBER))


def _count(cell: Any, low: int, high: int) -> int:
    number = _integer(cell, required=False) or 0
    if not low <= number <= high:
        raise CellError(str(BAD_COUNT) % {"low": low, "high": high})
    return number


def _date(cell: Any) -> datetime.date:
    value = _raw(cell)
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return parse_date(value)
        except ValueError:
            pass
    raise CellError(str(BAD_DATE) if value is not None else str(REQUIRED))


def _seat(cell: Any, players: int) -> int:
    value = _raw(cell)
    if isinstance(value, str) and value.casefold() in SEAT_WORDS:
        return SEAT_WORDS[value.casefold()]
    try:
        seat = _integer(cell)
    except CellError:
        seat = None
    if seat is None or not 1 <= seat <= players:
        raise CellError(str(BAD_SEAT) % {"n": players})
    return seat


def _mark(cell: Any) -> bool:
    """A tick such as ○ or 1: True; blank, × or 0: False."""
    value = _raw(cell)
    if value is None or value is False:
        return False
    if value is True:
        return True
    text = names.clean_name(str(value)).casefold()
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if text in YES_MARKS:
        return True
    if text in NO_MARKS:
        return False
    raise CellError(str(BAD_MARK))


def _optional_seat(cell: Any, players: int) -> int | None:
    return None if _raw(cell) is None else _seat(cell, players)


def _looks_like_date(cell: Any) -> bool:
    try:
        _date(cell)
    except CellError:
        return False
    return True


class _Row:
    """One worksheet row: reads its cells and collects every problem, not just the first."""

    def __init__(self, sheet: str, sheet_index: int, number: int, cells: Sequence[Any]):
        self.sheet, self.sheet_index, self.number, self.cells = sheet, sheet_index, number, cells
        self.problems: list[Problem] = []

    def read(self, column: int, reader: Any, *args: Any, **kwargs: Any) -> Any:
        """`reader(cell, ...)` of the cell in `column` (0-based); None after a problem."""
        try:
            return reader(self.cells[column], *args, **kwargs)
        except CellError as e:
            self.problems.append(
                _problem(self.sheet, self.sheet_index, self.number, column, e.message)
            )
            return None

    def place(self, column: int) -> Place:
        return (self.number, column + 1)


def _problem(
    sheet: str, sheet_index: int, row: int | None, column: int | None, message: str
) -> Problem:
    """`column` is 0-based; None for the whole row."""
    letter = get_column_letter(column + 1) if column is not None else ""
    order = (sheet_index, row or 0, -1 if column is None else column)
    return Problem(sheet, row, letter, message, order)


# --- reading the workbook --------------------------------------------------------------------


def _open(data: bytes) -> Any:
    """The workbook, read-only and with formulas as formulas, or WorkbookError. The guard counts
    the file against its budgets first (league.excel.guard): openpyxl only sees what fits."""
    if not data:
        raise WorkbookError(str(EMPTY_FILE))
    if len(data) > MAX_BYTES:
        raise WorkbookError(str(TOO_BIG) % {"mb": MAX_BYTES // (1024 * 1024)})
    try:
        guard.workbook_guard(data)
    except guard.Refused as e:
        raise WorkbookError(e.message) from None
    try:
        return _Book(data)
    except Exception:  # openpyxl raises whatever its parsers meet in a broken file
        raise WorkbookError(str(NOT_XLSX)) from None


class _Book:
    """A workbook's parts as openpyxl's reader reads them (package, shared strings, workbook,
    properties, styles for the date formats), without its worksheets: a read-only worksheet
    parses its whole sheet once on creation just to look for a <dimension>."""

    def __init__(self, data: bytes):
        reader = ExcelReader(io.BytesIO(data), read_only=True, data_only=False)
        try:
            reader.read_manifest()
            reader.read_strings()
            reader.read_workbook()
            reader.read_properties()
            apply_stylesheet(reader.archive, reader.wb)
        except BaseException:
            reader.archive.close()
            raise
        self.archive = reader.archive
        self.workbook = reader.wb
        self.shared_strings = reader.shared_strings
        self.sheets = [
            (str(sheet.name), rel.target)
            for sheet, rel in reader.parser.find_sheets()
            if rel.target in reader.valid_files and "chartsheet" not in rel.Type
        ]

    def close(self) -> None:
        self.archive.close()


def _blank(cells: Sequence[Any]) -> bool:
    return all(c.value is None or (isinstance(c.value, str) and not c.value.strip()) for c in cells)


Rows = Iterator[tuple[int, Sequence[Any]]]  # (row number, cells) of the non-blank rows


@dataclass
class _Sheet:
    index: int
    title: str
    rows: Rows
    exported: bool  # the workbook says it is Janchō's own game log


def _sheets(data: bytes) -> Iterator[_Sheet]:
    """Each worksheet with its non-blank rows (cells padded to MAX_COLUMNS), to be read before
    the next sheet; WorkbookError for an unreadable file or more than MAX_ROWS rows in all
    (every row number counts, blank or skipped: a jump from row 2 to row 5,000,000 is over)."""
    book = _open(data)
    exported = book.workbook.properties.title == GAME_LOG_PROPERTY
    seen = 0
    try:
        for index, (title, path) in enumerate(book.sheets):
            if exported and title in _hands_titles():
                continue  # the hands of games recorded hand by hand: not games to import

            def rows(path: str = path) -> Rows:
                nonlocal seen
                last = 0
                for number, cells in _cells(book, path):
                    seen += number - last if number > last else 1
                    last = max(last + 1, number)
                    if seen > MAX_ROWS:
                        raise WorkbookError(str(TOO_MANY_ROWS) % {"rows": f"{MAX_ROWS:,}"})
                    if not _blank(cells):
                        yield number, cells

            yield _Sheet(index, title, rows(), exported)
    finally:
        book.close()


@dataclass(frozen=True, slots=True)
class _Cell:
    """A cell as the sheet's XML gives it (openpyxl's ReadOnlyCell without its worksheet)."""

    value: Any
    data_type: str = "n"


_EMPTY = _Cell(None)


_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


class _SheetParser(WorkSheetParser):
    """openpyxl's sheet parser, with inline strings read directly: its own reading builds a
    rich-text object per cell, the slowest part of reading a sheet of inline strings."""

    def parse_cell(self, element: Any) -> dict[str, Any]:
        inline = element.find(f"{_NS}is") if element.get("t") == "inlineStr" else None
        if inline is None:
            return super().parse_cell(element)
        # What openpyxl's Text.content gives: the plain text, then each run's; never the
        # phonetic guide (rPh, a Japanese name's furigana).
        pieces = [t.text or "" for t in inline.findall(f"{_NS}t")]
        pieces += [t.text or "" for t in inline.findall(f"{_NS}r/{_NS}t")]
        element.remove(inline)
        cell = super().parse_cell(element)  # a formula, or data type inlineStr and no value
        if cell["data_type"] == "inlineStr":
            cell["data_type"], cell["value"] = "s", "".join(pieces)
        return cell


def _cells(book: _Book, path: str) -> Iterator[tuple[int, Sequence[Any]]]:
    """The rows the sheet's XML has, each padded to MAX_COLUMNS cells. Not a worksheet's
    iter_rows: it makes up a blank row for every row number missing, and pads up to the
    dimension the sheet claims."""
    workbook = book.workbook
    with book.archive.open(path) as source:
        parser = _SheetParser(
            source,
            book.shared_strings,
            data_only=False,
            epoch=workbook.epoch,
            date_formats=workbook._date_formats,
            timedelta_formats=workbook._timedelta_formats,
        )
        rows = parser.parse()
        while True:
            try:
                number, found = next(rows)
            except StopIteration:
                return
            except Exception:  # openpyxl parses the sheet as it goes: a broken part shows here
                raise WorkbookError(str(NOT_XLSX)) from None
            cells = [_EMPTY] * MAX_COLUMNS
            for cell in found:
                column = cell["column"]
                if 1 <= column <= MAX_COLUMNS:
                    cells[column - 1] = _Cell(cell["value"], cell["data_type"])
            yield number, cells


# --- the two layouts -------------------------------------------------------------------------


def _hands_titles() -> set[str]:
    """The game log's hands sheet, as it is titled in every language."""
    titles = set()
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            titles.add(sheet_title(str(HANDS_TITLE)))
    return titles


def _header_text(value: Any) -> str:
    return names.clean_name(str(value)).casefold() if value is not None else ""


def _header_table() -> dict[str, str]:
    """Header text → column key: the export's headers in every language of the site, then the
    aliases."""
    table: dict[str, str] = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            for column in GAME_LOG_COLUMNS:
                table.setdefault(_header_text(str(column.header)), column.key)
    for key, aliases in HEADER_ALIASES.items():
        for alias in aliases:
            table.setdefault(_header_text(alias), key)
    return table


def _column_header(key: str) -> str:
    return next(str(c.header) for c in GAME_LOG_COLUMNS if c.key == key)


def _game_log_columns(header: Sequence[Any], *, exported: bool) -> dict[str, int] | None:
    """The game log's columns (key → index), or None when the header is not a game log's.
    `exported`: the workbook says it is Janchō's game log, whatever its headers."""
    table = _header_table()
    columns: dict[str, int] = {}
    for index, cell in enumerate(header):
        key = table.get(_header_text(cell.value))
        if key is None:
            continue
        if key in columns:  # a repeated header: the simple layout's "name, points, name, ..."
            return None
        columns[key] = index
    return columns if exported or any(k in columns for k in GAME_LOG_ONLY) else None


def _width(header: Sequence[Any]) -> int:
    filled = [i for i, cell in enumerate(header) if not _blank([cell])]
    return filled[-1] + 1 if filled else 0


def _read_sheet(parsed: Parsed, sheet: _Sheet, players: int) -> None:
    index, title, rows = sheet.index, sheet.title, sheet.rows
    first = next(rows, None)
    if first is None:
        return
    number, header = first
    columns = _game_log_columns(header, exported=sheet.exported)
    if columns is not None:
        missing = [k for k in GAME_LOG_REQUIRED if k not in columns]
        if missing:
            names = ", ".join(_column_header(k) for k in missing)
            parsed.problems.append(
                _problem(title, index, number, None, str(MISSING_COLUMNS) % {"columns": names})
            )
            return
        _read_game_log(parsed, index, title, rows, columns, players)
        return
    width, low = _width(header), 2 + 2 * players
    if not low <= width <= low + 2:
        message = str(WRONG_COLUMNS) % {
            "players": players,
            "low": low,
            "high": low + 2,
            "width": width,
        }
        parsed.problems.append(_problem(title, index, number, None, message))
        return
    if _looks_like_date(header[0]):
        parsed.problems.append(_problem(title, index, number, None, str(NO_HEADER)))
        return
    for number, cells in rows:
        parsed.rows += 1
        _read_simple_row(parsed, _Row(title, index, number, cells), players, width - low)


def _read_simple_row(parsed: Parsed, row: _Row, players: int, extras: int) -> None:
    """date, table, name and points per seat[, deposits[, rate]]."""
    date = row.read(0, _date)
    table = row.read(1, _text, MAX_TABLE)
    names = [row.read(2 + 2 * i, _text, MAX_NAME, required=True) for i in range(players)]
    points = [row.read(3 + 2 * i, _integer) for i in range(players)]
    end = 2 + 2 * players
    deposits = row.read(end, _integer, required=False) if extras >= 1 else 0
    rate = row.read(end + 1, _text, MAX_TABLE) if extras >= 2 else ""
    parsed.problems.extend(row.problems)
    if row.problems:
        return
    cells = {"date": row.place(0), "points": (row.number, 0)}  # column 0: the whole row
    if extras >= 1:
        cells["deposits"] = row.place(end)
    if extras >= 2:
        cells["rate"] = row.place(end + 1)
    for i in range(players):
        cells[f"member_{i}"] = row.place(2 + 2 * i)
        cells[f"points_{i}"] = row.place(3 + 2 * i)
    parsed.games.append(
        SheetGame(
            sheet=row.sheet,
            sheet_index=row.sheet_index,
            rows=[row.number],
            date=date,
            table=table,
            number=0,
            names=names,
            points=points,
            chombo=[0] * players,
            deposits=deposits or 0,
            rate=rate,
            yen=[None] * players,
            chips=[0] * players,
            cells=cells,
        )
    )


@dataclass
class _LogLine:
    row: _Row
    date: datetime.date
    table: str
    number: int
    seat: int
    name: str
    points: int
    chombo: int
    chips: int
    yen: int | None
    rate: str | None  # None: no rate column; found from the yen
    busted_by: int | None = None  # a seat from 1, as written
    yakitori: bool = False


def _read_game_log(
    parsed: Parsed,
    index: int,
    title: str,
    rows: Rows,
    columns: dict[str, int],
    players: int,
) -> None:
    games: dict[tuple[datetime.date, int], list[_LogLine]] = {}
    for number, cells in rows:
        parsed.rows += 1
        line = _read_log_line(_Row(title, index, number, cells), columns, players)
        line.row.cells = ()  # read: a game waiting for its other rows keeps only the values
        parsed.problems.extend(line.row.problems)
        if not line.row.problems:
            games.setdefault((line.date, line.number), []).append(line)
    for lines in games.values():
        game = _log_game(lines, columns, parsed.problems)
        if game is not None:
            parsed.games.append(game)


def _read_log_line(row: _Row, columns: dict[str, int], players: int) -> _LogLine:
    def optional(key: str, reader: Any, *args: Any, **kwargs: Any) -> Any:
        return row.read(columns[key], reader, *args, **kwargs) if key in columns else None

    return _LogLine(
        row=row,
        date=row.read(columns["date"], _date),
        table=optional("table", _text, MAX_TABLE) or "",
        number=row.read(columns["game"], _count, 1, 10_000),
        seat=row.read(columns["seat"], _seat, players),
        name=row.read(columns["player"], _text, MAX_NAME, required=True),
        points=row.read(columns["points"], _integer),
        chombo=optional("chombo", _count, 0, MAX_CHOMBO) or 0,
        chips=optional("chips", _integer, required=False) or 0,
        yen=optional("yen", _integer, required=False),
        rate=optional("rate", _text, MAX_TABLE) or None,  # blank: found from the yen
        busted_by=optional("busted_by", _optional_seat, players),
        yakitori=bool(optional("yakitori", _mark)),
    )


def _log_game(
    lines: list[_LogLine], columns: dict[str, int], problems: list[Problem]
) -> SheetGame | None:
    """One game from its rows (in seat order), or None after adding what is wrong with them."""
    lines = sorted(lines, key=lambda line: (line.seat, line.row.number))
    first = lines[0].row
    bad = False
    for before, line in itertools.pairwise(lines):
        if line.seat == before.seat:
            message = str(SEAT_TWICE) % {"seat": line.seat}
            problems.append(_at(line.row, columns["seat"], message))
            bad = True
        if line.table != before.table:
            problems.append(_at(line.row, columns.get("table"), str(TABLES_DIFFER)))
            bad = True
        if line.rate != before.rate:
            problems.append(_at(line.row, columns.get("rate"), str(RATES_DIFFER)))
            bad = True
    if bad:
        return None
    top = min(lines, key=lambda line: line.row.number).row
    cells = {"date": top.place(columns["date"]), "points": top.place(columns["points"])}
    cells["deposits"] = cells["points"]  # deposits are the sum's remainder
    for key in ("chombo", "yen"):
        if key in columns:
            cells["rate" if key == "yen" else key] = top.place(columns[key])
    if lines[0].rate is not None:  # a rate written in the sheet, rather than found from the yen
        cells["rate"] = top.place(columns["rate"])
    for i, line in enumerate(lines):
        cells[f"member_{i}"] = line.row.place(columns["player"])
        cells[f"points_{i}"] = line.row.place(columns["points"])
    return SheetGame(
        sheet=first.sheet,
        sheet_index=first.sheet_index,
        rows=sorted(line.row.number for line in lines),
        date=lines[0].date,
        table=lines[0].table,
        number=lines[0].number,
        names=[line.name for line in lines],
        points=[line.points for line in lines],
        chombo=[line.chombo for line in lines],
        deposits=None,
        rate=lines[0].rate,
        yen=[line.yen for line in lines],
        chips=[line.chips for line in lines],
        cells=cells,
        busted_by=[line.busted_by - 1 if line.busted_by is not None else None for line in lines]
        if "busted_by" in columns
        else [],
        yakitori=[line.yakitori for line in lines] if "yakitori" in columns else [],
    )


def _at(row: _Row, column: int | None, message: str) -> Problem:
    return _problem(row.sheet, row.sheet_index, row.number, column, message)


def workbook_read(data: bytes, *, players: int) -> Parsed:
    """Every game and every problem of the workbook; WorkbookError when it cannot be read."""
    parsed = Parsed()
    for sheet in _sheets(data):
        _read_sheet(parsed, sheet, players)
    if parsed.rows == 0 and not parsed.problems:
        raise WorkbookError(str(NO_GAMES))
    return parsed


# --- a score sheet read from a photo (league.excel.tasks.read_sheet_photo) ----------------------

PHOTO_SHEET = gettext_lazy("Photo")
PHOTO_DOES_NOT_SUM = gettext_lazy(
    "Game %(game)s: the points read (%(points)s) do not add up to %(total)s, so this game is "
    "not taken from the photo. Record it on the record form, or take a clearer photo."
)
PHOTO_NO_NAMES = gettext_lazy(
    "No row of %(players)s names was read at the top of the sheet: the games cannot be told "
    "apart by player. Take a photo with the names in it."
)


def photo_filename(sha256: str) -> str:
    """The name an upload read from a photo goes by (what it was is told by `from_photo`)."""
    return f"photo-{sha256[:12]}.jpg"


def from_photo(filename: str) -> bool:
    return bool(re.fullmatch(r"photo-[0-9a-f]{12}\.jpg", filename))


def _read_points(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else "?"


def photo_parsed(
    *,
    names: Sequence[str | None],
    games: Sequence[Sequence[Mapping[str, Any]]],
    date: datetime.date,
    rate: str,
    total: int,
) -> Parsed:
    """A score sheet read from a photo (league.core.photo.read_score_sheet, its rows as JSON)
    as an upload's games in the simple layout's shape: each game whose rows passed the checksum
    becomes a game, its players in the sheet's columns from the left; a game that did not is a
    problem saying what was read, never a game (the preview then imports nothing until the
    organiser has dealt with it)."""
    parsed = Parsed()
    sheet = str(PHOTO_SHEET)
    players = len(names)
    if not names or not all(names):
        parsed.problems.append(
            _problem(sheet, 0, None, None, str(PHOTO_NO_NAMES) % {"players": players or ""})
        )
        return parsed
    for number, rows in enumerate(games, start=1):
        parsed.rows += 1
        read = [row.get("points") for row in rows]
        if len(rows) != players or not all(row.get("checksum") for row in rows):
            message = str(PHOTO_DOES_NOT_SUM) % {
                "game": number,
                "points": " / ".join(_read_points(p) for p in read),
                "total": f"{total:,}",
            }
            parsed.problems.append(_problem(sheet, 0, number, None, message))
            continue
        cells: dict[str, Place] = {"date": (number, 1), "points": (number, 0)}
        for i in range(players):
            cells[f"member_{i}"] = (number, 2 + i)
            cells[f"points_{i}"] = (number, 2 + i)
        parsed.games.append(
            SheetGame(
                sheet=sheet,
                sheet_index=0,
                rows=[number],
                date=date,
                table="",
                number=0,
                names=[str(n)[:MAX_NAME] for n in names],
                points=[int(p) for p in read],  # type: ignore[arg-type]
                chombo=[0] * players,
                deposits=0,
                rate=rate,
                yen=[None] * players,
                chips=[0] * players,
                cells=cells,
            )
        )
    return parsed


# --- settling: names to members, every game through services.game_preview ---------------------


def name_choice_key(name: str) -> str:
    """A name's key in the choice form: stable while the workbook and the name stay the same."""
    return hashlib.sha256(names.name_key(name).encode()).hexdigest()[:12]


class _Resolver:
    """Names → members by league.core.directory's whole-name steps, as on the game form: the
    exact name (spacing and half-width kana aside), then the name with variant kanji (髙橋 for
    高橋) or a reading (kana, with or without its space) only one member has; anything else is
    an unknown name. A name found by its variant or reading is listed on the preview."""

    def __init__(self, club: Club, members: Sequence[Member], mapping: Mapping[str, Member]):
        self.club = club
        self.mapping = mapping
        self.directory = Directory(members)
        self.unknown: dict[str, UnknownName] = {}
        self.by_reading: dict[str, Member] = {}

    def member(self, name: str, sheet: str, row: int) -> Member:
        key = names.name_key(name)
        shown = names.clean_name(name)
        try:
            found = self.directory.whole(name)
        except Ambiguous:  # several members share the variant or the reading: the organiser says
            found = None
        if found is not None:
            if names.name_key(found.name) != key:
                self.by_reading[name] = found
            return found
        choice = name_choice_key(name)
        unknown = self.unknown.setdefault(choice, UnknownName(shown, choice))
        if not unknown.places or unknown.places[-1] != (sheet, row):
            unknown.places.append((sheet, row))
        if choice in self.mapping:
            return self.mapping[choice]
        # Never saved: the engine names players by primary key, so each new name gets its own.
        return Member(club=self.club, name=shown, pk=unknown.placeholder_pk)


def _version(
    versions: Sequence[RulesVersion], starts: Sequence[datetime.date], date: datetime.date
) -> RulesVersion | None:
    """The version in force on `date` (`starts`: the versions' first days, in order)."""
    index = bisect.bisect_right(starts, date)
    return versions[index - 1] if index else None


def _error_problems(source: SheetGame, error: ServiceError) -> list[Problem]:
    """A service's field errors at the cells of the workbook they are about."""
    out = []
    for field_name, messages in error.errors.items():
        row, column = source.cells.get(form_field(field_name), (source.rows[0], 0))
        for message in messages:
            out.append(
                _problem(
                    source.sheet, source.sheet_index, row, column - 1 if column else None, message
                )
            )
    return out


def _rate_from_yen(
    club: Club, data: GameInput, version: RulesVersion, source: SheetGame
) -> str | None:
    """The rate whose money gives the game log's yen (its chips' money aside); "" without yen,
    None when no rate of the rules does."""
    if all(y is None for y in source.yen):
        return ""
    for name, tier in version.rules.rates.items():
        try:
            preview = services.game_preview(
                club=club, data=replace(data, rate=name), version=version
            )
        except ServiceError:
            continue
        expected = [
            None if y is None else y - c * tier.chip_yen
            for y, c in zip(source.yen, source.chips, strict=True)
        ]
        if [p.yen for p in preview.result.players] == expected:
            return name
    return None


def _settle_game(
    club: Club, source: SheetGame, version: RulesVersion, members: list[Member]
) -> PlannedGame | list[Problem]:
    rules = version.rules
    implied = rules.players * rules.start - sum(source.points)
    data = GameInput(
        date=source.date,
        table=source.table,
        seats=[
            SeatInput(
                m,
                p,
                c,
                source.busted_by[i] if source.busted_by else None,
                bool(source.yakitori and source.yakitori[i]),
            )
            for i, (m, p, c) in enumerate(zip(members, source.points, source.chombo, strict=True))
        ],
        deposits=source.deposits if source.deposits is not None else max(implied, 0),
        rate=source.rate or "",
    )
    try:
        preview = services.game_preview(club=club, data=data, version=version)
        if source.rate is None:
            rate = _rate_from_yen(club, data, version, source)
            if rate is None:
                return [_source_problem(source, "rate", str(NO_RATE))]
            if rate:
                data = replace(data, rate=rate)
                preview = services.game_preview(club=club, data=data, version=version)
    except ServiceError as e:
        return _error_problems(source, e)
    return PlannedGame(source, data, preview)


def _no_money(game: PlannedGame) -> bool:
    """Whether a game is recorded without money although its rules have rates (no rate given)."""
    return not game.data.rate and bool(game.preview.rules_version.rules.rates)


def _source_problem(source: SheetGame, field_name: str, message: str) -> Problem:
    return _error_problems(source, ServiceError.one(field_name, message))[0]


CHUNK = 2_000  # games settled, checked for duplicates and written together


def _settled_chunks(
    club: Club,
    parsed: Parsed,
    resolver: _Resolver,
    versions: Sequence[RulesVersion],
    progress: Callable[[], None] | None = None,
    *,
    stored_before: int | None = None,
) -> Iterator[tuple[list[PlannedGame], list[Problem]]]:
    """The workbook's games in date order, settled CHUNK at a time and marked when the club has
    them already (one query per chunk), with the problems met: only a chunk is in memory at a
    time. `stored_before`: only games up to this pk count as the club's (an import's own batches
    are not duplicates of its later ones)."""
    starts = [v.effective_from for v in versions]
    ordered = sorted(range(len(parsed.games)), key=lambda i: parsed.games[i].order)
    for first in range(0, len(ordered), CHUNK):
        games: list[PlannedGame] = []
        problems: list[Problem] = []
        for position, index in enumerate(ordered[first : first + CHUNK], start=first):
            source = parsed.games[index]
            if progress is not None:
                progress()
            seated = [
                resolver.member(name, source.sheet, source.cells[f"member_{i}"][0])
                for i, name in enumerate(source.names)
            ]
            version = _version(versions, starts, source.date)
            if version is None:
                message = str(NO_RULES) % {"date": source.date}
                problems.append(_source_problem(source, "date", message))
                continue
            settled = _settle_game(club, source, version, seated)
            if isinstance(settled, list):
                problems.extend(settled)
                continue
            games.append(replace(settled, index=position))
        # A seated fixed-table final's games: said in the preview, as the confirm checks them
        # (plan_apply), one query per chunk.
        finals = services.final_tables_of(club=club, dates={g.data.date for g in games})
        if finals:
            kept = []
            for planned in games:
                if final := services.final_table_problems(finals, planned.data):
                    problems += _error_problems(planned.source, ServiceError(final))
                else:
                    kept.append(planned)
            games = kept
        yield _mark_duplicates(club, games, stored_before=stored_before), problems


def _settle(
    club: Club,
    parsed: Parsed,
    members: list[Member],
    versions: list[RulesVersion],
    mapping: dict[str, Member],
    progress: Callable[[], None] | None = None,
    *,
    keep: int | None = None,
    settled: list[list[Any]] | None = None,
) -> Plan:
    """The plan of every game; with `keep`, only the first `keep` games are kept (the rest are
    counted): a preview of tens of thousands of games in bounded memory. With `settled`, every
    game is also added to it as a compact row (_settled_row), for the import to write."""
    plan = Plan(club, parsed, members, versions, mapping, problems=list(parsed.problems))
    resolver = _Resolver(club, members, mapping)
    for games, problems in _settled_chunks(club, parsed, resolver, versions, progress):
        if settled is not None:
            settled.extend(_settled_row(g) for g in games)
        plan.problems.extend(problems)
        plan.total += len(games)
        plan.duplicate_total += sum(g.duplicate for g in games)
        plan.duplicate_indexes += [g.index for g in games if g.duplicate]
        plan.chip_games += sum(1 for g in games if any(g.source.chips))
        plan.no_money_games += sum(1 for g in games if _no_money(g))
        room = len(games) if keep is None else max(keep - len(plan.games), 0)
        plan.games.extend(games[:room])
    plan.problems.sort(key=lambda p: p.order)
    plan.unknown = list(resolver.unknown.values())
    plan.by_reading = resolver.by_reading
    return plan


GameKey = tuple[datetime.date, tuple[tuple[int, int], ...]]


def _game_key(date: datetime.date, seats: Sequence[tuple[int, int]]) -> GameKey:
    """A game's identity for finding duplicates: its date and its (member, points), any seat
    order."""
    return (date, tuple(sorted(seats)))


def _mark_duplicates(
    club: Club, games: list[PlannedGame], *, stored_before: int | None = None
) -> list[PlannedGame]:
    """`games` with the duplicates marked, by the record form's rule
    (league.recording.services.duplicate_of): the same date, members and points, in any seat
    order and at any table, as a live game of the club (with `stored_before`, of the games up to
    it: an import's own batches do not count) or as a game earlier in `games`. One query for them
    all (the counted results between their first and last dates)."""
    if not games:
        return games
    dates = [g.data.date for g in games]
    rows = Result.objects.filter(
        club=club, counted=True, date__gte=min(dates), date__lte=max(dates)
    )
    if stored_before is not None:
        rows = rows.filter(game_id__lte=stored_before)
    rows = rows.order_by().values_list("game_id", "date", "member_id", "points")
    stored: dict[int, tuple[datetime.date, list[tuple[int, int]]]] = {}
    for game_id, date, member_id, points in rows.iterator(chunk_size=5_000):
        stored.setdefault(game_id, (date, []))[1].append((member_id, points))
    known = {_game_key(date, seats) for date, seats in stored.values()}
    marked = []
    for planned in games:
        key = _game_key(planned.data.date, [(s.member.pk, s.points) for s in planned.data.seats])
        duplicate = key in known
        known.add(key)  # a second such row of the workbook repeats the first
        marked.append(replace(planned, duplicate=duplicate) if duplicate else planned)
    return marked


def _players(versions: Sequence[RulesVersion]) -> int:
    """Seats per game in the simple layout: as the club's latest rules say."""
    return versions[-1].rules.players if versions else 4


def club_players(club: Club) -> int:
    return _players(list(RulesVersion.objects.filter(club=club).order_by("-effective_from")[:1]))


def plan_build(*, club: Club, data: bytes) -> Plan:
    """The plan for an uploaded workbook: nothing is stored. Raises WorkbookError."""
    return plan_settle(club=club, parsed=workbook_read(data, players=club_players(club)))


def plan_settle(*, club: Club, parsed: Parsed, progress: Callable[[], None] | None = None) -> Plan:
    """The plan for a workbook read before (kept between the upload and the confirmation).
    `progress` is called once per game (league.excel.progress)."""
    versions = list(RulesVersion.objects.filter(club=club).order_by("effective_from"))
    members = list(
        Member.objects.filter(club=club, merged_into__isnull=True).order_by("kana", "name")
    )
    return _settle(club, parsed, members, versions, {}, progress)


# --- a read workbook kept between requests (league.models.imports.ImportUpload) -----------------


def _game_dump(g: SheetGame) -> dict[str, Any]:
    return {
        "sheet": g.sheet,
        "sheet_index": g.sheet_index,
        "rows": g.rows,
        "date": g.date.isoformat(),
        "table": g.table,
        "number": g.number,
        "names": g.names,
        "points": g.points,
        "chombo": g.chombo,
        "deposits": g.deposits,
        "rate": g.rate,
        "yen": g.yen,
        "chips": g.chips,
        "cells": g.cells,
        "busted_by": g.busted_by,
        "yakitori": g.yakitori,
    }


def _game_load(d: dict[str, Any]) -> SheetGame:
    return SheetGame(
        sheet=d["sheet"],
        sheet_index=d["sheet_index"],
        rows=d["rows"],
        date=datetime.date.fromisoformat(d["date"]),
        table=d["table"],
        number=d["number"],
        names=d["names"],
        points=d["points"],
        chombo=d["chombo"],
        deposits=d["deposits"],
        rate=d["rate"],
        yen=d["yen"],
        chips=d["chips"],
        cells={k: (v[0], v[1]) for k, v in d["cells"].items()},
        busted_by=d.get("busted_by", []),
        yakitori=d.get("yakitori", []),
    )


def parsed_dump(parsed: Parsed) -> bytes:
    """`parsed` as compressed JSON, for league.models.imports.ImportUpload.parsed."""
    data = {
        "games": [_game_dump(g) for g in parsed.games],
        "problems": [[p.sheet, p.row, p.column, p.message, list(p.order)] for p in parsed.problems],
        "rows": parsed.rows,
    }
    return zlib.compress(json.dumps(data, ensure_ascii=False).encode(), 1)


def parsed_load(data: bytes) -> Parsed:
    loaded = json.loads(zlib.decompress(bytes(data)))
    return Parsed(
        games=[_game_load(g) for g in loaded["games"]],
        problems=[
            Problem(sheet, row, column, message, (o[0], o[1], o[2]))
            for sheet, row, column, message, o in loaded["problems"]
        ],
        rows=loaded["rows"],
    )


# --- storing ---------------------------------------------------------------------------------


class ImportFailed(Exception):
    """Confirming stopped; nothing was stored. `problems` say why."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(p.message for p in problems))


def _create_members(
    plan: Plan, user: models_audit.User, kana: Mapping[str, str]
) -> dict[int, Member]:
    created = {}
    for unknown in plan.new_names:
        try:
            member = club_services.member_create(
                club=plan.club, user=user, name=unknown.name, kana=kana.get(unknown.key, "")
            )
        except ServiceError:
            sheet, row = unknown.places[0]
            message = str(ALREADY_MEMBER) % {"name": unknown.name}
            raise ImportFailed([Problem(sheet, row, "", message)]) from None
        created[unknown.placeholder_pk] = member
    return created


def plan_apply(
    *,
    plan: Plan,
    user: models_audit.User,
    kana: Mapping[str, str] | None = None,
    duplicates: bool = False,
    progress: Callable[[], None] | None = None,
) -> list[Game]:
    """Create the new members and record every game, in date order: all of it or none
    (services.games_record_bulk: game_record's validation, rows and audit entries, in bulk).

    `kana` maps an UnknownName.key to the new member's reading. Games the club has already
    (PlannedGame.duplicate) are skipped unless `duplicates`: importing a workbook twice, or the
    club's own export, records nothing and writes nothing. They are found again under the club's
    lock (lock_club): games recorded since the plan was made are always skipped, and counted in
    `plan.recorded_meanwhile` (`plan.skipped` counts every skipped game). Raises ImportFailed.
    """
    if not plan.ready:
        raise ImportFailed(plan.problems)
    with action():
        # One import (and one game writer) per club at a time; the duplicates are checked again
        # under that lock: two organisers confirming the same workbook at once record it once.
        lock_club(plan.club.pk)
        now = _mark_duplicates(plan.club, plan.games)
        meanwhile = [n.duplicate and not g.duplicate for g, n in zip(plan.games, now, strict=True)]
        planned_games = [
            n
            for n, late in zip(now, meanwhile, strict=True)
            if not late and (duplicates or not n.duplicate)
        ]
        plan.games = now
        plan.duplicate_total = sum(g.duplicate for g in now)
        plan.skipped = len(plan.games) - len(planned_games)
        plan.recorded_meanwhile = sum(meanwhile)
        if not planned_games and not plan.new_names:
            return []
        created = _create_members(plan, user, kana or {})
        # game_record's validation for each game, now with the new members in their seats;
        # then every game written in bulk, with game_record's rows and audit entries.
        checked, problems = [], []
        finals = services.final_tables_of(
            club=plan.club, dates={g.data.date for g in planned_games}
        )
        for planned in planned_games:
            if progress is not None:
                progress()
            seats = [
                replace(s, member=created.get(s.member.pk, s.member)) for s in planned.data.seats
            ]
            data = replace(planned.data, seats=seats)
            try:
                version = planned.preview.rules_version
                preview = services.game_preview(club=plan.club, data=data, version=version)
                if final := services.final_table_problems(finals, data):
                    raise ServiceError(final)
            except ServiceError as e:
                problems += _error_problems(planned.source, e)
                continue
            checked.append((data, preview))
        if problems:
            raise ImportFailed(problems)
        try:
            games = services.games_record_bulk(club=plan.club, user=user, games=checked)
        except ServiceError as e:
            raise ImportFailed(_error_problems(planned_games[0].source, e)) from None
        models_audit.audit(
            club=plan.club,
            actor=user,
            action="import.apply",
            target=f"club:{plan.club.pk}",
            after={
                "games": [g.pk for g in games],
                "skipped_duplicates": plan.skipped,
                **({"recorded_meanwhile": n} if (n := plan.recorded_meanwhile) else {}),
                "members": sorted(m.pk for m in created.values()),
                "mapped": {
                    u.name: plan.mapping[u.key].pk for u in plan.unknown if u.key in plan.mapping
                },
            },
        )
    return games


# --- the preview kept on upload, and the import a worker runs (league.excel.tasks) -------------


@dataclass(frozen=True)
class KeptMember:
    name: str
    pk: int  # negative: a new member


@dataclass(frozen=True)
class KeptResult:
    points: int
    score: int
    yen: int | None
    chombo: int


@dataclass(frozen=True)
class KeptData:
    date: datetime.date
    table: str
    deposits: int
    rate: str


@dataclass(frozen=True)
class KeptGame:
    """A previewed game as the preview page shows it (PlannedGame's attributes it reads)."""

    data: KeptData
    seats: list[tuple[KeptMember, KeptResult]]
    duplicate: bool


@dataclass
class KeptPlan:
    """A plan as settled once on upload: what the preview page shows, every count over all
    the games, and the first SHOWN games; kept in ImportUpload.preview."""

    games: list[KeptGame]
    total: int
    problems: list[Problem]
    problem_total: int
    unknown: list[UnknownName]
    by_reading: dict[str, KeptMember]
    duplicates: int
    duplicate_indexes: list[int]
    chip_games: int
    no_money_games: int = 0

    @property
    def ready(self) -> bool:
        return self.total > 0 and self.problem_total == 0


SHOWN = 200  # games kept for the preview page; all of them are checked and counted
SHOWN_PROBLEMS = 500


def plan_kept(
    *,
    club: Club,
    parsed: Parsed,
    progress: Callable[[], None] | None = None,
    settled: Settled | None = None,
) -> KeptPlan:
    """The preview of a read workbook: every game settled (a chunk at a time), the first SHOWN
    games and SHOWN_PROBLEMS problems kept with every count. `progress` is called once per game
    (league.excel.tasks.import_preview). `settled` is given every settled game, for the import
    (settled_dump)."""
    versions = list(RulesVersion.objects.filter(club=club).order_by("effective_from"))
    members = list(
        Member.objects.filter(club=club, merged_into__isnull=True).order_by("kana", "name")
    )
    rows = settled.games if settled is not None else None
    plan = _settle(club, parsed, members, versions, {}, progress, keep=SHOWN, settled=rows)
    if settled is not None:
        settled.versions = [(v.pk, v.effective_from.isoformat()) for v in versions]
        settled.unknown = plan.unknown
    return KeptPlan(
        games=[
            KeptGame(
                data=KeptData(g.data.date, g.data.table, g.data.deposits, g.data.rate),
                seats=[
                    (
                        KeptMember(m.name, m.pk),
                        KeptResult(r.points, r.score, r.yen, r.chombo),
                    )
                    for m, r in g.seats
                ],
                duplicate=g.duplicate,
            )
            for g in plan.games
        ],
        total=plan.total,
        problems=plan.problems[:SHOWN_PROBLEMS],
        problem_total=len(plan.problems),
        unknown=plan.unknown,
        by_reading={k: KeptMember(m.name, m.pk) for k, m in plan.by_reading.items()},
        duplicates=plan.duplicate_total,
        duplicate_indexes=plan.duplicate_indexes,
        chip_games=plan.chip_games,
        no_money_games=plan.no_money_games,
    )


def preview_dump(kept: KeptPlan) -> bytes:
    def member(m: KeptMember) -> list[Any]:
        return [m.name, m.pk]

    data = {
        "games": [
            [
                g.data.date.isoformat(),
                g.data.table,
                g.data.deposits,
                g.data.rate,
                g.duplicate,
                [[member(m), [r.points, r.score, r.yen, r.chombo]] for m, r in g.seats],
            ]
            for g in kept.games
        ],
        "total": kept.total,
        "problems": [[p.sheet, p.row, p.column, p.message, list(p.order)] for p in kept.problems],
        "problem_total": kept.problem_total,
        "unknown": [[u.name, u.key, u.places] for u in kept.unknown],
        "by_reading": {k: member(m) for k, m in kept.by_reading.items()},
        "duplicates": kept.duplicates,
        "duplicate_indexes": kept.duplicate_indexes,
        "chip_games": kept.chip_games,
        "no_money_games": kept.no_money_games,
    }
    return zlib.compress(json.dumps(data, ensure_ascii=False).encode(), 1)


def preview_load(data: bytes) -> KeptPlan:
    d = json.loads(zlib.decompress(bytes(data)))
    return KeptPlan(
        games=[
            KeptGame(
                KeptData(datetime.date.fromisoformat(date), table, deposits, rate),
                [(KeptMember(*m), KeptResult(*r)) for m, r in seats],
                duplicate,
            )
            for date, table, deposits, rate, duplicate, seats in d["games"]
        ],
        total=d["total"],
        problems=[
            Problem(sheet, row, column, message, (o[0], o[1], o[2]))
            for sheet, row, column, message, o in d["problems"]
        ],
        problem_total=d["problem_total"],
        unknown=[UnknownName(n, k, [(s, r) for s, r in places]) for n, k, places in d["unknown"]],
        by_reading={k: KeptMember(*m) for k, m in d["by_reading"].items()},
        duplicates=d["duplicates"],
        duplicate_indexes=d["duplicate_indexes"],
        chip_games=d["chip_games"],
        no_money_games=d.get("no_money_games", 0),  # a preview kept before it was counted
    )


def names_unknown(*, club: Club, parsed: Parsed) -> tuple[list[UnknownName], list[Member]]:
    """The workbook's names that are no member of the club now, and the club's members (for the
    confirmation's choices): names only, no game is settled."""
    members = list(
        Member.objects.filter(club=club, merged_into__isnull=True).order_by("kana", "name")
    )
    resolver = _Resolver(club, members, {})
    for source in sorted(parsed.games, key=lambda g: g.order):
        for i, name in enumerate(source.names):
            resolver.member(name, source.sheet, source.cells[f"member_{i}"][0])
    return list(resolver.unknown.values()), members


MEMBER_GONE = gettext_lazy(
    "The member chosen for “%(name)s” is no longer in the club: check the names again."
)
RULES_CHANGED = gettext_lazy(
    "The club's rules changed after the workbook was checked: upload the workbook again."
)
DAY_FAILED = gettext_lazy(
    "The import stopped at the games of %(date)s: the days before it are imported. Void the "
    "import to take them back, or correct the workbook and confirm the rest."
)


@dataclass
class Settled:
    """Every game of a workbook as its preview settled it (league.excel.tasks.import_preview),
    kept on the upload (ImportUpload.plan) so that the import writes it without settling it
    again: the rules versions it was settled under (pk, first day), the unknown names, and one
    compact row per game in date order (_settled_row)."""

    versions: list[tuple[int, str]] = field(default_factory=list)
    unknown: list[UnknownName] = field(default_factory=list)
    games: list[list[Any]] = field(default_factory=list)


def _settled_row(g: PlannedGame) -> list[Any]:
    """A settled game in a few plain values (JSON): where it is, its input and its settlement."""
    result = g.preview.result
    return [
        g.index,
        g.source.sheet,
        g.source.sheet_index,
        g.source.rows[0],
        g.data.date.isoformat(),
        g.data.table,
        g.data.deposits,
        g.data.rate,
        g.preview.rules_version.pk,
        result.total_score,
        result.deposits,
        result.rate,
        [
            [
                s.member.pk,
                s.points,
                s.chombo,
                s.busted_by,
                s.yakitori,
                p.rank,
                p.score,
                p.chips,
                p.yen,
            ]
            for s, p in zip(g.data.seats, result.players, strict=True)
        ],
    ]


def settled_dump(settled: Settled) -> bytes:
    data = {
        "versions": settled.versions,
        "unknown": [[u.name, u.key, u.places] for u in settled.unknown],
        "games": settled.games,
    }
    return zlib.compress(json.dumps(data, ensure_ascii=False).encode(), 1)


def settled_load(data: bytes) -> Settled:
    d = json.loads(zlib.decompress(bytes(data)))
    return Settled(
        versions=[(pk, first) for pk, first in d["versions"]],
        unknown=[UnknownName(n, k, [(s, r) for s, r in places]) for n, k, places in d["unknown"]],
        games=d["games"],
    )


def settled_of(*, club: Club, parsed: Parsed) -> Settled:
    """A read workbook settled as its preview settles it (for tests and the benchmark's
    yardstick; the worker keeps it with the preview)."""
    settled = Settled()
    plan_kept(club=club, parsed=parsed, settled=settled)
    return settled


def _planned(
    row: list[Any],
    members: Mapping[int, Member],
    versions: Mapping[int, RulesVersion],
    *,
    result: bool = True,
) -> PlannedGame:
    """A settled row back as the game it plans, its seats holding `members` (placeholders
    replaced by the members created or chosen for them): nothing is settled again. Without
    `result`, its settlement is left out (the preview holds an empty one): for checking only."""
    (index, sheet, sheet_index, first_row, date, table, deposits, rate, version) = row[:9]
    total, result_deposits, result_rate, seats = row[9:]
    day = datetime.date.fromisoformat(date)
    seated = [
        SeatInput(members[pk], points, chombo, busted, yakitori)
        for pk, points, chombo, busted, yakitori, *_settled in seats
    ]
    data = GameInput(date=day, table=table, seats=seated, deposits=deposits, rate=rate)
    source = SheetGame(
        sheet, sheet_index, [first_row], day, table, 0, [], [], [], deposits, rate, [], [], {}
    )
    if not result:
        empty = scoring.GameResult(players=(), total_score=0, deposits=0, rate=None)
        return PlannedGame(source, data, services.Preview(versions[version], empty), False, index)
    settled = scoring.GameResult(
        players=tuple(
            scoring.PlayerResult(
                str(members[pk].pk), points, rank, score, chips, yen, chombo, yakitori=yakitori
            )
            for pk, points, chombo, _busted, yakitori, rank, score, chips, yen in seats
        ),
        total_score=total,
        deposits=result_deposits,
        rate=result_rate,
    )
    preview = services.Preview(versions[version], settled, [s.member for s in seated])
    return PlannedGame(source, data, preview, False, index)


@dataclass
class Imported:
    """What import_stored did."""

    games: int = 0
    members: int = 0
    skipped: int = 0  # games the club had already (not imported)
    recorded_meanwhile: int = 0  # of those, recorded after the preview was made
    batch: int | None = None  # the ImportBatch written, if any game or member was


WAIT_EVERY = 0.2  # seconds between two looks at another import of the club running


@dataclass
class _Begun:
    batch: ImportBatch | None  # None: nothing to write (`outcome` says what was skipped)
    members: dict[int, Member]  # by pk, and the placeholders' members by placeholder pk
    versions: dict[int, RulesVersion]
    outcome: Imported
    created: list[int]


def _skipped(
    planned: PlannedGame, duplicates: bool, previewed: set[int], outcome: Imported
) -> bool:
    """Whether a game marked by _mark_duplicates is left out, counted in `outcome`: a game the
    club has is skipped unless `duplicates`; one recorded since the preview always is."""
    late = planned.duplicate and planned.index not in previewed
    if planned.duplicate and (late or not duplicates):
        outcome.skipped += 1
        outcome.recorded_meanwhile += late
        return True
    return False


STEP_GAMES = 500  # games written in one transaction at most, unless one day has more


def _steps(rows: list[list[Any]]) -> list[tuple[list[str], list[list[Any]]]]:
    """The settled games (in date order) cut into the import's transactions: whole days, as
    many as fit in STEP_GAMES games (a longer day is a transaction of its own). A transaction a
    day was tried again (issue 38) once the kept rows were written back in bulk (kept.rewrite):
    about 60 statements a day (the players' kept totals and statistics, the rating replay, the
    day's books) made the task of 10,000 games at eight a day 4.4 times as long on SQLite (69 s
    against 15.7 s) and 2.9 times on PostgreSQL (89 s against 31 s). A few hundred games keep a
    game recorded meanwhile waiting well under a second or two, and the club's other writers get
    the lock between two of them."""
    steps: list[tuple[list[str], list[list[Any]]]] = []
    for date, day in itertools.groupby(rows, key=lambda r: r[4]):
        games = list(day)
        if steps and len(steps[-1][1]) + len(games) <= STEP_GAMES:
            steps[-1][0].append(date)
            steps[-1][1].extend(games)
        else:
            steps.append(([date], games))
    return steps


class _Busy(Exception):
    """Another import of the club is running: this one waits for it (one at a time)."""


def _import_begin_in(
    *,
    club: Club,
    settled: Settled,
    user: models_audit.User,
    mapping: Mapping[str, int],
    kana: Mapping[str, str],
    duplicates: bool,
    previewed: set[int],
    filename: str,
    days: int,
) -> _Begun:
    """The start of the import's first action (the club locked by the caller): the plan checked
    against the club as it is now (rules, chosen members, games recorded meanwhile), then the
    new members created and the batch begun; no batch when there is nothing to write. Raises
    _Busy while another import of the club is running, ImportFailed (nothing is stored)."""
    now = timezone.now()
    running = ImportBatch.objects.filter(
        club=club, status=ImportBatch.RUNNING, touched__gte=now - ImportUpload.STALLED_AFTER
    )
    if running.exists():
        raise _Busy
    versions = {v.pk: v for v in RulesVersion.objects.filter(club=club)}
    if sorted((v.pk, v.effective_from.isoformat()) for v in versions.values()) != sorted(
        tuple(v) for v in settled.versions
    ):
        first = settled.games[0] if settled.games else [0, "", 0, None]
        raise ImportFailed([Problem(first[1], first[3], "", str(RULES_CHANGED))])
    members = {m.pk: m for m in Member.objects.filter(club=club)}
    live = {pk: m for pk, m in members.items() if m.merged_into_id is None}
    chosen: dict[str, Member] = {}
    for name in settled.unknown:
        if name.key not in mapping:
            continue
        member = live.get(mapping[name.key])
        if member is None:
            sheet, row = name.places[0]
            raise ImportFailed([Problem(sheet, row, "", str(MEMBER_GONE) % {"name": name.name})])
        chosen[name.key] = member
    # Every game with the names as chosen: its seats checked as game_preview checks them, and
    # the duplicates found as the club has them now (each day is checked again under the lock
    # when it is written), a chunk of games per query. Nothing is settled again.
    seats = {
        **members,
        **{
            u.placeholder_pk: chosen.get(u.key) or Member(club=club, pk=u.placeholder_pk)
            for u in settled.unknown
        },
    }
    outcome = Imported()
    writes = 0
    problems: list[Problem] = []
    for first in range(0, len(settled.games), CHUNK):
        chunk = [
            _planned(r, seats, versions, result=False) for r in settled.games[first : first + CHUNK]
        ]
        for planned in chunk:
            try:
                services.check_members(club=club, data=planned.data)
            except ServiceError as e:
                problems += _error_problems(planned.source, e)
        for planned in _mark_duplicates(club, chunk):
            writes += not _skipped(planned, duplicates, previewed, outcome)
    if problems:
        raise ImportFailed(problems)
    plan = Plan(club, Parsed(), list(live.values()), [], chosen, unknown=settled.unknown)
    if not writes and not plan.new_names:
        return _Begun(None, {}, versions, outcome, [])
    created = _create_members(plan, user, kana)
    members.update(created)
    members.update({u.placeholder_pk: chosen[u.key] for u in settled.unknown if u.key in chosen})
    batch = ImportBatch.objects.create(
        club=club, user=user, filename=filename[:200], days_planned=days, touched=now
    )
    outcome = Imported(members=len(created), batch=batch.pk)
    return _Begun(batch, members, versions, outcome, sorted(m.pk for m in created.values()))


def _import_stop(
    batch: ImportBatch, day: datetime.date, user: models_audit.User, games: int
) -> None:
    """The action that marks a batch stopped at `day` (its earlier days stay imported)."""
    with action():
        lock_club(batch.club_id)
        ImportBatch.objects.filter(pk=batch.pk).update(
            status=ImportBatch.FAILED, failed_day=day, touched=timezone.now()
        )
        models_audit.audit(
            club=batch.club,
            actor=user,
            action="import.stop",
            target=f"import:{batch.pk}",
            after={"batch": batch.pk, "failed_day": day.isoformat(), "games": games},
        )


def import_stored(
    *,
    club: Club,
    settled: Settled,
    user: models_audit.User,
    mapping: Mapping[str, int],
    kana: Mapping[str, str],
    duplicates: bool,
    previewed_duplicates: Sequence[int] = (),
    filename: str = "",
    begun: Callable[[ImportBatch], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Imported:
    """Import a workbook as its preview settled it (`settled`) and the organiser confirmed it
    (`mapping`: UnknownName.key → the pk of the member chosen; `kana`: readings of new members),
    in short transactions, as pretix imports orders: each run of whole days (_steps: at most
    STEP_GAMES games, or one longer day) is one action (the club locked, those days' games
    checked for duplicates and written with their rows, kept totals, books and audit entries,
    the batch's count moved, `progress(days done, days planned)` called, committed); the first
    action also begins the batch (_import_begin_in: the plan
    checked, the new members, the ImportBatch; `begun` is told it there), and a last action
    ends the batch and audits it. A game recorded at the table meanwhile waits for one day's
    transaction at most; another import of the club waits for this one. Games the club has
    already are skipped unless `duplicates`; those recorded since the preview (not in
    `previewed_duplicates`, indexes of games in date order) always are.

    Raises ImportFailed: with nothing stored when the plan no longer fits the club or the first
    transaction fails; when a later one fails, the days before its first day stay imported, the
    batch is marked failed at that day (it can be voided, batch_void) and the problems name the
    day."""
    previewed = set(previewed_duplicates)
    steps = _steps(settled.games)
    days = sum(len(dates) for dates, _rows in steps)
    start: _Begun | None = None
    game_ids: list[int] = []
    done = days_done = 0
    gap = WriterGap()
    while done < len(steps):
        dates, rows = steps[done]
        date = dates[0]
        planned: list[PlannedGame] = []
        if done:
            gap()  # on SQLite, a game recorded meanwhile gets the write lock (WriterGap)
        if start is not None:  # the seats' members are known: the games made outside the lock
            planned = [_planned(r, start.members, start.versions) for r in rows]
        try:
            with action():
                lock_club(club.pk)
                if start is None:
                    start = _import_begin_in(
                        club=club,
                        settled=settled,
                        user=user,
                        mapping=mapping,
                        kana=kana,
                        duplicates=duplicates,
                        previewed=previewed,
                        filename=filename,
                        days=days,
                    )
                    if start.batch is None:
                        return start.outcome
                    if begun is not None:
                        begun(start.batch)
                if not planned:
                    planned = [_planned(r, start.members, start.versions) for r in rows]
                checked = [
                    (g.data, g.preview)
                    for g in _mark_duplicates(club, planned)
                    if not _skipped(g, duplicates, previewed, start.outcome)
                ]
                written = services.games_record_bulk(
                    club=club, user=user, games=checked, batch=start.batch
                )
                ImportBatch.objects.filter(pk=start.batch.pk).update(
                    days_done=days_done + len(dates),
                    games=len(game_ids) + len(written),
                    touched=timezone.now(),
                )
                if progress is not None:
                    progress(days_done + len(dates), days)
        except _Busy:
            start = None
            time.sleep(WAIT_EVERY)  # another import of the club is running: one at a time
            continue
        except BaseException as e:
            if done == 0:  # the first day's action rolled back the batch and the members too
                if isinstance(e, ServiceError):
                    raise ImportFailed(_error_problems(planned[0].source, e)) from None
                raise
            assert start is not None and start.batch is not None
            _import_stop(start.batch, datetime.date.fromisoformat(date), user, len(game_ids))
            if not isinstance(e, ServiceError):
                raise
            shown = date_format(datetime.date.fromisoformat(date), "Y/m/d")
            stop = Problem(planned[0].source.sheet, planned[0].source.rows[0], "", "")
            problems = [replace(stop, message=str(DAY_FAILED) % {"date": shown})]
            raise ImportFailed(problems + _error_problems(planned[0].source, e)) from None
        game_ids += [g.pk for g in written]
        days_done += len(dates)
        done += 1
    assert start is not None and start.batch is not None
    outcome, batch = start.outcome, start.batch
    outcome.games = len(game_ids)
    with action():
        lock_club(club.pk)
        ImportBatch.objects.filter(pk=batch.pk).update(
            status=ImportBatch.DONE, touched=timezone.now()
        )
        models_audit.audit(
            club=club,
            actor=user,
            action="import.apply",
            target=f"import:{batch.pk}",
            after={
                "batch": batch.pk,
                "games": game_ids,
                "skipped_duplicates": outcome.skipped,
                **({"recorded_meanwhile": n} if (n := outcome.recorded_meanwhile) else {}),
                "members": start.created,
                "mapped": {u.name: mapping[u.key] for u in settled.unknown if u.key in mapping},
            },
        )
    return outcome


VOID_REASON = gettext_lazy("The import of %(file)s was voided.")
BATCH_GONE = gettext_lazy("This import is already void.")
BATCH_RUNNING = gettext_lazy("This import is still running: void it once it has stopped.")


def batch_void(*, club: Club, batch_id: int, user: models_audit.User) -> ImportBatch:
    """Undo an import: every live game of its batch voided, in one action, with one audit entry
    naming the batch (nothing is deleted: the games stay, struck through, and count nowhere).
    The kept totals, statistics and books move back as a game void moves them
    (league.recording.services.game_void_in), for all the games at once. Refused while the
    batch is still being written, and for a batch voided already."""
    with action():
        lock_club(club.pk)
        batch = for_update(ImportBatch.objects).filter(pk=batch_id, club=club).first()
        if batch is None or batch.voided:
            raise ServiceError.one(NON_FIELD, str(BATCH_GONE))
        running = batch.status == ImportBatch.RUNNING
        if running and batch.touched >= timezone.now() - ImportUpload.STALLED_AFTER:
            raise ServiceError.one(NON_FIELD, str(BATCH_RUNNING))
        reason = (str(VOID_REASON) % {"file": batch.filename or batch.pk})[:200]
        games = list(
            for_update(Game.objects)
            .filter(import_batch=batch, voided=False)
            .order_by("pk")
            .values_list("pk", "day_id")
        )
        ids = [pk for pk, _day in games]
        Game.objects.filter(pk__in=ids).update(
            voided=True, void_reason=reason, updated_at=timezone.now()
        )
        services.games_uncount_in(
            club_id=club.pk, game_ids=ids, day_ids=[day for _pk, day in games]
        )
        now = timezone.now()
        before = {"status": batch.status, "games": batch.games, "voided": False}
        ImportBatch.objects.filter(pk=batch.pk).update(
            voided=True, voided_at=now, void_reason=reason, touched=now
        )
        batch.refresh_from_db()
        models_audit.audit(
            club=club,
            actor=user,
            action="import.void",
            target=f"import:{batch.pk}",
            before=before,
            after={"voided": True, "games": ids},
            reason=reason,
        )
    return batch
