"""The table draw on the Django side: attendance, rounds, manual changes, schedule, API."""

from __future__ import annotations

import contextlib
import datetime
import io
import json
from itertools import combinations

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook

from league.accounts import tokens as api_auth
from league.core.clock import today
from league.core.errors import ServiceError
from league.draw import selectors as sel
from league.draw import services as draw
from league.draw.algorithm import is_fair
from league.models import AuditLog, Day, Member, Season
from league.models.draw import Attendance, DrawRound
from league.teams import services as teams
from tests.support.api import record as api_record
from tests.support.clubs import make_club, make_user
from tests.support.draw import DATE, POINTS, _record, check_in_all, current, people, record_table
from tests.support.games import record_game


def opponents(rv: sel.RoundView) -> set[tuple[int, int]]:
    return {
        (min(a.pk, b.pk), max(a.pk, b.pk))
        for tv in rv.tables
        for a, b in combinations(tv.players, 2)
    }


@pytest.fixture
def ten(club) -> list[Member]:
    return people(club, 10)


def test_check_in_feeds_the_ledger_attendees_and_is_audited(club, organiser, ten) -> None:
    day = check_in_all(club, organiser, ten)
    assert set(day.attendees.values_list("pk", flat=True)) == {m.pk for m in ten}
    assert AuditLog.objects.filter(action="draw.check_in").count() == 10
    with pytest.raises(ServiceError) as e:
        draw.attendance_check_in(club=club, user=organiser, date=DATE, member=ten[0])
    assert "member" in e.value.errors


def test_the_evening_round_by_round(club, organiser, organiser_client, ten) -> None:
    day = check_in_all(club, organiser, ten)
    first = draw.round_draw(club=club, user=organiser, date=DATE)
    r1 = current(day)
    assert (first.number, len(r1.tables), len(r1.sitting_out)) == (1, 2, 2)
    for tv in r1.tables:
        record_table(organiser_client, club, tv)
    r1 = current(day)
    assert r1.complete and all(tv.table.game_id for tv in r1.tables)
    page = organiser_client.get(reverse("draw:draw_day", args=[club.slug, DATE])).content.decode()
    assert 'data-proposal="2"' in page
    # The proposal shown is what the draw stores.
    proposed = draw.round_plan(club=club, day=day).rounds[0]
    second = draw.round_draw(club=club, user=organiser, date=DATE)
    r2 = current(day)
    assert [tuple(m.pk for m in tv.players) for tv in r2.tables] == list(proposed.tables)
    # Those who sat out play now; opponents change (at most 2 pairs repeat per table of 4).
    assert {m.pk for m in r1.sitting_out} <= {m.pk for tv in r2.tables for m in tv.players}
    assert len(opponents(r1) & opponents(r2)) <= 4
    assert second.number == 2
    # Someone leaves after round 1 (no game of round 2 recorded): a redraw leaves them out.
    leaver = r2.tables[0].players[0]
    organiser_client.post(reverse("draw:draw_leave", args=[club.slug, DATE]), {"member": leaver.pk})
    assert Attendance.objects.get(day=day, member=leaver).until_round == 1
    organiser_client.post(
        reverse("draw:draw_round", args=[club.slug, DATE]), {"redraw": "on", "seats_drawn": "on"}
    )
    r2b = current(day)
    assert r2b.round.revision == 2
    seated = [m.pk for tv in r2b.tables for m in tv.players]
    assert leaver.pk not in seated + [m.pk for m in r2b.sitting_out]
    assert len(seated) == 8 and len(r2b.sitting_out) == 1
    assert DrawRound.objects.filter(day=day, number=2).count() == 2  # the first draw is kept
    assert AuditLog.objects.filter(action="draw.redraw").count() == 1


def test_a_latecomer_plays_from_the_next_round(club, organiser, ten) -> None:
    day = check_in_all(club, organiser, ten[:8])
    draw.round_draw(club=club, user=organiser, date=DATE)
    r1 = current(day)
    # Round 1 has a recorded table: the latecomer can only play from round 2.
    game = record_game(club, organiser, r1.tables[0].players, POINTS, date=DATE)
    # Its four players are the table's: recording it marks the table recorded.
    assert current(day).tables[0].table.game == game
    late = draw.attendance_check_in(club=club, user=organiser, date=DATE, member=ten[8])
    assert late.from_round == 2
    draw.round_draw(club=club, user=organiser, date=DATE)
    r2 = current(day)
    assert ten[8].pk in {m.pk for tv in r2.tables for m in tv.players}  # missed 1: not out
    assert len(r2.sitting_out) == 1


