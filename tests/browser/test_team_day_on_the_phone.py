"""A team match day on a phone: 4 teams of 2 at マメの会, the organiser schedules a day of two
games, names a player for each team's slot (a substitute for one), records both tables from
their pre-filled forms and sees the team standings; a captain names their own team's player."""

from __future__ import annotations

import datetime

import pytest

from league.models import Member, Membership, Season, TeamMatch
from league.recording import services as recording
from league.teams import services
from tests.support.browser import preview_then_save
from tests.support.clubs import make_club, make_user
from tests.support.stages import add_stage

pytestmark = pytest.mark.django_db(transaction=True)

DAY = datetime.date(2026, 10, 10)
POINTS = ["40000", "30000", "20000", "10000"]


@pytest.fixture
def league(db):
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    captain = make_user("captain", club, Membership.MEMBER)
    season = Season.objects.create(
        club=club,
        name="2026秋リーグ",
        start=datetime.date(2026, 10, 1),
        end=datetime.date(2026, 12, 31),
    )
    for name, colour in [
        ("赤", "#c53030"),
        ("青", "#2b6cb0"),
        ("黄", "#d69e2e"),
        ("緑", "#38a169"),
    ]:
        people = [Member.objects.create(club=club, name=f"{name}の{i}") for i in ("一", "二")]
        data = services.TeamInput(f"{name}チーム", name, colour, people, [people[0]])
        services.team_create(season=season, user=organiser, data=data)
    Member.objects.filter(name="赤の一").update(user=captain)
    Member.objects.create(club=club, name="助っ人")
    return club, season


