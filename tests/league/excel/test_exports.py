"""The Excel exports: every workbook opened with openpyxl and checked for headers (Japanese by
default, English with the English cookie), values against the selectors, number formats, frozen
header, print titles, widths, and that no cell is a formula (members are named like formulas);
the download header (RFC 6266); who may download; and query counts that do not grow."""

from __future__ import annotations

import datetime
import io
import itertools
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from openpyxl import Workbook, load_workbook

from league import money
from league.books import selectors as book_selectors
from league.excel import exports
from league.models import Club, Day, Member, Membership, Result, Season
from league.money.views.statements import describe_entry
from league.recording import services
from league.standings import stats
from league.standings.tables import HAND_COLUMNS, StandingsTable
from tests.support.exports import (
    DATE,
    INJECTIONS,
    download,
    injected_players,
    moneyless_played,
    play,
    play_day,
    settle_some,
    url,
    values,
)

JA_YEN = '#,##0;"▲"#,##0;0'
JA_SCORE = '+0.0;"▲"0.0;0.0'


# --- helpers ---------------------------------------------------------------------------------


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def number(value: Any) -> Decimal:
    """A number cell as openpyxl reads it back (int or float), exactly as written."""
    return Decimal(str(value))


def assert_no_formulas(workbook: Workbook) -> None:
    for ws in workbook.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                assert cell.data_type != "f", (ws.title, cell.coordinate, cell.value)


def assert_injections_are_text(workbook: Workbook) -> None:
    found = set()
    for ws in workbook.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.value in INJECTIONS:
                    assert cell.data_type == "s", (cell.coordinate, cell.value)
                    found.add(cell.value)
    assert found, "the formula-like names are in the test data"


def assert_sheet_layout(ws) -> None:
    assert ws.freeze_panes == "A2"
    assert ws.print_title_rows == "$1:$1"
    assert int(ws.page_setup.paperSize) == 9  # A4
    assert ws.sheet_properties.pageSetUpPr.fitToPage
    assert ws.page_setup.fitToWidth == 1
    assert all(cell.font.b for cell in ws[1] if cell.value is not None)


def ja(text: Any) -> str:
    with translation.override("ja"):
        return str(text)


def en(text: Any) -> str:
    with translation.override("en"):
        return str(text)


# --- data ------------------------------------------------------------------------------------


@pytest.fixture
def players(club, members) -> list[Member]:
    return injected_players(club, members)


@pytest.fixture
def season(club) -> Season:
    return Season.objects.create(
        club=club,
        name="2026年後期",
        start=datetime.date(2026, 7, 1),
        end=datetime.date(2026, 12, 31),
        min_games=2,
    )


@pytest.fixture
def day(club, players) -> Day:
    play_day(club, players)
    return Day.objects.get(club=club, date=DATE)


# --- write_sheet and the download header -----------------------------------------------------


def test_text_width_counts_wide_characters_twice():
    assert exports.text_width("abc") == 3
    assert exports.text_width("青木") == 4
    assert exports.text_width("ＡＢ") == 4  # full-width Latin
    assert exports.text_width("ｱｵｷ") == 3  # half-width katakana


def sheet_of(kind: str) -> tuple[Workbook, Any]:
    if kind == "streamed":  # what the exports use
        return exports._workbook()
    workbook = Workbook(write_only=kind == "write-only")
    return workbook, workbook.create_sheet() if kind == "write-only" else workbook.active


