"""league.standings.charts: SVG from integers, without a database."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest
from django.utils import translation

from league.standings import charts

SVG = "{http://www.w3.org/2000/svg}"
EVIL = "<script>alert(1)</script>"


def parse(svg: str) -> ET.Element:
    """The SVG as XML: fails the test when it is not well-formed."""
    return ET.fromstring(svg)


def elements(svg: str, tag: str) -> list[ET.Element]:
    return list(parse(svg).iter(SVG + tag))


@pytest.fixture(autouse=True)
def english_ui():
    with translation.override("en"):
        yield


def two_lines() -> list[charts.Series]:
    return [("青木", [(0, 0), (1, 450), (2, 520)]), ("馬場", [(0, 0), (1, -300), (2, -100)])]


# --- line chart ------------------------------------------------------------------------------


def test_line_chart_is_well_formed_svg_with_a_title():
    svg = charts.line_chart(two_lines(), title="Race", x_labels=[(1, "8/2"), (2, "8/16")])
    root = parse(svg)
    assert root.tag == SVG + "svg"
    assert root.get("role") == "img" and root.get("aria-label") == "Race"
    assert root.get("viewBox") == f"0 0 {charts.WIDTH} 200"
    assert root.find(SVG + "title").text == "Race"


def test_line_chart_draws_one_path_per_series():
    series = [(f"player {i}", [(0, 0), (1, i * 10)]) for i in range(20)]
    assert len(elements(charts.line_chart(series, title="t"), "path")) == 20


def test_line_chart_colours_ten_series_then_dashes_the_next_ten():
    series = [(f"player {i}", [(0, 0), (1, i * 10)]) for i in range(20)]
    paths = elements(charts.line_chart(series, title="t"), "path")
    styles = {(p.get("stroke"), p.get("stroke-dasharray")) for p in paths}
    assert len(styles) == 20
    assert all(p.get("stroke-dasharray") is None for p in paths[:10])
    assert all(p.get("stroke-dasharray") for p in paths[10:])


def test_line_chart_puts_the_highest_value_at_the_top_and_zero_between():
    svg = charts.line_chart([("a", [(0, 0), (1, 500), (2, -500)])], title="t", height=200)
    d = elements(svg, "path")[0].get("d")
    ys = [float(step.split()[1]) for step in d.split("L")]
    zero, top, bottom = ys
    assert top < zero < bottom  # SVG's y grows downwards
    assert zero == pytest.approx((top + bottom) / 2, abs=0.1)
    zero_line = next(e for e in elements(svg, "line") if e.get("class") == "zero")
    assert float(zero_line.get("y1")) == zero


def test_line_chart_labels_zero_the_highest_and_the_lowest_value():
    svg = charts.line_chart([("a", [(0, 0), (1, 450), (2, -123)])], title="t")
    texts = [t.text for t in elements(svg, "text") if t.get("class") == "axis"]
    assert texts == ["0.0", "+45.0", "-12.3"]


def test_line_chart_labels_every_line_moving_apart_those_that_would_overlap():
    # Issue 41: a game's chart labelled 3 of its 4 players (two ended on nearly the same points).
    series = [
        ("a", [(0, 0), (1, 500)]),
        ("b", [(0, 0), (1, 499)]),
        ("c", [(0, 0), (1, -500)]),
        ("d", [(0, 0), (1, -499)]),
    ]
    svg = charts.line_chart(series, title="t", end_labels=["A", "B", "C", "D"])
    ends = [t for t in elements(svg, "text") if t.get("class") == "end"]
    assert sorted(t.text for t in ends) == ["A", "B", "C", "D"]
    ys = sorted(float(t.get("y")) for t in ends)
    assert all(b - a >= charts.FONT for a, b in itertools.pairwise(ys))  # a line apart
    height = float(svg.split('viewBox="', 1)[1].split('"', 1)[0].split()[3])
    assert all(0 < y <= height for y in ys)  # inside the chart
    # The moved ones are joined to their lines' ends by a stroke.
    assert len([e for e in elements(svg, "line") if e.get("class") == "leader"]) >= 2


def test_line_chart_too_short_for_every_label_keeps_the_first_series():
    series = [(str(i), [(0, 0), (1, 10 * i)]) for i in range(40)]
    svg = charts.line_chart(series, title="t", end_labels=[str(i) for i in range(40)], height=100)
    ends = [t.text for t in elements(svg, "text") if t.get("class") == "end"]
    assert 0 < len(ends) < 40 and "0" in ends and "1" in ends


def test_line_chart_escapes_every_text():
    svg = charts.line_chart(
        [(EVIL, [(0, 0), (1, 100)])], title=EVIL, x_labels=[(1, EVIL)], end_labels=[EVIL]
    )
    assert "<script>" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    root = parse(svg)
    assert root.get("aria-label") == EVIL  # escaped in the markup, the same text when read
    assert [t.text for t in root.iter(SVG + "title")] == [EVIL, EVIL]


@pytest.mark.parametrize("series", [[], [("a", [])], [("a", []), ("b", [])]])
def test_line_chart_without_data_says_no_games_yet(series):
    svg = charts.line_chart(series, title="Score")
    root = parse(svg)
    assert [t.text for t in root.iter(SVG + "text")] == ["No games yet"]
    assert not elements(svg, "path")


def test_line_chart_with_one_point_or_a_flat_line_draws_it():
    assert len(elements(charts.line_chart([("a", [(0, 0)])], title="t"), "path")) == 1
    assert len(elements(charts.line_chart([("a", [(0, 0), (1, 0)])], title="t"), "path")) == 1


def test_line_chart_markers_only_when_asked():
    assert not elements(charts.line_chart(two_lines(), title="t"), "circle")
    assert len(elements(charts.line_chart(two_lines(), title="t", markers=True), "circle")) == 6


def test_x_labels_near_the_ends_run_inwards():
    svg = charts.line_chart(
        [("a", [(0, 0), (10, 100)])], title="t", x_labels=[(0, "a"), (5, "b"), (10, "c")]
    )
    anchors = [t.get("text-anchor") for t in elements(svg, "text") if t.text in "abc"]
    assert anchors == ["start", "middle", "end"]


# --- bar chart -------------------------------------------------------------------------------


def test_bar_chart_sizes_bars_in_proportion():
    bars = [charts.Bar("1st", 4, "4"), charts.Bar("2nd", 2, "2"), charts.Bar("3rd", 1, "1")]
    svg = charts.bar_chart(bars, title="Ranks")
    widths = [float(r.get("width")) for r in elements(svg, "rect")]
    assert widths[0] == charts.WIDTH - charts.BAR_LEFT - charts.BAR_TEXT
    assert widths[1] == pytest.approx(widths[0] / 2, abs=0.1)
    assert widths[2] == pytest.approx(widths[0] / 4, abs=0.1)


def test_bar_chart_shows_labels_and_texts_and_a_zero_bar():
    bars = [charts.Bar("1st", 3, "3 (75.00%)"), charts.Bar("2nd", 0, "0 (0.00%)")]
    svg = charts.bar_chart(bars, title="Ranks")
    texts = [t.text for t in elements(svg, "text")]
    assert texts == ["1st", "3 (75.00%)", "2nd", "0 (0.00%)"]
    assert [float(r.get("width")) for r in elements(svg, "rect")][1] == 0


def test_bar_chart_escapes_labels_and_texts():
    svg = charts.bar_chart([charts.Bar(EVIL, 1, EVIL)], title=EVIL)
    assert "<script>" not in svg
    assert [t.text for t in elements(svg, "text")] == [EVIL, EVIL]


@pytest.mark.parametrize("bars", [[], [charts.Bar("1st", 0), charts.Bar("2nd", 0)]])
def test_bar_chart_without_data_says_no_games_yet(bars):
    svg = charts.bar_chart(bars, title="Ranks")
    assert [t.text for t in elements(svg, "text")] == ["No games yet"]
    assert not elements(svg, "rect")


def test_swatch_matches_the_series_style():
    for index in (0, 9, 10, 19):
        line = elements(charts.swatch(index), "line")[0]
        colour, dash = charts.series_style(index)
        assert line.get("stroke") == colour
        assert line.get("stroke-dasharray") == (dash or None)
