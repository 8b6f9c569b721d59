"""Every page of a club, on a 390×844 phone, fits the screen's width.

The pages are read from the URL resolver (as tests/league/security/test_isolation.py does), so a page added
later is checked without touching this file. Each is opened as the club's organiser, with long
names and chips so that tables are as wide as a real club's. A table may scroll sideways inside
its box, but then it keeps its row header (the player) in view; the page itself never scrolls
sideways. Screenshots: test-artifacts/screenshots/fit-<language>-<namespace>-<route>.png.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.support.browser import fits_the_screen

if TYPE_CHECKING:
    pass

pytestmark = pytest.mark.django_db(transaction=True)


# Each table wider than its box: is the first cell of every row sticky, and its action too?
ROW_HEADERS_STAY = """() => [...document.querySelectorAll('.table-wrap')]
  .filter(w => w.scrollWidth > w.clientWidth + 1)
  .flatMap(w => [...w.querySelectorAll('tr')].map(tr => tr.firstElementChild).filter(Boolean))
  .filter(cell => getComputedStyle(cell).position !== 'sticky')
  .map(cell => cell.textContent.trim().slice(0, 30))"""


# Every table but the standings lies inside the screen: none is wider than its box (scrolling
# sideways inside it) or reaches past the screen's edge. Folded parts are opened first.
TABLES_INSIDE = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const width = screen.width;
  const name = t => (t.querySelector('caption, th')?.textContent || t.className || 'table')
    .trim().replace(/\\s+/g, ' ').slice(0, 30);
  return [...document.querySelectorAll('table')]
    .filter(t => !t.matches('table.standings') && t.getClientRects().length)
    .filter(t => {
      const box = t.getBoundingClientRect(), parent = t.parentElement;
      return box.left < -1 || box.right > width + 1 || t.scrollWidth > t.clientWidth + 1
        || parent.scrollWidth > parent.clientWidth + 1;
    })
    .map(t => `${name(t)} (${Math.round(t.scrollWidth)} px)`);
}"""

# Every link of the club's menu can be seen without scrolling the menu sideways.
MENU_HIDDEN = """() => [...document.querySelectorAll('header.site a, header.site button')]
  .filter(e => e.getClientRects().length)
  .filter(e => { const r = e.getBoundingClientRect(); return r.left < -1 || r.right > screen.width + 1; })
  .map(e => e.textContent.trim())"""

# A number is never broken over two lines (「1」 above 「,065」 reads as 1 yen).
NUMBERS_WHOLE = """() => [...document.querySelectorAll('td, th')]
  .filter(cell => /^[▲+\\-−¥]?[0-9][0-9,.]*[円点]?$/.test(cell.textContent.trim()))
  .filter(cell => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1;
  })
  .map(cell => cell.textContent.trim())"""


@pytest.mark.parametrize("language", ["ja", "en"])
def test_every_club_page_fits_a_phone(phone, live_server, log_in, club_pages, screenshot, language):
    log_in("organiser")
    phone.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    checked, problems = [], []
    for name, path in club_pages:
        response = phone.goto(live_server.url + path)
        assert response is not None and response.status == 200, path
        assert phone.locator("html").get_attribute("lang") == language
        checked.append(name)
        if not fits_the_screen(phone):
            problems.append(f"{name}: the page is wider than the phone")
        loose = phone.evaluate(ROW_HEADERS_STAY)
        if loose:
            problems.append(f"{name}: rows of a scrolling table lose their header: {loose[:3]}")
        wide = phone.evaluate(TABLES_INSIDE)
        if wide:
            problems.append(f"{name}: tables wider than the phone: {wide}")
        hidden = phone.evaluate(MENU_HIDDEN)
        if hidden:
            problems.append(f"{name}: menu links off the screen: {hidden}")
        broken = phone.evaluate(NUMBERS_WHOLE)
        if broken:
            problems.append(f"{name}: numbers broken over two lines: {broken[:5]}")
        screenshot(f"fit-{language}-{name.replace(':', '-')}")  # no colon in a file name
    assert not problems, "\n".join(problems)
    # The control: the main pages were there to be checked.
    for name in (
        "recording:club_home",
        "recording:day_detail",
        "recording:game_detail",
        "money:day_ledger",
        "standings:standings",
        "mypage:my_page",
        "online:online_import",
    ):
        assert name in checked, name


ACTIONS_STAY = """() => [...document.querySelectorAll('.table-wrap')]
  .filter(w => w.scrollWidth > w.clientWidth + 1)
  .flatMap(w => [...w.querySelectorAll('td form, td button')].map(e => e.closest('td')))
  .filter(cell => getComputedStyle(cell).position !== 'sticky').length"""


def test_a_debts_repay_button_stays_in_view_on_a_phone(phone, live_server, log_in, club_pages):
    log_in("organiser")
    path = dict(club_pages)["money:debt_list"]
    phone.goto(live_server.url + path)
    assert phone.evaluate(ACTIONS_STAY) == 0
    button = phone.locator("form.repay button").first
    box = button.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390


def test_standings_use_a_desktops_width(browser, live_server, club_pages):
    from django.contrib.auth import get_user_model

    from tests.support.clubs import PASSWORD

    context = browser.new_context(viewport={"width": 1600, "height": 900}, locale="ja-JP")
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", get_user_model().objects.get(username="organiser").username)
        page.fill("#id_password", PASSWORD)
        page.locator("main form button[type=submit]").click()
        page.goto(live_server.url + dict(club_pages)["standings:standings"])
        wrap = page.locator(".table-wrap").first
        # Every column shows at once: the table does not scroll inside a 960 px column.
        assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth + 1")
        assert page.locator("main").evaluate("m => m.getBoundingClientRect().width") > 1200
    finally:
        context.close()
