"""One identity for a name (league.core.names) on every path, and finding a member the way people type.

Before: ｱｵｷ and アオキ could both be members, typing either seated ｱｵｷ, and 青木\\u200b or
\\u202egnp.exe were accepted as new look-alike members. 阿部誠 typed without its space was "no such
member", a surname only one member has was refused, and an inactive member was offered as a new
guest whose save then failed.
"""

from __future__ import annotations

import datetime
import io

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from league.club import services as club_services
from league.club.directory import AmbiguousMember, MemberDirectory
from league.core import names
from league.core.errors import ServiceError
from league.models import AuditLog, Game, Member

DATE = datetime.date(2026, 11, 21)


# --- the key -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("ｱｵｷ", "アオキ"),  # half-width katakana
        ("阿部誠", "阿部 誠"),
        ("阿部　誠", "阿部 誠"),  # a full-width space
        ("  佐々木   美穂 ", "佐々木美穂"),
        ("ＡＢＣ", "abc"),  # full-width letters, case
        ("青木\u200b", "青木"),  # what no name may hold is never part of the key
    ],
)
def test_names_that_are_one_name(a, b):
    assert names.name_key(a) == names.name_key(b)


@pytest.mark.parametrize(("a", "b"), [("アオキ", "あおき"), ("青木", "青木2"), ("高橋", "高梁")])
def test_names_that_are_two_names(a, b):
    assert names.name_key(a) != names.name_key(b)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("青木\u200b", ["U+200B"]),  # zero-width space
        ("\u202egnp.exe", ["U+202E"]),  # right-to-left override
        ("青\u2066木\u2069", ["U+2066", "U+2069"]),  # isolates
        ("ㅤ", ["U+3164"]),  # a blank-looking letter
        ("青木\x00", ["U+0000"]),
        ("青木 誠", []),
        ("ｱｵｷ", []),
    ],
)
def test_invisible_characters(text, found):
    assert names.invisible_characters(text) == found


WIDE = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)})  # ASCII → full width


@given(st.text(st.characters(categories=("L", "N", "Zs")), max_size=20))
def test_the_key_ignores_spaces_and_width_and_is_stable(text):
    key = names.name_key(text)
    assert names.name_key(key) == key
    assert names.name_key(" ".join(text)) == key  # a space between every character
    assert names.name_key(text.translate(WIDE)) == key
    assert names.name_key(names.clean_name(text)) == key


# --- creating members ----------------------------------------------------------------------------


def test_a_twin_name_is_refused_with_the_member_it_would_twin(club, organiser):
    club_services.member_create(club=club, user=organiser, name="ｱｵｷ")
    for twin in ("アオキ", "ア オ キ", "ｱｵｷ "):
        with pytest.raises(ServiceError) as caught:
            club_services.member_create(club=club, user=organiser, name=twin)
        assert "アオキ" in caught.value.errors["name"][0]
    assert Member.objects.get(club=club).name == "アオキ"  # stored in its NFKC form


@pytest.mark.parametrize("name", ["青木\u200b", "\u202egnp.exe", "青木\x00", "ㅤ"])
def test_a_name_with_invisible_characters_is_refused(club, organiser, name):
    with pytest.raises(ServiceError) as caught:
        club_services.member_create(club=club, user=organiser, name=name)
    assert "U+" in caught.value.errors["name"][0]
    assert not Member.objects.filter(club=club).exists()


def test_the_database_refuses_twins_on_any_path(club):
    Member.objects.create(club=club, name="阿部 誠")
    with pytest.raises(IntegrityError), transaction.atomic():
        Member.objects.create(club=club, name="阿部誠")


def test_the_member_form_refuses_twins_and_invisible_characters(organiser_client, club, members):
    url = reverse("club:member_new", args=[club.slug])
    response = organiser_client.post(url, {"name_0": "青 木", "kana_0": ""})
    assert response.status_code == 200 and "name_0" in response.context["form"].errors
    response = organiser_client.post(url, {"name_0": "\u202egnp.exe", "kana_0": ""})
    assert response.status_code == 200 and "name_0" in response.context["form"].errors
    assert Member.objects.filter(club=club).count() == len(members)


def test_name_twins_lists_the_twins_that_an_old_database_kept_apart(club):
    """A database that had twins when the name key came (migration 0007, now in the squashed
    0001) kept the second as `key#pk`: `manage.py name_twins` names both and merges nothing."""
    first = Member.objects.create(club=club, name="アオキ")
    second = Member.objects.create(club=club, name="ｱｵｷ 2")
    Member.objects.filter(pk=second.pk).update(name="ｱｵｷ", name_key=f"{first.name_key}#{second.pk}")
    out = io.StringIO()
    call_command("name_twins", stdout=out)
    assert f"ｱｵｷ (#{second.pk}) is the same name as アオキ (#{first.pk})" in out.getvalue()
    assert "1 twin(s)" in out.getvalue()
    assert Member.objects.filter(club=club).count() == 2  # reported, not merged


