"""Excel workbooks out: season standings, the game log, a day's payment sheet, a statement.

`write_sheet` is the one function that turns rows into a worksheet: headers in the UI language,
number formats that write negatives as clubs do (▲1,500), column widths that fit full-width
text, a frozen header row that is also repeated on every printed page, and text that never
becomes a formula. Cells hold computed numbers, never formulas: a phone's viewer shows a formula
it does not evaluate as 0.

Workbooks are write-only: openpyxl streams each row to a temporary file as it is appended, so a
club's whole game log needs the memory of one row, and `xlsx_response` sends the saved file.
"""

from __future__ import annotations

import datetime
import re
import tempfile
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import zip_longest
from typing import Any
from urllib.parse import quote

from django.http import FileResponse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from openpyxl import Workbook
from openpyxl.cell import Cell, WriteOnlyCell
from openpyxl.cell.cell import ERROR_CODES, ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet._write_only import WriteOnlyWorksheet
from openpyxl.worksheet.worksheet import Worksheet

import scoring
from league import money
from league.books import selectors as book_selectors
from league.core import format as jancho
from league.models import Club, Hand, LedgerEntry, Member, Season
from league.money import sharing
from league.standings import selectors as kept
from league.standings import stats
from league.standings.tables import HAND_KEYS, Shown, StandingsTable

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
GAME_LOG_PROPERTY = "janchou-game-log"  # wb.properties.title of a game log (the importer's cue)

# Excel reads a typed cell starting with these as a formula (or a DDE command: +cmd|'...'!A0).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
SHEET_TITLE_BAD = re.compile(r"[\[\]:*?/\\]")
FILE_NAME_BAD = re.compile(r'[\x00-\x1f\x7f\\/:*?"<>|]')
ASCII_NAME_BAD = re.compile(r"[^A-Za-z0-9._-]+")
PADDING = 2  # characters of air around the widest value of a column

HEADER_FONT = Font(bold=True)
HEADER_FILL = PatternFill("solid", fgColor="E7E6E6")
HEADER_BORDER = Border(bottom=Side(style="thin"))
HEADER_ALIGNMENT = Alignment(horizontal="center", vertical="center", wrap_text=False)


# --- number formats --------------------------------------------------------------------------


def number_formats() -> dict[str, str]:
    """Cell formats by kind, in the UI language: ▲ for negatives in Japanese, - in English."""
    minus = '"▲"' if (translation.get_language() or "ja").startswith("ja") else "-"
    return {
        "date": "yyyy/mm/dd",
        "yen": f"#,##0;{minus}#,##0;0",  # also final points and chips
        "score": f"+0.0;{minus}0.0;0.0",  # tenths of 1,000 points, as Decimal(tenths) / 10
        "average": f"+0.00;{minus}0.00;0.00",  # hundredths, as Decimal(hundredths) / 100
        "hundredths": "0.00",
        "percent": "0.0%",
        "rating": f"0.0;{minus}0.0;0.0",
    }


def score_value(tenths: int | None) -> Decimal | None:
    """A score as the number a club writes: 453 → 45.3 (exact; openpyxl writes it as a number)."""
    return None if tenths is None else Decimal(tenths) / 10


def hundredths_value(value: int | None) -> Decimal | None:
    return None if value is None else Decimal(value) / 100


def rate_value(hundredths_of_percent: int | None) -> Decimal | None:
    """A rate as the screen shows it, to one decimal of a percent rounded half up: 3076 (4/13,
    30.76%) → 0.308, with the format 0.0%."""
    if hundredths_of_percent is None:
        return None
    return Decimal(jancho.percent_tenths(hundredths_of_percent)) / 1_000


# --- widths ----------------------------------------------------------------------------------