@pytest.mark.parametrize("kind", ["streamed", "write-only", "normal"])
def test_write_sheet_writes_text_as_text_and_numbers_with_formats(kind):
    workbook, ws = sheet_of(kind)
    rows = [[name, -1500, Decimal(-453) / 10] for name in [*INJECTIONS, "マメの会の青木さん"]]
    exports.write_sheet(
        ws,
        title="成績/一覧",
        headers=["名前", "収支", "成績"],
        rows=rows,
        formats=[None, JA_YEN, JA_SCORE],
        widths=[None, 12],
    )
    buffer = io.BytesIO()
    workbook.save(buffer)
    ws = load_workbook(buffer).active
    assert ws.title == "成績_一覧"  # / is not allowed in a sheet name
    assert values(ws)[0] == ["名前", "収支", "成績"]
    assert [row[0] for row in values(ws)[1:]] == [r[0] for r in rows]
    assert_no_formulas(ws.parent)
    assert_injections_are_text(ws.parent)
    assert all(ws.cell(i, 1).quotePrefix for i in range(2, 2 + len(INJECTIONS)))
    assert [ws.cell(2, c).number_format for c in (1, 2, 3)] == ["General", JA_YEN, JA_SCORE]
    assert ws.cell(2, 3).data_type == "n" and number(ws.cell(2, 3).value) == Decimal("-45.3")
    assert_sheet_layout(ws)
    widths = [ws.column_dimensions[letter].width for letter in "ABC"]
    assert widths[0] >= exports.text_width("マメの会の青木さん") == 18
    assert widths[1] >= 12  # the minimum given
    assert widths[2] >= exports.text_width("成績")


def test_write_sheet_drops_characters_an_xlsx_cannot_hold():
    workbook = Workbook()
    exports.write_sheet(workbook.active, title="t", headers=["a"], rows=[["青\x01木\x1f"]])
    assert workbook.active["A2"].value == "青木"


def test_content_disposition_names_the_file_in_japanese_with_an_ascii_fallback():
    name = exports.file_name("マメの会", "2026-11-21", "精算表")
    assert name == "マメの会_2026-11-21_精算表.xlsx"
    header = exports.content_disposition(name, "mame_2026-11-21_payment-sheet.xlsx")
    assert header == (
        'attachment; filename="mame_2026-11-21_payment-sheet.xlsx"; '
        "filename*=UTF-8''%E3%83%9E%E3%83%A1%E3%81%AE%E4%BC%9A_2026-11-21_"
        "%E7%B2%BE%E7%AE%97%E8%A1%A8.xlsx"
    )
    assert header.isascii()
    assert unquote(header.split("''", 1)[1]) == name


def test_file_names_lose_what_file_systems_refuse():
    assert exports.file_name('A/B:C*?"<>|', "x\\y") == "A_B_C_______x_y.xlsx"
    assert exports.ascii_file_name("マメ", "2026-11-21", "game log") == "2026-11-21_game-log.xlsx"
    assert exports.ascii_file_name("会") == "janchou.xlsx"
    header = exports.content_disposition("a.xlsx", 'evil"; filename*=x')
    assert header.startswith('attachment; filename="evil_filename_x"; ')


# --- the game log ----------------------------------------------------------------------------


def game_log_expected(club: Club) -> list[tuple[Any, ...]]:
    return list(
        Result.objects.filter(club=club, counted=True)
        .order_by("date", "game__number", "seat")
        .values_list(*exports.GAME_LOG_FIELDS[:12])  # the busts and 焼き鳥 fields: not this club's
    )


def test_game_log_is_every_counted_row_with_japanese_headers(member_client, club, players):
    play_day(club, players)
    play_day(club, players, DATE - datetime.timedelta(days=7))
    void = play(club, DATE, players[0:4])
    services.game_void(game=void, user=None, reason="間違い")
    response, workbook = download(member_client, url("excel:export_game_log", club))

    assert response["Content-Type"] == exports.XLSX
    disposition = response["Content-Disposition"]
    assert disposition.startswith('attachment; filename="mame_all-time_game-log.xlsx"; ')
    assert unquote(disposition.split("''", 1)[1]).startswith("マメの会_")
    assert workbook.properties.title == exports.GAME_LOG_PROPERTY
    ws = workbook.active
    assert ws.title == ja(exports.GAME_LOG_TITLE)
    rows = values(ws)
    assert rows[0] == [ja(c.header) for c in exports.GAME_LOG_COLUMNS]
    expected = game_log_expected(club)
    assert len(rows) - 1 == len(expected) == 2 * 3 * 4  # the void game is not there
    winds = ["東", "南", "西", "北"]
    for got, row in zip(rows[1:], expected, strict=True):
        date, table, number_, seat, name, points, rank, score, chips, yen, chombo, rate = row
        assert got[0].date() == date
        assert got[1:7] == [table or None, number_, winds[seat], name, points, rank]
        assert number(got[7]) == Decimal(score) / 10
        assert got[8:] == [chips, yen, chombo, rate]
    assert_no_formulas(workbook)
    assert_injections_are_text(workbook)
    assert_sheet_layout(ws)


