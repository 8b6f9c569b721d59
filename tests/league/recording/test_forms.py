"""The recording form on its own, without a database: typed dates, numbers and names."""

from __future__ import annotations

import datetime

import pytest

import scoring
from league.core.clock import parse_date, today
from league.core.errors import ServiceError
from league.models import Club, Member
from league.recording.forms import GameForm

CLUB = Club(pk=1, slug="mame", name="マメの会")
RULES = scoring.PRESETS["mame-no-kai"].rules


def member(pk: int, name: str, kana: str = "") -> Member:
    return Member(pk=pk, club=CLUB, name=name, kana=kana)


MEMBERS = [
    member(1, "青木", "あおき"),
    member(2, "馬場", "ばば"),
    member(3, "千葉", "ちば"),
    member(4, "土井", "どい"),
    member(5, "土居", "どい"),  # the same reading as 土井
    member(6, "アオキ"),
]


def form(rules: scoring.Rules = RULES, **data: str) -> GameForm:
    base = {"date": "2026-11-21", "rate": "0.3"}
    names = ("青木", "馬場", "千葉", "土井")
    points = ("52000", "31000", "19000", "-3000")
    for i in range(rules.players):
        base[f"member_{i}"] = names[i]
        base[f"points_{i}"] = points[i]
    return GameForm({**base, **data}, club=CLUB, rules=rules, members=MEMBERS)


@pytest.mark.parametrize(
    "typed",
    [
        "2026-11-21",
        "2026/11/21",
        "2026年11月21日",
        "２０２６／１１／２１",
        " 2026-11-21 ",
        "2026.11.21",
    ],
)
def test_dates_as_people_type_them(typed):
    assert parse_date(typed) == datetime.date(2026, 11, 21)


@pytest.mark.parametrize("typed", ["", "21/11/2026", "2026-02-30", "2026-11", "令和8年11月21日"])
def test_what_is_not_a_date(typed):
    with pytest.raises(ValueError):
        parse_date(typed)


def test_today_is_tokyos_today():
    late_utc = datetime.datetime(2026, 11, 21, 15, 30, tzinfo=datetime.UTC)
    assert today(late_utc) == datetime.date(2026, 11, 22)
    assert today(late_utc - datetime.timedelta(hours=1)) == datetime.date(2026, 11, 21)


@pytest.mark.parametrize(
    ("typed", "points"),
    [
        ("５２，０００", 52000),
        ("▲3,000", -3000),
        ("△3000", -3000),
        ("−3,000", -3000),
        ("ー3000", -3000),
        ("-3000", -3000),
        ("＋1,200", 1200),
        ("25000点", 25000),
    ],
)
def test_points_as_people_type_them(typed, points):
    f = form(points_3=typed)
    f.is_valid()
    assert f.cleaned_data["points_3"] == points


@pytest.mark.parametrize("typed", ["", "19千", "1.5", "--3000", "abc"])
def test_unreadable_points_are_field_errors(typed):
    f = form(points_2=typed)
    assert not f.is_valid()
    assert list(f.errors) == ["points_2"]


def test_a_valid_form_gives_the_services_input():
    f = form(
        deposits="１，０００", table=" B ", chombo_1="1", chip_kind_0="ippatsu", chip_winner_0="0"
    )
    assert f.is_valid(), f.errors
    data = f.game_input()
    assert [(s.member.name, s.points, s.chombo) for s in data.seats] == [
        ("青木", 52000, 0),
        ("馬場", 31000, 1),
        ("千葉", 19000, 0),
        ("土井", -3000, 0),
    ]
    assert (data.date, data.table, data.deposits, data.rate) == (
        datetime.date(2026, 11, 21),
        "B",
        1000,
        "0.3",
    )
    assert [(c.kind, c.winner.name, c.discarder, c.multiplier) for c in data.chips] == [
        ("ippatsu", "青木", None, 1)
    ]


def test_names_resolve_by_name_then_by_unique_reading():
    f = form(member_0="ｱｵｷ", member_1="ばば", member_2=" 千葉 ")
    assert f.is_valid(), f.errors
    assert [s.member.pk for s in f.game_input().seats] == [6, 2, 3, 4]


def test_a_shared_reading_is_ambiguous():
    f = form(member_3="どい")
    assert not f.is_valid()
    assert list(f.errors) == ["member_3"]
    assert 3 not in f.offer_guest


def test_a_new_guest_is_a_stand_in_until_saved():
    f = form(member_2="新人", guest_2="on")
    assert f.is_valid(), f.errors
    assert f.guest_names() == {2: "新人"}
    stand_in = f.game_input().seats[2].member
    assert (stand_in.name, stand_in.is_guest, stand_in.pk) == ("新人", True, -3)
    saved = member(99, "新人")
    assert f.game_input({2: saved}).seats[2].member is saved


def test_three_player_rules_have_three_seats_and_no_rate_or_chips():
    rules = scoring.PRESETS["pairon-kansai-3p"].rules
    f = form(rules, points_0="60000", points_1="35000", points_2="10000")
    assert [s.wind for s in f.seats()] == ["東", "南", "西"]
    assert "rate" not in f.fields and "chip_kind_0" not in f.fields
    assert f.is_valid(), f.errors
    assert f.game_input().rate == ""


def test_service_errors_land_next_to_their_fields():
    f = form()
    assert f.is_valid()
    f.add_service_error(
        ServiceError(
            {
                "points": ["sum"],
                "points_1": ["hundreds"],
                "chips": ["chip"],
                "__all__": ["stale"],
                "name": ["elsewhere"],
            }
        )
    )
    assert f.block_errors == {"points": ["sum"], "chips": ["chip"]}
    assert f.errors["points_1"] == ["hundreds"]
    assert f.non_field_errors() == ["stale", "elsewhere"]


def test_an_edit_form_shows_the_date_but_keeps_the_stored_one():
    f = GameForm(
        {"date": "2030-01-01", "revision": "2", "member_0": "青木"},
        club=CLUB,
        rules=RULES,
        members=MEMBERS,
        editing=True,
        initial={"date": "2026-11-21"},
    )
    f.is_valid()
    assert f.cleaned_data["date"] == datetime.date(2026, 11, 21)
    assert f.cleaned_data["revision"] == 2
    assert "submission_key" not in f.fields
