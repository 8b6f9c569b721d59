"""Charts as server-rendered SVG: pure functions from integers to an SVG string.

No JavaScript, so a strict Content-Security-Policy holds: colours and dashes are SVG presentation
attributes (not `style`), the rest is in static/league/charts.css. Every piece of text goes through
`format_html`, so a member's name is always escaped. Coordinates are computed in tenths of an SVG
unit with integer arithmetic and written with one decimal ("12.3").

The drawing is sized by its viewBox and scales to the width of the page: on a 390px phone one SVG
unit is about one CSS pixel, which is what the font sizes in charts.css assume.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from league.core.format import score

WIDTH = 360
FONT = 11  # px, the chart's text size (charts.css); the height of a line of labels
# Ten colours that stay apart from each other on white (Tableau 10); series 11-20 reuse them dashed.
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
DASHES = ("", "6 3", "2 2", "8 3 2 3")

Point = tuple[int, int]  # (x, y); y in tenths of 1,000 points, as scores are stored
Series = tuple[str, Sequence[Point]]


@dataclass(frozen=True)
class Bar:
    label: str
    value: int
    text: str = ""  # shown after the bar, e.g. "3 (25.00%)"


# --- drawing helpers --------------------------------------------------------------------------


def series_style(index: int) -> tuple[str, str]:
    """The colour and dash pattern of the `index`-th series: 10 colours, then the same dashed."""
    return PALETTE[index % len(PALETTE)], DASHES[index // len(PALETTE) % len(DASHES)]


def _n(tenths: int) -> str:
    """Tenths of an SVG unit as a coordinate: 1234 → "123.4"."""
    sign = "-" if tenths < 0 else ""
    return f"{sign}{abs(tenths) // 10}.{abs(tenths) % 10}"


def _scale(value: int, low: int, high: int, length: int) -> int:
    """`value` in [low, high] as tenths of a unit along `length` units, rounded half up."""
    return ((value - low) * length * 20 + (high - low)) // (2 * (high - low))


def _join(parts: Sequence[SafeString]) -> SafeString:
    return mark_safe("".join(parts))  # every part comes from format_html


def _svg(height: int, title: str, body: Sequence[SafeString], css: str) -> SafeString:
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" class="chart {}" '
        'role="img" aria-label="{}"><title>{}</title>{}</svg>',
        WIDTH,
        height,
        css,
        title,
        title,
        _join(body),
    )


def _empty(height: int, title: str, text: str | None, css: str) -> SafeString:
    message = format_html(
        '<text x="{}" y="{}" text-anchor="middle" class="empty">{}</text>',
        WIDTH // 2,
        height // 2,
        text or gettext("No games yet"),
    )
    return _svg(height, title, [message], css)


def swatch(index: int) -> SafeString:
    """A short line in the `index`-th series' colour and dash, for a legend outside the chart."""
    colour, dash = series_style(index)
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 8" class="swatch" '
        'aria-hidden="true"><line x1="0" y1="4" x2="24" y2="4" stroke="{}" stroke-width="3"'
        "{}/></svg>",
        colour,
        format_html(' stroke-dasharray="{}"', dash) if dash else "",
    )


# --- line chart -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Frame:
    """Where the plot sits in the viewBox and the data ranges it shows."""

    left: int
    top: int
    width: int
    height: int
    x_low: int
    x_high: int
    y_low: int
    y_high: int

    def x(self, value: int) -> int:
        return self.left * 10 + _scale(value, self.x_low, self.x_high, self.width)

    def y(self, value: int) -> int:
        return (self.top + self.height) * 10 - _scale(value, self.y_low, self.y_high, self.height)


def _frame(series: Sequence[Series], height: int, right: int) -> _Frame:
    xs = [x for _label, points in series for x, _y in points]
    ys = [y for _label, points in series for _x, y in points]
    # The zero line is always in view: above it is winning, below it is losing.
    y_low, y_high = min(0, *ys), max(0, *ys)
    x_low, x_high = min(xs), max(xs)
    left, top, bottom = 46, FONT, FONT + 10
    return _Frame(
        left=left,
        top=top,
        width=WIDTH - left - right,
        height=height - top - bottom,
        x_low=x_low,
        x_high=x_high if x_high > x_low else x_low + 1,
        y_low=y_low,
        y_high=y_high if y_high > y_low else y_low + 10,
    )


def _y_axis(f: _Frame, y_text: Callable[[int], str] = score) -> list[SafeString]:
    """Grid lines and labels at the highest value, zero and the lowest value."""
    parts = []
    placed: list[int] = []
    for value in (0, f.y_high, f.y_low):
        y = f.y(value)
        if any(abs(y - other) < FONT * 10 for other in placed):
            continue  # too close to a label already drawn (zero is drawn first, always)
        placed.append(y)
        parts.append(
            format_html(
                '<line x1="{}" y1="{}" x2="{}" y2="{}" class="{}"/>'
                '<text x="{}" y="{}" text-anchor="end" class="axis">{}</text>',
                f.left,
                _n(y),
                f.left + f.width,
                _n(y),
                "zero" if value == 0 else "grid",
                f.left - 4,
                _n(y + 35),
                y_text(value),
            )
        )
    return parts


def _x_axis(f: _Frame, labels: Sequence[tuple[int, str]]) -> list[SafeString]:
    baseline = f.top + f.height + FONT + 6
    parts = []
    for x, text in labels:
        at = f.x(x)
        # Near an end of the axis the text runs inwards, so that it stays inside the drawing.
        near_left, near_right = at < (f.left + 20) * 10, at > (f.left + f.width - 20) * 10
        anchor = "start" if near_left else "end" if near_right else "middle"
        parts.append(
            format_html(
                '<text x="{}" y="{}" text-anchor="{}" class="axis">{}</text>',
                _n(at),
                baseline,
                anchor,
                text,
            )
        )
    return parts


