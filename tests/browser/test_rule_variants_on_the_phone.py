"""Recording games under the version-2 rule variants on a 390×844 phone: a 日本プロ麻雀連盟 game
(floating uma), a 飛び賞 game where the busted player's row asks 飛ばしたのは？, and a 焼き鳥
game. Each is saved through the form and checked against the engine; screenshots for people."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

import pytest

import scoring
from league.models import Club, Game, Member, Membership, Result, RulesVersion
from tests.support.browser import fits_the_screen
from tests.support.clubs import make_user

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = ["青木", "馬場", "千葉", "土井"]


def make(slug: str, name: str, rules: dict[str, Any]) -> Club:
    club = Club.objects.create(slug=slug, name=name)
    RulesVersion.objects.create(
        club=club, effective_from=datetime.date(2020, 1, 1), rules_json=rules
    )
    for n in NAMES:
        Member.objects.create(club=club, name=n)
    make_user(f"org-{slug}", club, Membership.ORGANISER)
    return club


def open_form(phone: Page, live_server: Any, log_in: Any, club: Club) -> None:
    log_in(f"org-{club.slug}")
    response = phone.goto(f"{live_server.url}/c/{club.slug}/games/new/")
    assert response is not None and response.status == 200
    phone.wait_for_selector("form[data-record]")


def type_game(phone: Page, points: list[str]) -> None:
    for i, (name, p) in enumerate(zip(NAMES, points, strict=True)):
        phone.locator(f"#id_member_{i}").press_sequentially(name)
        phone.fill(f"#id_points_{i}", p)


def check(phone: Page) -> None:
    """確認: the preview, which is where Save is offered."""
    with phone.expect_navigation():
        phone.click("form[data-record] .actions button[name=action][value=preview]")


def save(phone: Page) -> None:
    with phone.expect_navigation():
        phone.click("[data-preview] button[name=action][value=save]")


def stored(club: Club) -> list[Result]:
    game = Game.objects.get(club=club)
    return list(Result.objects.filter(game=game, counted=True).order_by("seat"))


def engine(club: Club, points: list[int], **game: Any) -> list[int]:
    rules = RulesVersion.objects.get(club=club).rules
    seats = tuple(scoring.Seat(n, p) for n, p in zip(NAMES, points, strict=True))
    result = scoring.settle_game(rules, scoring.Game(seats=seats, **game))
    return [p.score for p in result.players]


def test_a_jpml_game_with_floating_uma(phone, live_server, log_in, screenshot) -> None:
    club = make("renmei", "連盟ルールの会", scoring.PRESETS["jpml"].rules.to_json())
    open_form(phone, live_server, log_in, club)
    type_game(phone, ["45,000", "２８０００", "25000", "22000"])
    check(phone)
    assert "+27.0" in phone.locator("[data-preview]").inner_text()
    screenshot("variants-jpml-preview")
    assert fits_the_screen(phone)
    save(phone)
    # One floating: +12/−1/−3/−8 → +27.0 / −3.0 / −8.0 / −16.0.
    assert [r.score for r in stored(club)] == [270, -30, -80, -160]
    assert [r.score for r in stored(club)] == engine(club, [45000, 28000, 25000, 22000])
    screenshot("variants-jpml-saved")


def test_a_bust_game_asks_who_busted_on_the_busted_row(
    phone, live_server, log_in, screenshot
) -> None:
    rules = {
        **scoring.PRESETS["pairon-kansai"].rules.to_json(),
        "bust_bonus": {"points": 10, "to": "buster", "at_zero": False},
    }
    club = make("tobi", "飛び賞の会", rules)
    open_form(phone, live_server, log_in, club)
    busted_by = phone.locator("[data-busted-by]")
    assert busted_by.count() == 4
    type_game(phone, ["45000", "35000", "21000", "1000"])
    # Nobody below zero: nobody is asked.
    assert all(not box.is_visible() for box in busted_by.all())
    # 北 goes below zero with the ± button: only that row asks 飛ばしたのは？
    phone.click("button[data-sign-for=id_points_3]")
    assert [box.is_visible() for box in busted_by.all()] == [False, False, False, True]
    assert "飛ばしたのは？" in busted_by.nth(3).inner_text()
    screenshot("variants-bust-asked")
    assert fits_the_screen(phone)

    # Checking without saying who: refused on that row, nothing stored.
    check(phone)
    assert not Game.objects.filter(club=club).exists()
    assert phone.locator("[data-busted-by] .errorlist").count() == 1
    screenshot("variants-bust-refused")

    assert phone.locator("#id_busted_by_3").is_visible()
    assert phone.locator("#id_busted_by_3 option").all_inner_texts() == [
        "—",
        "東 青木",
        "南 馬場",
        "西 千葉",
    ]
    phone.select_option("#id_busted_by_3", value="0")
    check(phone)
    preview = phone.locator("[data-preview]").inner_text()
    assert "飛び（東）" in preview and "飛び賞" in preview
    screenshot("variants-bust-preview")
    save(phone)
    rows = stored(club)
    assert [r.busted_by_seat for r in rows] == [None, None, None, 0]
    assert [r.score for r in rows] == engine(
        club, [45000, 35000, 21000, -1000], busts=(scoring.Bust("土井", "青木"),)
    )
    assert "飛び（東）" in phone.locator("main").inner_text()
    screenshot("variants-bust-saved")


def test_a_yakitori_game(phone, live_server, log_in, screenshot) -> None:
    rules = {
        **scoring.PRESETS["pairon-kansai"].rules.to_json(),
        "yakitori": {"mode": "pay_each", "points": 5},
    }
    club = make("yakitori", "焼き鳥の会", rules)
    open_form(phone, live_server, log_in, club)
    type_game(phone, ["45000", "35000", "21000", "-1000"])
    phone.check("#id_yakitori_3")
    screenshot("variants-yakitori-form")
    assert fits_the_screen(phone)
    check(phone)
    assert "焼き鳥" in phone.locator("[data-preview]").inner_text()
    save(phone)
    rows = stored(club)
    assert [r.yakitori for r in rows] == [False, False, False, True]
    assert [r.score for r in rows] == engine(club, [45000, 35000, 21000, -1000], yakitori=("土井",))
    assert "焼き鳥" in phone.locator("main").inner_text()
    screenshot("variants-yakitori-saved")
