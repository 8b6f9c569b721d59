"""Every export, printed: LibreOffice turns each workbook into a PDF, and the PDF must fit the paper
the sheet promises (A4, in the orientation set, one page wide, the payment sheet on one page).

These need LibreOffice Calc and poppler's pdfinfo/pdftotext (Debian: libreoffice-calc-nogui,
poppler-utils, fonts-noto-cjk). Without them they are skipped, unless JANCHO_REQUIRE_PDF is set,
as .ci/run does, where a missing tool is a failure.
"""

from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.urls import reverse

from league.models import Day
from tests.support.exports import DATE, injected_players, play_day, settle_some

TOOLS = ("soffice", "pdfinfo", "pdftotext")
MISSING = [tool for tool in TOOLS if shutil.which(tool) is None]
if MISSING and os.environ.get("JANCHO_REQUIRE_PDF"):
    raise RuntimeError(f"JANCHO_REQUIRE_PDF is set but these are missing: {', '.join(MISSING)}")
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)}")

A4 = (595, 842)  # points, portrait
PAGE_SIZE = re.compile(r"Page\s+(\d+)\s+size:\s+([\d.]+) x ([\d.]+) pts")


@pytest.fixture
def players(club, members):
    return injected_players(club, members)


@dataclass(frozen=True)
class Printed:
    pages: list[tuple[int, int]]  # each page's width and height in points, rounded
    text: list[str]  # each page's text


def printed(xlsx: bytes, folder: Path) -> Printed:
    source = folder / "sheet.xlsx"
    source.write_bytes(xlsx)
    profile = folder / "profile"  # a profile of its own: runs never share LibreOffice's lock
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{profile}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(folder),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    pdf = folder / "sheet.pdf"
    info = subprocess.run(
        ["pdfinfo", "-f", "1", "-l", "999", str(pdf)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    pages = [(round(float(w)), round(float(h))) for _n, w, h in PAGE_SIZE.findall(info)]
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    return Printed(pages, text.split("\f")[: len(pages)])


def download(client, path: str, **params) -> bytes:
    response = client.get(path, params)
    assert response.status_code == 200, path
    return b"".join(response.streaming_content)


def url(name: str, club, *args) -> str:
    return reverse(name, args=[club.slug, *args])


@pytest.fixture
def history(club, players) -> Day:
    for weeks in range(6):
        play_day(club, players, DATE - datetime.timedelta(days=7 * weeks))
    day = Day.objects.get(club=club, date=DATE)
    settle_some(day)
    return day


def assert_a4(sheet: Printed, *, landscape: bool) -> None:
    size = (A4[1], A4[0]) if landscape else A4
    assert sheet.pages, "no page printed"
    for page in sheet.pages:
        assert abs(page[0] - size[0]) <= 1 and abs(page[1] - size[1]) <= 1, sheet.pages


def test_payment_sheet_prints_on_one_portrait_a4_page(member_client, club, history, tmp_path):
    sheet = printed(
        download(member_client, url("excel:export_payment_sheet", club, DATE)), tmp_path
    )
    assert_a4(sheet, landscape=False)
    assert len(sheet.pages) == 1
    text = sheet.text[0]
    for word in ("精算表", "支払い", "未払い一覧", "北"):  # the last block's last column too
        assert word in text, word


def test_standings_print_one_landscape_page_wide(member_client, club, history, tmp_path):
    sheet = printed(download(member_client, url("excel:export_standings", club)), tmp_path)
    assert_a4(sheet, landscape=True)
    # Every column is on the first page: its last column (Note) and its first (the position).
    first = sheet.text[0]
    assert "メモ" in first and "順位" in first


def test_game_log_prints_one_portrait_page_wide_with_the_header_on_every_page(
    member_client, club, history, players, tmp_path
):
    for weeks in range(6, 12):
        play_day(club, players, DATE - datetime.timedelta(days=7 * weeks))
    sheet = printed(download(member_client, url("excel:export_game_log", club)), tmp_path)
    assert_a4(sheet, landscape=False)
    assert len(sheet.pages) >= 2  # 144 rows: the header must repeat
    for text in sheet.text:
        assert "レート" in text and "日付" in text  # the first and the last column, every page


def test_statement_prints_one_portrait_page_wide(member_client, club, history, players, tmp_path):
    member = players[0]
    sheet = printed(
        download(member_client, url("excel:export_statement", club, member.pk)), tmp_path
    )
    assert_a4(sheet, landscape=False)
    first = sheet.text[0]
    assert "残高" in first and "未払い一覧" in sheet.text[-1]
