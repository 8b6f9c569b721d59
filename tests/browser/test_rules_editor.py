"""The rules editor on a phone: the worked example follows every change, the uma fits one row, and
saving first shows what would change."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from league.core.clock import today
from league.models import Member, Membership, RulesVersion
from league.recording import services
from league.recording.services import GameInput, SeatInput
from tests.support.browser import SCREENSHOTS, fits_the_screen
from tests.support.clubs import MEMBER_NAMES, make_club, make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def club():
    club = make_club("mame", "mame-no-kai", "マメの会")
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES]
    organiser = make_user("organiser", club, Membership.ORGANISER)
    seats = [
        SeatInput(m, p) for m, p in zip(members[:4], [40000, 30000, 20000, 10000], strict=True)
    ]
    services.game_record(
        club=club, user=organiser, data=GameInput(date=today(), seats=seats, rate="0.3")
    )
    return club


def test_the_worked_example_follows_the_form_and_saving_shows_the_changes(
    phone, live_server, log_in, club, screenshot
):
    page = phone
    log_in("organiser")
    page.goto(f"{live_server.url}/c/mame/rules/new/")
    # マメの会: 48,300 / 31,200 / 15,600 / 4,900, 30,000 returned, uma 20-10, oka to the top.
    scores = page.locator("[data-example-result] tbody td.score")
    expect(scores).to_have_text(["+58.3", "+11.2", "▲24.4", "▲45.1"])
    boxes = [page.locator(f"#id_uma_{i}").bounding_box() for i in range(4)]
    assert len({round(b["y"]) for b in boxes if b}) == 1, "the four uma boxes share one row"
    assert fits_the_screen(page)
    screenshot("rules-editor")

    page.fill("#id_uma_0", "30")
    page.fill("#id_uma_3", "−30")
    expect(scores).to_have_text(["+68.3", "+11.2", "▲24.4", "▲55.1"])

    page.fill("[name=example_0]", "58300")  # 10,000 more than the table holds
    expect(page.locator("[data-example-errors] li")).not_to_have_count(0)
    page.fill("[name=example_3]", "▲5100")
    # 箱下なし: the 4th settles as 0 points, not −5,100; the top absorbs the difference.
    expect(scores).to_have_text(["+73.2", "+11.2", "▲24.4", "▲60.0"])

    page.fill("#id_effective_from", today().strftime("%Y/%m/%d"))  # governs today's game
    with page.expect_navigation():
        page.click("form[data-rules-form] > p button[type=submit]")
    check = page.locator("#check")
    assert check.is_visible()
    # The answer opens at the check, below the sticky header, not at the 16 presets above it.
    header = page.locator("header.site").bounding_box()
    top = check.bounding_box()["y"]
    assert header["y"] + header["height"] <= top < 844 / 2, (header, top)
    assert "ウマ" in check.inner_text() and "+30 / +10 / ▲10 / ▲30" in check.inner_text()
    assert "1半荘の結果が変わります" in check.inner_text()
    assert RulesVersion.objects.filter(club=club).count() == 1
    screenshot("rules-editor-check")
    with page.expect_navigation():
        check.locator("button[name=confirm]").click()
    assert page.url.endswith("/c/mame/rules/")
    assert RulesVersion.objects.filter(club=club).count() == 2


def test_the_hand_rules_are_chosen_on_the_phone(phone, live_server, log_in, club):
    # Issue 40: 途中流局, 西入 and the hand rules themselves, each with the preset's value shown.
    page = phone
    log_in("organiser")
    page.goto(f"{live_server.url}/c/mame/rules/new/")
    section = page.locator("#hand-options")
    section.scroll_into_view_if_needed()
    # The less common hand rules are folded until asked for.
    more = section.locator("details.more-hand-rules")
    assert more.get_attribute("open") is None
    more.locator("summary").click()
    abortive = section.locator("#id_hand_abortive")
    assert "プリセットどおり（種類ごと：九種九牌 親の連荘・" in abortive.inner_text()
    assert "誰かが目標点に届くまで, 30,000" in section.locator("#id_hand_extension").inner_text()
    page.select_option("#id_hand_preset", "m-league")
    # M.League's own values show at once: no busting out, no abortive draws.
    expect(page.locator("#id_hand_bust option[value='']")).to_have_text(
        "プリセットどおり（飛びなし）"
    )
    expect(abortive.locator("option[value='']")).to_have_text("プリセットどおり（なし・続行）")
    page.select_option("#id_hand_abortive", "none")
    page.select_option("#id_hand_extension", "sudden-death")
    page.fill("#id_hand_extension_target", "３５，０００")
    assert fits_the_screen(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # The sticky header, not drawn over the middle of the section's picture.
    page.evaluate("document.querySelector('header.site').style.position = 'static'")
    section.screenshot(path=str(SCREENSHOTS / "rules-editor-hands.png"))
    page.fill("#id_effective_from", today().strftime("%Y/%m/%d"))
    with page.expect_navigation():
        page.click("form[data-rules-form] > p button[type=submit]")
    check = page.locator("#check")
    assert "途中流局" in check.inner_text() and "35,000" in check.inner_text()
    with page.expect_navigation():
        check.locator("button[name=confirm]").click()
    version = RulesVersion.objects.filter(club=club).order_by("-effective_from").first()
    options = version.hand_options
    assert (options.preset, options.abortive, options.extension_target) == (
        "m-league",
        "none",
        35_000,
    )