def no_sideways_scroll(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_team_day_on_a_phone(phone, live_server, log_in, league, screenshot) -> None:
    _club, season = league
    log_in("organiser")
    phone.goto(f"{live_server.url}/c/mame/seasons/{season.pk}/teams/")
    with phone.expect_navigation():
        phone.get_by_role("link", name="チーム戦の日を組む").click()
    phone.fill("#id_date", "2026/10/10")
    phone.fill("#id_games", "２")
    with phone.expect_navigation():
        phone.click("form.card button[type=submit]")
    day_url = phone.url
    assert phone.locator("section.team-match").count() == 2
    screenshot("team-day-1-scheduled")
    no_sideways_scroll(phone)

    # Each slot suggests a roster player, with why: at first everyone has 0 games, so the
    # roster's order (captains first).
    table = phone.locator('section.team-match[data-round="1"]')
    hint = table.locator('[data-slot="赤"] .slot-hint').inner_text()
    assert hint == "おすすめ：赤の一（名簿順）", hint
    selected = table.locator('[data-slot="赤"] select option:checked').inner_text()
    assert selected == "赤の一（0半荘）", selected

    # Game 1: each team's first player, but 黄's slot goes to the substitute. Game 2: the
    # suggestion (the second players: fewest games, as the first ones played game 1), taken as
    # pre-selected; but for 黄 (whose first player has not played) the captain's own choice.
    for number, pick in ((1, "の一"), (2, "の二")):
        table = phone.locator(f'section.team-match[data-round="{number}"]')
        for team in ("赤", "青", "黄", "緑"):
            slot = table.locator(f'[data-slot="{team}"]')
            who = "助っ人" if (team, number) == ("黄", 1) else f"{team}{pick}"
            label = who if who == "助っ人" else f"{who}（0半荘）"
            if number == 2 and team != "黄":
                assert (
                    slot.locator(".slot-hint").inner_text() == f"おすすめ：{who}（出場が少ない順）"
                )
                assert slot.locator("select option:checked").inner_text() == label
            else:
                slot.locator("select").select_option(label=label)
            with phone.expect_navigation():
                slot.locator("button").click()
            if (team, number) == ("赤", 2):
                screenshot("team-day-5-suggested-and-games")
        table = phone.locator(f'section.team-match[data-round="{number}"]')
        assert "補欠" in table.inner_text() if number == 1 else True
        if number == 1:
            screenshot("team-day-2-players-named")
        seated = [table.locator(".slot-player").nth(i).inner_text() for i in range(4)]
        with phone.expect_navigation():
            table.locator("[data-record-table]").click()
        for i, name in enumerate(seated):  # the form is filled in seat order
            assert phone.input_value(f"#id_member_{i}") == name
            phone.fill(f"#id_points_{i}", POINTS[i])
        if number == 1:
            screenshot("team-day-3-record-form-prefilled")
        preview_then_save(phone)
        assert phone.url == day_url
        assert phone.locator(
            f'section.team-match[data-round="{number}"] [data-recorded]'
        ).is_visible()
    assert not TeamMatch.objects.filter(game=None).exists()
    phone.locator("#team-standings").scroll_into_view_if_needed()
    rows = phone.locator("#team-standings tbody tr").all_inner_texts()
    assert len(rows) == 4
    assert all("\t2\t" in r for r in rows), rows  # 黄's substitute's game counts for 黄
    screenshot("team-day-4-team-standings")
    no_sideways_scroll(phone)


def test_a_fixed_table_final_on_a_phone(phone, live_server, log_in, screenshot) -> None:
    """An individual cup at マメの会: 8 played the qualifier; the organiser closes it on the
    event page, the top 4 are seated at final table A, its record link fills the form in seat
    order; a non-finalist in a seat is refused on that seat; the table's four are saved and
    the final's standings list the four only."""
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    season = Season.objects.create(
        club=club,
        name="秋の大会",
        start=datetime.date(2026, 10, 1),
        end=datetime.date(2026, 12, 31),
    )
    people = [Member.objects.create(club=club, name=f"選手{i}") for i in range(8)]
    qual = add_stage(season, organiser, "予選", DAY, advance=4)
    final_day = datetime.date(2026, 11, 3)
    add_stage(season, organiser, "決勝", final_day, fixed_table=True)
    for table in (people[:4], people[4:]):
        recording.game_record(
            club=club,
            user=organiser,
            data=recording.GameInput(
                date=DAY,
                seats=[recording.SeatInput(m, int(p)) for m, p in zip(table, POINTS, strict=True)],
            ),
            confirm_duplicate=True,
        )
    log_in("organiser")
    phone.on("dialog", lambda dialog: dialog.accept())
    stages_url = f"{live_server.url}/c/mame/seasons/{season.pk}/stages/"
    phone.goto(stages_url)
    with phone.expect_navigation():
        phone.get_by_role("button", name="締めて決勝へ進める").click()
    qual.refresh_from_db()
    assert qual.closed_at is not None
    table = phone.locator('[data-final-table="A"]')
    players = table.locator(".final-player").all_inner_texts()
    # 40,000 / 30,000 at both tables: 選手0 and 選手4 tie first, 選手1 and 選手5 third.
    assert players == ["選手0", "選手4", "選手1", "選手5"]
    assert "東" in table.inner_text() and "決勝A卓" in table.inner_text()
    phone.locator("#stage-2").scroll_into_view_if_needed()
    screenshot("final-1-table-seated")
    no_sideways_scroll(phone)

    with phone.expect_navigation():
        table.locator("[data-record-final]").click()
    for i, name in enumerate(players):  # the form is filled in seat order
        assert phone.input_value(f"#id_member_{i}") == name
        phone.fill(f"#id_points_{i}", POINTS[i])
    phone.fill("#id_member_3", "選手2")  # out in the qualifier
    with phone.expect_navigation():
        phone.click("button[name=action][value=preview]:not(.default-action)")
    assert "選手2は決勝A卓（決勝）の選手ではありません" in phone.inner_text("main")
    screenshot("final-2-non-finalist-refused")
    no_sideways_scroll(phone)
    phone.fill("#id_member_3", "選手5")
    preview_then_save(phone)
    phone.goto(stages_url)
    final = phone.locator("#stage-2")
    rows = final.locator("table.stage-standings tbody tr").all_inner_texts()
    assert len(rows) == 4 and all(any(p in r for p in players) for r in rows), rows
    assert "1半荘消化" in final.inner_text()
    final.scroll_into_view_if_needed()
    screenshot("final-3-standings-of-the-four")
    no_sideways_scroll(phone)