def text_width(text: str) -> int:
    """Columns a text takes in a spreadsheet: East Asian wide and full-width characters count 2."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _value_width(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, str):
        return text_width(value)
    if isinstance(value, datetime.date):
        return 10  # 2026/11/21
    if isinstance(value, bool):
        return 5
    # A number as formatted: thousands separators, a sign (▲ is wide), decimals or a percent.
    return len(f"{abs(value):,}") + 3


def column_widths(tables: Sequence[Block], minimums: Sequence[float | None] = ()) -> list[float]:
    """Each column's width: its widest header, its widest value in every table whose rows are a
    sequence (rows still to be streamed are not read), and at least its minimum."""
    count = max([len(minimums), *(len(t.headers) for t in tables)])
    widths = [float(m or 0) for m in [*minimums, *[None] * (count - len(minimums))]]
    for table in tables:
        lines: list[Sequence[Any]] = [table.headers]
        if isinstance(table.rows, Sequence):
            lines += list(table.rows)
        for line in lines:
            for i, value in enumerate(line):
                widths[i] = max(widths[i], _value_width(value) + PADDING)
    return widths


# --- one function writes every sheet ---------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """A table written below the sheet's first one, after a blank row (the payment sheet has
    three); `caption`, when given, is a bold line above its header."""

    headers: Sequence[str]
    rows: Iterable[Sequence[Any]]
    formats: Sequence[str | None] = ()
    caption: str = ""
    aligns: Sequence[str | None] = ()


def write_sheet(
    ws: Any,
    *,
    title: str,
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    formats: Sequence[str | None] = (),
    widths: Sequence[float | None] = (),
    aligns: Sequence[str | None] = (),
    blocks: Sequence[Block] = (),
    landscape: bool = False,
    one_page: bool = False,
    page_header: str = "",
    written: Callable[[int], None] | None = None,
) -> None:
    """Write a table to `ws` (write-only or not) from row 1: the header row, then `rows`.

    `formats` are number formats by column (None: General); `aligns` horizontal alignments by
    column (None: Excel's own, text left and numbers right); `widths` minimum widths in
    characters, widened to fit the headers and, when `rows` is a sequence, every value (a
    stream of rows is written as it comes and is never held). Strings are always text cells.
    The sheet prints on A4, one page wide (and, with `one_page`, one page tall), with the
    header row repeated and `page_header` at the top of each page. `written`, when given, is
    told the rows written so far (of every table) after each row (a worker's progress).
    """
    ws.title = sheet_title(title)
    tables = [Block(headers, rows, formats, aligns=aligns), *blocks]
    for i, width in enumerate(column_widths(tables, widths), 1):
        ws.column_dimensions[get_column_letter(i)].width = width
    _page_setup(ws, landscape=landscape, one_page=one_page, page_header=page_header)
    # A write-only sheet writes its view (the frozen pane) with its first row: set it first.
    ws.freeze_panes = "A2"
    ws.print_title_rows = "1:1"
    done = 0
    for n, table in enumerate(tables):
        if n:
            ws.append([])
        if table.caption:
            ws.append([_styled(ws, table.caption, font=HEADER_FONT)])
        ws.append([_header_cell(ws, text) for text in table.headers])
        to_cells = _row_maker(ws, table.formats, table.aligns)
        if written is None:
            for row in table.rows:
                ws.append(to_cells(row))
            continue
        for row in table.rows:
            ws.append(to_cells(row))
            done += 1
            written(done)


def sheet_title(title: str) -> str:
    """Excel's rules for sheet names: at most 31 characters, none of []:*?/\\."""
    return SHEET_TITLE_BAD.sub("_", title)[:31] or "Sheet"


def _page_setup(ws: Any, *, landscape: bool, one_page: bool, page_header: str) -> None:
    ws.page_setup.paperSize = Worksheet.PAPERSIZE_A4
    ws.page_setup.orientation = "landscape" if landscape else "portrait"
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 1 if one_page else 0  # 0: as many pages as it takes
    if page_header:
        ws.oddHeader.center.text = page_header.replace("&", "&&")  # & starts a header code
    ws.oddFooter.center.text = "&P / &N"


def _styled(ws: Any, value: Any, **style: Any) -> Cell:
    cell = WriteOnlyCell(ws, value=clean_text(value) if isinstance(value, str) else value)
    for name, setting in style.items():
        setattr(cell, name, setting)
    if isinstance(value, str):
        cell.data_type = "s"
    return cell


def _header_cell(ws: Any, text: str) -> Cell:
    return _styled(
        ws,
        str(text),
        font=HEADER_FONT,
        fill=HEADER_FILL,
        border=HEADER_BORDER,
        alignment=HEADER_ALIGNMENT,
    )


def clean_text(value: str) -> str:
    """Control characters an .xlsx cannot hold are dropped (openpyxl would refuse the cell)."""
    return ILLEGAL_CHARACTERS_RE.sub("", value)


def text_cell(ws: Any, value: str) -> Cell:
    """A text cell that Excel never evaluates, even when the user edits it (quote prefix)."""
    return _styled(ws, value, quotePrefix=True)


def _needs_text_cell(value: str) -> bool:
    """Strings that openpyxl, or Excel on editing, would take for a formula or an error."""
    return value.startswith(FORMULA_STARTS) or value in ERROR_CODES


def _row_maker(
    ws: Any, formats: Sequence[str | None], aligns: Sequence[str | None] = ()
) -> Callable[[Sequence[Any]], list[Any]]:
    """A function from a row of values to what `ws.append` takes.

    Formatted numbers become cells sharing their column's style; plain values are passed as they
    are (openpyxl's fast path), except strings that could be read as formulas. This runs once
    per cell of a 400,000-row game log, hence the plain loop.
    """
    styles = []
    for number_format, align in zip_longest(formats, aligns):
        if number_format or align:
            template = WriteOnlyCell(ws)
            if number_format:
                template.number_format = number_format
            if align:
                template.alignment = Alignment(horizontal=align)
            styles.append(template._style)
        else:
            styles.append(None)

    def to_cells(values: Sequence[Any]) -> list[Any]:
        row = list(values)
        for i, (value, style) in enumerate(zip_longest(row, styles)):
            if value is None:
                continue
            if isinstance(value, str):
                value = row[i] = clean_text(value)
                if _needs_text_cell(value):
                    row[i] = text_cell(ws, value)
                elif style is not None:
                    row[i] = Cell(ws, row=1, column=1, value=value, style_array=style)
            elif style is not None:
                row[i] = Cell(ws, row=1, column=1, value=value, style_array=style)
        return row

    return to_cells


# --- columns ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    key: str
    header: Any  # a lazy translatable string, shown in the UI language
    format: str = ""  # a key of number_formats()
    width: float | None = None  # a minimum, in characters
    align: str | None = None  # "center": a short word or mark between numbers

    @staticmethod
    def sheet_args(columns: Sequence[Column]) -> dict[str, list[Any]]:
        """write_sheet's headers, formats and widths for these columns."""
        formats = number_formats()
        return {
            "headers": [str(c.header) for c in columns],
            "formats": [formats.get(c.format) for c in columns],
            "widths": [c.width for c in columns],
            "aligns": [c.align for c in columns],
        }


class StreamedSheet(WriteOnlyWorksheet):
    """openpyxl's write-only sheet, taking the cells it is given as they are.

    openpyxl 3.1 first tries every appended value as a plain value and takes a cell only from
    the ValueError that this raises; for the game log's formatted cells (4 of 11 columns) that
    was a quarter of the export's time. The rest is openpyxl's own loop (`_values_to_row`).
    """

    def _values_to_row(self, values: Iterable[Any], row_idx: int) -> Iterator[Cell]:
        spare = WriteOnlyCell(self)  # plain values go through one cell, as in openpyxl
        for col_idx, value in enumerate(values, 1):
            if value is None:
                continue
            if isinstance(value, Cell):
                cell = value
            else:
                spare.value = value
                cell = spare
            cell.column, cell.row = col_idx, row_idx
            if cell.hyperlink is not None:
                cell.hyperlink.ref = cell.coordinate
            yield cell
            if cell is spare and (spare.has_style or spare.hyperlink):
                spare = WriteOnlyCell(self)


def _workbook(title: str = "") -> tuple[Workbook, StreamedSheet]:
    workbook = Workbook(write_only=True)
    workbook.properties.creator = "Janchō"
    if title:
        workbook.properties.title = title
    ws = StreamedSheet(parent=workbook, title="Sheet")
    workbook._add_sheet(ws)
    return workbook, ws


def _party_name(club: Club, member: Member | None) -> str:
    return club.name if member is None else member.name


# --- season standings ------------------------------------------------------------------------

STANDINGS_TITLE = gettext_lazy("Standings")
_HEADER = StandingsTable.base_columns  # the page's column headers: one translation for both
NOTE = Column("note", gettext_lazy("Note"))


def _standings_columns(shown: Shown) -> list[Column]:
    formats = {
        "adjust": "score",
        "total": "score",
        "best": "score",
        "average": "average",
        "avg_rank": "hundredths",
        "chips": "yen",
        "yen": "yen",
        "avg_win": "yen",  # points
        "avg_deal_in": "yen",
    }
    columns = []
    for key, column in _HEADER.items():
        if key in shown.hidden():
            continue
        kind = "percent" if key.endswith("_rate") else formats.get(key, "")
        columns.append(Column(key, column.verbose_name, kind))
    return [*columns, NOTE]


def _standings_value(key: str, row: dict[str, Any], hand: dict[str, Any]) -> Any:
    # A hand column (Shown.hands): the member's figures, an empty cell without any.
    value = hand.get(HAND_KEYS[key]) if key in HAND_KEYS else row[key]
    if key in ("total", "best", "adjust"):
        return score_value(value)
    if key in ("average", "avg_rank"):
        return hundredths_value(value)
    if key.endswith("_rate"):
        return rate_value(value)
    return value


def _standings_note(row: dict[str, Any]) -> str | None:
    return _("guest") if row["is_guest"] else None


# Translators: caption of the standings sheet's second table: 規定打数未満（順位なし）
BELOW_MINIMUM = gettext_lazy("Below the minimum number of games (not ranked)")


def standings_workbook(
    *,
    club: Club,
    rows: Iterable[dict[str, Any]],
    shown: Shown,
    period: str,
    teams: Sequence[dict[str, Any]] = (),
    rosters: dict[int, list[dict[str, Any]]] | None = None,
    hand_rows: dict[int, dict[str, Any]] | None = None,
) -> Workbook:
    """The standings table with every statistic (rows: league.standings.stats.standings, qualified players
    first). Players below the minimum follow under a caption of their own, without positions, so
    that the sheet never shows a second "1". With `shown.hands`, the hand columns of each member's
    figures in `hand_rows` (league.standings.tables.hand_columns)."""
    columns = _standings_columns(shown)
    keys = [c.key for c in columns[:-1]]
    ranked: list[list[Any]] = []
    unranked: list[list[Any]] = []
    hands = hand_rows or {}
    for row in rows:
        line = [_standings_value(k, row, hands.get(row["member"], {})) for k in keys]
        if row["qualified"]:
            ranked.append([*line, _standings_note(row)])
        else:
            if "position" in keys:
                line[keys.index("position")] = None
            unranked.append([*line, _standings_note(row)])
    blocks = [_block(columns, unranked, BELOW_MINIMUM)] if unranked else []
    workbook, ws = _workbook()
    write_sheet(
        ws,
        title=str(STANDINGS_TITLE),
        rows=ranked,
        blocks=blocks,
        landscape=True,
        page_header=f"{club.name}  {period}  {STANDINGS_TITLE}",
        **Column.sheet_args(columns),
    )
    if teams:
        _team_sheet(workbook, club=club, period=period, teams=teams, rosters=rosters or {})
    return workbook


STAGE_COLUMNS = [
    Column("position", gettext_lazy("Pos.")),
    Column("name", gettext_lazy("Name"), width=10),
    Column("games", gettext_lazy("Games")),
    Column("carried", gettext_lazy("Carried"), "score"),
    Column("total", gettext_lazy("Total"), "score"),
    Column("through", gettext_lazy("Going through"), align="center"),
]


def event_workbook(
    *, club: Club, period: str, stage: Any, rows: Sequence[dict[str, Any]]
) -> Workbook:
    """An event's standings: its current stage's rows as its pages rank them, carry-over
    included (league.teams.selectors.event_standings), its one order."""
    workbook, ws = _workbook()
    keys = [c.key for c in STAGE_COLUMNS]
    title = f"{STANDINGS_TITLE} {stage.name}"
    write_sheet(
        ws,
        title=title,
        rows=[
            [
                score_value(row[k])
                if k in ("carried", "total")
                else ("○" if row[k] else None)
                if k == "through"
                else row[k]
                for k in keys
            ]
            for row in rows
        ],
        page_header=f"{club.name}  {period}  {title}",
        **Column.sheet_args(STAGE_COLUMNS),
    )
    return workbook


# Translators: the sheet's name in a workbook; チーム成績
TEAM_STANDINGS_TITLE = gettext_lazy("Team standings")
TEAM_COLUMNS = [
    Column("position", gettext_lazy("Pos.")),
    Column("name", gettext_lazy("Team")),
    Column("games", gettext_lazy("Games")),
    Column("scores", gettext_lazy("Scores"), "score"),
    Column("adjust", gettext_lazy("Adj."), "score"),
    Column("total", gettext_lazy("Total"), "score"),
]


def _team_sheet(
    workbook: Workbook,
    *,
    club: Club,
    period: str,
    teams: Sequence[dict[str, Any]],
    rosters: dict[int, list[dict[str, Any]]],
) -> None:
    """A second sheet: the team standings (league.teams.selectors.team_standings), then each
    team's members (captains marked) with their season totals and adjustments."""
    ws = StreamedSheet(parent=workbook, title="Teams")
    workbook._add_sheet(ws)
    values = ("scores", "adjust", "total")

    def line(row: dict[str, Any], keys: Sequence[str]) -> list[Any]:
        return [score_value(row[k]) if k in values else row[k] for k in keys]

    keys = [c.key for c in TEAM_COLUMNS]
    args = Column.sheet_args(TEAM_COLUMNS)
    member_keys = ["captain", "name", "games", "score", "adjust", "total"]
    blocks = [
        Block(
            headers=["", str(_("Name")), *args["headers"][2:]],
            rows=[
                [
                    _("Captain") if m["is_captain"] else None,
                    m["name"],
                    m["games"],
                    *(score_value(m[k]) for k in member_keys[3:]),
                ]
                for m in rosters.get(team["pk"], [])
            ],
            formats=args["formats"],
            caption=team["name"],
        )
        for team in teams
    ]
    write_sheet(
        ws,
        title=str(TEAM_STANDINGS_TITLE),
        rows=[line(t, keys) for t in teams],
        blocks=blocks,
        page_header=f"{club.name}  {period}  {TEAM_STANDINGS_TITLE}",
        **args,
    )


# --- the statistics sheet (head-to-head, seats, rating) -------------------------------------

# Translators: the sheet's name in the standings workbook; 統計
STATISTICS_TITLE = gettext_lazy("Statistics")
RATING_COLUMNS = (
    Column("player", gettext_lazy("Player"), width=10),
    Column("games", gettext_lazy("Games")),
    Column("ordinal", gettext_lazy("Ordinal (μ − 3σ)"), "rating"),
    Column("mu", "μ", "rating"),
    Column("sigma", "σ", "rating"),
    Column("ranked", gettext_lazy("Ranked"), align="center"),
)
SEAT_COLUMNS = (
    Column("seat", gettext_lazy("Starting seat")),
    Column("games", gettext_lazy("Games")),
    Column("avg_rank", gettext_lazy("Avg. rank"), "hundredths"),
    Column("average", gettext_lazy("Average"), "average"),
    Column("top_rate", gettext_lazy("Top rate"), "percent"),
)
PAIR_COLUMNS = (
    Column("player", gettext_lazy("Player"), width=10),
    Column("opponent", gettext_lazy("Opponent"), width=10),
    Column("games", gettext_lazy("Games")),
    Column("avg_rank", gettext_lazy("My average rank in these games"), "hundredths"),
    Column("opponent_avg_rank", gettext_lazy("Their average rank in these games"), "hundredths"),
    Column("above", gettext_lazy("Above")),
    Column("net", gettext_lazy("Net"), "score"),
)
# Translators: captions of the statistics sheet's tables
RATING_CAPTION = gettext_lazy("Rating (all time)")
SEATS_CAPTION = gettext_lazy("By starting seat")
PAIRS_CAPTION = gettext_lazy("Head-to-head")


def statistics_rows(*, club: Club, season: Season | None) -> int:
    """How many rows the statistics workbook has (its three tables'): a worker's total."""
    ranked, others = kept.rating_ranking(club=club)
    seats = sum(1 for r in kept.seat_rows(club=club, season=season) if r["games"])
    pairs = kept.pair_rows(club=club, season=season).order_by().count()
    return len(ranked) + len(others) + seats + pairs


def statistics_workbook(
    *,
    club: Club,
    season: Season | None,
    period: str,
    written: Callable[[int], None] | None = None,
) -> Workbook:
    """The statistics of all time or one season, from the rows kept at write time: the rating
    ranking (all time), the club by starting seat and every pair's head-to-head in the period.
    Every pair of members is a row (a club of 40 has 1,560), so a worker makes it (issue 38):
    `written` is told the rows written so far."""
    ranked, others = kept.rating_ranking(club=club)
    rating_rows = [
        [
            r.member.name,
            r.games,
            rating_value(r.ordinal),
            rating_value(r.mu),
            rating_value(r.sigma),
            "○" if i < len(ranked) else None,
        ]
        for i, r in enumerate([*ranked, *others])
    ]
    seat_rows = [
        [
            jancho.seat_name(r["seat"]),
            r["games"],
            hundredths_value(r["avg_rank"]),
            hundredths_value(r["average"]),
            rate_value(r["top_rate"]),
        ]
        for r in kept.seat_rows(club=club, season=season)
        if r["games"]
    ]
    pair_rows = [
        [
            p.member.name,
            p.opponent.name,
            p.games,
            hundredths_value(kept.per_game(p.rank_sum, 100, p.games)),
            hundredths_value(kept.per_game(p.opponent_rank_sum, 100, p.games)),
            p.above,
            score_value(p.net),
        ]
        for p in kept.pair_rows(club=club, season=season)
    ]
    workbook, ws = _workbook(str(STATISTICS_TITLE))
    write_sheet(
        ws,
        title=str(STATISTICS_TITLE),
        rows=rating_rows,
        blocks=[
            _block(SEAT_COLUMNS, seat_rows, f"{SEATS_CAPTION} ({period})"),
            _block(PAIR_COLUMNS, pair_rows, f"{PAIRS_CAPTION} ({period})"),
        ],
        landscape=True,
        page_header=f"{club.name}  {period}  {STATISTICS_TITLE}",
        written=written,
        **Column.sheet_args(RATING_COLUMNS),
    )
    return workbook


def rating_value(millionths: int) -> Decimal:
    """A rating in millionths as a number to show with one decimal."""
    return Decimal(millionths) / 1_000_000


# --- the game log ----------------------------------------------------------------------------

# Translators: the sheet's name in a workbook; 対局ログ
GAME_LOG_TITLE = gettext_lazy("Game log")
# league.excel.imports reads these headers back, in every language of the site.
GAME_LOG_COLUMNS = (
    Column("date", gettext_lazy("Date"), "date", 12),
    Column("table", gettext_lazy("Table")),
    Column("game", gettext_lazy("Game")),
    Column("seat", gettext_lazy("Seat")),
    Column("player", gettext_lazy("Player"), width=10),
    Column("points", gettext_lazy("Final points"), "yen", 9),
    Column("rank", gettext_lazy("Rank")),
    Column("score", gettext_lazy("Score"), "score", 8),
    Column("chips", gettext_lazy("Chips"), "yen"),
    Column("yen", gettext_lazy("Yen"), "yen", 9),
    Column("chombo", gettext_lazy("Chombo")),
    Column("rate", gettext_lazy("Rate")),  # last: sheets made before it was added still read
)
GAME_LOG_FIELDS = (
    "date",
    "game__table",
    "game__number",
    "seat",
    "member__name",
    "points",
    "rank",
    "score",
    "chips",
    "yen",
    "chombo",
    "game__rate",
    "busted_by_seat",
    "yakitori",
    "member__fill_in",
)
# A fill-in's (黒子) row, in the game log's results and hands sheets: the game still sums, so the
# row is there, named as a fill-in; their results count for nobody, so no yen (the house's,
# scoring.house_takes). Translators: 黒子1（黒子）, as the game pages badge them
FILL_IN_NAME = gettext_lazy("%(name)s (fill-in)")
# Written after the rate, only for clubs whose rules have 飛び賞 to the buster or 焼き鳥
# (league.excel.imports reads them back by their headers).
BUSTED_BY_COLUMN = Column("busted_by", gettext_lazy("Busted by"))
YAKITORI_COLUMN = Column("yakitori", gettext_lazy("Yakitori"))
YAKITORI_MARK = "○"
CHUNK = 2000


def game_log_rows(
    *,
    club: Club,
    start: datetime.date | None = None,
    end: datetime.date | None = None,
    rate: str | None = None,
    busts: bool = False,
    yakitori: bool = False,
) -> Iterator[tuple[Any, ...]]:
    """One row per player per counted game, by date, game and seat: one query, read in chunks
    (a server-side cursor on PostgreSQL), so that memory does not grow with the games. `busts`
    and `yakitori` add those columns (clubs whose rules have them). A fill-in's row is there
    (every game has all its seats), named as a fill-in (FILL_IN_NAME) and without yen."""
    rows = (
        stats.counted_results(club=club, start=start, end=end, rate=rate, fill_ins=True)
        .order_by("date", "game__number", "seat")
        .values_list(*GAME_LOG_FIELDS)
        .iterator(chunk_size=CHUNK)
    )
    winds = [jancho.wind(seat) for seat in range(4)]  # 東 = 起家
    fill_in_name = str(FILL_IN_NAME)
    for row in rows:
        date, table, number, seat, name, points, rank, score, chips, yen, chombo, rate = row[:12]
        by, grilled, fill_in = row[12:]
        if fill_in:
            name, yen = fill_in_name % {"name": name}, None
        extra: tuple[Any, ...] = ()
        if busts:
            extra += (winds[by] if by is not None else None,)
        if yakitori:
            extra += (YAKITORI_MARK if grilled else None,)
        yield (
            date,
            table or None,
            number,
            winds[seat],
            name,
            points,
            rank,
            Decimal(score) / 10,
            chips,
            yen,
            chombo,
            rate or None,
            *extra,
        )


def game_log_workbook(
    *,
    club: Club,
    start: datetime.date | None = None,
    end: datetime.date | None = None,
    rate: str | None = None,
    versions: Sequence[Any] | None = None,
    rows_filter: Callable[[Iterator[tuple[Any, ...]]], Iterator[tuple[Any, ...]]] | None = None,
) -> Workbook:
    """The game log (format: issue 6's shared decisions; league.excel.imports reads it back).
    `versions`: the club's rules versions when the caller has them (stats.rules_versions).
    `rows_filter` sees every row on its way to the sheet (a background export counts them)."""
    names = [
        str(FILL_IN_NAME) % {"name": name} if fill_in else name
        for name, fill_in in Member.objects.filter(club=club).values_list("name", "fill_in")
    ]
    widest = max((text_width(n) for n in names), default=0) + PADDING
    columns = [
        Column(c.key, c.header, c.format, max(c.width or 0, widest)) if c.key == "player" else c
        for c in GAME_LOG_COLUMNS
    ]
    versions = stats.rules_versions(club=club) if versions is None else versions
    shown = Shown.for_rules(stats.rules_between(versions, start, end))
    columns += [BUSTED_BY_COLUMN] if shown.busts_caused else []
    columns += [YAKITORI_COLUMN] if shown.yakitori else []
    workbook, ws = _workbook(GAME_LOG_PROPERTY)
    rows = game_log_rows(
        club=club,
        start=start,
        end=end,
        rate=rate,
        busts=shown.busts_caused,
        yakitori=shown.yakitori,
    )
    write_sheet(
        ws,
        title=str(GAME_LOG_TITLE),
        rows=rows_filter(rows) if rows_filter else rows,
        page_header=f"{club.name}  {GAME_LOG_TITLE}",
        **Column.sheet_args(columns),
    )
    if _hands_in(club, start, end, rate).exists():
        hands_ws = StreamedSheet(parent=workbook, title="Sheet")
        workbook._add_sheet(hands_ws)
        write_sheet(
            hands_ws,
            title=str(HANDS_TITLE),
            rows=hand_rows(club=club, start=start, end=end, rate=rate),
            page_header=f"{club.name}  {HANDS_TITLE}",
            **Column.sheet_args(HANDS_COLUMNS),
        )
    return workbook


# --- the game log's hands sheet (games recorded hand by hand, league.table) -------------------

# Translators: the game log's second sheet: one row per player per hand
HANDS_TITLE = gettext_lazy("Hands")
HANDS_COLUMNS = (
    Column("date", gettext_lazy("Date"), "date", 12),
    Column("table", gettext_lazy("Table")),
    Column("game", gettext_lazy("Game")),
    Column("hand", gettext_lazy("Hand no.")),
    Column("round", pgettext_lazy("hands sheet", "Round")),
    Column("seat", gettext_lazy("Seat")),
    Column("player", gettext_lazy("Player"), width=10),
    Column("result", gettext_lazy("Result")),
    Column("role", gettext_lazy("Part")),
    Column("change", gettext_lazy("Change"), "yen", 9),
    Column("points", gettext_lazy("Points after"), "yen", 9),
)
RESULT_WORDS = {
    "ron": gettext_lazy("ron"),
    "tsumo": gettext_lazy("tsumo"),
    "draw": gettext_lazy("draw"),
    "abortive": gettext_lazy("abortive draw"),
    "chombo": gettext_lazy("chombo"),
}


def _hands_in(
    club: Club, start: datetime.date | None, end: datetime.date | None, rate: str | None
) -> Any:
    games = stats.counted_results(club=club, start=start, end=end, rate=rate, fill_ins=True).filter(
        seat=0
    )
    return Hand.objects.filter(live=True, table_game__game__in=games.values("game_id")).order_by(
        "table_game__game__date", "table_game__game__number", "index"
    )


def hand_rows(
    *,
    club: Club,
    start: datetime.date | None = None,
    end: datetime.date | None = None,
    rate: str | None = None,
) -> Iterator[tuple[Any, ...]]:
    """One row per player per hand of the counted games recorded hand by hand: two queries (the
    names, then the hands read in chunks)."""
    fill_in_name = str(FILL_IN_NAME)
    names = {
        str(pk): fill_in_name % {"name": name} if fill_in else name
        for pk, name, fill_in in Member.objects.filter(club=club).values_list(
            "pk", "name", "fill_in"
        )
    }
    rows = (
        _hands_in(club, start, end, rate)
        .values_list(
            "table_game__game__date",
            "table_game__game__table",
            "table_game__game__number",
            "table_game__seats",
            "index",
            "round",
            "honba",
            "event",
            "deltas",
            "scores",
        )
        .iterator(chunk_size=CHUNK)
    )
    winds = [jancho.wind(seat) for seat in range(4)]
    for date, table, number, seats, index, round_, honba, event, deltas, scores in rows:
        result = event.get("result")
        winners = {
            str(w.get("player")) for w in event.get("winners", []) if isinstance(w, dict)
        } | ({str(event.get("winner"))} if result == "tsumo" else set())
        for seat, pk in enumerate(seats):
            who = str(pk)
            role = []
            if who in winners:
                role.append(str(WIN_WORD))
            if result == "ron" and str(event.get("from")) == who:
                role.append(str(DEAL_IN_WORD))
            if who in (event.get("tenpai") or []):
                role.append(str(TENPAI_WORD))
            if who in (event.get("riichi") or []):
                role.append(str(RIICHI_WORD))
            if result == "chombo" and str(event.get("player")) == who:
                role.append(str(RESULT_WORDS["chombo"]))
            yield (
                date,
                table or None,
                number,
                index + 1,
                f"{round_}-{honba}" if honba else round_,
                winds[seat],
                names.get(who, who),
                str(RESULT_WORDS.get(result, result)),
                "・".join(role) or None,
                deltas[seat],
                scores[seat],
            )


WIN_WORD = gettext_lazy("win")
DEAL_IN_WORD = gettext_lazy("dealt in")
TENPAI_WORD = gettext_lazy("tenpai")
RIICHI_WORD = gettext_lazy("riichi")


# --- a day's payment sheet -------------------------------------------------------------------

# Translators: 精算表
PAYMENT_SHEET_TITLE = gettext_lazy("Payment sheet")
CLUB_ROW = pgettext_lazy("payment sheet", "Club (house)")
PAID = gettext_lazy("paid")
UNPAID = gettext_lazy("unpaid")


def _parts_columns(rules: scoring.Rules, players: Sequence[scoring.DayPlayer]) -> list[Column]:
    columns = [
        Column("player", gettext_lazy("Player")),
        Column("games", gettext_lazy("Games")),
        Column("score", gettext_lazy("Score"), "score"),
    ]
    if rules.chips:
        columns.append(Column("chips", gettext_lazy("Chips"), "yen"))
    columns.append(Column("game_yen", gettext_lazy("Games (yen)"), "yen"))
    if rules.place_fees:
        columns.append(Column("fees", gettext_lazy("Place fees"), "yen"))
    if rules.session_shugi:
        columns.append(Column("shugi", gettext_lazy("Shūgi"), "yen"))
    if rules.yen_unit != 1 or any(p.rounding for p in players):
        columns.append(Column("rounding", gettext_lazy("Rounding"), "yen"))
    return [*columns, Column("yen", gettext_lazy("Total (yen)"), "yen")]


def _parts_rows(ledger: money.DayLedger, columns: Sequence[Column]) -> list[list[Any]]:
    rows = []
    for p in ledger.players:
        values = {"player": ledger.members[int(p.name)].name, "score": score_value(p.score)}
        rows.append([values[c.key] if c.key in values else getattr(p, c.key) for c in columns])
    house = [None] * len(columns)
    house[0], house[-1] = str(CLUB_ROW), ledger.house
    return [*rows, house]


TRANSFER_COLUMNS = (
    Column("payer", pgettext_lazy("transfer", "From")),
    Column("payee", gettext_lazy("To")),
    Column("yen", gettext_lazy("Amount (yen)"), "yen"),
    Column("status", gettext_lazy("Status"), align="center"),
    # Translators: a column of boxes to tick on the printed sheet when the money changes hands
    Column("tick", pgettext_lazy("payment sheet", "Check"), align="center"),
    Column("note", gettext_lazy("Note")),
)
TICK_BOX = "□"  # to tick on paper
TICKED = "✓"  # paid before the sheet was printed


def _transfer_rows(club: Club, ledger: money.DayLedger) -> list[list[Any]]:
    """The day's recorded payments, loans and deferrals (not cancelled), then what is still due."""
    rows = []
    for t in sharing.day_transfers(club, ledger):
        note = None
        if t.status == "loan":
            note = _("%(lender)s lent the money") % {"lender": _party_name(club, t.entry.payer)}
        elif t.status == "deferred":
            owed = f"{t.entry.amount + t.entry.surcharge:,}"
            note = _("deferred: owes %(yen)s yen with the surcharge") % {"yen": owed}
        paid = t.status in ("paid", "loan")
        status, tick = (PAID, TICKED) if paid else (UNPAID, TICK_BOX)
        rows.append([t.payer, t.payee, t.yen, str(status), tick, note])
    return rows


GAMES = gettext_lazy("Games")


def _game_columns(players: int) -> list[Column]:
    columns = [Column("game", gettext_lazy("Game")), Column("rate", gettext_lazy("Rate"))]
    return columns + [Column(f"seat{i}", jancho.wind(i)) for i in range(players)]


def _game_rows(ledger: money.DayLedger) -> list[list[Any]]:
    """Each game of the day ("第3半荘 B") with its rate, and each seat's player and score
    ("青木 +45.3"): what the day's yen were computed from. money.day_ledger loaded the games."""
    rows = []
    fill_in_name = str(FILL_IN_NAME)
    for game in ledger.day.games.all():
        seats = []
        for r in game.results.all():
            member = ledger.members[r.member_id]
            name = fill_in_name % {"name": member.name} if member.fill_in else member.name
            seats.append(f"{name} {jancho.score(r.score)}")
        if seats:
            label = _("Game %(number)s") % {"number": game.number}
            rows.append([f"{label} {game.table}".strip(), game.rate or None, *seats])
    return rows


OPEN_DEBTS = gettext_lazy("Open debts")
DEBT_COLUMNS = (
    Column("debtor", gettext_lazy("Debtor")),
    Column("creditor", gettext_lazy("Owed to")),
    Column("remaining", gettext_lazy("Remaining (yen)"), "yen"),
    Column("since", gettext_lazy("Since"), "date"),
    Column("age", gettext_lazy("Days")),
)


def _debt_rows(
    club: Club, debts: Iterable[book_selectors.Debt], today: datetime.date
) -> list[list[Any]]:
    return [
        [
            _party_name(club, d.debtor),
            _party_name(club, d.creditor),
            d.remaining,
            d.since,
            d.age_days(today),
        ]
        for d in sorted(debts, key=lambda d: (d.since, d.entry.pk))
    ]


def _block(columns: Sequence[Column], rows: list[list[Any]], caption: Any) -> Block:
    args = Column.sheet_args(columns)
    return Block(args["headers"], rows, args["formats"], str(caption), args["aligns"])


def payment_sheet_workbook(
    *,
    club: Club,
    ledger: money.DayLedger,
    debts: Iterable[book_selectors.Debt],
    today: datetime.date,
) -> Workbook:
    """Each attendee's parts and total, the transfers (paid or not), the club's open debts: one
    A4 page to print and pin up at the venue."""
    columns = _parts_columns(ledger.rules, ledger.players)
    blocks = [
        _block(TRANSFER_COLUMNS, _transfer_rows(club, ledger), gettext_lazy("Transfers")),
        _block(DEBT_COLUMNS, _debt_rows(club, debts, today), OPEN_DEBTS),
        _block(_game_columns(ledger.rules.players), _game_rows(ledger), GAMES),
    ]
    workbook, ws = _workbook()
    write_sheet(
        ws,
        title=str(PAYMENT_SHEET_TITLE),
        rows=_parts_rows(ledger, columns),
        blocks=blocks,
        one_page=True,
        page_header=f"{club.name}  {ledger.day.date:%Y/%m/%d}  {PAYMENT_SHEET_TITLE}",
        **Column.sheet_args(columns),
    )
    return workbook


# --- a member's statement --------------------------------------------------------------------

# Translators: 収支明細
STATEMENT_TITLE = gettext_lazy("Statement")
STATEMENT_COLUMNS = (
    Column("date", gettext_lazy("Date"), "date", 12),
    Column("what", gettext_lazy("Details")),
    Column("games", gettext_lazy("Games")),
    Column("score", gettext_lazy("Score"), "score"),
    Column("yen", gettext_lazy("Yen"), "yen", 9),
    Column("balance", gettext_lazy("Balance"), "yen", 9),
)
DAY_LINE = gettext_lazy("Games of the day")


def _statement_rows(
    statement: book_selectors.Statement, describe: Callable[[LedgerEntry, Member], str]
) -> list[list[Any]]:
    rows = []
    for line in statement.lines:
        games = score = None
        if line.entry is not None:
            what = describe(line.entry, statement.member)
        else:
            what = str(DAY_LINE)
            if line.parts is not None:
                games, score = line.parts.games, score_value(line.parts.score)
        # 増減: the change of the balance beside it (1,752 → 477 is ▲1,275), as on the page.
        rows.append([line.date, what, games, score, line.yen, line.balance])
    return rows


# Translators: the statement sheet's headline: 残高（2026/11/22現在）
BALANCE_ON = gettext_lazy("Balance on %(date)s")
# Translators: caption of the statement sheet's lines: 明細
DETAILS = gettext_lazy("Details")


def balance_words(balance: int) -> str:
    """What a balance means, said without a minus sign: "Owes" 6,886 rather than ▲6,886."""
    if balance < 0:
        return _("Owes")
    return _("Is owed") if balance > 0 else _("Settled")


def statement_workbook(
    *,
    club: Club,
    statement: book_selectors.Statement,
    describe: Callable[[LedgerEntry, Member], str],
    today: datetime.date,
) -> Workbook:
    """The balance as a labelled headline ("Owes | 6,886"), then every line of the member's
    statement with the running balance, then their open debts.

    `describe` words an entry as the statement page does (the page and the sheet say the same).
    """
    workbook, ws = _workbook()
    lines = _block(STATEMENT_COLUMNS, _statement_rows(statement, describe), DETAILS)
    debts = _block(DEBT_COLUMNS, _debt_rows(club, statement.debts, today), OPEN_DEBTS)
    balance = statement.balance
    write_sheet(
        ws,
        title=str(STATEMENT_TITLE),
        headers=[BALANCE_ON % {"date": f"{today:%Y/%m/%d}"}, str(STATEMENT_COLUMNS[-2].header)],
        rows=[[balance_words(balance), abs(balance)]],
        formats=[None, number_formats()["yen"]],
        blocks=[lines, debts],
        page_header=f"{club.name}  {statement.member.name}  {STATEMENT_TITLE}",
    )
    return workbook


# --- the download ----------------------------------------------------------------------------


def file_name(*parts: Any) -> str:
    """A file name from its parts joined by _: マメの会_2026-11-21_精算表.xlsx. Characters that
    Windows or macOS refuse in a file name become _."""
    name = "_".join(str(p) for p in parts if str(p))
    return FILE_NAME_BAD.sub("_", name).strip(" .") + ".xlsx"


def ascii_file_name(*parts: Any) -> str:
    """The same name in ASCII for clients that ignore filename*: mame_2026-11-21_payment-sheet."""
    name = "_".join(ASCII_NAME_BAD.sub("-", str(p)).strip("-") for p in parts)
    return (name.strip("._-") or "janchou") + ".xlsx"


def content_disposition(name: str, fallback: str) -> str:
    """RFC 6266: an ASCII `filename` for old clients, the real name UTF-8 encoded in `filename*`
    (RFC 8187), which every current browser prefers."""
    fallback = ASCII_NAME_BAD.sub("_", fallback)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


def xlsx_response(workbook: Workbook, *, name: str, fallback: str) -> FileResponse:
    """The workbook saved to an anonymous temporary file, sent in chunks and deleted when sent."""
    file = tempfile.TemporaryFile()  # noqa: SIM115 (the response closes it, which deletes it)
    try:
        workbook.save(file)
        file.seek(0)
    except BaseException:
        file.close()
        raise
    response = FileResponse(file, content_type=XLSX)
    response["Content-Disposition"] = content_disposition(name, fallback)
    response["Cache-Control"] = "private, no-store"
    return response
