"""Every page of a club, on a 390×844 phone, fits the screen's width.

The pages are read from the URL resolver (as tests/league/test_isolation.py does), so a page added
later is checked without touching this file. Each is opened as the club's organiser, with long
names and chips so that tables are as wide as a real club's. A table may scroll sideways inside
its box, but then it keeps its row header (the player) in view; the page itself never scrolls
sideways. Screenshots: test-artifacts/screenshots/fit-<language>-<namespace>-<route>.png.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from django.test import Client
from django.utils import translation

from league import limits, money
from league.draw import services as draw_services
from league.models import Day, DrawTable, Member, Membership, RulesVersion
from league.online import services as online_services
from league.recording import services
from league.table import services as table_services
from tests.browser.conftest import fits_the_screen
from tests.conftest import make_club, make_user
from tests.league.test_isolation import POINTS, club_routes, populate, url
from tests.league.test_table import game_hands

if TYPE_CHECKING:
    pass

pytestmark = pytest.mark.django_db(transaction=True)

ONLINE_LOG = (
    Path(__file__).resolve().parents[1] / "data/online/2019021004gm-00a9-0000-e2f6516d.json"
)
LONG_NAMES = [
    ("長谷川 由美子", "はせがわ ゆみこ"),
    ("佐々木 美穂", "ささき みほ"),
    ("高橋 真由美", "たかはし まゆみ"),
    ("松本 和也", "まつもと かずや"),
    ("阿部 誠", "あべ まこと"),
]

# Each table wider than its box: is the first cell of every row sticky, and its action too?
ROW_HEADERS_STAY = """() => [...document.querySelectorAll('.table-wrap')]
  .filter(w => w.scrollWidth > w.clientWidth + 1)
  .flatMap(w => [...w.querySelectorAll('tr')].map(tr => tr.firstElementChild).filter(Boolean))
  .filter(cell => getComputedStyle(cell).position !== 'sticky')
  .map(cell => cell.textContent.trim().slice(0, 30))"""


@pytest.fixture
def club_pages() -> list[tuple[str, str]]:
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    players = [Member.objects.create(club=club, name=n, kana=k) for n, k in LONG_NAMES]
    players[0].user = organiser  # who also plays: My page shows their games and money
    players[0].save(update_fields=["user"])
    values: dict[str, Any] = populate(club, organiser, players[:4])
    chips_game = services.game_record(  # chips and a chombo: the widest game tables
        club=club,
        user=organiser,
        data=services.GameInput(
            date=values["date"],
            seats=[
                services.SeatInput(players[4], 62000, 1),
                services.SeatInput(players[1], 31000),
                services.SeatInput(players[2], 19000),
                services.SeatInput(players[3], -12000),
            ],
            rate="0.5",
            table="B",
            chips=[services.ChipInput("yakuman", players[4], players[3])],
        ),
    )
    # A club's first rules as club creation makes them (from limits.EARLIEST), and the rules in
    # force made from a preset.
    RulesVersion.objects.filter(club=club).exclude(pk=values["version_id"]).update(
        effective_from=limits.EARLIEST
    )
    RulesVersion.objects.filter(pk=values["version_id"]).update(preset="mame-no-kai")
    # The day's draw, its table recorded; a payment marked and undone by a Japanese reader.
    for member in players[:4]:
        draw_services.attendance_check_in(
            club=club, user=organiser, date=values["date"], member=member
        )
    draw_services.round_draw(club=club, user=organiser, date=values["date"])
    table = DrawTable.objects.get(round__day__club=club)
    drawn = [s.member for s in table.seats.order_by("seat")]
    game = services.game_record(
        club=club,
        user=organiser,
        data=services.GameInput(
            date=values["date"],
            seats=[services.SeatInput(m, p) for m, p in zip(drawn, POINTS[0], strict=True)],
            rate="0.3",
        ),
    )
    assert DrawTable.objects.get(pk=table.pk).game == game  # linked by its four players
    # An online game (a real Tenhou log): the online page lists it.
    online_services.online_game_record(
        club=club,
        user=organiser,
        read=online_services.log_read(ONLINE_LOG.read_text(encoding="utf-8")),
        members=players[:4],
        date=values["date"],
    )
    day = Day.objects.get(club=club, date=values["date"])
    transfer = next(
        t
        for t in money.day_ledger(day=day).transfers
        if t.payer is not None and t.payee is not None
    )
    with translation.override("ja"):
        paid = money.transfer_pay(
            day=day, user=organiser, payer=int(transfer.payer), payee=int(transfer.payee)
        )
        money.entry_undo(entry=paid, user=organiser)
    # Table mode (league.table): a game played to its end and not saved yet (the score display
    # ended, and its preview), and one saved (the game page with its hands and their chart).
    ended, saved = (
        table_services.table_start(
            club=club,
            user=organiser,
            key=uuid.uuid4(),
            date=values["date"],
            members=players[:4],
            rate="0.3",
        )
        for _ in range(2)
    )
    for tg in (ended, saved):
        for i, (event, marks) in enumerate(game_hands(players)):
            table_services.hand_record(
                tg=tg, user=organiser, index=i, key=uuid.uuid4(), event=event, marks=marks
            )
    hands_game = table_services.table_game_save(tg=saved, user=organiser)
    # Only the pages: a route that takes POST alone, redirects or sends a download is skipped.
    client = Client()
    client.force_login(organiser)
    pages = []
    for name, params in club_routes():
        address = url(name, params, values)
        response = client.get(address)
        if response.status_code == 200 and "text/html" in response.get("Content-Type", ""):
            pages.append((name, address))
        getattr(response, "close", lambda: None)()
    # The game of the draw and the widest game: their pages too, not only the first game's.
    pages.append(
        (
            "game_detail_drawn",
            url("recording:game_detail", ["slug", "game_id"], {**values, "game_id": game.pk}),
        )
    )
    pages.append(
        (
            "game_detail_chips",
            url("recording:game_detail", ["slug", "game_id"], {**values, "game_id": chips_game.pk}),
        )
    )
    pages += [
        (
            "table_play_ended",
            url("table:table_play", ["slug", "key"], {**values, "key": ended.key}),
        ),
        (
            "table:table_finish",
            url("table:table_finish", ["slug", "key"], {**values, "key": ended.key}),
        ),
        (
            "game_detail_hands",
            url("recording:game_detail", ["slug", "game_id"], {**values, "game_id": hands_game.pk}),
        ),
    ]
    return pages


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

    from tests.conftest import PASSWORD

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
