"""A fixed-table final for individuals (league.teams): when the qualifying stage closes, its top 4
(a tie at the cut decided by the cut's tie order) are seated at final table A, by place or by
draw, audited; on the final's dates a game with a finalist is refused unless its players are
exactly one final table's (the form, the API, an edit, an import), while games of other members
go on; the final's standings list the finalists only; re-seating is a new revision, nothing
deleted, and only before the final's first game."""

from __future__ import annotations

import datetime
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from league.accounts import tokens as api_auth
from league.core.errors import ServiceError
from league.excel import imports
from league.models import AuditLog, FinalSeat, Game, Member, Season
from league.recording import services as recording
from league.teams import selectors, services
from tests.support.api import call
from tests.support.clubs import make_club, make_user
from tests.support.games import record_game
from tests.support.imports import game as sheet_game
from tests.support.imports import plan_of, simple
from tests.support.stages import add_stage

QUAL = datetime.date(2026, 10, 10)
FINAL = datetime.date(2026, 11, 3)
# M.League's rules (25,000 start, 30,000 return, uma 30/10/-10/-30, oka to the top, tenths):
# 40,100 → +60.1, 30,000 → +10.0, 20,000 → ▲20.0, 9,900 → ▲50.1.
TOP_DOWN = (40100, 30000, 20000, 9900)


def _stages(season, organiser, *, seating="order", advance=4):
    qual = add_stage(season, organiser, "予選", QUAL, advance=advance)
    final = add_stage(season, organiser, "決勝", FINAL, fixed_table=True, seating=seating)
    return qual, final


def _game(club, organiser, date, players, points=TOP_DOWN):
    return record_game(club, organiser, players, points, date=date, rate="", confirm_duplicate=True)


@pytest.fixture
def cup(db):
    """8 players, two qualifying tables: P0 +60.1, P1 +10.0, P2 ▲20.0, P3 ▲50.1 and P4 +60.1,
    P5 +10.0, P6 ▲20.0, P7 ▲50.1; bonuses P1 +5.0 and P2 +30.0 leave P5 and P2 tied on +10.0
    at the cut (4th): the tie order (the member made first) takes P2."""
    club = make_club("cup", "m-league", "カップ")
    organiser = make_user("cup-organiser", club, "organiser")
    season = Season.objects.create(
        club=club,
        name="秋の大会",
        start=datetime.date(2026, 10, 1),
        end=datetime.date(2026, 12, 31),
    )
    players = [Member.objects.create(club=club, name=f"P{i}") for i in range(8)]
    qual, final = _stages(season, organiser)
    _game(club, organiser, QUAL, players[:4])
    _game(club, organiser, QUAL, players[4:])
    for who, points in ((players[1], 50), (players[2], 300)):
        services.adjustment_book(
            season=season, user=organiser, member=who, kind="bonus", points=points, reason="特別"
        )
    return club, organiser, season, players, qual, final


def _names(members):
    return [m.name for m in members]


def test_closing_the_qualifier_seats_its_top_four_at_the_final_table(cup):
    _club, organiser, _season, players, qual, final = cup
    rows = selectors.stage_standings(stage=qual)
    assert [(r["name"], r["total"], r["position"], r["through"]) for r in rows][:6] == [
        ("P0", 601, 1, True),
        ("P4", 601, 1, True),
        ("P1", 150, 3, True),
        ("P2", 100, 4, True),  # tied with P5 at the cut: made first
        ("P5", 100, 4, False),
        ("P6", -200, 6, False),
    ]
    services.stage_close(stage=qual, user=organiser)
    seats = list(FinalSeat.objects.filter(stage=final).order_by("table", "seat"))
    assert [(s.table, s.seat, s.member.name, s.place, s.current) for s in seats] == [
        (0, 0, "P0", 1, True),  # 東: the top qualifier is 起家
        (0, 1, "P4", 2, True),
        (0, 2, "P1", 3, True),
        (0, 3, "P2", 4, True),
    ]
    entry = AuditLog.objects.get(action="stage.seat")
    assert entry.target == f"stage:{final.pk}"
    assert entry.after["tables"] == [
        {"table": "A", "members": [players[i].pk for i in (0, 4, 1, 2)]}
    ]
    assert entry.after["drawn"] is False
    final.refresh_from_db()
    (table,) = selectors.final_tables(stage=final, rows=selectors.stage_standings(stage=final))
    assert [(p["wind"], p["name"]) for p in table["seats"]] == [
        ("東", "P0"),
        ("南", "P4"),
        ("西", "P1"),
        ("北", "P2"),
    ]


