"""The evening of issue 41's first "Done when", on 390×844 phones: eight members drawn at two
tables. Two plain members (not organisers), each seated at their own table, start it from the
draw card in table mode and score it on their phones. Table B's scorer loses the signal for
three hands; meanwhile another player of table B enters 東2 differently on their own phone, so
that on coming back the scorer's phone names the hand (東2局 1本場), shows both, and its player
enters theirs again. A third member's phone watches table A and follows the score by itself
(it reads the table every 2 s). Both games end, are checked on the save preview and saved.

From the database: each table has exactly its hands, once; the saved games' points are the
hands'; every hand's recorded_by is the member who entered it (the other phone's 東2 is kept,
undone, as theirs). Screenshots: test-artifacts/screenshots/two-scorers-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from league.core.clock import today
from league.draw import services as draw
from league.models import DrawTable, Game, Hand, Member, Membership, Result, TableGame
from tests.support.browser import PHONE, SCREENSHOTS, fits_the_screen, log_in_on
from tests.support.clubs import MEMBER_NAMES, make_club, make_user
from tests.support.table_mode import panel_pick, points, record, synced, table_ready, win

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = pytest.mark.django_db(transaction=True)

# No name inside another: the panels' buttons are found by their text.
PEOPLE = [*MEMBER_NAMES, ("藤井", "ふじい"), ("森田", "もりた"), ("川口", "かわぐち")]


def new_phone(browser: Browser, errors: list[str]) -> tuple[BrowserContext, Page]:
    context = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, locale="ja-JP", device_scale_factor=2
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    page.on("dialog", lambda d: d.accept())
    return context, page


def shot(page: Page, name: str) -> None:
    assert fits_the_screen(page), name
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SCREENSHOTS / f"two-scorers-{name}.png"), full_page=True)


def start_from_the_card(page: Page, draw_url: str, label: str) -> None:
    """A seated player opens the draw, taps their card's 「1局ずつ」 and starts the game."""
    page.goto(draw_url)
    with page.expect_navigation():
        page.locator(f'.draw-card[data-table="{label}"] [data-table-mode]').click()
    page.wait_for_selector("[data-start]")
    with page.expect_navigation():
        page.locator("[data-start]").click()
    table_ready(page)
    synced(page)


def follows(watcher: Page, scorer: Page) -> None:
    """The watcher's phone shows the scorer's points within one 2 s read (and a margin)."""
    expected = points(scorer)
    for i, value in enumerate(expected):
        expect(watcher.locator(f"[data-seat='{i}'] [data-points]")).to_have_text(
            value, timeout=5_000
        )