def test_a_swap_with_a_sitter_out_keeps_fairness(club, organiser, ten) -> None:
    day = check_in_all(club, organiser, ten[:9])
    draw.round_draw(club=club, user=organiser, date=DATE)
    r1 = current(day)
    out = r1.sitting_out[0]
    seated = r1.tables[0].players[1]
    draw.seat_swap(club=club, user=organiser, day=day, first=out, second=seated)  # both missed 0
    r1 = current(day)
    assert r1.sitting_out == [seated] and out in r1.tables[0].players
    # Round 2: the one who sat out may not be swapped back out for someone who has not.
    draw.round_draw(club=club, user=organiser, date=DATE)
    r2 = current(day)
    assert seated.pk in {m.pk for tv in r2.tables for m in tv.players}
    with pytest.raises(ServiceError) as e:
        draw.seat_swap(club=club, user=organiser, day=day, first=r2.sitting_out[0], second=seated)
    assert "second" in e.value.errors
    assert AuditLog.objects.filter(action="draw.swap").count() == 1


def test_a_locked_table_stays_on_redraw(club, organiser, ten) -> None:
    day = check_in_all(club, organiser, ten)
    draw.round_draw(club=club, user=organiser, date=DATE)
    r1 = current(day)
    kept = [m.pk for m in r1.tables[1].players]
    draw.table_lock(club=club, user=organiser, day=day, table_id=r1.tables[1].table.pk, locked=True)
    with pytest.raises(ServiceError):
        draw.seat_swap(
            club=club,
            user=organiser,
            day=day,
            first=r1.tables[0].players[0],
            second=r1.tables[1].players[0],
        )
    draw.round_draw(club=club, user=organiser, date=DATE, redraw=True)
    r1b = current(day)
    assert [m.pk for m in r1b.tables[0].players] == kept and r1b.tables[0].table.locked
    assert AuditLog.objects.filter(action="draw.lock").count() == 1


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(swaps=st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), max_size=6))
@pytest.mark.django_db
def test_swaps_keep_the_invariants(swaps) -> None:
    club = make_club(f"c{DrawRound.objects.count()}-{Member.objects.count()}")
    user = make_user(f"u{Member.objects.count()}", club)
    players = people(club, 11)
    day = check_in_all(club, user, players)
    draw.round_draw(club=club, user=user, date=DATE)
    missed = dict.fromkeys([m.pk for m in players], 0)
    for a, b in swaps:
        with contextlib.suppress(ServiceError):
            draw.seat_swap(club=club, user=user, day=day, first=players[a], second=players[b])
        rv = current(day)
        seated = [m.pk for tv in rv.tables for m in tv.players]
        out = [m.pk for m in rv.sitting_out]
        assert sorted(seated + out) == sorted(missed)
        assert all(len(tv.players) == 4 for tv in rv.tables) and len(out) == 3
        assert is_fair(missed, seated, out)


