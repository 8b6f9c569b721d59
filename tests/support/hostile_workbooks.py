"""Hostile workbooks: small .xlsx files whose XML claims far more work than their size.

Each builder returns the bytes of a file within the upload size limit. The sizes default to
those of the reports in issue 15 (the benchmark uses them); tests pass smaller ones that still
cross the budgets of league.excel.guard. Run as a script to write them all to a folder:
`python -m tests.league.hostile_workbooks OUT_DIR`.
"""

from __future__ import annotations

import io
import sys
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path

CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.worksheet+xml"/>'
    '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.sharedStrings+xml"/>'
    "</Types>"
)
ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
)
WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="2024" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/worksheet" Target="worksheets/sheet1.xml"/>'
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>'
)
SHEET_OPEN = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
)
HEADER = ["日付", "卓", "東", "素点", "南", "素点", "西", "素点", "北", "素点", "供託"]
GAME = ["2024-05-01", "A", "青木", 45000, "馬場", 31000, "千葉", 19000, "土井", 5000, 0]


def _column(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def row(number: int, values: Iterable[object]) -> str:
    """A row of inline strings and numbers."""
    cells = []
    for i, value in enumerate(values):
        ref = f"{_column(i)}{number}"
        if isinstance(value, int):
            cells.append(f'<c r="{ref}"><v>{value}</v></c>')
        else:
            cells.append(f'<c r="{ref}" t="inlineStr"><is><t>{_escape(str(value))}</t></is></c>')
    return f'<row r="{number}">{"".join(cells)}</row>'


def workbook(
    sheet_parts: Iterable[str],
    *,
    strings: Iterable[str] = (
        '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="0" uniqueCount="0"/>',
    ),
    compression: int = zipfile.ZIP_DEFLATED,
    extra: dict[str, bytes] | None = None,
    sheet_path: str = "xl/worksheets/sheet1.xml",
) -> bytes:
    """A minimal .xlsx whose sheet and shared-string XML are streamed from the given pieces."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compression) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", ROOT_RELS)
        archive.writestr("xl/workbook.xml", WORKBOOK)
        rels = WORKBOOK_RELS.replace("worksheets/sheet1.xml", sheet_path.removeprefix("xl/"))
        archive.writestr("xl/_rels/workbook.xml.rels", rels)
        for name, pieces in (
            (sheet_path, sheet_parts),
            ("xl/sharedStrings.xml", strings),
        ):
            with archive.open(name, "w", force_zip64=True) as member:
                buffer: list[str] = []
                size = 0
                for piece in pieces:
                    buffer.append(piece)
                    size += len(piece)
                    if size > 1 << 20:
                        member.write("".join(buffer).encode())
                        buffer, size = [], 0
                member.write("".join(buffer).encode())
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return out.getvalue()


def _sheet(body: Iterable[str], *, dimension: str | None = None) -> Iterable[str]:
    yield SHEET_OPEN
    if dimension:
        yield f'<dimension ref="{dimension}"/>'
    yield "<sheetData>"
    yield from body
    yield "</sheetData></worksheet>"


def valid(games: int = 2) -> bytes:
    """A plain simple-layout sheet: the control, previewed."""
    body = [row(1, HEADER), *(row(2 + i, GAME) for i in range(games))]
    return workbook(_sheet(body))


def phantom_row(number: int = 5_000_000) -> bytes:
    """A header, a game, then one cell at row `number`; no <dimension>."""
    return workbook(
        _sheet(
            [row(1, HEADER), row(2, GAME), f'<row r="{number}"><c r="A{number}"><v>1</v></c></row>']
        )
    )


def renamed_sheet(number: int = 5_000_000) -> bytes:
    """The phantom row in a sheet whose part is not named like XML (the relationships point to
    it: readers follow them)."""
    body = [row(1, HEADER), row(2, GAME), f'<row r="{number}"><c r="A{number}"><v>1</v></c></row>']
    return workbook(_sheet(body), sheet_path="xl/data/sheet1.bin")


def blank_rows(count: int = 6_000_000, *, numbered: bool = True, stored: bool = False) -> bytes:
    """`count` empty rows after a header, `<row r="n"/>` or (not `numbered`) `<row/>`.
    `stored`: not deflated (no zip-bomb ratio to catch)."""

    def body() -> Iterable[str]:
        yield row(1, HEADER)
        for n in range(2, count + 2):
            yield f'<row r="{n}"/>' if numbered else "<row/>"

    compression = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    return workbook(_sheet(body()), compression=compression)


def shared_strings(
    count: int = 10_000_000, *, claim: int | None = None, stored: bool = False
) -> bytes:
    """A shared-string table of `count` entries (claiming `claim` unique ones, when given)."""

    def strings() -> Iterable[str]:
        unique = f' uniqueCount="{claim}"' if claim is not None else ""
        yield f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"{unique}>'
        for _ in range(count):
            yield "<si><t/></si>"
        yield "</sst>"

    return workbook(
        _sheet([row(1, HEADER), row(2, GAME)]),
        strings=strings(),
        compression=zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED,
    )


def zip_bomb(megabytes: int = 1024) -> bytes:
    """A sheet padded with `megabytes` of spaces inside its XML (deflates about 1,000 to 1)."""

    def body() -> Iterable[str]:
        yield row(1, HEADER)
        chunk = " " * (1 << 20)
        for _ in range(megabytes):
            yield chunk

    return workbook(_sheet(body()))


def deep_nesting(depth: int = 100_000) -> bytes:
    """An element nested `depth` levels deep inside a cell."""
    return workbook(
        _sheet(
            [row(1, HEADER), '<row r="2"><c r="A2">', "<x>" * depth, "</x>" * depth, "</c></row>"]
        )
    )


def huge_dimension() -> bytes:
    """A sheet that claims every cell Excel allows and holds two games: previewed."""
    body = [row(1, HEADER), row(2, GAME), row(3, GAME)]
    return workbook(_sheet(body, dimension="A1:XFD1048576"))


def wide_row(cells: int = 2_000_000) -> bytes:
    """One row of `cells` empty cells, stored (no ratio to catch)."""
    return workbook(
        _sheet([row(1, HEADER), '<row r="2">', "<c/>" * cells, "</row>"]),
        compression=zipfile.ZIP_STORED,
    )


def many_cells(rows: int = 40, per_row: int = 13_000) -> bytes:
    """`rows` rows of `per_row` empty cells each, stored: within the per-row budget, over the
    workbook's."""

    def body() -> Iterable[str]:
        yield row(1, HEADER)
        for n in range(2, rows + 2):
            yield f'<row r="{n}">' + "<c/>" * per_row + "</row>"

    return workbook(_sheet(body()), compression=zipfile.ZIP_STORED)


def long_text(characters: int = 9_000_000) -> bytes:
    """One shared string of `characters` random letters (incompressible enough to pass the
    ratio): a reader would hold all of it."""
    import random

    text = "".join(random.Random(1).choices("abcdefghijklmnopqrstuvwxyz", k=characters))
    strings = [
        '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" uniqueCount="1">',
        f"<si><t>{text}</t></si></sst>",
    ]
    return workbook(_sheet([row(1, HEADER), row(2, GAME)]), strings=strings)


def many_styles(count: int = 700_000) -> bytes:
    """A style sheet of `count` cell formats, varied enough to pass the compression ratio
    (a reader builds an object for each)."""
    formats = "".join(
        f'<xf numFmtId="{i % 164}" fontId="{i % 7}" xfId="{i % 5}"/>' for i in range(count)
    )
    styles = (
        '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f'<cellXfs count="{count}">{formats}</cellXfs></styleSheet>'
    )
    return workbook(
        _sheet([row(1, HEADER), row(2, GAME)]), extra={"xl/styles.xml": styles.encode()}
    )


def rich_cell(runs: int = 500_000) -> bytes:
    """One cell of `runs` rich-text runs, stored (a reader holds the whole row's tree at
    once)."""
    body = [
        row(1, HEADER),
        '<row r="2"><c r="A2" t="inlineStr"><is>',
        "<r><t>x</t></r>" * runs,
        "</is></c></row>",
    ]
    return workbook(_sheet(body), compression=zipfile.ZIP_STORED)


def entity_expansion() -> bytes:
    """The "billion laughs": entities that expand to gigabytes."""
    doctype = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + "".join(
            f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'
            for i in range(1, 10)
        )
        + "]>"
    )
    body = (
        doctype
        + '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&lol9;</t></is></c></row></sheetData></worksheet>'
    )
    return workbook([body])


