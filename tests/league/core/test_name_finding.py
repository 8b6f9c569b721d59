"""Finding a member by a reading typed without its space and by variant kanji, on every path
(league.core.directory): the finder itself, the record form, check-in at the draw, the Excel
import and the API.

Before: 中村優, who joined without a space (reading なかむらゆう), was not found by なかむら at
check-in, and 斉藤 typed for 斎藤 was "no such member" with no suggestion.
"""

from __future__ import annotations

import datetime
import io
import json

import openpyxl
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from league.accounts import tokens as api_auth
from league.club import services as club_services
from league.core import names
from league.core.directory import Ambiguous, Directory
from league.core.readings import name_parts, reading_of, reading_parts
from league.excel import imports
from league.models import Attendance, Game, Member

pytestmark = pytest.mark.django_db

DATE = datetime.date(2026, 11, 21)
PEOPLE = ("中村優", "斎藤 由美子", "渡辺 大輔", "高橋 真由美", "山崎 太郎", "青木 学")


@pytest.fixture
def people(club, organiser) -> dict[str, Member]:
    """Members as the member form makes them: a reading suggested from the name (中村優 →
    なかむらゆう, no space, as the name has none)."""
    made = {n: club_services.member_create(club=club, user=organiser, name=n) for n in PEOPLE}
    assert made["中村優"].kana == "なかむらゆう"
    return made


# --- the rule --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("齋藤", "斎藤"),
        ("斉藤", "斎藤"),
        ("渡邉", "渡邊"),
        ("髙橋", "高橋"),
        ("山﨑", "山崎"),
        ("𠮷田", "吉田"),
    ],
)
def test_variant_kanji_share_a_key(a, b):
    assert names.variant_key(a) == names.variant_key(b)
    assert names.name_key(a) != names.name_key(b)  # the identity of a name is unchanged


def test_a_name_without_a_space_is_split_in_two_with_its_reading():
    assert name_parts("中村優") == ("中村", "優")
    assert reading_parts("中村優", "なかむらゆう") == ("なかむら", "ゆう")
    assert name_parts("髙橋真由美") == ("高橋", "真由美")  # pykakasi cannot read 髙
    assert reading_of("髙橋 真由美") == "たかはし まゆみ"
    assert name_parts("田中") == ()  # one word: no parts
    assert name_parts("さくら") == ()  # kana: not split


@pytest.mark.parametrize(
    ("typed", "found"),
    [
        ("なかむら", "中村優"),  # the family name's reading, the reading having no space
        ("なかむら ゆう", "中村優"),
        ("なかむらゆう", "中村優"),
        ("中村", "中村優"),
        ("中村 優", "中村優"),
        ("齋藤由美子", "斎藤 由美子"),
        ("斉藤 由美子", "斎藤 由美子"),
        ("斉藤", "斎藤 由美子"),  # a variant of a family name only one member has
        ("渡邊大輔", "渡辺 大輔"),
        ("渡邉", "渡辺 大輔"),
        ("髙橋真由美", "高橋 真由美"),
        ("山﨑太郎", "山崎 太郎"),
    ],
)
def test_spaceless_readings_and_variant_kanji_find_the_member(people, typed, found):
    assert Directory(people.values()).find(typed).name == found


def test_two_members_whose_names_differ_by_a_variant(people, club, organiser):
    other = club_services.member_create(club=club, user=organiser, name="斉藤 由美子")
    directory = Directory(Member.objects.filter(club=club))
    assert directory.find("斉藤 由美子") == other  # the name as written wins
    assert directory.find("斎藤由美子") == people["斎藤 由美子"]
    with pytest.raises(Ambiguous) as caught:
        directory.find("齋藤 由美子")  # a variant of both: no guess
    assert caught.value.names == ["斉藤 由美子", "斎藤 由美子"]


def test_a_variant_nobody_has_is_suggested(people):
    directory = Directory(people.values())
    assert directory.find("齋藤 由美") is None
    assert directory.suggest("齋藤 由美")[0] == "斎藤 由美子"


# --- every path --------------------------------------------------------------------------------