def test_game_log_formats_and_widths(member_client, club, players):
    play_day(club, players)
    _, workbook = download(member_client, url("excel:export_game_log", club))
    ws = workbook.active
    formats = [cell.number_format for cell in ws[2]]
    assert formats[0] == "yyyy/mm/dd"
    assert formats[5] == formats[9] == JA_YEN  # final points, yen
    assert formats[7] == JA_SCORE
    assert ws.cell(2, 1).is_date
    longest = max(exports.text_width(m.name) for m in players)
    assert ws.column_dimensions["E"].width >= longest
    assert ws.column_dimensions["A"].width >= 10


def test_game_log_in_english(member_client, club, players):
    play_day(club, players)
    _, workbook = download(english(member_client), url("excel:export_game_log", club))
    ws = workbook.active
    assert ws.title == "Game log"
    assert values(ws)[0] == [
        "Date",
        "Table",
        "Game",
        "Seat",
        "Player",
        "Final points",
        "Rank",
        "Score",
        "Chips",
        "Yen",
        "Chombo",
        "Rate",
    ]
    assert [row[3] for row in values(ws)[1:5]] == ["E", "S", "W", "N"]
    assert ws.cell(2, 8).number_format == "+0.0;-0.0;0.0"
    assert ws.cell(2, 6).number_format == "#,##0;-#,##0;0"


def test_game_log_of_a_season(member_client, club, players, season):
    play_day(club, players)
    play_day(club, players, datetime.date(2026, 6, 30))  # before the season
    response, workbook = download(
        member_client, url("excel:export_game_log", club), season=season.pk
    )
    assert len(values(workbook.active)) - 1 == 3 * 4
    assert {row[0].date() for row in values(workbook.active)[1:]} == {DATE}
    assert f"season-{season.pk}" in response["Content-Disposition"]


def test_game_log_with_a_bad_date_is_a_bad_request(member_client, club):
    response = member_client.get(url("excel:export_game_log", club), {"start": "いつか"})
    assert response.status_code == 400


def test_game_log_query_count_does_not_grow_with_games(
    member_client, club, players, django_assert_num_queries
):
    play_day(club, players)
    # The session, the user, the club with the role, the seasons, the rules, the row count (a log
    # longer than EXPORT_INLINE_ROWS is made by a worker), the names, the rows, whether any game
    # has hands (league.table: their sheet, two more queries, only then).
    with django_assert_num_queries(9) as small:
        download(member_client, url("excel:export_game_log", club))
    for weeks in range(1, 6):
        play_day(club, players, DATE - datetime.timedelta(days=7 * weeks))
    with django_assert_num_queries(len(small.captured_queries)):
        _, workbook = download(member_client, url("excel:export_game_log", club))
    assert len(values(workbook.active)) - 1 == 6 * 3 * 4


def test_game_log_streams_rows_in_chunks(club, players, monkeypatch):
    """The rows come from one query read in chunks (`iterator`), never a list of every row."""
    monkeypatch.setattr(exports, "CHUNK", 5)
    play_day(club, players)
    with CaptureQueriesContext(connection) as queries:
        rows = list(exports.game_log_rows(club=club))
    assert len(rows) == 12 and len(queries.captured_queries) == 1


# --- standings -------------------------------------------------------------------------------