def many_parts(count: int = 5_000) -> bytes:
    """A workbook with `count` extra (empty) parts."""
    return workbook(
        _sheet([row(1, HEADER), row(2, GAME)]),
        extra={f"xl/media/p{i}.xml": b"<a/>" for i in range(count)},
    )


# name → (builder at the reported size, builder at a test size, refused?)
HOSTILE: dict[str, tuple[Callable[[], bytes], Callable[[], bytes], bool]] = {
    "phantom-row-5m": (phantom_row, lambda: phantom_row(300_000), True),
    "renamed-sheet-phantom-5m": (renamed_sheet, lambda: renamed_sheet(300_000), True),
    "blank-rows-6m": (
        lambda: blank_rows(6_000_000, numbered=False),
        lambda: blank_rows(250_000),
        True,
    ),
    "blank-rows-stored-1m": (
        lambda: blank_rows(1_000_000, numbered=False, stored=True),
        lambda: blank_rows(210_000, numbered=False, stored=True),
        True,
    ),
    "shared-strings-10m": (shared_strings, lambda: shared_strings(600_000), True),
    "shared-strings-stored-700k": (
        lambda: shared_strings(700_000, stored=True),
        lambda: shared_strings(510_000, stored=True),
        True,
    ),
    "shared-strings-claim": (
        lambda: shared_strings(10, claim=10_000_000),
        lambda: shared_strings(10, claim=10_000_000),
        True,
    ),
    "zip-bomb-1g": (zip_bomb, lambda: zip_bomb(30), True),
    "deep-nesting-100k": (deep_nesting, lambda: deep_nesting(1_000), True),
    "wide-row-2m": (wide_row, lambda: wide_row(600_000), True),
    "wide-row-20k": (lambda: wide_row(20_000), lambda: wide_row(20_000), True),
    "many-cells-520k": (many_cells, many_cells, True),
    "long-text-9m": (long_text, lambda: long_text(40_000), True),
    "many-styles-700k": (lambda: many_styles(700_000), lambda: many_styles(210_000), True),
    "rich-cell-500k": (rich_cell, lambda: rich_cell(3_000), True),
    "entity-expansion": (entity_expansion, entity_expansion, True),
    "many-parts": (many_parts, lambda: many_parts(600), True),
    "huge-dimension": (huge_dimension, huge_dimension, False),
    "valid": (lambda: valid(2), lambda: valid(2), False),
    # The largest workbook the budgets let through: 45,000 games of 11 cells (495,000 cells).
    "largest-allowed-45k-games": (lambda: valid(45_000), lambda: valid(500), False),
}


def main(argv: list[str]) -> None:
    folder = Path(argv[1] if len(argv) > 1 else "hostile-workbooks")
    folder.mkdir(parents=True, exist_ok=True)
    for name, (full, _small, _refused) in HOSTILE.items():
        data = full()
        (folder / f"{name}.xlsx").write_bytes(data)
        print(f"{name}.xlsx {len(data):,} bytes")


if __name__ == "__main__":
    main(sys.argv)
