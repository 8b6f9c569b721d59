"""もしかして on a phone: a name check-in and the record form did not find (齋藤 由美 for
斎藤 由美子) comes back with the closest members as buttons; tapping one fills the field, and the
check-in and the game then go through. A spaceless reading (なかむら for 中村優) needs none."""

from __future__ import annotations

import pytest

from league.models import Attendance, Game, Member, Membership
from tests.support.clubs import make_club, make_user

pytestmark = pytest.mark.django_db(transaction=True)

PEOPLE = [
    ("中村優", "なかむらゆう"),
    ("斎藤 由美子", "さいとう ゆみこ"),
    ("渡辺 大輔", "わたなべ だいすけ"),
    ("高橋 真由美", "たかはし まゆみ"),
]


@pytest.fixture
def mame(db):
    club = make_club("mame", "mame-no-kai", "マメの会")
    for name, kana in PEOPLE:
        Member.objects.create(club=club, name=name, kana=kana)
    make_user("organiser", club, Membership.ORGANISER)
    return club


def test_tapping_a_suggestion_fills_the_field(phone, live_server, log_in, mame, screenshot):
    log_in("organiser")
    phone.goto(f"{live_server.url}/c/mame/draw/")
    with phone.expect_navigation():
        phone.click("[data-open-draw]")
    # Check-in: a spaceless reading finds 中村優; a variant nobody has gets もしかして.
    for typed in ("なかむら", "齋藤 由美"):
        phone.locator("#id_name").fill(typed)
        with phone.expect_navigation():
            phone.click(".check-in button[type=submit]")
    suggestion = phone.locator('.check-in [data-fill="id_name"]').first
    assert suggestion.inner_text() == "斎藤 由美子"
    screenshot("names-check-in-suggestion")
    suggestion.tap()
    assert phone.locator("#id_name").input_value() == "斎藤 由美子"
    with phone.expect_navigation():
        phone.click(".check-in button[type=submit]")
    checked = Attendance.objects.filter(day__club=mame).values_list("member__name", flat=True)
    assert sorted(checked) == ["中村優", "斎藤 由美子"]

    # The record form: the same name, tapped into its seat.
    phone.goto(f"{live_server.url}/c/mame/games/new/")
    for i, (typed, points) in enumerate(
        [("齋藤 由美", "40000"), ("なかむら", "30000"), ("渡邉", "20000"), ("髙橋", "10000")]
    ):
        phone.locator(f"#id_member_{i}").fill(typed)
        phone.locator(f"#id_points_{i}").fill(points)
    phone.locator("#id_deposits").fill("0")
    with phone.expect_navigation():
        phone.click("form[data-record] .actions button[name=action][value=preview]")
    button = phone.locator('[data-fill="id_member_0"]').first
    assert button.inner_text() == "斎藤 由美子"
    screenshot("names-record-suggestion")
    button.tap()
    assert phone.locator("#id_member_0").input_value() == "斎藤 由美子"
    with phone.expect_navigation():
        phone.click("form[data-record] .actions button[name=action][value=preview]")
    with phone.expect_navigation():
        phone.click("[data-preview] button[name=action][value=save]")
    game = Game.objects.get(club=mame)
    seated = game.results.filter(counted=True).order_by("seat")
    assert list(seated.values_list("member__name", flat=True)) == [
        "斎藤 由美子",
        "中村優",
        "渡辺 大輔",
        "高橋 真由美",
    ]
