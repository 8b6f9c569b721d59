"""Readings suggested from names, found by reading, sorted by reading; the closest names first."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league.club import services as club_services
from league.club.directory import MemberDirectory
from league.core.readings import reading_of
from league.models import Member

pytestmark = pytest.mark.django_db


def test_a_reading_is_suggested_from_the_name():
    assert reading_of("長谷川 由美子") == "はせがわ ゆみこ"
    assert reading_of("阿部誠") == "あべまこと"
    assert reading_of("ｱｵｷ") == "あおき"
    assert reading_of("Smith") == ""  # nothing read as kana: no guess


def test_a_member_created_without_a_reading_gets_one(club, organiser):
    made = club_services.member_create(club=club, user=organiser, name="江藤 健")
    assert made.kana == "えとう たけし"
    typed = club_services.member_create(club=club, user=organiser, name="林 直子", kana="はやし")
    assert typed.kana == "はやし"  # a typed reading wins
    # Found by the reading everyone types, and sorted by it.
    directory = MemberDirectory(Member.objects.filter(club=club))
    assert directory.find("えとうたけし") == made


def test_the_members_list_sorts_by_the_suggested_reading(club, organiser, organiser_client):
    for name in ("渡辺 大輔", "青木 学", "小林 誠"):
        club_services.member_create(club=club, user=organiser, name=name)
    html = organiser_client.get(reverse("club:member_list", args=[club.slug])).content.decode()
    positions = [html.index(name) for name in ("青木 学", "小林 誠", "渡辺 大輔")]
    assert positions == sorted(positions)


def test_the_closest_members_come_first_for_a_mistyped_name(club, organiser):
    for name in ("江藤 健", "遠藤 剛", "佐藤 花子"):
        club_services.member_create(club=club, user=organiser, name=name)
    directory = MemberDirectory(Member.objects.filter(club=club))
    assert directory.find("江籐 健") is None
    assert directory.suggest("江籐 健")[0] == "江藤 健"  # a variant kanji
    assert directory.suggest("えとお たけし")[0] == "江藤 健"  # one kana wrong
