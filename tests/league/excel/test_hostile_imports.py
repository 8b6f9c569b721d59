"""Hostile workbooks (tests/support/hostile_workbooks.py): every one is refused with a message
naming the problem, or previewed; never a long parse. Outcomes are asserted, never times."""

from __future__ import annotations

import pytest
from django.utils import translation

from league.excel import guard, imports
from tests.support import hostile_workbooks as hostile

REFUSALS = {
    "phantom-row-5m": "jumps to row 300,000",
    "renamed-sheet-phantom-5m": "(xl/data/sheet1.bin) jumps to row 300,000",
    "blank-rows-6m": "more than 200,000 rows",
    "blank-rows-stored-1m": "more than 200,000 rows",
    "shared-strings-10m": "(xl/sharedStrings.xml) unpacks to more than 100 times",
    "shared-strings-stored-700k": "table of texts has more than 500,000 entries",
    "shared-strings-claim": "table of texts has more than 500,000 entries",
    "zip-bomb-1g": "unpacks to more than 100 times its packed size",
    "deep-nesting-100k": "more than 64 levels deep",
    "wide-row-2m": "Row 2 of a sheet of the workbook (xl/worksheets/sheet1.xml) has more than 16,384",
    "long-text-9m": "(xl/sharedStrings.xml) holds a text longer than 32,767 characters",
    "many-cells-520k": "more than 500,000 cells",
    "wide-row-20k": "Row 2 of a sheet of the workbook (xl/worksheets/sheet1.xml) has more than 16,384",
    "many-styles-700k": "(xl/styles.xml) has more than 200,000 XML elements besides its cells",
    "rich-cell-500k": "A cell or text of the workbook (xl/worksheets/sheet1.xml) holds more than",
    "entity-expansion": "declares a document type",
    "many-parts": "more than 500 parts",
}


def read(data: bytes) -> imports.Parsed:
    with translation.override("en"):
        return imports.workbook_read(data, players=4)


@pytest.mark.parametrize("name", [n for n, (_f, _s, refused) in hostile.HOSTILE.items() if refused])
def test_hostile_workbooks_are_refused_with_a_message_naming_the_problem(name):
    _full, small, _refused = hostile.HOSTILE[name]
    with pytest.raises(imports.WorkbookError) as caught:
        read(small())
    assert REFUSALS[name] in caught.value.message


def test_every_refusal_is_tested():
    assert set(REFUSALS) == {n for n, (_f, _s, refused) in hostile.HOSTILE.items() if refused}


@pytest.mark.parametrize("name", ["huge-dimension", "valid"])
def test_a_claimed_dimension_costs_nothing_and_the_games_are_read(name):
    parsed = read(hostile.HOSTILE[name][1]())
    assert len(parsed.games) >= 2
    assert not parsed.problems


def test_a_renamed_sheet_part_is_read_and_counted_all_the_same(monkeypatch):
    """The guard finds XML by its content, not its name: the reader follows the workbook's
    relationships to a part of any name."""
    assert len(read(hostile.renamed_sheet(3)).games) == 1


def test_the_row_reader_counts_the_rows_a_jump_skips(monkeypatch):
    """Behind the guard, the reader itself stops at a jump: openpyxl's reader would make up a
    blank row for every row number skipped, and blank rows used to be skipped uncounted."""
    monkeypatch.setattr(imports, "MAX_ROWS", 100)
    with pytest.raises(imports.WorkbookError, match="more than 100 rows"):
        read(hostile.phantom_row(1_000))
    assert len(read(hostile.phantom_row(99)).games) == 1  # 99 rows: within the limit


def test_blank_rows_count_against_the_row_limit_in_the_reader(monkeypatch):
    monkeypatch.setattr(imports, "MAX_ROWS", 100)
    with pytest.raises(imports.WorkbookError, match="more than 100 rows"):
        read(hostile.blank_rows(200, stored=True))


def test_an_upload_of_a_hostile_workbook_is_refused_on_the_upload_page(organiser_client, club):
    from tests.support.imports import english, upload

    response = upload(english(organiser_client), club, hostile.phantom_row(5_000_000))
    assert response.status_code == 200
    assert "jumps to row 5,000,000" in response.content.decode()


def test_the_guard_reads_the_uniquecount_claim_before_the_entries(monkeypatch):
    calls = []
    original = guard._Scan.start

    def start(self, name, attrs):
        calls.append(name)
        original(self, name, attrs)

    monkeypatch.setattr(guard._Scan, "start", start)
    with pytest.raises(guard.Refused):
        guard.workbook_guard(hostile.shared_strings(10, claim=10_000_000))
    assert "si" not in calls


def test_inline_strings_read_as_openpyxl_reads_them_without_the_phonetic_guide():
    """Inline rich text: the plain text and every run, never the furigana (rPh)."""
    name = (
        '<c r="C2" t="inlineStr"><is><r><t>長谷川</t></r><r><rPr><b/></rPr><t xml:space="preserve">'
        ' 由美子</t></r><rPh sb="0" eb="3"><t>ハセガワ</t></rPh></is></c>'
    )
    cells = hostile.row(2, hostile.GAME).replace(
        '<c r="C2" t="inlineStr"><is><t>青木</t></is></c>', name
    )
    data = hostile.workbook(hostile._sheet([hostile.row(1, hostile.HEADER), cells]))
    (game,) = read(data).games
    assert game.names == ["長谷川 由美子", "馬場", "千葉", "土井"]
    assert game.points == [45000, 31000, 19000, 5000]