def test_kagetsu_cup_schedule_sixteen_players_five_rounds(db, organiser_client) -> None:
    club = make_club("kagetsu", "kagetsu-cup", "花月杯")
    user = make_user("kagetsu-org", club, "organiser")
    client = Client()
    client.force_login(user)
    players = people(club, 16)
    check_in_all(club, user, players)
    address = reverse("draw:draw_schedule", args=[club.slug, DATE])
    assert client.post(address, {"rounds": "５", "seats_drawn": "on"}).status_code == 302
    rounds = sel.current_rounds(Day.objects.get(club=club, date=DATE))
    assert len(rounds) == 5
    met = [pair for rv in rounds for pair in opponents(rv)]
    assert len(met) == len(set(met)) == 5 * 4 * 6  # nobody meets twice
    page = client.get(address).content.decode()
    assert "draw.css" in page and 'data-schedule-player="選手00"' in page
    # Issue 42: the schedule's figures, recounted from the rounds stored. Sixteen over five
    # rounds meet everyone (no pair never meets, so no common-opponent line nor warning).
    figures = page.split("data-schedule-figures")[1].split("</section>")[0]
    assert "再び同卓する組：0" in figures
    assert "各選手の風ごとの回数：1〜2回" in figures
    assert "共通の対戦相手" not in figures
    response = client.get(reverse("draw:draw_schedule_export", args=[club.slug, DATE]))
    book = load_workbook(io.BytesIO(b"".join(response.streaming_content)))
    sheet = book.worksheets[0]
    assert int(sheet.page_setup.paperSize) == int(sheet.PAPERSIZE_A4)
    assert sheet.max_row == 17 and sheet.max_column == 6
    assert {sheet.cell(row, 1).value for row in range(2, 18)} == {m.name for m in players}
    assert book.worksheets[1].max_row == 1 + 5 * 4
    # A second schedule for the same day is refused, the field named.
    with pytest.raises(ServiceError) as e:
        draw.schedule_draw(club=club, user=user, date=DATE, rounds=3)
    assert "rounds" in e.value.errors


def test_schedule_rounds_out_of_range(organiser_client, club, organiser) -> None:
    draw.day_open(club=club, user=organiser, date=DATE)
    response = organiser_client.post(
        reverse("draw:draw_schedule", args=[club.slug, DATE]), {"rounds": "99"}
    )
    assert response.status_code == 200 and "rounds" in response.context["form"].errors


def test_check_in_by_reading_and_as_guest(organiser_client, club, ten) -> None:
    start = reverse("draw:draw_start", args=[club.slug])
    assert organiser_client.post(start, {"date": "2026年11月21日"}).url == reverse(
        "draw:draw_day", args=[club.slug, DATE]
    )
    address = reverse("draw:draw_check_in", args=[club.slug, DATE])
    organiser_client.post(address, {"name": "せんしゅ03"})
    organiser_client.post(address, {"name": "新顔 さん", "guest": "on"})
    organiser_client.post(address, {"name": "誰か"})  # unknown, not a guest: refused
    day = Day.objects.get(club=club, date=DATE)
    names = {a.member.name for a in Attendance.objects.filter(day=day).select_related("member")}
    assert names == {"選手03", "新顔 さん"}
    assert Member.objects.get(name="新顔 さん").is_guest


# Two more since issue 42 (the table size for the fill-in button, the hold-back switch).
@pytest.mark.parametrize("drawn, queries", [(False, 16), (True, 14)])
def test_the_draw_page_has_constant_queries(
    organiser_client, club, organiser, django_assert_num_queries, drawn, queries
) -> None:
    """Two days, 9 and 17 players, with a proposal or a drawn round: the same queries."""
    players = people(club, 17)
    for date, n in ((DATE, 9), (DATE + datetime.timedelta(days=1), 17)):
        for m in players[:n]:
            draw.attendance_check_in(club=club, user=organiser, date=date, member=m)
        if drawn:
            draw.round_draw(club=club, user=organiser, date=date)
    for date in (DATE, DATE + datetime.timedelta(days=1)):
        with django_assert_num_queries(queries):
            assert (
                organiser_client.get(reverse("draw:draw_day", args=[club.slug, date])).status_code
                == 200
            )


def test_api_reads_the_current_draw(club, organiser, ten) -> None:
    secret = api_auth.token_create(club=club, user=organiser, name="bot")[1]
    path = f"/api/clubs/{club.slug}/days/{DATE}/draw"
    headers = {"Authorization": f"Bearer {secret}"}
    check_in_all(club, organiser, ten)
    assert Client().get(path, headers=headers).status_code == 404
    draw.round_draw(club=club, user=organiser, date=DATE)
    data = json.loads(Client().get(path, headers=headers).content)
    assert data["round"] == 1 and len(data["tables"]) == 2 and len(data["sitting_out"]) == 2
    assert [p["wind"] for p in data["tables"][0]["players"]] == ["東", "南", "西", "北"]


def test_draw_pages_of_a_day_that_does_not_exist_are_404(organiser_client, club) -> None:
    assert organiser_client.get(reverse("draw:draw_day", args=[club.slug, DATE])).status_code == 404
    assert (
        organiser_client.post(
            reverse("draw:draw_start", args=[club.slug]), {"date": "x"}
        ).status_code
        == 200
    )