def test_two_members_score_two_tables_one_offline_while_a_third_watches(
    phone, live_server, browser: Browser
):
    base = live_server.url
    club = make_club("mame", "mame-no-kai", "マメの会")
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in PEOPLE]
    organiser = make_user("organiser", club, Membership.ORGANISER)
    date = today()
    for m in members:
        draw.attendance_check_in(club=club, user=organiser, date=date, member=m)
    draw.round_draw(club=club, user=organiser, date=date)
    cards = {t.label: t for t in DrawTable.objects.filter(round__day__club=club)}
    seated = {
        label: [s.member for s in card.seats.order_by("seat")] for label, card in cards.items()
    }
    assert sorted(cards) == ["A", "B"] and all(len(s) == 4 for s in seated.values())
    # Logins linked to members: the scorer of A (A's 東), the scorer of B (B's 東), a second
    # player of B with their own phone, and a third player of B who watches table A.
    users = {}
    for username, member in (
        ("score-a", seated["A"][0]),
        ("score-b", seated["B"][0]),
        ("second-b", seated["B"][1]),
        ("watcher", seated["B"][2]),
    ):
        users[username] = make_user(username, club, Membership.MEMBER)
        Member.objects.filter(pk=member.pk).update(user=users[username])
    draw_url = f"{base}/c/mame/days/{date.isoformat()}/draw/"

    errors: list[str] = []
    contexts = []
    try:
        # --- both tables started from their cards by their own players ------------------------
        a = phone  # table A's scorer (the fixture checks its console for errors)
        log_in_on(a, base, "score-a")
        a.goto(draw_url)
        shot(a, "1-draw")
        start_from_the_card(a, draw_url, "A")
        ctx_b, b = new_phone(browser, errors)
        contexts.append(ctx_b)
        log_in_on(b, base, "score-b")
        start_from_the_card(b, draw_url, "B")
        tg_a = TableGame.objects.get(draw_table=cards["A"].pk)
        tg_b = TableGame.objects.get(draw_table=cards["B"].pk)
        names = {
            label: [m.name for m in seated[label]] for label in ("A", "B")
        }  # seat order, 起家 first
        assert tg_a.seats == [m.pk for m in seated["A"]]
        assert tg_b.seats == [m.pk for m in seated["B"]]
        assert (tg_a.created_by, tg_b.created_by) == (users["score-a"], users["score-b"])

        # The watcher (a player of B) opens table A from its card: watching, no buttons.
        ctx_w, w = new_phone(browser, errors)
        contexts.append(ctx_w)
        log_in_on(w, base, "watcher")
        w.goto(draw_url)
        with w.expect_navigation():
            w.locator('.draw-card[data-table="A"] [data-table-mode]').click()
        expect(w.locator("[data-watching]")).to_be_visible()
        expect(w.locator("[data-result='ron']")).to_be_hidden()

        # The second player of B opens their table too (a scorer there: its buttons show).
        ctx_c, c = new_phone(browser, errors)
        contexts.append(ctx_c)
        log_in_on(c, base, "second-b")
        c.goto(draw_url)
        with c.expect_navigation():
            c.locator('.draw-card[data-table="B"] [data-table-mode]').click()
        synced(c)
        expect(c.locator("[data-result='draw']")).to_be_visible()

        # --- table A: three hands, online; the watcher follows each -------------------------
        ea, sa, wa, na = names["A"]
        # 東1: a draw, 東 and 南 tenpai.
        a.locator("[data-result='draw']").click()
        panel_pick(a, "tenpai", ea)
        panel_pick(a, "tenpai", sa)
        record(a)
        synced(a)
        follows(w, a)
        # 東1 1本場: 南 tsumo, 3 han 30 fu.
        a.locator("[data-result='tsumo']").click()
        panel_pick(a, "winners", sa)
        win(a, sa, han=3, fu=30)
        record(a)
        synced(a)
        follows(w, a)
        expect(w.locator("[data-hands] [data-hand-recorder]").first).to_have_text(f" · 入力：{ea}")
        shot(w, "2-watcher")

        # --- table B: 東1 online, then the signal goes for three hands -----------------------
        eb, _sb, wb, nb = names["B"]
        b.locator("[data-result='draw']").click()  # 東1: nobody tenpai, the deal passes
        record(b)
        synced(b)
        expect(b.locator("[data-round]")).to_have_text("東2")
        expect(c.locator("[data-round]")).to_have_text("東2", timeout=5_000)  # c follows
        ctx_b.set_offline(True)
        # 東2 1本場: 西 tsumo 2 han 30 fu.
        b.locator("[data-result='tsumo']").click()
        panel_pick(b, "winners", wb)
        win(b, wb, han=2, fu=30)
        record(b)
        # 東3 (西 deals): a draw with only 東 tenpai.
        b.locator("[data-result='draw']").click()
        panel_pick(b, "tenpai", eb)
        record(b)
        # 東4 1本場: 北 deals in a yakuman to 東 and busts.
        b.locator("[data-result='ron']").click()
        panel_pick(b, "winners", eb)
        panel_pick(b, "from", nb)
        win(b, eb, yakuman=True)
        record(b)
        b.wait_for_selector("[data-sync].waiting")
        assert "3" in b.locator("[data-sync]").inner_text()
        expect(b.locator("[data-hands] [data-hand-waiting]")).to_have_count(3)
        expect(b.locator("[data-finish]")).to_be_hidden()  # not before the hands are sent
        shot(b, "3-offline")
        offline_points = points(b)
        assert Hand.objects.filter(table_game=tg_b, live=True).count() == 1

        # Meanwhile the second player of B enters 東2 1本場 as a draw with nobody tenpai.
        c.locator("[data-result='draw']").click()
        record(c)
        synced(c)
        assert Hand.objects.filter(table_game=tg_b, live=True).count() == 2

        # Table A ends meanwhile: 北 rons 西's yakuman, 西 busts.
        a.locator("[data-result='ron']").click()
        panel_pick(a, "winners", na)
        panel_pick(a, "from", wa)
        win(a, na, yakuman=True)
        record(a)
        synced(a)
        a.wait_for_selector("[data-finish]:visible")
        follows(w, a)
        expect(w.locator("[data-ended]")).to_be_visible()
        expect(w.locator("[data-finish]")).to_be_hidden()  # a watcher does not save

        # --- B's signal comes back: the conflict names the hand --------------------------------
        ctx_b.set_offline(False)
        b.evaluate("window.dispatchEvent(new Event('online'))")
        expect(b.locator("[data-conflict]")).to_be_visible()
        expect(b.locator("[data-conflict-text]")).to_contain_text("東2局 1本場")
        expect(b.locator("[data-conflict-theirs]")).to_have_text("流局")
        expect(b.locator("[data-conflict-by]")).to_have_text(f" · 入力：{names['B'][1]}")
        expect(b.locator("[data-conflict-mine]")).to_contain_text(f"{wb} ツモ")
        shot(b, "4-conflict")
        b.locator("[data-enter-mine]").click()  # confirmed (the dialog is accepted)
        synced(b)
        expect(b.locator("[data-conflict]")).to_be_hidden()
        b.wait_for_selector("[data-finish]:visible")
        assert points(b) == offline_points  # the server's count is the phone's
        expect(b.locator("[data-hands] [data-hand-waiting]")).to_have_count(0)
        expect(b.locator("[data-hands] [data-hand-recorder]")).to_have_count(4)
        # The second phone follows by itself.
        follows(c, b)
        shot(b, "5-b-ended")

        # --- both games checked on the save preview and saved ----------------------------------
        for page, label in ((a, "A"), (b, "B")):
            with page.expect_navigation():
                page.locator("[data-finish]").click()
            page.wait_for_selector("[data-preview]")
            expect(page.locator("[data-preview] .preview-result tbody tr")).to_have_count(4)
            shot(page, f"6-preview-{label}")
            with page.expect_navigation():
                page.locator("[data-save]").click()
            assert page.url.startswith(draw_url), page.url  # back on the draw
        expect(b.locator("[data-recorded]")).to_have_count(2)
        shot(b, "7-draw-done")
        game_b = Game.objects.get(table_game=tg_b)
        b.goto(f"{base}/c/mame/games/{game_b.pk}/")
        expect(b.locator("[data-game-hands] [data-hand-recorder]")).to_have_count(4)
        shot(b, "8-game-b")
    finally:
        for context in contexts:
            context.close()
    assert errors == []

    # --- nothing lost or doubled; the points are the hands'; who entered each -----------------
    for tg, hand_count, scorer in ((tg_a, 3, users["score-a"]), (tg_b, 4, users["score-b"])):
        tg.refresh_from_db()
        live = list(Hand.objects.filter(table_game=tg, live=True).order_by("index"))
        assert [h.index for h in live] == list(range(hand_count))
        assert len({h.key for h in live}) == hand_count
        assert live[-1].ended == "bust"
        assert {h.recorded_by for h in live} == {scorer}
        game = tg.game
        assert game is not None and not game.voided
        results = list(Result.objects.filter(game=game, counted=True).order_by("seat"))
        assert [r.member_id for r in results] == tg.seats
        assert [r.points for r in results] == live[-1].scores
        start = [s - d for s, d in zip(live[0].scores, live[0].deltas, strict=True)]
        summed = [s + sum(h.deltas[i] for h in live) for i, s in enumerate(start)]
        assert summed == live[-1].scores
    # The one hand put aside: the second phone's 東2, kept undone, as theirs.
    undone = list(Hand.objects.filter(table_game=tg_b, live=False))
    assert [(h.index, h.recorded_by) for h in undone] == [(1, users["second-b"])]
    assert Hand.objects.filter(table_game=tg_a, live=False).count() == 0
    # Each card is its game, one game per table.
    assert Game.objects.filter(club=club, voided=False).count() == 2
    assert {c.game_id for c in DrawTable.objects.filter(round__day__club=club)} == {
        tg_a.game_id,
        tg_b.game_id,
    }
