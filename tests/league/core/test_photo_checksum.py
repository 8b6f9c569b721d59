"""Scores from a photo: the checksum step (league/core/photo/checksum.py) and the grouping of a
reader's lines into rows. Pure Python: these run with or without requirements-photo.txt."""

from __future__ import annotations

import pytest

from league.core import photo
from league.core.photo.checksum import Row, points, settle
from league.core.photo.lines import Line


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("45,000", 45000),
        ("４５，０００", 45000),
        ("▲3,200", -3200),
        ("△3200", -3200),
        ("−3,200", -3200),
        ("-300", -300),
        ("3.200", 3200),  # a comma seen as a full stop
        ("31800", 31800),
    ],
)
def test_points_are_read_as_people_write_them(text, value):
    assert points(text) == value


@pytest.mark.parametrize("text", ["+55.0", "-8.4", "45,00", "abc", "", "1位"])
def test_what_is_not_points_is_none(text):
    assert points(text) is None


def row(read, confidence=0.99, unsure=None):
    if unsure is None:
        unsure = "" if confidence >= 0.95 else "".join("x" if c.isdigit() else " " for c in read)
    return Row(name=None, points=points(read), confidence=confidence, read=read, unsure=unsure)


def test_rows_that_sum_pass_as_they_are():
    rows = settle([row("45,000"), row("31,800"), row("26,400"), row("▲3,200")], 100000, 4)
    assert [r.checksum for r in rows] == [True] * 4
    assert [r.points for r in rows] == [45000, 31800, 26400, -3200]
    assert not any(r.fixed for r in rows)


def test_an_unsure_digit_is_tried_against_its_likely_alternative():
    # 37,000 read as 31,000 (7 seen as 1), the reader unsure of that line.
    rows = settle([row("45,800"), row("31,000", 0.6), row("8,700"), row("8,500")], 100000, 4)
    assert [r.points for r in rows] == [45800, 37000, 8700, 8500]
    assert all(r.checksum for r in rows)
    assert rows[1].fixed and rows[1].to_json()["read"] == "31,000"


def test_a_sure_line_is_never_changed():
    rows = settle([row("45,800"), row("31,000"), row("8,700"), row("8,500")], 100000, 4)
    assert not any(r.checksum for r in rows)
    assert rows[1].points == 31000


def test_more_than_one_way_to_sum_is_flagged_not_guessed():
    # 1,100 → 7,100 and 31,800 → 37,800 would each add the missing 6,000: only one of them is
    # real, and the digits cannot tell which.
    rows = settle([row("50,000"), row("1,100", 0.5), row("31,800", 0.5), row("11,100")], 100000, 4)
    assert not any(r.checksum for r in rows)
    assert [r.points for r in rows] == [50000, 1100, 31800, 11100]
    # With the second reading sure, the one way left is taken.
    rows = settle([row("50,000"), row("1,100", 0.5), row("31,800"), row("11,100")], 100000, 4)
    assert [r.points for r in rows] == [50000, 7100, 31800, 11100]
    assert all(r.checksum for r in rows)


def test_a_missing_or_extra_row_flags_every_row():
    assert not any(r.checksum for r in settle([row("50,000"), row("50,000")], 100000, 4))
    three = settle([row("40,000"), row("35,000"), row("30,000")], 105000, 3)
    assert all(r.checksum for r in three)
    assert not any(r.checksum for r in settle([row("40,000"), row("35,000")], 105000, 3))


def test_an_unknown_digit_of_the_display_is_any_digit_once():
    unknown = Row(None, None, 0.8, read="3_000", unsure="x?xxx")
    rows = settle([row("45,800"), unknown, row("8,700"), row("8,500")], 100000, 4)
    assert [r.points for r in rows] == [45800, 37000, 8700, 8500]
    assert all(r.checksum for r in rows)


def test_lines_become_rows_of_name_and_points():
    lines = [
        Line("成績表 第3半荘", 0.99, 20, 10, 30),
        Line("名前", 0.99, 40, 60, 24),
        Line("点数", 0.99, 400, 60, 24),
        Line("青木", 0.99, 40, 110, 40),
        Line("45,000", 0.99, 420, 112, 40),
        Line("林直子", 0.99, 40, 180, 40),
        Line("▲", 0.90, 380, 181, 40),
        Line("3,200", 0.99, 420, 181, 40),
        Line("1位", 0.99, 5, 250, 40),
        Line("江藤", 0.99, 80, 252, 40),
        Line("58,200", 0.97, 420, 250, 40),
        Line("+68.2", 0.97, 600, 250, 40),
    ]
    rows = photo.rows_from_lines(lines)
    assert [(r.name, r.points) for r in rows] == [
        ("青木", 45000),
        ("林直子", -3200),
        ("江藤", 58200),
    ]
    settled = settle(rows, 100000, 3)
    assert all(r.checksum for r in settled)


def test_a_missed_minus_is_tried_where_the_reader_may_drop_it():
    # ▲5,000 read as 5000 with every digit sure: only the sign makes it sum.
    read = [row("52,500"), row("39,200"), row("13300"), row("5000")]
    assert not any(r.checksum for r in settle(read, 100000, 4))
    rows = settle(read, 100000, 4, signs=True)
    assert [r.points for r in rows] == [52500, 39200, 13300, -5000]
    assert all(r.checksum for r in rows) and rows[3].fixed


def test_a_lone_zero_is_a_row():
    lines = [Line("佐々木", 0.99, 40, 100, 40), Line("0", 0.99, 420, 100, 40)]
    assert [(r.name, r.points) for r in photo.rows_from_lines(lines)] == [("佐々木", 0)]