def record_post(typed):
    data = {"date": str(DATE), "table": "A", "deposits": "0", "rate": "0.3", "action": "save"}
    for i, (name, points) in enumerate(zip(typed, (40000, 30000, 20000, 10000), strict=True)):
        data |= {f"member_{i}": name, f"points_{i}": str(points), f"chombo_{i}": "0"}
    return data


SEATED = ["中村優", "斎藤 由美子", "渡辺 大輔", "高橋 真由美"]
TYPED = ["なかむら", "斉藤由美子", "渡邉", "髙橋 真由美"]


def seated(game: Game) -> list[str]:
    rows = game.results.filter(counted=True).order_by("seat")
    return list(rows.values_list("member__name", flat=True))


def test_the_record_form(organiser_client, club, people):
    response = organiser_client.post(
        reverse("recording:game_new", args=[club.slug]), record_post(TYPED)
    )
    assert response.status_code == 302, response.context["form"].errors
    assert seated(Game.objects.get(club=club)) == SEATED


def test_check_in(organiser_client, club, people):
    organiser_client.post(reverse("draw:draw_start", args=[club.slug]), {"date": "2026/11/21"})
    address = reverse("draw:draw_check_in", args=[club.slug, DATE])
    for typed in TYPED:
        organiser_client.post(address, {"name": typed})
    checked = Attendance.objects.filter(day__club=club).values_list("member__name", flat=True)
    assert sorted(checked) == sorted(SEATED)
    assert Member.objects.filter(club=club).count() == len(PEOPLE)  # no guest made


def test_the_import(club, people):
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "2024"
    sheet.append(["日付", "卓", "東", "素点", "南", "素点", "西", "素点", "北", "素点", "供託"])
    row = [datetime.date(2024, 5, 1), "A"]
    typed = ["なかむら ゆう", "斉藤由美子", "渡邊大輔", "髙橋 真由美"]
    for name, points in zip(typed, (45000, 31000, 19000, 5000), strict=True):
        row += [name, points]
    sheet.append([*row, 0])
    out = io.BytesIO()
    workbook.save(out)
    with translation.override("en"):
        plan = imports.plan_build(club=club, data=out.getvalue())
    assert plan.unknown == [] and plan.ready
    # What the import took for whom, shown on the preview.
    assert {typed: m.name for typed, m in plan.by_reading.items()} == {
        "なかむら ゆう": "中村優",
        "斉藤由美子": "斎藤 由美子",
        "渡邊大輔": "渡辺 大輔",
        "髙橋 真由美": "高橋 真由美",
    }


def test_the_api(club, organiser, people):
    secret = api_auth.token_create(club=club, user=organiser, name="bot")[1]
    players = [
        {"name": n, "points": p} for n, p in zip(TYPED, (52000, 31000, 19000, -2000), strict=True)
    ]
    data = {"date": DATE.isoformat(), "table": "A", "rate": "0.3", "players": players}
    response = Client().post(
        f"/api/clubs/{club.slug}/games",
        json.dumps(data),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert response.status_code == 201, response.content
    assert [p["name"] for p in response.json()["players"]] == SEATED


# --- もしかして: each suggestion a button that fills the field ---------------------------------


def test_the_record_form_offers_each_suggestion_as_a_button(organiser_client, club, people):
    typed = ["齋藤 由美", "渡辺 大輔", "高橋 真由美", "青木 学"]
    response = organiser_client.post(
        reverse("recording:game_new", args=[club.slug]), record_post(typed)
    )
    assert response.status_code == 200 and not Game.objects.exists()
    html = response.content.decode()
    button = 'data-fill="id_member_0" data-name="斎藤 由美子">斎藤 由美子</button>'
    assert button in html
    assert html.count("data-fill=") == 1  # only the seat not found


def test_check_in_offers_each_suggestion_as_a_button(organiser_client, club, people):
    organiser_client.post(reverse("draw:draw_start", args=[club.slug]), {"date": "2026/11/21"})
    response = organiser_client.post(
        reverse("draw:draw_check_in", args=[club.slug, DATE]), {"name": "齋藤 由美"}
    )
    assert not Attendance.objects.exists()
    page = organiser_client.get(response.url).content.decode()
    assert 'data-fill="id_name" data-name="斎藤 由美子">斎藤 由美子</button>' in page
    assert 'value="齋藤 由美"' in page  # the name typed, to correct rather than retype