# --- finding a member ----------------------------------------------------------------------------


@pytest.fixture
def roster(club) -> dict[str, Member]:
    people = [
        ("阿部 誠", "あべ まこと"),
        ("佐々木 美穂", "ささき みほ"),
        ("高橋 真由美", "たかはし まゆみ"),
        ("松本 和也", "まつもと かずや"),
        ("松本 健", "まつもと けん"),
    ]
    return {n: Member.objects.create(club=club, name=n, kana=k) for n, k in people}


@pytest.mark.parametrize(
    ("typed", "found"),
    [
        ("阿部誠", "阿部 誠"),
        ("佐々木美穂", "佐々木 美穂"),
        ("高橋", "高橋 真由美"),  # the only 高橋
        ("真由美", "高橋 真由美"),  # the only 真由美
        ("たかはし", "高橋 真由美"),  # by the reading's surname
        ("ささきみほ", "佐々木 美穂"),  # by the whole reading
    ],
)
def test_members_are_found_the_way_people_type(roster, typed, found):
    assert MemberDirectory(roster.values()).find(typed).name == found


def test_a_shared_surname_asks_for_the_full_name(roster):
    with pytest.raises(AmbiguousMember) as caught:
        MemberDirectory(roster.values()).find("松本")
    assert "松本 和也" in caught.value.message and "松本 健" in caught.value.message


def test_nothing_matching_suggests_the_closest_names(roster):
    directory = MemberDirectory(roster.values())
    assert directory.find("佐々木美帆") is None
    assert directory.suggest("佐々木美帆")[0] == "佐々木 美穂"
    assert "佐々木 美穂" in directory.unknown_message("佐々木美帆")
    assert directory.suggest("ZZZ") == []


def record_post(names_points, **extra):
    data = {"date": str(DATE), "table": "A", "deposits": "0", "rate": "0.3", "action": "save"}
    for i, (name, points) in enumerate(names_points):
        data |= {f"member_{i}": name, f"points_{i}": str(points), f"chombo_{i}": "0"}
    return data | extra


def test_the_record_form_finds_names_typed_without_spaces_and_by_surname(
    organiser_client, club, roster
):
    url = reverse("recording:game_new", args=[club.slug])
    seats = [("阿部誠", 40000), ("佐々木美穂", 30000), ("高橋", 20000), ("松本和也", 10000)]
    response = organiser_client.post(url, record_post(seats))
    assert response.status_code == 302, response.context["form"].errors
    game = Game.objects.get(club=club)
    seated = (
        game.results.filter(counted=True).order_by("seat").values_list("member__name", flat=True)
    )
    assert list(seated) == ["阿部 誠", "佐々木 美穂", "高橋 真由美", "松本 和也"]


def test_an_inactive_member_is_offered_back_never_as_a_new_guest(
    organiser_client, organiser, club, roster
):
    quiet = roster["高橋 真由美"]
    club_services.member_set_active(member=quiet, user=organiser, active=False)
    url = reverse("recording:game_new", args=[club.slug])
    seats = [("阿部誠", 40000), ("佐々木美穂", 30000), ("高橋真由美", 20000), ("松本和也", 10000)]
    response = organiser_client.post(url, record_post(seats))
    form = response.context["form"]
    assert "休会中" in form.errors["member_2"][0]
    assert 2 in form.offer_reactivate and 2 not in form.offer_guest
    assert 'name="reactivate_2"' in response.content.decode()
    # One tick: the member is back and seated, in one transaction with the game, audited.
    response = organiser_client.post(url, record_post(seats, reactivate_2="on"))
    assert response.status_code == 302
    quiet.refresh_from_db()
    assert quiet.is_active
    assert Game.objects.get(club=club).results.filter(member=quiet, counted=True).exists()
    assert AuditLog.objects.filter(club=club, target=f"member:{quiet.pk}").count() == 2


def test_the_api_finds_names_the_same_way(club, roster, organiser):
    from league.api.games import _Members
    from league.api.schemas import PlayerIn

    found, problem = _Members(roster.values()).find(PlayerIn(name="阿部誠", points=0))
    assert found == roster["阿部 誠"] and problem is None
    found, problem = _Members(roster.values()).find(PlayerIn(name="佐々木美帆", points=0))
    assert found is None and "佐々木 美穂" in problem