STANDINGS_FORMATS = {"total": JA_SCORE, "best": JA_SCORE, "yen": JA_YEN, "first_rate": "0.0%"}


def test_standings_of_a_season_are_the_selector_values(member_client, club, players, season):
    play_day(club, players)
    play_day(club, players, DATE - datetime.timedelta(days=7))
    response, workbook = download(
        member_client, url("excel:export_standings", club), season=season.pk
    )
    ws = workbook.active
    rows = values(ws)
    # mame-no-kai: every column but 調整 (no adjustments this season) and the hand columns (not
    # asked for: ?hands=1, tests/league/standings/test_standings_hands.py)
    columns = [k for k in StandingsTable.base_columns if k != "adjust" and k not in HAND_COLUMNS]
    assert rows[0] == [ja(StandingsTable.base_columns[k].verbose_name) for k in columns] + [
        ja(exports.NOTE.header)
    ]
    expected = list(
        stats.standings(club=club, start=season.start, end=season.end, min_games=season.min_games)
    )
    assert len(rows) - 1 == len(expected) == len(players)
    for got, row in zip(rows[1:], expected, strict=True):
        cells = dict(zip(columns, got, strict=False))
        for key in ("position", "name", "games", "first", "fourth", "busts", "chombo", "chips"):
            assert cells[key] == row[key], key
        assert number(cells["yen"]) == row["yen"]
        assert number(cells["total"]) == Decimal(row["total"]) / 10
        assert number(cells["best"]) == Decimal(row["best"]) / 10
        assert number(cells["average"]) == Decimal(row["average"]) / 100
        assert number(cells["avg_rank"]) == Decimal(row["avg_rank"]) / 100
        assert number(cells["top_two_rate"]) == Decimal((row["top_two_rate"] + 5) // 10) / 1000
    header = rows[0]
    for key, number_format in STANDINGS_FORMATS.items():
        column = header.index(ja(StandingsTable.base_columns[key].verbose_name)) + 1
        assert ws.cell(2, column).number_format == number_format
    assert ws.page_setup.orientation == "landscape"
    assert_sheet_layout(ws)
    assert_no_formulas(workbook)
    assert_injections_are_text(workbook)
    assert "2026%E5%B9%B4" in response["Content-Disposition"]  # the season's name: 2026年...


def test_standings_of_a_date_range_in_english(member_client, club, players):
    play_day(club, players)
    play_day(club, players, DATE - datetime.timedelta(days=30))
    start, end = DATE - datetime.timedelta(days=1), DATE
    response, workbook = download(
        english(member_client), url("excel:export_standings", club), start=str(start), end=str(end)
    )
    rows = values(workbook.active)
    assert workbook.active.title == "Standings"
    assert rows[0][:4] == [en(StandingsTable.base_columns["position"].verbose_name), "Player"] + [
        en(StandingsTable.base_columns[k].verbose_name) for k in ("games", "total")
    ]
    assert len(rows) - 1 == len(stats.standings(club=club, start=start, end=end))
    assert all(row[2] in (1, 2) for row in rows[1:])  # one day's games only
    assert f"{start}~{end}" in response["Content-Disposition"]


def test_standings_below_the_minimum_follow_under_a_caption_without_positions(
    member_client, club, players, season
):
    play_day(club, players)
    play_day(club, players, DATE - datetime.timedelta(days=7))
    Season.objects.filter(pk=season.pk).update(min_games=3)  # players[0] alone plays 4 games
    _, workbook = download(member_client, url("excel:export_standings", club), season=season.pk)
    rows = values(workbook.active)
    expected = list(stats.standings(club=club, start=season.start, end=season.end, min_games=3))
    qualified = [r for r in expected if r["qualified"]]
    others = [r for r in expected if not r["qualified"]]
    assert qualified and others
    width = len(rows[0])
    caption = rows.index([ja(exports.BELOW_MINIMUM), *[None] * (width - 1)])
    assert [row[1] for row in rows[1:caption] if row != [None] * width] == [
        r["name"] for r in qualified
    ]
    assert [row[0] for row in rows[1:caption] if row[0] is not None] == [
        r["position"] for r in qualified
    ]
    assert rows[caption + 1] == rows[0]  # the header again under the caption
    below = rows[caption + 2 :]
    assert [row[1] for row in below] == [r["name"] for r in others]
    assert {row[0] for row in below} == {None}  # no second "1"


def test_standings_without_money_have_no_yen_column(db):
    kenko, _people, client = moneyless_played()
    _, workbook = download(english(client), url("excel:export_standings", kenko))
    assert "Yen" not in values(workbook.active)[0]
    _, workbook = download(english(client), url("excel:export_game_log", kenko))
    yen_column = values(workbook.active)[0].index("Yen")
    assert {row[yen_column] for row in values(workbook.active)[1:]} == {None}


def test_standings_query_count_does_not_grow(
    member_client, club, players, season, django_assert_num_queries
):
    play_day(club, players)
    # 7: the statistics (ratings, seats, head-to-head) are a file of their own, made by a
    # worker (issue 38: their 3 queries and every pair's row were 84% of this download)
    with django_assert_num_queries(6) as small:
        download(member_client, url("excel:export_standings", club), season=season.pk)
    for weeks in range(1, 4):
        play_day(club, players, DATE - datetime.timedelta(days=7 * weeks))
    with django_assert_num_queries(len(small.captured_queries)):
        download(member_client, url("excel:export_standings", club), season=season.pk)


# --- the payment sheet -----------------------------------------------------------------------


def test_payment_sheet(member_client, club, day):
    ledger = settle_some(day)
    response, workbook = download(
        english(member_client), url("excel:export_payment_sheet", club, DATE)
    )
    assert response["Content-Disposition"] == (
        'attachment; filename="mame_2026-11-21_payment-sheet.xlsx"; '
        "filename*=UTF-8''%E3%83%9E%E3%83%A1%E3%81%AE%E4%BC%9A_2026-11-21_Payment%20sheet.xlsx"
    )
    ws = workbook.active
    rows = values(ws)
    assert ws.title == "Payment sheet"
    assert rows[0][:6] == ["Player", "Games", "Score", "Chips", "Games (yen)", "Total (yen)"]
    players = ledger.players
    by_name = {row[0]: row for row in rows[1 : 1 + len(players)]}
    for p in players:
        got = by_name[ledger.members[int(p.name)].name]
        assert got[1] == p.games and number(got[2]) == Decimal(p.score) / 10
        assert got[3:6] == [p.chips, p.game_yen, p.yen]
    house = rows[1 + len(players)]
    assert house[0] == "Club (house)" and house[5] == ledger.house
    assert sum(row[5] for row in rows[1 : 2 + len(players)]) == 0  # the day balances

    width = len(rows[0])
    transfers_at = rows.index(["Transfers", *[None] * (width - 1)]) + 1
    assert rows[transfers_at][:6] == ["From", "To", "Amount (yen)", "Status", "Check", "Note"]
    transfers = rows[transfers_at + 1 : rows.index([None] * width, transfers_at)]
    assert [t[3] for t in transfers] == ["paid", "unpaid"] + ["unpaid"] * len(ledger.transfers)
    assert [t[4] for t in transfers] == [exports.TICKED] + [exports.TICK_BOX] * (
        1 + len(ledger.transfers)
    )
    assert sum(t[2] for t in transfers[2:]) == sum(t.yen for t in ledger.transfers)
    assert "deferred" in transfers[1][5]
    status = ws.cell(transfers_at + 2, 4)  # centred, so that it never runs into the amount
    assert status.value == "paid" and status.alignment.horizontal == "center"

    debts_at = rows.index(["Open debts", *[None] * (width - 1)]) + 1
    assert rows[debts_at][:5] == ["Debtor", "Owed to", "Remaining (yen)", "Since", "Days"]
    [debt] = money.open_debts(club=club)
    assert rows[debts_at + 1][:3] == [debt.debtor.name, debt.creditor.name, debt.remaining]

    games_at = rows.index(["Games", *[None] * (width - 1)]) + 1
    assert rows[games_at][:6] == ["Game", "Rate", "E", "S", "W", "N"]
    games = rows[games_at + 1 :]
    stored = list(day.games.filter(voided=False).order_by("number"))
    assert [g[:2] for g in games] == [
        [f"Game {g.number} {g.table}".strip(), g.rate] for g in stored
    ]
    first = stored[0].results.filter(counted=True).order_by("seat").first()
    assert games[0][2] == f"{first.member.name} {Decimal(first.score) / 10:+.1f}"

    assert ws.page_setup.orientation == "portrait"
    assert ws.page_setup.fitToHeight == 1  # one A4 page
    assert ws.cell(2, 6).number_format == "#,##0;-#,##0;0"
    assert "2026/11/21" in ws.oddHeader.center.text
    assert_sheet_layout(ws)
    assert_no_formulas(workbook)
    assert_injections_are_text(workbook)


def test_payment_sheet_in_japanese_has_triangles(member_client, club, day):
    _, workbook = download(member_client, url("excel:export_payment_sheet", club, DATE))
    ws = workbook.active
    assert ws.title == ja(exports.PAYMENT_SHEET_TITLE)
    assert values(ws)[0][0] == ja(exports.GAME_LOG_COLUMNS[4].header)  # "Player"
    assert ws.cell(2, 6).number_format == JA_YEN


def test_payment_sheet_of_a_day_without_games_is_404(member_client, club):
    assert member_client.get(url("excel:export_payment_sheet", club, DATE)).status_code == 404


def test_payment_sheet_query_count_does_not_grow(
    member_client, club, players, day, django_assert_num_queries
):
    settle_some(day)
    # 16: the day's ledger, with its players' parts and open transfers read from the book.
    with django_assert_num_queries(15) as small:
        download(member_client, url("excel:export_payment_sheet", club, DATE))
    play_day(club, players)  # three more games on the same day
    settle_some(day)
    with django_assert_num_queries(len(small.captured_queries)):
        download(member_client, url("excel:export_payment_sheet", club, DATE))


# --- the statement ---------------------------------------------------------------------------


def test_statement_has_every_line_with_the_running_balance(member_client, club, players, day):
    settle_some(day)
    play_day(club, players, DATE - datetime.timedelta(days=7))
    member = players[0]
    statement = book_selectors.full_statement(member=member)
    response, workbook = download(
        english(member_client), url("excel:export_statement", club, member.pk)
    )
    ws = workbook.active
    rows = values(ws)
    assert ws.title == "Statement"
    balance = statement.balance
    assert balance != 0
    words = "Owes" if balance < 0 else "Is owed"
    assert rows[0][:2] == [f"Balance on {datetime.date.today():%Y/%m/%d}", "Yen"]
    assert rows[1][:2] == [words, abs(balance)]  # a label, and no minus sign to read twice
    assert rows[3][0] == "Details"
    assert rows[4] == ["Date", "Details", "Games", "Score", "Yen", "Balance"]
    lines = rows[5 : 5 + len(statement.lines)]
    for got, line in zip(lines, statement.lines, strict=True):
        assert got[0].date() == line.date
        # The change of the balance (issue 37: 1,752 → 477 is ▲1,275), and the balance.
        assert [got[4], got[5]] == [line.yen, line.balance]
        if line.entry is not None:
            with translation.override("en"):
                assert got[1] == describe_entry(line.entry, member)
        else:
            assert got[2] == line.parts.games and number(got[3]) == Decimal(line.parts.score) / 10
    assert lines[-1][5] == statement.balance
    assert [r[4] for r in lines[1:]] == [b[5] - a[5] for a, b in itertools.pairwise(lines)]
    assert ws.cell(6, 1).number_format == "yyyy/mm/dd"
    assert "member-" in response["Content-Disposition"]
    assert_sheet_layout(ws)
    assert_no_formulas(workbook)


def test_statement_of_a_formula_named_member(member_client, club, players, day):
    settle_some(day)
    member = next(m for m in players if m.name == "=1+1")
    response, workbook = download(member_client, url("excel:export_statement", club, member.pk))
    assert_no_formulas(workbook)
    assert workbook.active.oddHeader.center.text.count("=1+1") == 1
    assert "%3D1%2B1" in response["Content-Disposition"]


def test_statement_query_count_does_not_grow(
    member_client, club, players, day, django_assert_num_queries
):
    settle_some(day)
    member = players[2]
    # 13: the statement's lines counted first (a long one is made by a worker, issue 39), then
    # the book's: the lines summed, their entries, parties, days and days' games by key
    with django_assert_num_queries(12) as small:
        download(member_client, url("excel:export_statement", club, member.pk))
    for weeks in range(1, 4):
        play_day(club, players, DATE - datetime.timedelta(days=7 * weeks))
        other = Day.objects.get(club=club, date=DATE - datetime.timedelta(days=7 * weeks))
        settle_some(other)
    with django_assert_num_queries(len(small.captured_queries)):
        download(member_client, url("excel:export_statement", club, member.pk))


# --- who may download ------------------------------------------------------------------------

EXPORTS = [
    "excel:export_standings",
    "excel:export_game_log",
    "excel:export_payment_sheet",
    "excel:export_statement",
]


def export_url(name: str, club: Club, member: Member) -> str:
    args = {"excel:export_payment_sheet": [DATE], "excel:export_statement": [member.pk]}.get(
        name, []
    )
    return url(name, club, *args)


@pytest.mark.parametrize("name", EXPORTS)
def test_members_and_organisers_download(name, member_client, organiser_client, club, day):
    for client in (member_client, organiser_client):
        download(client, export_url(name, club, Member.objects.filter(club=club).first()))


@pytest.mark.parametrize("name", EXPORTS)
def test_strangers_and_logged_out_users_get_404(name, stranger_client, club, day):
    member = Member.objects.filter(club=club).first()
    assert stranger_client.get(export_url(name, club, member)).status_code == 404
    assert Client().get(export_url(name, club, member)).status_code == 404


@pytest.mark.parametrize("name", EXPORTS)
def test_wrong_method_is_405(name, member_client, club, day):
    member = Member.objects.filter(club=club).first()
    assert member_client.post(export_url(name, club, member)).status_code == 405


def test_statement_of_another_clubs_member_is_404(member_client, club, other_club, day):
    outsider = Member.objects.create(club=other_club, name="外部")
    assert member_client.get(url("excel:export_statement", club, outsider.pk)).status_code == 404


@pytest.mark.parametrize("name", ["excel:export_payment_sheet", "excel:export_statement"])
def test_money_exports_are_404_for_a_club_without_money(name, db):
    kenko, people, client = moneyless_played(Membership.ORGANISER)
    assert client.get(export_url(name, kenko, people[0])).status_code == 404


def test_pages_link_to_their_downloads(member_client, club, players, day, season):
    member = players[0]
    pages = [
        (url("standings:standings", club), url("excel:export_standings", club)),
        (url("standings:standings", club), url("excel:export_game_log", club)),
        (url("money:day_ledger", club, DATE), url("excel:export_payment_sheet", club, DATE)),
        (
            url("money:member_statement", club, member.pk),
            url("excel:export_statement", club, member.pk),
        ),
    ]
    for page, link in pages:
        response = member_client.get(page)
        assert response.status_code == 200, page
        assert f'href="{link}' in response.content.decode(), page
    season_page = member_client.get(
        url("standings:season_standings", club, season.pk)
    ).content.decode()
    assert f'href="{url("excel:export_standings", club)}?season={season.pk}' in season_page
    assert f'href="{url("excel:export_game_log", club)}?season={season.pk}' in season_page
