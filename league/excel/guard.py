"""Checks an uploaded .xlsx against fixed budgets before anything parses it for real.

A workbook is a zip of XML parts, and both layers can claim far more work than the upload's
size suggests: a zip member can unpack a thousandfold, a sheet can name row 5,000,000 in its
first row (readers then make up every row before it), a shared-string table can hold ten
million entries, XML can nest a hundred thousand deep. `workbook_guard` reads the zip's
directory, then streams every XML part once through expat (constant memory, no tree), and
counts members, unpacked bytes, elements, nesting, rows (a jump in row numbers counts every
row it skips), cells and shared strings against the budgets below: the first budget exceeded
refuses the whole file, with a message naming it. Its cost is bounded by the budgets, not by
what the XML claims.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass
from typing import IO
from xml.parsers import expat

from django.utils.translation import gettext_lazy

MAX_MEMBERS = 500
MAX_UNPACKED_BYTES = 40 * 1024 * 1024
MAX_RATIO = 100  # unpacked / packed, for members over RATIO_FROM bytes
RATIO_FROM = 1024 * 1024
MAX_ELEMENTS = 4_000_000
MAX_DEPTH = 64
MAX_ROWS = 200_000
MAX_CELLS = 500_000
MAX_ROW_CELLS = 16_384  # Excel's columns: a reader holds a whole row at once
MAX_STRINGS = 500_000
MAX_TEXT = 32_767  # Excel's longest cell text, in characters: one text node of any part
CHUNK = 64 * 1024
SHEET_ROOTS = frozenset({"worksheet", "dialogsheet", "macrosheet", "chartsheet"})
# Parts the reader parses into objects (openpyxl's reader: package, workbook, links, styles,
# strings, sheets): besides their rows, cells and strings, each may hold this many elements.
PARSED_ROOTS = SHEET_ROOTS | {
    "sst",
    "styleSheet",
    "workbook",
    "Types",
    "Relationships",
    "coreProperties",
    "externalLink",
}
MAX_PART_ELEMENTS = 200_000
MAX_ITEM_ELEMENTS = 2_000  # inside one cell or one shared string (rich text runs, phonetics)

NOT_XLSX = gettext_lazy(
    "This is not an Excel workbook (.xlsx). Save the sheet as an .xlsx file and upload that."
)
TOO_MANY_PARTS = gettext_lazy("The workbook has more than %(n)s parts: it is not a score sheet.")
TOO_BIG_UNPACKED = gettext_lazy(
    "The workbook unpacks to more than %(mb)s MB. Split it into smaller workbooks."
)
ZIP_BOMB = gettext_lazy(
    "A part of the workbook (%(part)s) unpacks to more than %(ratio)s times its packed size: "
    "the file is refused."
)
TOO_DEEP = gettext_lazy(
    "A part of the workbook (%(part)s) nests its XML more than %(n)s levels deep: the file is "
    "refused."
)
TOO_MANY_ELEMENTS = gettext_lazy(
    "The workbook's XML has more than %(n)s elements. Split it into smaller workbooks."
)
TOO_MANY_ROWS = gettext_lazy(
    "The workbook has more than %(rows)s rows. Split it into smaller workbooks."
)
PHANTOM_ROWS = gettext_lazy(
    "A sheet of the workbook (%(part)s) jumps to row %(row)s: counting the rows it skips, the "
    "workbook has more than %(rows)s rows. Delete the empty rows or split the workbook."
)
TOO_MANY_CELLS = gettext_lazy(
    "The workbook has more than %(n)s cells. Split it into smaller workbooks."
)
TOO_MANY_ROW_CELLS = gettext_lazy(
    "Row %(row)s of a sheet of the workbook (%(part)s) has more than %(n)s cells: the file is "
    "refused."
)
TOO_MANY_STRINGS = gettext_lazy(
    "The workbook's table of texts has more than %(n)s entries. Split it into smaller workbooks."
)
TOO_LONG_TEXT = gettext_lazy(
    "A part of the workbook (%(part)s) holds a text longer than %(n)s characters (Excel's "
    "limit for a cell): the file is refused."
)
TOO_MANY_PART_ELEMENTS = gettext_lazy(
    "A part of the workbook (%(part)s) has more than %(n)s XML elements besides its cells: the "
    "file is refused."
)
TOO_MANY_ITEM_ELEMENTS = gettext_lazy(
    "A cell or text of the workbook (%(part)s) holds more than %(n)s XML elements: the file is "
    "refused."
)
DOCTYPE = gettext_lazy("The workbook's XML declares a document type: the file is refused.")


class Refused(Exception):
    """The upload exceeds a budget or is no workbook; `message` says which, for the organiser."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