def _line(f: _Frame, index: int, label: str, points: Sequence[Point], markers: bool) -> SafeString:
    colour, dash = series_style(index)
    d = " ".join(
        f"{'M' if i == 0 else 'L'}{_n(f.x(x))} {_n(f.y(y))}" for i, (x, y) in enumerate(points)
    )
    path = format_html(
        '<path d="{}" class="series" stroke="{}"{}><title>{}</title></path>',
        d,
        colour,
        format_html(' stroke-dasharray="{}"', dash) if dash else "",
        label,
    )
    if not markers:
        return path
    dots = format_html_join(
        "",
        '<circle cx="{}" cy="{}" r="2.5" fill="{}" class="marker"/>',
        ((_n(f.x(x)), _n(f.y(y)), colour) for x, y in points),
    )
    return format_html("{}{}", path, dots)


def _end_labels(f: _Frame, series: Sequence[Series], texts: Sequence[str]) -> list[SafeString]:
    """Text at the end of each line, every one of them: labels that would overlap are moved
    apart, a line of text each, keeping their order from the top; a label moved off its line's
    end is joined to it by a short stroke. Only where the chart is too short for them all are
    the last ones (in series order) left out."""
    gap = FONT * 10  # a line of text, in tenths of a pixel as the viewBox counts
    wanted = []  # (centre of the text, series index, text, x, line end's y)
    for index, ((_label, points), text) in enumerate(zip(series, texts, strict=False)):
        if not points or not text:
            continue
        x, y = points[-1]
        wanted.append((f.y(y), index, text, f.x(x), f.y(y)))
    room = (f.height + FONT) * 10 // gap  # lines of text the plot's height holds
    wanted = sorted(wanted[:room] if len(wanted) > room else wanted, key=lambda w: (w[0], w[1]))
    top, bottom = (f.top - FONT // 2) * 10, (f.top + f.height + FONT // 2) * 10
    centres: list[int] = []
    for centre, *_rest in wanted:  # downwards: each at least a line below the one above
        centres.append(max(centre, centres[-1] + gap) if centres else max(centre, top))
    if centres and centres[-1] > bottom:  # then upwards from the bottom, within the plot
        centres[-1] = bottom
        for i in range(len(centres) - 2, -1, -1):
            centres[i] = min(centres[i], centres[i + 1] - gap)
    parts = []
    for centre, (_wanted, index, text, x, end_y) in zip(centres, wanted, strict=True):
        colour = series_style(index)[0]
        if abs(centre - end_y) > gap // 2:  # moved: a stroke from the line's end to the text
            parts.append(
                format_html(
                    '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" class="leader"/>',
                    _n(x),
                    _n(end_y),
                    _n(x + 36),
                    _n(centre),
                    colour,
                )
            )
        # The baseline a third of the font below the centre centres the text on it.
        parts.append(
            format_html(
                '<text x="{}" y="{}" class="end" fill="{}">{}</text>',
                _n(x + 40),
                _n(centre + FONT * 10 // 3),
                colour,
                text,
            )
        )
    return parts


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    x_labels: Sequence[tuple[int, str]] = (),
    end_labels: Sequence[str] = (),
    height: int = 200,
    right: int = 48,
    markers: bool = False,
    empty_text: str | None = None,
    y_text: Callable[[int], str] = score,
) -> SafeString:
    """Lines of (x, y) points, y in tenths as scores are stored, with a zero line.

    `series` are drawn in order with `series_style(i)`: put the most important first. `end_labels`
    are the texts at the lines' ends (a name, or the last value), `right` the room they get.
    """
    drawn = [(label, points) for label, points in series if points]
    if not drawn:
        return _empty(height, title, empty_text, "line-chart")
    f = _frame(drawn, height, right)
    body = [
        *_y_axis(f, y_text),
        *_x_axis(f, x_labels),
        *(
            _line(f, i, label, points, markers)
            for i, (label, points) in enumerate(series)
            if points
        ),
        *_end_labels(f, series, end_labels),
    ]
    return _svg(height, title, body, "line-chart")


# --- bar chart --------------------------------------------------------------------------------

BAR_ROW = 30
BAR_HEIGHT = 20
BAR_LEFT = 40  # the labels ("1st") sit left of the bars
BAR_TEXT = 96  # room for "12 (100.00%)" after the longest bar


def bar_chart(bars: Sequence[Bar], *, title: str, empty_text: str | None = None) -> SafeString:
    """Horizontal bars, their lengths proportional to their values, each with its text after it."""
    height = max(len(bars), 1) * BAR_ROW + 4
    largest = max((bar.value for bar in bars), default=0)
    if largest <= 0:
        return _empty(max(height, 60), title, empty_text, "bar-chart")
    length = WIDTH - BAR_LEFT - BAR_TEXT
    body = []
    for i, bar in enumerate(bars):
        top = i * BAR_ROW + 2
        width = _scale(max(bar.value, 0), 0, largest, length)
        body.append(
            format_html(
                '<text x="{}" y="{}" text-anchor="end" class="label">{}</text>'
                '<rect x="{}" y="{}" width="{}" height="{}" class="bar bar-{}"/>'
                '<text x="{}" y="{}" class="value">{}</text>',
                BAR_LEFT - 6,
                top + BAR_HEIGHT // 2 + 4,
                bar.label,
                BAR_LEFT,
                top,
                _n(width),
                BAR_HEIGHT,
                i + 1,
                _n(BAR_LEFT * 10 + width + 50),
                top + BAR_HEIGHT // 2 + 4,
                bar.text,
            )
        )
    return _svg(height, title, body, "bar-chart")