def test_a_three_player_club_draws_tables_of_three(db) -> None:
    """The table size is the rules' player count: 関西ぱいろん's 3-player rules seat three."""
    club = make_club("sanma", "pairon-kansai-3p", "三麻")
    user = make_user("sanma-org", club, "organiser")
    day = check_in_all(club, user, people(club, 7))
    draw.round_draw(club=club, user=user, date=DATE)
    rv = current(day)
    assert [len(tv.players) for tv in rv.tables] == [3, 3] and len(rv.sitting_out) == 1


def test_a_cup_day_plays_its_schedule_round_after_round(club, organiser, organiser_client) -> None:
    """With the whole day drawn, the current round is the first not fully recorded; swaps and
    the API follow it."""
    players = people(club, 8)
    day = check_in_all(club, organiser, players)
    draw.schedule_draw(club=club, user=organiser, date=DATE, rounds=3)
    rounds = sel.current_rounds(day)
    assert sel.current_round(rounds).round.number == 1
    for tv in rounds[0].tables:
        record_table(organiser_client, club, tv)
    rounds = sel.current_rounds(day)
    assert sel.current_round(rounds).round.number == 2
    page = organiser_client.get(reverse("draw:draw_day", args=[club.slug, DATE])).content.decode()
    assert 'data-round="2"' in page and "data-proposal" not in page
    a, b = rounds[1].tables[0].players[0], rounds[1].tables[1].players[0]
    draw.seat_swap(club=club, user=organiser, day=day, first=a, second=b)
    swapped = sel.current_rounds(day)[1]
    assert a in swapped.tables[1].players and b in swapped.tables[0].players


def test_a_departure_after_the_draw_asks_for_a_redraw(club, organiser, organiser_client, ten):
    day = check_in_all(club, organiser, ten)
    draw.round_draw(club=club, user=organiser, date=DATE)
    leaver = current(day).tables[0].players[0]
    draw.attendance_leave(club=club, user=organiser, day=day, member=leaver)
    page = organiser_client.get(reverse("draw:draw_day", args=[club.slug, DATE])).content.decode()
    assert "data-gone" in page
    with pytest.raises(ServiceError):
        draw.attendance_leave(club=club, user=organiser, day=day, member=leaver)


def test_a_game_of_a_tables_four_is_that_tables_from_any_path(club, organiser, ten) -> None:
    """Recorded without its card (the header's 記録, the API, an import), a game whose players
    are table B's four is table B's game, named B, whatever table was typed."""
    day = check_in_all(club, organiser, ten[:8])
    draw.round_draw(club=club, user=organiser, date=DATE)
    b = current(day).tables[1]
    game = _record(club, organiser, list(reversed(b.players)), table="A")
    tables = current(day).tables
    assert tables[1].table.game == game and tables[0].table.game is None
    game.refresh_from_db()
    assert game.table == b.table.label == "B"
    logged = AuditLog.objects.get(action="draw.recorded", game=game)
    assert logged.before == {"table": "A"} and logged.after["table"] == "B"
    # Another four (two of A, two of B) is no table's game.
    mixed = tables[0].players[:2] + tables[1].players[:2]
    other = _record(club, organiser, mixed, table="A")
    assert not other.draw_tables.exists()
    assert [tv.table.game for tv in current(day).tables] == [None, game]
    # The same four again is not linked twice: their table is recorded.
    again = _record(club, organiser, b.players)
    assert not again.draw_tables.exists()


