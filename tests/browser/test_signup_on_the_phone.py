"""Starting a club on a phone, from an empty database: sign up, create the club with マメの会's
rules (the worked example shows them), its first season, and land on the club's home as its
organiser, ready to record a game."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from league.models import Club, Membership, RulesVersion, Season
from tests.support.browser import fits_the_screen

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "tsumo-pinfu-2026"

# How many lines each step's name takes in the steps bar (a line box per line of its text).
STEP_LINES = """els => els.map(li => {
  const range = document.createRange();
  range.selectNodeContents(li);
  return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
})"""


def steps_on_one_line(page) -> None:
    lines = page.locator("ol.steps li").evaluate_all(STEP_LINES)
    assert lines == [1, 1, 1], f"a step's name breaks: {lines}"


def test_sign_up_and_start_a_club_on_the_phone(phone, live_server, screenshot):
    page = phone
    # Opening the address logged out goes to the login page (next=/); the sign-up from there
    # lands in club creation, not on the empty list of one's clubs.
    page.goto(f"{live_server.url}/")
    assert "/accounts/login/" in page.url
    expect(page.locator("a", has_text="パスワードをお忘れですか")).to_be_visible()
    screenshot("signup-0-login")
    with page.expect_navigation():
        page.click("text=新規登録してクラブを始める")
    assert "/accounts/signup/" in page.url
    assert fits_the_screen(page)
    screenshot("signup-1-account")

    # A mismatch first: the error is under the field, in Japanese, and nothing is stored.
    page.fill("#id_username", "山田")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD + "x")
    page.fill("#id_email", "yamada@example.jp")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    expect(page.locator(".errorlist").first).to_be_visible()
    assert "一致しません" in page.locator("main").inner_text()
    screenshot("signup-1-account-error")

    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.url.endswith("/clubs/new/")

    # The club: a Japanese name gets an editable short name suggested; the user types their own.
    page.fill("#id_name", "マメの会")
    slug = page.locator("#id_slug")
    expect(slug).to_have_value(re.compile(r"^club-[a-z0-9]{6}$"))
    expect(page.locator("[data-slug-status]")).to_have_class("slug-status ok")
    slug.fill("mame-no-kai")
    expect(page.locator("[data-slug-status]")).to_contain_text("/c/mame-no-kai/")
    page.check("input[value='preset:mame-no-kai']")
    # マメの会's rules settle the example: 48,300 / 31,200 / 15,600 / 4,900 with 20-10 uma.
    scores = page.locator("[data-example-result] tbody td.score")
    expect(scores).to_have_text(["+58.3", "+11.2", "▲24.4", "▲45.1"])
    assert fits_the_screen(page)
    steps_on_one_line(page)
    screenshot("signup-2-club")
    with page.expect_navigation():
        page.click("main form > p button[type=submit]")
    assert page.url.endswith("/c/mame-no-kai/start/season/")

    # The first season: this calendar year is filled in.
    expect(page.locator("#id_name")).not_to_have_value("")
    assert fits_the_screen(page)
    steps_on_one_line(page)
    screenshot("signup-3-season")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.url.endswith("/c/mame-no-kai/")

    record = page.locator("header a.record")
    expect(record).to_be_visible()
    assert fits_the_screen(page)
    screenshot("signup-4-club-home")

    club = Club.objects.get(slug="mame-no-kai")
    assert club.name == "マメの会"
    membership = Membership.objects.get(club=club)
    assert (membership.user.username, membership.role) == ("山田", Membership.ORGANISER)
    assert RulesVersion.objects.get(club=club).preset == "mame-no-kai"
    assert Season.objects.filter(club=club).count() == 1


def test_account_and_memberships_pages_fit_the_phone(phone, live_server, log_in, screenshot):
    from tests.support.clubs import make_club, make_user

    club = make_club("mame", "mame-no-kai", "マメの会")
    make_user("organiser", club, Membership.ORGANISER)
    make_user("aoki", club)
    make_user("baba-with-a-rather-long-user-name", club)
    other = make_club("kinyokai", "kinyokai-2015", "金曜会")
    Membership.objects.create(
        user=Membership.objects.get(user__username="organiser").user, club=other
    )
    log_in("organiser")
    phone.goto(f"{live_server.url}/accounts/")
    expect(phone.locator(".my-club")).to_have_count(2)
    assert fits_the_screen(phone)
    screenshot("account-my-clubs")
    phone.goto(f"{live_server.url}/c/mame/memberships/")
    expect(phone.locator("li.membership")).to_have_count(3)
    assert fits_the_screen(phone)
    screenshot("memberships")
    row = phone.locator("li.membership", has_text="aoki")
    row.locator("select").select_option("organiser")
    with phone.expect_navigation():
        row.locator("button[value=role]").click()
    expect(phone.locator(".messages")).to_contain_text("aoki")
    assert Membership.objects.get(user__username="aoki").role == Membership.ORGANISER
    # Removing asks first.
    row = phone.locator("li.membership", has_text="baba")
    with phone.expect_navigation():
        row.locator("a.danger").click()
    screenshot("memberships-remove")
    with phone.expect_navigation():
        phone.locator("section.highlight button[value=remove]").click()
    expect(phone.locator("li.membership")).to_have_count(2)
    assert not Membership.objects.filter(user__username__startswith="baba").exists()
