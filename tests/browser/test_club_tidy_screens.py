"""The tidy-up pages on a phone: the member list with its edit and merge links, a merge's
preview and its confirmation, closing a season and its frozen standings. Screenshots:
test-artifacts/screenshots/tidy-*.png."""

from __future__ import annotations

import datetime

import pytest

from league.core.clock import today
from league.models import Member, Membership
from league.recording import services
from tests.support.browser import fits_the_screen
from tests.support.clubs import MEMBER_NAMES, make_club, make_user
from tests.support.seasons import make_season

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def club_with_twins():
    club = make_club("mame", "mame-no-kai", "マメの会")
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES]
    guest = Member.objects.create(club=club, name="あおき（ゲスト）", kana="あおき", is_guest=True)
    organiser = make_user("organiser", club, Membership.ORGANISER)
    for seats in ([members[0], *members[1:4]], [guest, *members[1:4]]):
        data = services.GameInput(
            date=today(),
            seats=[
                services.SeatInput(m, p)
                for m, p in zip(seats, [52000, 31000, 19000, -3000], strict=True)
            ],
            deposits=1000,
            rate="0.3",
        )
        services.game_record(club=club, user=organiser, data=data)
    season = make_season(
        club=club,
        name="2026年 秋",
        start=today() - datetime.timedelta(days=30),
        end=today() + datetime.timedelta(days=30),
    )
    return club, members, guest, season


def test_merge_and_close_on_a_phone(phone, live_server, log_in, screenshot, club_with_twins):
    club, members, guest, season = club_with_twins
    log_in("organiser")
    base = f"{live_server.url}/c/{club.slug}"
    phone.goto(f"{base}/members/")
    assert fits_the_screen(phone)
    screenshot("tidy-members")
    phone.goto(f"{base}/members/{members[0].pk}/merge/")
    phone.select_option("#id_other", str(guest.pk))
    with phone.expect_navigation():
        phone.click("main form button.primary")
    assert "に移ります" in phone.inner_text("main")
    assert fits_the_screen(phone)
    screenshot("tidy-merge-preview")
    with phone.expect_navigation():
        phone.click("main form[method=post] button.primary")
    assert "統合しました" in phone.inner_text("body")
    guest.refresh_from_db()
    assert guest.merged_into_id == members[0].pk
    screenshot("tidy-members-after-merge")
    phone.goto(f"{base}/seasons/{season.pk}/close/")
    assert fits_the_screen(phone)
    screenshot("tidy-season-close")
    with phone.expect_navigation():
        phone.click("main form button.primary")
    text = phone.inner_text("main")
    assert "確定済み" in text and "青木" in text
    assert fits_the_screen(phone)
    screenshot("tidy-season-final")