def test_the_headers_record_on_a_draw_day_asks_which_table(club, organiser, ten) -> None:
    """記録 in the header: the record form as always without a draw; with one, the tables not
    recorded yet to choose from, then the one left opens its card's form (its table, not the
    last game's); never a blank form with the last game's table."""
    client = Client()
    client.force_login(organiser)
    start = reverse("draw:record_start", args=[club.slug])
    response = client.get(start)
    assert response.status_code == 302 and response["Location"] == reverse(
        "recording:game_new", args=[club.slug]
    )
    date = today()
    for m in ten[:8]:
        draw.attendance_check_in(club=club, user=organiser, date=date, member=m)
    draw.round_draw(club=club, user=organiser, date=date)
    day = Day.objects.get(club=club, date=date)
    a, b = sel.current_rounds(day)[-1].tables
    page = client.get(start)
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count("data-record-table") == 2 and f"draw_table={a.table.pk}" in html
    assert "data-record-outside" in html
    # Table A is recorded: 記録 opens B's card, B's players in seat order, at table B.
    record_game(club, organiser, a.players, POINTS, date=date, table="A")
    response = client.get(start)
    assert response.status_code == 302 and f"draw_table={b.table.pk}" in response["Location"]
    form = client.get(response["Location"]).context["form"]
    assert form.initial["table"] == "B"
    assert [form.initial[f"member_{i}"] for i in range(4)] == [m.name for m in b.players]
    # A game outside the draw starts with no table, not the last game's "A".
    outside = client.get(reverse("recording:game_new", args=[club.slug]) + f"?date={date}&table=")
    assert outside.context["form"].initial["table"] == ""


def test_a_seasons_teammates_never_share_a_table(club, organiser, ten) -> None:
    """Issue 42: the season's teams reach the draw (read only when the season has teams)."""
    season = Season.objects.create(
        club=club, name="2026秋", start=DATE - datetime.timedelta(days=30), end=DATE
    )
    eight = ten[:8]
    for k in range(4):  # four teams of two: each table of a round takes one of each
        data = teams.TeamInput(
            name=f"チーム{k}",
            short_name=f"T{k}",
            colour="#c53030",
            members=eight[2 * k : 2 * k + 2],
            captains=[],
        )
        teams.team_create(season=season, user=organiser, data=data)
    check_in_all(club, organiser, eight)
    draw.schedule_draw(club=club, user=organiser, date=DATE, rounds=3)
    team_of = {m.pk: i // 2 for i, m in enumerate(eight)}
    for rv in sel.current_rounds(Day.objects.get(club=club, date=DATE)):
        for tv in rv.tables:
            assert len({team_of[m.pk] for m in tv.players}) == 4


def test_kicha_comes_round_from_the_days_seats(club, organiser, ten) -> None:
    """Issue 42: the seats of the day's earlier rounds decide the seat order. Four players at
    one table over four rounds: each plays each wind once, so each is 東 (起家) once."""
    four = ten[:4]
    check_in_all(club, organiser, four)
    for _ in range(4):
        draw.round_draw(club=club, user=organiser, date=DATE)
    rounds = sel.current_rounds(Day.objects.get(club=club, date=DATE))
    for m in four:
        assert sorted(rv.tables[0].players.index(m) for rv in rounds) == [0, 1, 2, 3]


def test_kicha_comes_round_from_the_seasons_seats(club, organiser, ten) -> None:
    """Issue 42: the first of four started every earlier game of the season as 東 (起家, read
    from the results' seats): in eight rounds of the day they start none."""
    four = ten[:4]
    earlier = DATE - datetime.timedelta(days=7)
    for _ in range(3):
        api_record(club, organiser, four, date=earlier)  # four[0] is 東 in all three
    assert sel.season_history(club, DATE).seats[four[0].pk] == [3, 0, 0, 0]
    check_in_all(club, organiser, four)
    for _ in range(8):
        draw.round_draw(club=club, user=organiser, date=DATE)
    rounds = sel.current_rounds(Day.objects.get(club=club, date=DATE))
    easts = [rv.tables[0].players[0].pk for rv in rounds]
    assert four[0].pk not in easts
    assert sorted(easts.count(m.pk) for m in four[1:]) == [2, 3, 3]


def test_the_schedule_warns_below_root_p_common_opponents(organiser_client, club, organiser):
    """Issue 42: 24 players over 2 rounds each meet 6: pairs that never meet have fewer than
    floor(√24) = 4 common opponents, and the page says so."""
    check_in_all(club, organiser, people(club, 24))
    draw.schedule_draw(club=club, user=organiser, date=DATE, rounds=2)
    page = organiser_client.get(reverse("draw:draw_schedule", args=[club.slug, DATE])).content
    figures = page.decode().split("data-schedule-figures")[1].split("</section>")[0]
    assert "一度も同卓しない2人の共通の対戦相手(最少): " in figures
    assert "data-common-warning" in figures and "人(参加人数の平方根)未満です" in figures