def test_a_final_game_is_its_table_s_four_and_the_final_standings_list_only_them(cup):
    club, organiser, _season, players, qual, final = cup
    services.stage_close(stage=qual, user=organiser)
    p = players
    # P5 (5th, out on the tie) in P2's seat: refused on P5's seat, by name, nothing stored.
    with pytest.raises(ServiceError) as e:
        _game(club, organiser, FINAL, [p[0], p[4], p[1], p[5]])
    assert set(e.value.errors) == {"players[3].name"}
    assert (
        "P5" in e.value.errors["players[3].name"][0]
        and "決勝" in e.value.errors["players[3].name"][0]
    )
    assert "A" in e.value.errors["players[3].name"][0]
    # Two non-finalists with two finalists: both named.
    with pytest.raises(ServiceError) as e:
        _game(club, organiser, FINAL, [p[6], p[0], p[7], p[4]])
    assert set(e.value.errors) == {"players[0].name", "players[2].name"}
    assert not Game.objects.filter(date=FINAL).exists()
    # The table's four, in other seats (a later hanchan's): recorded; twice (two hanchan).
    _game(club, organiser, FINAL, [p[2], p[1], p[4], p[0]])
    _game(club, organiser, FINAL, [p[0], p[4], p[1], p[2]], points=(20000, 40100, 9900, 30000))
    # Players none of whom is a finalist play on that day too: not the final's games.
    _game(club, organiser, FINAL, [p[3], p[5], p[6], p[7]])
    rows = selectors.stage_standings(stage=final)
    # Carried (all, the adjustments included): P0 +60.1, P4 +60.1, P1 +15.0, P2 +10.0. Played:
    # P2 +60.1 +10.0, P1 +10.0 ▲50.1, P4 ▲20.0 +60.1, P0 ▲50.1 ▲20.0. The finalists only.
    assert [(r["name"], r["games"], r["carried"], r["score"], r["total"]) for r in rows] == [
        ("P4", 2, 601, 401, 1002),
        ("P2", 2, 100, 701, 801),
        ("P0", 2, 601, -701, -100),
        ("P1", 2, 150, -401, -251),
    ]
    # An edit may not bring a non-finalist in; its points may change.
    game = Game.objects.filter(date=FINAL).order_by("number").first()
    data = recording.game_input_from_stored(game)
    seats = list(data.seats)
    seats[0] = recording.SeatInput(p[5], seats[0].points)
    with pytest.raises(ServiceError) as e:
        recording.game_edit(
            game=game,
            user=organiser,
            data=recording.GameInput(date=FINAL, seats=seats),
            confirm_duplicate=True,
        )
    assert set(e.value.errors) == {"players[0].name"}
    # Seats are not changed once the final has begun.
    with pytest.raises(ServiceError):
        services.final_seat(stage=final, user=organiser)


