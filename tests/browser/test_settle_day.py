"""Settling マメの会's day of tests/data/cases/ledger.json on a phone: two transfers marked paid (one
with a double tap), one deferred with its 10% surcharge, and the debt on the debtor's statement."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from league.core.clock import today
from league.models import LedgerEntry, Member, Membership
from league.recording import services
from tests.support.browser import fits_the_screen
from tests.support.clubs import make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)

CASE = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "cases" / "ledger.json").read_text("utf-8")
)[0]


@pytest.fixture
def members() -> dict[str, Member]:
    """マメの会's day of the case, recorded through the service as the recording page does."""
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    day = CASE["input"]
    names = dict.fromkeys(p["name"] for g in day["games"] for p in g["players"])
    members = {n: Member.objects.create(club=club, name=n) for n in names}
    for game in day["games"]:
        chombo = Counter(game.get("chombo", []))
        seats = [
            services.SeatInput(members[p["name"]], p["points"], chombo[p["name"]])
            for p in game["players"]
        ]
        chips = [
            services.ChipInput(
                c["kind"], members[c["winner"]], members[c["from"]] if c.get("from") else None
            )
            for c in game.get("chips", [])
        ]
        data = services.GameInput(
            date=today(),
            seats=seats,
            deposits=game.get("deposits", 0),
            rate=day["rate"],
            chips=chips,
        )
        services.game_record(club=club, user=organiser, data=data)
    return members


def transfers(page: Page) -> list[tuple[str, str, str]]:
    rows = page.locator("li[data-transfer]")
    return [
        (
            row.locator(".payer").inner_text(),
            row.locator(".payee").inner_text(),
            row.locator("[data-yen]").inner_text(),
        )
        for row in rows.all()
    ]


def transfer(page: Page, payer: Member, payee: Member):
    return page.locator(f"li[data-transfer][data-payer='{payer.pk}'][data-payee='{payee.pk}']")


def test_settle_a_day_on_a_phone(phone, live_server, log_in, members, screenshot):
    page = phone
    m = members
    log_in("organiser")
    ledger_url = f"{live_server.url}/c/mame/days/{today().isoformat()}/ledger/"
    response = page.goto(ledger_url)
    assert response is not None and response.status == 200
    assert transfers(page) == [
        ("土井", "青木", "1,860"),
        ("千葉", "馬場", "1,140"),
        ("千葉", "江藤", "300"),
        ("千葉", "青木", "180"),
        ("千葉", "マメの会", "30"),
    ]
    # The transfers are the first thing on a phone: the first one's buttons are on screen.
    assert transfer(page, m["土井"], m["青木"]).locator("[data-settle=pay]").is_visible()
    assert fits_the_screen(page)
    screenshot("ledger-before")
    borrow = transfer(page, m["千葉"], m["馬場"]).locator("details.borrow")
    borrow.locator("summary").click()
    lenders = borrow.locator("select[name=lender] option").all_inner_texts()
    assert sorted(lenders[1:]) == sorted(["青木", "土井", "江藤"])  # not the payer nor payee
    screenshot("ledger-borrow-open")
    borrow.locator("summary").click()

    # A double tap on "Paid" records it once.
    with page.expect_navigation():
        transfer(page, m["土井"], m["青木"]).locator("[data-settle=pay]").dblclick()
    page.wait_for_selector("li[data-transfer]")
    assert LedgerEntry.objects.filter(kind=LedgerEntry.PAYMENT).count() == 1
    assert page.locator(".messages li.error").count() == 0

    with page.expect_navigation():
        transfer(page, m["千葉"], m["江藤"]).locator("[data-settle=pay]").click()
    defer = transfer(page, m["千葉"], m["馬場"]).locator("[data-settle=defer]")
    assert "114" in defer.inner_text()  # +10% of 1,140, shown before deferring
    with page.expect_navigation():
        defer.click()

    assert transfers(page) == [("千葉", "青木", "180"), ("千葉", "マメの会", "30")]
    assert page.locator(".messages li.error").count() == 0
    kinds = list(LedgerEntry.objects.order_by("id").values_list("kind", "amount", "surcharge"))
    assert kinds == [
        (LedgerEntry.PAYMENT, 1860, 0),
        (LedgerEntry.PAYMENT, 300, 0),
        (LedgerEntry.DEFERRAL, 1140, 114),
    ]
    assert page.locator("li.entry").count() == 3
    assert fits_the_screen(page)
    screenshot("ledger-after")

    response = page.goto(f"{live_server.url}/c/mame/members/{m['千葉'].pk}/statement/")
    assert response is not None and response.status == 200
    debts = page.locator("#debts")
    assert debts.is_visible()
    assert "1,254" in debts.inner_text()  # 1,140 + 114 surcharge
    assert "馬場" in debts.inner_text()
    screenshot("statement-with-debt")


KAGETSU = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "cases" / "ledger.json").read_text("utf-8")
)[1]


def test_kagetsu_waiting_attendee_pays_session_shugi(phone, live_server, log_in, screenshot):
    """花月杯: 藤井 waited for a table and still pays 馬場's double yakuman, entered on the page."""
    club = make_club("kagetsu", "kagetsu-cup", "花月杯")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    game = KAGETSU["input"]["games"][0]
    members = {p["name"]: Member.objects.create(club=club, name=p["name"]) for p in game["players"]}
    fujii = Member.objects.create(club=club, name="藤井")
    seats = [services.SeatInput(members[p["name"]], p["points"]) for p in game["players"]]
    data = services.GameInput(date=today(), seats=seats)
    services.game_record(club=club, user=organiser, data=data)

    page = phone
    log_in("organiser")
    response = page.goto(f"{live_server.url}/c/kagetsu/days/{today().isoformat()}/ledger/")
    assert response is not None and response.status == 200
    page.click("details.add-attendees summary")
    page.check(f"input[name=members][value='{fujii.pk}']")
    with page.expect_navigation():
        page.click("details.add-attendees button[type=submit]")
    assert page.locator(f"[data-waiting='{fujii.pk}']").inner_text() == "藤井"

    page.select_option(".shugi-form select[name=winner]", str(members["馬場"].pk))
    page.select_option(".shugi-form select[name=multiplier]", "2")
    with page.expect_navigation():
        page.click(".shugi-form button[type=submit]")
    assert page.locator("[data-shugi]").count() == 1

    expected = {p["name"]: p["yen"] for p in KAGETSU["expected"]["players"]}
    everyone = {**members, "藤井": fujii}
    for name, yen in expected.items():
        total = page.locator(f"tr[data-member='{everyone[name].pk}'] [data-total]").inner_text()
        assert total.replace("▲", "-") == f"{yen:,}"
    assert page.locator("tr[data-house] [data-total]").inner_text() == "1,000"
    assert fits_the_screen(page)
    screenshot("ledger-kagetsu-shugi")