@dataclass
class Budget:
    elements: int = 0
    rows: int = 0
    cells: int = 0
    strings: int = 0


def _local(name: str) -> str:
    return name.rpartition(":")[2]


def _row_number(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


class _Scan:
    """One XML part through expat: start tags only, counted against the shared budget."""

    def __init__(self, part: str, budget: Budget):
        self.part, self.budget = part, budget
        # What the part is, by its root element rather than its name (a workbook's
        # relationships may point anywhere).
        self.sheet = self.strings = self.parsed = False
        self.elements = 0  # this part's, besides rows, cells and strings
        self.item = 0  # the depth of the cell or shared string being read (0: none)
        self.item_elements = 0
        self.depth = 0
        self.row = 0  # the last row number seen in this sheet
        self.row_cells = 0  # cells of that row so far
        self.text = 0  # characters of the current text node

    def start(self, name: str, attrs: dict[str, str]) -> None:
        budget = self.budget
        self.text = 0
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Refused(str(TOO_DEEP) % {"part": self.part, "n": MAX_DEPTH})
        budget.elements += 1
        if budget.elements > MAX_ELEMENTS:
            raise Refused(str(TOO_MANY_ELEMENTS) % {"n": f"{MAX_ELEMENTS:,}"})
        tag = _local(name)
        if self.depth == 1:
            self.sheet = tag in SHEET_ROOTS
            self.strings = tag == "sst"
            self.parsed = tag in PARSED_ROOTS
        if self.item:  # inside a cell or a shared string
            self.item_elements += 1
            if self.item_elements > MAX_ITEM_ELEMENTS:
                message = str(TOO_MANY_ITEM_ELEMENTS)
                raise Refused(message % {"part": self.part, "n": f"{MAX_ITEM_ELEMENTS:,}"})
            return
        item = (self.sheet and tag == "c") or (self.strings and tag == "si")
        if item:
            self.item, self.item_elements = self.depth, 0
        elif self.parsed and not (self.sheet and tag == "row"):
            self.elements += 1
            if self.elements > MAX_PART_ELEMENTS:
                message = str(TOO_MANY_PART_ELEMENTS)
                raise Refused(message % {"part": self.part, "n": f"{MAX_PART_ELEMENTS:,}"})
        if self.sheet and tag == "c":
            budget.cells += 1
            if budget.cells > MAX_CELLS:
                raise Refused(str(TOO_MANY_CELLS) % {"n": f"{MAX_CELLS:,}"})
            self.row_cells += 1
            if self.row_cells > MAX_ROW_CELLS:
                message = str(TOO_MANY_ROW_CELLS)
                raise Refused(
                    message % {"row": f"{self.row:,}", "part": self.part, "n": f"{MAX_ROW_CELLS:,}"}
                )
        elif self.sheet and tag == "row":
            number = _row_number(attrs.get("r"))
            # Readers make up every row a jump skips: count them all. A row number going back
            # counts one row, like a row without a number.
            step = number - self.row if number is not None and number > self.row else 1
            self.row = max(self.row + 1, number or 0)
            self.row_cells = 0
            budget.rows += step
            if budget.rows > MAX_ROWS:
                if step > 1:
                    raise Refused(
                        str(PHANTOM_ROWS)
                        % {"part": self.part, "row": f"{number:,}", "rows": f"{MAX_ROWS:,}"}
                    )
                raise Refused(str(TOO_MANY_ROWS) % {"rows": f"{MAX_ROWS:,}"})
        elif self.strings and tag == "si":
            budget.strings += 1
            if budget.strings > MAX_STRINGS:
                raise Refused(str(TOO_MANY_STRINGS) % {"n": f"{MAX_STRINGS:,}"})
        elif self.strings and tag == "sst":
            claimed = _row_number(attrs.get("uniqueCount"))  # "count" counts the uses
            if claimed is not None and claimed > MAX_STRINGS:
                raise Refused(str(TOO_MANY_STRINGS) % {"n": f"{MAX_STRINGS:,}"})

    def end(self, name: str) -> None:
        if self.depth == self.item:
            self.item = 0
        self.depth -= 1
        self.text = 0

    def characters(self, data: str) -> None:
        self.text += len(data)  # expat may hand one text node over in several pieces
        if self.text > MAX_TEXT:
            raise Refused(str(TOO_LONG_TEXT) % {"part": self.part, "n": f"{MAX_TEXT:,}"})

    def run(self, stream: IO[bytes] | _Rewound) -> None:
        parser = expat.ParserCreate()
        parser.StartElementHandler = self.start
        parser.EndElementHandler = self.end
        parser.CharacterDataHandler = self.characters
        parser.buffer_text = True  # one call per text node where the buffer allows

        def doctype(*args: object) -> None:
            raise Refused(str(DOCTYPE))

        parser.StartDoctypeDeclHandler = doctype
        parser.EntityDeclHandler = doctype
        try:
            while chunk := stream.read(CHUNK):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
        except expat.ExpatError:
            raise Refused(str(NOT_XLSX)) from None


def _looks_like_xml(head: bytes) -> bool:
    """Whatever an XML parser would take for XML, whatever the part's name: a byte-order mark
    (UTF-8, UTF-16 or UTF-32), or "<" after white space (and the zero bytes of UTF-16 or
    UTF-32 without a mark)."""
    if head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        return True
    return head.lstrip(b" \t\r\n\x00").startswith(b"<")


class _Rewound:
    """A stream whose first chunk was read already."""

    def __init__(self, head: bytes, rest: IO[bytes]):
        self.head, self.rest = head, rest

    def read(self, size: int) -> bytes:
        if self.head:
            head, self.head = self.head, b""
            return head
        return self.rest.read(size)


def workbook_guard(data: bytes) -> None:
    """Raise Refused unless `data` is a zip whose every XML part keeps within the budgets."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, RuntimeError):
        raise Refused(str(NOT_XLSX)) from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise Refused(str(TOO_MANY_PARTS) % {"n": MAX_MEMBERS})
        if sum(info.file_size for info in infos) > MAX_UNPACKED_BYTES:
            raise Refused(str(TOO_BIG_UNPACKED) % {"mb": MAX_UNPACKED_BYTES // (1024 * 1024)})
        for info in infos:
            if info.file_size > RATIO_FROM and info.file_size > MAX_RATIO * max(
                info.compress_size, 1
            ):
                raise Refused(str(ZIP_BOMB) % {"part": info.filename, "ratio": MAX_RATIO})
        budget = Budget()
        for info in infos:
            try:
                # zipfile never unpacks more than the directory's size for a member, and
                # checks the CRC at the end: the sizes counted above bound what is read.
                with archive.open(info) as stream:
                    head = stream.read(CHUNK)
                    if not _looks_like_xml(head):
                        continue  # an image or a binary part: nothing reads it as XML
                    _Scan(info.filename, budget).run(_Rewound(head, stream))
            except (zipfile.BadZipFile, zlib.error, ValueError, OSError, EOFError, RuntimeError):
                raise Refused(str(NOT_XLSX)) from None