def test_seats_drawn_and_drawn_again_as_a_new_revision_before_the_first_game(db):
    club = make_club("draw-cup", "m-league")
    organiser = make_user("draw-organiser", club, "organiser")
    season = Season.objects.create(
        club=club, name="大会", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )
    players = [Member.objects.create(club=club, name=f"Q{i}") for i in range(12)]
    qual, final = _stages(season, organiser, seating="draw", advance=8)
    for k in range(3):
        points = (40100 - 100 * k, 30000, 20000, 9900 + 100 * k)
        _game(club, organiser, QUAL, players[4 * k : 4 * k + 4], points)
    services.stage_close(stage=qual, user=organiser)
    first = list(FinalSeat.objects.filter(stage=final, current=True))
    tables = {}
    for s in first:
        tables.setdefault(s.table, set()).add(s.place)
    assert tables == {0: {1, 2, 3, 4}, 1: {5, 6, 7, 8}}  # the top four at A, drawn in seats
    assert all(s.drawn and s.revision == 1 for s in first)
    client = make_client(organiser)
    page = client.post(reverse("teams:stage_seat", args=[club.slug, season.pk, final.pk]))
    assert page.status_code == 302
    assert FinalSeat.objects.filter(stage=final).count() == 16  # nothing deleted
    again = FinalSeat.objects.filter(stage=final, current=True)
    assert {s.revision for s in again} == {2}
    assert {(s.table, s.place) for s in again} == {(s.table, s.place) for s in first}
    entry = AuditLog.objects.filter(action="stage.seat").latest("pk")
    assert entry.before is not None and entry.after["revision"] == 2
    # A game mixing the two tables is refused, naming the seats not at the first one's table.
    a = [s.member for s in again if s.table == 0]
    b = [s.member for s in again if s.table == 1]
    with pytest.raises(ServiceError) as e:
        _game(club, organiser, FINAL, [a[0], a[1], a[2], b[0]])
    assert set(e.value.errors) == {"players[3].name"}
    _game(club, organiser, FINAL, b)  # table B's game
    page = client.post(reverse("teams:stage_seat", args=[club.slug, season.pk, final.pk]))
    assert FinalSeat.objects.filter(stage=final).count() == 16  # begun: not seated again


def make_client(user):
    c = Client()
    c.force_login(user)
    return c


def test_a_fixed_table_of_members_needs_a_whole_table_from_the_stage_before(db):
    club = make_club("bad-cup", "m-league")
    organiser = make_user("bad-organiser", club, "organiser")
    season = Season.objects.create(
        club=club, name="大会", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )
    with pytest.raises(ServiceError) as e:  # nothing before it to seat
        add_stage(season, organiser, "決勝", FINAL, fixed_table=True)
    assert set(e.value.errors) == {"fixed_table"}
    add_stage(season, organiser, "予選", QUAL, advance=6)
    with pytest.raises(ServiceError) as e:
        add_stage(season, organiser, "決勝", FINAL, fixed_table=True)
    assert set(e.value.errors) == {"fixed_table"}
    assert "4" in e.value.errors["fixed_table"][0] and "6" in e.value.errors["fixed_table"][0]


