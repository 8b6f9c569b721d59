"""Workbooks to import, made in memory, and uploading them through the import pages."""

from __future__ import annotations

import datetime
import io
from typing import Any

import openpyxl
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation

from league.excel import imports

D = datetime.date


DAY = D(2024, 5, 1)


SIMPLE_HEADER = ["日付", "卓", "東", "素点", "南", "素点", "西", "素点", "北", "素点", "供託"]


class Formula(str):
    """A cell value written as a formula (every other string is written as text)."""


def xlsx(*sheets: tuple[str, list[list[Any]]]) -> bytes:
    """A workbook with these sheets (title, rows); strings are text cells, never formulas."""
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for title, rows in sheets:
        sheet = workbook.create_sheet(title)
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row, start=1):
                cell = sheet.cell(row=r, column=c, value=value)
                if isinstance(value, str) and not isinstance(value, Formula):
                    cell.data_type = "s"
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def simple(*games: list[Any], header: list[str] | None = None, title: str = "2024") -> bytes:
    return xlsx((title, [header or SIMPLE_HEADER, *games]))


def game(*seats: tuple[str, Any], date: Any = DAY, table: str = "A", deposits: Any = 0) -> list:
    row: list[Any] = [date, table]
    for name, points in seats:
        row += [name, points]
    return [*row, deposits]


STANDARD = (("青木", 45000), ("馬場", 31000), ("千葉", 19000), ("土井", 5000))


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def url(name: str, club) -> str:
    return reverse(name, args=[club.slug])


def upload(client: Client, club, data: bytes, filename: str = "scores.xlsx"):
    workbook = SimpleUploadedFile(filename, data, content_type="application/octet-stream")
    return client.post(url("excel:import_upload", club), {"workbook": workbook})


def plan_of(club, data: bytes) -> imports.Plan:
    with translation.override("en"):
        return imports.plan_build(club=club, data=data)
