"""One way to write each thing: ▲ for every negative (chips too), one wording for chombo, rates to
one decimal rounded half up, one date format (2026/11/22), Japanese punctuation in Japanese."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.template import Context, Template
from django.urls import reverse
from django.utils import formats, translation

from league.core import format as jancho
from league.recording import services
from league.recording.services import ChipInput, GameInput, SeatInput

DATE = datetime.date(2026, 11, 22)


@pytest.mark.parametrize(("language", "expected"), [("ja", "▲1"), ("en", "-1")])
def test_a_negative_count_is_written_like_scores_and_yen(language, expected):
    with translation.override(language):
        assert jancho.count(-1) == expected
        assert jancho.count(3) == "3" and jancho.count(0) == "0"


def test_chombo_has_one_wording():
    with translation.override("ja"):
        assert jancho.chombo(1) == "チョンボ1回"
        assert jancho.chombo(2) == "チョンボ2回"
        assert jancho.chombo(0) == ""
    with translation.override("en"):
        assert jancho.chombo(1) == "1 chombo"


def test_no_template_writes_chombo_another_way():
    for path in Path(settings.BASE_DIR, "templates").rglob("*.html"):
        text = path.read_text()
        assert not re.search(r"chombo[^{]*%\} ×\{\{", text), path  # 「チョンボ ×1」
        assert "chombo{% plural %}" not in text, path  # the count belongs to the chombo filter


@pytest.mark.parametrize("language", ["ja", "en"])
def test_one_date_format_in_both_languages(language):
    moment = datetime.datetime(2026, 11, 22, 19, 5)
    with translation.override(language):
        assert formats.date_format(DATE) == "2026/11/22"
        assert formats.date_format(DATE, "SHORT_DATE_FORMAT") == "2026/11/22"
        assert formats.date_format(moment, "DATETIME_FORMAT") == "2026/11/22 19:05"
        assert Template("{{ d }}").render(Context({"d": DATE})) == "2026/11/22"


def test_no_template_uses_another_date_format():
    for path in Path(settings.BASE_DIR, "templates").rglob("*.html"):
        for shown in re.findall(r'\|date:["\']([^"\']+)["\']', path.read_text()):
            assert shown.startswith("Y/m/d") or shown in ("Y-m-d", "c", "H:i"), (path, shown)


JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# ASCII punctuation touching Japanese text: 「変わります.」「優勝者:」「1回戦, 2回戦」
ASCII_AFTER_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff）」][.,:;!?]")


def test_japanese_translations_use_japanese_punctuation():
    catalog = Path(settings.BASE_DIR, "locale/ja/LC_MESSAGES/django.po").read_text()
    checked = 0
    for block in catalog.split("\n\n"):
        if "msgstr" not in block:
            continue
        translation_part = "msgstr" + block.split("msgstr", 1)[1]
        strings = re.findall(r'^(?:msgstr(?:\[\d\])? )?"(.*)"$', translation_part, re.M)
        translated = "".join(strings)
        if JAPANESE.search(translated):
            checked += 1
            assert not ASCII_AFTER_JAPANESE.search(translated), translated
    assert checked > 500


def test_the_day_and_game_pages_write_negative_chips_with_a_triangle(
    organiser_client, club, members
):
    points = [52000, 31000, 19000, -2000]
    seats = [SeatInput(m, p) for m, p in zip(members[:4], points, strict=True)]
    chips = [ChipInput("ippatsu", members[0])]  # tsumo: the others pay one chip each
    game = services.game_record(
        club=club,
        user=None,
        data=GameInput(date=DATE, seats=seats, rate="0.3", chips=chips),
    )
    for url in (
        reverse("recording:day_detail", args=[club.slug, DATE]),
        reverse("recording:game_detail", args=[club.slug, game.pk]),
    ):
        page = organiser_client.get(url).content.decode()
        assert ">▲1<" in page, url
        assert ">-1<" not in page, url


def test_japanese_form_labels_end_in_a_full_width_colon():
    from league.club.forms_manage import SeasonForm

    with translation.override("ja"):
        assert SeasonForm()["name"].label_tag().endswith("：</label>")
    with translation.override("en"):
        assert SeasonForm()["name"].label_tag().endswith(":</label>")
