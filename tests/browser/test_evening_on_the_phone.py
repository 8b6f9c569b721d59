"""An evening at マメの会 on a 390×844 phone, the way a club plays it: four games at 0.3 through
"next game", "same four" and "rotate seats"; names typed without their spaces and by surname; an
inactive member brought back; the ledger paid, a debt deferred, a mis-tap undone, the day closed.
Then the statements, the debts page and the day agree to the yen.
Screenshots: test-artifacts/screenshots/evening-*.png."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import pytest

from league import money
from league.books import selectors as book_selectors
from league.club import services as club_services
from league.core.clock import today
from league.models import Day, Game, LedgerEntry, Member, Membership
from scoring import parse_integer
from tests.support.browser import fits_the_screen
from tests.support.clubs import make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)

PEOPLE = [
    ("阿部 誠", "あべ まこと"),
    ("佐々木 美穂", "ささき みほ"),
    ("高橋 真由美", "たかはし まゆみ"),
    ("松本 和也", "まつもと かずや"),
    ("小林 誠", "こばやし まこと"),
]


@pytest.fixture
def club():
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    members = {n: Member.objects.create(club=club, name=n, kana=k) for n, k in PEOPLE}
    club_services.member_set_active(member=members["高橋 真由美"], user=organiser, active=False)
    return club


def fill_points(page: Page, points: list[int]) -> None:
    for i, p in enumerate(points):
        page.fill(f"#id_points_{i}", str(p))


def check_then_save(page: Page) -> None:
    with page.expect_navigation():
        page.click("form[data-record] .actions button[name=action][value=preview]")
    page.wait_for_selector("[data-preview]")
    with page.expect_navigation():
        page.click("[data-preview] button[name=action][value=save]")


def test_an_evening_at_mame_no_kai(phone, live_server, log_in, club, screenshot):
    page = phone
    base = f"{live_server.url}/c/mame"
    date = today().isoformat()
    log_in("organiser")

    # Game 1: names typed without their spaces, one by surname only (小林), rate 0.3.
    page.goto(f"{base}/games/new/?date={date}")
    for i, typed in enumerate(["阿部誠", "佐々木美穂", "松本和也", "小林"]):
        page.fill(f"#id_member_{i}", typed)
    page.select_option("#id_rate", "0.3")
    fill_points(page, [42000, 31000, 17000, 10000])
    check_then_save(page)
    assert page.url.endswith(f"/days/{date}/")
    screenshot("evening-day-after-one")

    # Game 2: the same four, one tap; the rate is already 0.3.
    with page.expect_navigation():
        page.click("[data-same-four]")
    assert page.input_value("#id_rate") == "0.3"
    assert page.input_value("#id_member_0") == "阿部 誠"
    fill_points(page, [20000, 36000, 28000, 16000])
    check_then_save(page)

    # Game 3: next game; 高橋 is inactive: offered back, never as a new guest.
    with page.expect_navigation():
        page.click("[data-next-game]")
    assert page.input_value("#id_rate") == "0.3"
    for i, typed in enumerate(["阿部誠", "佐々木美穂", "高橋真由美", "小林誠"]):
        page.fill(f"#id_member_{i}", typed)
    fill_points(page, [33000, 27000, 25000, 15000])
    with page.expect_navigation():
        page.click("form[data-record] .actions button[name=action][value=preview]")
    assert page.locator("input[name=reactivate_2]").is_visible()
    assert page.locator("input[name=guest_2]").count() == 0
    screenshot("evening-inactive-offered")
    page.check("input[name=reactivate_2]")
    check_then_save(page)
    assert Member.objects.get(name="高橋 真由美").is_active

    # Game 4: the same table, seats rotated.
    with page.expect_navigation():
        page.click("[data-rotate]")
    assert page.input_value("#id_member_0") == "佐々木 美穂"
    fill_points(page, [45000, 25000, 20000, 10000])
    check_then_save(page)
    games = Game.objects.filter(date=today(), voided=False)
    assert games.count() == 4 and set(games.values_list("rate", flat=True)) == {"0.3"}
    assert fits_the_screen(page)
    screenshot("evening-day-four-games")

    # The ledger: pay the first transfer, undo the mis-tap, pay it again, defer the next.
    page.goto(f"{base}/days/{date}/ledger/")
    first = page.locator("li[data-transfer]").first
    payer, payee = first.get_attribute("data-payer"), first.get_attribute("data-payee")
    with page.expect_navigation():
        first.locator("[data-settle=pay]").click()
    with page.expect_navigation():
        page.locator("[data-undo-bar] button[data-undo]").click()
    again = page.locator(f"li[data-transfer][data-payer='{payer}'][data-payee='{payee}']")
    with page.expect_navigation():
        again.locator("[data-settle=pay]").click()
    with page.expect_navigation():
        page.locator("li[data-transfer]").first.locator("[data-settle=defer]").click()
    kinds = list(LedgerEntry.objects.order_by("id").values_list("kind", flat=True))
    assert kinds[:4] == [
        LedgerEntry.PAYMENT,
        LedgerEntry.REVERSAL,
        LedgerEntry.PAYMENT,
        LedgerEntry.DEFERRAL,
    ]
    screenshot("evening-ledger-settling")

    # Close the day: what is still open becomes paid or deferred.
    with page.expect_navigation():
        page.click("[data-close-day]")
    screenshot("evening-close")
    with page.expect_navigation():
        page.click("[data-confirm-close]")
    assert page.locator("[data-closed]").count() == 1
    assert page.locator("li[data-transfer]").count() == 0
    assert fits_the_screen(page)
    screenshot("evening-ledger-closed")

    # One truth: each member's statement, the debts page and the day agree to the yen.
    day = Day.objects.get(club__slug="mame", date=today())
    assert money.day_ledger(day=day).transfers == ()
    page.goto(f"{base}/debts/")
    on_debts = {
        int(row.get_attribute("data-member")): int(row.get_attribute("data-balance"))
        for row in page.locator("table.standing tr[data-member]").all()
    }
    screenshot("evening-debts")
    longest = 0
    for member in Member.objects.filter(club__slug="mame"):
        page.goto(f"{base}/members/{member.pk}/statement/")
        balance = int(page.locator("#balance").get_attribute("data-balance"))
        assert balance == book_selectors.full_statement(member=member).balance
        assert on_debts.get(member.pk, 0) == balance, member.name
        # Issue 37: each line's 増減 is its balance less the line before's (▲ when it goes down).
        lines = [
            (_yen(row.locator('td[data-label="増減"]')), _yen(row.locator('td[data-label="残高"]')))
            for row in page.locator("table.statement tbody tr").all()
            if row.locator('td[data-label="増減"]').count()
        ]
        changes, balances = [c for c, _b in lines], [b for _c, b in lines]
        assert changes[1:] == [b - a for a, b in itertools.pairwise(balances)], member.name
        longest = max(longest, len(lines))
    assert longest >= 3  # the check above compared something
    screenshot("evening-statement")


def _yen(cell) -> int:
    """A statement cell's yen as the page writes them (1,275 or ▲1,275): scoring's own reading."""
    return parse_integer(cell.inner_text().strip().removesuffix("円") or "0")
