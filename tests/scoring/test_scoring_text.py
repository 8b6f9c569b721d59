"""Numbers as clubs write them: parse_integer for typed points, format_score for settled scores."""

from __future__ import annotations

import pytest

from scoring import format_score, parse_integer


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("25000", 25000),
        ("２５，０００", 25000),  # full-width digits and comma
        ("25,000", 25000),
        ("▲2,500", -2500),
        ("△300", -300),
        ("−1200", -1200),  # U+2212 MINUS SIGN
        ("-1200", -1200),
        ("＋300", 300),  # full-width plus
        ("+300", 300),
        ("25000点", 25000),
        (" 25000 ", 25000),
        ("0", 0),
        ("-0", 0),
    ],
)
def test_parse_integer_accepts(text, value):
    assert parse_integer(text) == value


@pytest.mark.parametrize(
    "text",
    ["", " ", "abc", "1.5", "--3", "+-3", "▲", "点", "25000点点", "1e3", "١٢٣", "2 5"],
)
def test_parse_integer_refuses(text):
    with pytest.raises(ValueError):
        parse_integer(text)


@pytest.mark.parametrize(
    ("tenths", "style", "text"),
    [
        (453, "plain", "45.3"),
        (-123, "plain", "-12.3"),
        (-123, "ja", "▲12.3"),
        (450, "ja", "+45.0"),
        (0, "ja", "0.0"),
        (0, "plain", "0.0"),
        (-5, "plain", "-0.5"),
        (5, "plain", "0.5"),
        (-5, "ja", "▲0.5"),
        (10, "plain", "1.0"),
        (-1000, "plain", "-100.0"),
        (123456, "plain", "12345.6"),
    ],
)
def test_format_score(tenths, style, text):
    assert format_score(tenths, style) == text


def test_format_score_defaults_to_plain():
    assert format_score(-123) == "-12.3"
    assert format_score(453) == "45.3"


@pytest.mark.parametrize("tenths", [0, 1, -1, 9, -9, 10, -10, 453, -123, 99999, -99999])
def test_format_score_reads_back_as_the_same_tenths(tenths):
    whole, _, tenth = format_score(tenths).partition(".")
    assert len(tenth) == 1
    sign = -1 if whole.startswith("-") else 1
    assert sign * (abs(parse_integer(whole)) * 10 + int(tenth)) == tenths