def test_the_form_and_the_api_refuse_a_non_finalist_and_the_page_shows_the_table(cup):
    club, organiser, season, _players, qual, _final = cup
    services.stage_close(stage=qual, user=organiser)
    client = make_client(organiser)
    form = {
        "date": FINAL.isoformat(),
        "table": "",
        "submission_key": str(uuid.uuid4()),
    }
    for i, (who, points) in enumerate(zip(("P0", "P4", "P1", "P5"), TOP_DOWN, strict=True)):
        form |= {f"member_{i}": who, f"points_{i}": str(points), f"chombo_{i}": "0"}
    for action in ("preview", "save"):
        page = client.post(
            reverse("recording:game_new", args=[club.slug]), {**form, "action": action}
        )
        assert page.status_code == 200
        errors = page.context["form"].errors
        assert list(errors) == ["member_3"], errors
        assert "P5" in errors["member_3"][0]
        assert "決勝A卓" in page.content.decode()
    assert not Game.objects.filter(date=FINAL).exists()
    # The API, with a token of the club's organiser.
    secret = api_auth.token_create(club=club, user=organiser, name="bot")[1]
    body = {
        "date": FINAL.isoformat(),
        "players": [
            {"name": n, "points": p}
            for n, p in zip(("P0", "P4", "P5", "P1"), TOP_DOWN, strict=True)
        ],
    }
    response = call("POST", f"/api/clubs/{club.slug}/games", secret, body)
    assert response.status_code == 422, response.content
    errors = response.json()["errors"]
    assert list(errors) == ["players[2].name"], errors
    assert "P5" in errors["players[2].name"][0]
    body["players"][2]["name"] = "P2"
    response = call("POST", f"/api/clubs/{club.slug}/games", secret, body)
    assert response.status_code == 201, response.content
    stages = call("GET", f"/api/clubs/{club.slug}/seasons/{season.pk}/stages", secret).json()
    (table,) = stages["stages"][1]["tables"]
    assert [s["name"] for s in table["seats"]] == ["P0", "P4", "P1", "P2"]
    assert table["games"] == 1 and table["label"] == "A"
    # The event page: the final table with its players, the final's standings the four.
    page = client.get(reverse("teams:season_stages", args=[club.slug, season.pk]))
    html = page.content.decode()
    final_card = html[html.index('id="stage-2"') :]
    assert "決勝A卓" in final_card
    for name in ("P0", "P4", "P1", "P2"):
        assert name in final_card
    for name in ("P3", "P5", "P6", "P7"):
        assert f"{name} " not in final_card and f">{name}<" not in final_card
    assert "この卓の半荘を記録" in final_card


def test_an_import_with_a_non_finalist_at_the_final_is_refused_at_its_cell(cup):
    club, organiser, _season, _players, qual, _final = cup
    services.stage_close(stage=qual, user=organiser)
    final_four = (("P0", 40100), ("P4", 30000), ("P1", 20000), ("P2", 9900))
    others = (("P3", 40100), ("P5", 30000), ("P6", 20000), ("P7", 9900))
    wrong = (("P0", 40100), ("P4", 30000), ("P1", 20000), ("P5", 9900))
    data = simple(*(sheet_game(*g, date=FINAL, table="") for g in (final_four, others, wrong)))
    plan = plan_of(club, data)
    # The preview says it (issue 39: it said nothing and only the confirm failed).
    assert not plan.ready
    (problem,) = plan.problems
    assert problem.row == 4 and "P5" in problem.message  # the third game's row, P5's cell
    with pytest.raises(imports.ImportFailed):
        imports.plan_apply(plan=plan, user=organiser)
    assert not Game.objects.filter(date=FINAL).exists()  # all or nothing
    data = simple(*(sheet_game(*g, date=FINAL, table="") for g in (final_four, others)))
    assert len(imports.plan_apply(plan=plan_of(club, data), user=organiser)) == 2


def test_table_mode_refuses_the_wrong_four_at_the_start(cup):
    # Issue 39: table mode's start did not check a seated final; the wrong four were refused
    # only when the finished game was saved.
    from league.models import TableGame
    from league.table import services as table

    club, organiser, _season, players, qual, _final = cup
    services.stage_close(stage=qual, user=organiser)
    p = {m.name: m for m in players}
    wrong = [p["P0"], p["P4"], p["P1"], p["P5"]]
    with pytest.raises(ServiceError) as caught:
        table.table_start(
            club=club, user=organiser, key=uuid.uuid4(), date=FINAL, members=wrong, rate=""
        )
    assert "P5" in caught.value.errors["players[3].name"][0]
    assert not TableGame.objects.filter(club=club).exists()
    right = [p["P0"], p["P4"], p["P1"], p["P2"]]
    tg = table.table_start(
        club=club, user=organiser, key=uuid.uuid4(), date=FINAL, members=right, rate=""
    )
    assert tg.pk is not None
    # Four players none of whom is a finalist are not the final's: they start as usual.
    others = [p["P3"], p["P5"], p["P6"], p["P7"]]
    table.table_start(club=club, user=organiser, key=uuid.uuid4(), date=FINAL, members=others)
