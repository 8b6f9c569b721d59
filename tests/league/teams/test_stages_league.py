"""Events in stages (league.teams): an M.League-like season of 8 teams, a regular stage on team
match days, the top 4 through to a fixed-table final with their points halved (rounded as the
rules round), worked by hand; closing is audited and written once; the event page shows every
stage's standings and who went through, for members too; isolated per club."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league.core.errors import ServiceError
from league.models import AuditLog, Member, Season, StageEntry, TeamMatch
from league.recording import services as recording
from league.teams import selectors, services
from tests.support.clubs import make_club, make_user
from tests.support.stages import add_stage

REGULAR = datetime.date(2026, 10, 10)
FINAL = datetime.date(2026, 12, 5)
# M.League: 25,000 start, 30,000 return, uma 30/10/-10/-30, oka 20 to the top, one decimal:
# 40,100 → +60.1, 30,000 → +10.0, 20,000 → ▲20.0, 9,900 → ▲50.1 (tenths: 601, 100, -200, -501).
TOP_DOWN = (40100, 30000, 20000, 9900)


@pytest.fixture
def mleague(db):
    club = make_club("mleague", "m-league", "Mリーグ")
    organiser = make_user("m-organiser", club, "organiser")
    season = Season.objects.create(
        club=club, name="2026-27", start=datetime.date(2026, 10, 1), end=datetime.date(2027, 3, 31)
    )
    teams = []
    for i in range(8):
        player = Member.objects.create(club=club, name=f"選手{i}")
        data = services.TeamInput(f"チーム{i}", f"T{i}", f"#00000{i}", [player], [player])
        teams.append(services.team_create(season=season, user=organiser, data=data))
    regular = services.stage_create(
        season=season,
        user=organiser,
        data=services.StageInput(
            "レギュラーシーズン",
            datetime.date(2026, 10, 1),
            datetime.date(2026, 11, 30),
            entrants="teams",
            advance=4,
            carry="half",
        ),
    )
    final = services.stage_create(
        season=season,
        user=organiser,
        data=services.StageInput(
            "ファイナル",
            datetime.date(2026, 12, 1),
            datetime.date(2027, 3, 31),
            entrants="teams",
            fixed_table=True,
        ),
    )
    return club, organiser, season, teams, regular, final


def _play_day(club, organiser, season, date, games, points):
    """Schedule the day, each team's one player named for its slot, every table recorded."""
    for match in services.match_day_schedule(season=season, user=organiser, date=date, games=games):
        slots = list(match.slots.select_related("team").order_by("seat"))
        for slot in slots:
            member = slot.team.roster.get().member
            services.slot_name(slot=slot, user=organiser, member=member, organiser=True)
        data = recording.GameInput(
            date=date,
            seats=[
                recording.SeatInput(s.team.roster.get().member, p)
                for s, p in zip(slots, points, strict=True)
            ],
        )
        recording.game_record(club=club, user=organiser, data=data, team_match=match.pk)
    assert not TeamMatch.objects.filter(date=date, game=None).exists()


def test_an_m_league_season_cut_to_a_final_of_four_with_points_halved(mleague):
    club, organiser, season, _teams, regular, final = mleague
    # Round 1: T0 T2 T4 T6 | T1 T3 T5 T7; round 2: T0 T1 T4 T5 | T2 T3 T6 T7 (AG(3, 2)).
    _play_day(club, organiser, season, REGULAR, 2, TOP_DOWN)
    rows = selectors.stage_standings(stage=regular)
    totals = [(r["name"], r["total"], r["position"], r["through"]) for r in rows]
    assert totals == [
        ("チーム0", 1202, 1, True),  # +60.1 +60.1
        ("チーム1", 701, 2, True),  # +60.1 +10.0
        ("チーム2", 701, 2, True),  # +10.0 +60.1
        ("チーム3", 200, 4, True),
        ("チーム4", -400, 5, False),
        ("チーム5", -701, 6, False),
        ("チーム6", -701, 6, False),
        ("チーム7", -1002, 8, False),
    ]
    entries = services.stage_close(stage=regular, user=organiser)
    # Halved: 120.2 → 60.1; 70.1 → 35.05, M.League's rules round nothing: the half goes away
    # from zero, 35.1; 20.0 → 10.0.
    assert [(e.team.name, e.place, e.total_before, e.carried) for e in entries] == [
        ("チーム0", 1, 1202, 601),
        ("チーム1", 2, 701, 351),
        ("チーム2", 2, 701, 351),
        ("チーム3", 4, 200, 100),
    ]
    entry = AuditLog.objects.get(action="stage.close")
    assert [t["carried"] for t in entry.after["through"]] == [601, 351, 351, 100]
    with pytest.raises(ServiceError):
        services.stage_close(stage=regular, user=organiser)  # written once
    assert StageEntry.objects.count() == 4
    # The final: one fixed table of the four, in their places' order, seats rotating by game.
    (match,) = services.match_day_schedule(season=season, user=organiser, date=FINAL, games=1)
    assert [s.team.name for s in match.slots.order_by("seat")] == [
        "チーム0",
        "チーム1",
        "チーム2",
        "チーム3",
    ]
    for slot in match.slots.select_related("team").order_by("seat"):
        services.slot_name(
            slot=slot, user=organiser, member=slot.team.roster.get().member, organiser=True
        )
    data = recording.GameInput(
        date=FINAL,
        seats=[
            recording.SeatInput(s.team.roster.get().member, p)
            for s, p in zip(match.slots.order_by("seat"), reversed(TOP_DOWN), strict=True)
        ],
    )
    recording.game_record(club=club, user=organiser, data=data, team_match=match.pk)
    rows = selectors.stage_standings(stage=final)
    assert [(r["name"], r["carried"], r["score"], r["total"]) for r in rows] == [
        ("チーム3", 100, 601, 701),
        ("チーム2", 351, 100, 451),
        ("チーム1", 351, -200, 151),
        ("チーム0", 601, -501, 100),
    ]
    assert not any(r["through"] for r in rows)  # the last stage sends nobody on


def test_stages_for_members_and_the_event_page(mleague, client):
    club, organiser, season, _teams, _regular, _final = mleague
    _play_day(club, organiser, season, REGULAR, 1, TOP_DOWN)
    other = Season.objects.create(
        club=club, name="個人戦", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )
    cup = add_stage(
        other, organiser, "予選", REGULAR, advance=2, carry="bonus", bonus=[100, 50], ties="split"
    )
    services.stage_create(
        season=other,
        user=organiser,
        # Not a fixed table: a split cut of 2 cannot seat one (test_final_tables).
        data=services.StageInput("決勝", FINAL, FINAL),
    )
    rows = selectors.stage_standings(stage=cup)
    assert [(r["name"], r["total"], r["through"]) for r in rows][:3] == [
        ("選手0", 601, True),
        ("選手1", 601, True),
        ("選手2", 100, False),
    ]
    (first, second) = services.stage_close(stage=cup, user=organiser)
    assert (first.carried, second.carried) == (100, 100)  # tied first: both take the 1st bonus
    client.force_login(organiser)
    url = reverse("teams:season_stages", args=[club.slug, other.pk])
    with CaptureQueriesContext(connection) as captured:
        page = client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "予選" in html and "決勝" in html and "勝ち抜け" in html
    few = len(captured)
    _play_day(club, organiser, season, REGULAR, 3, TOP_DOWN)
    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    assert len(captured) == few
    # Another club's organiser does not see the event.
    stranger = make_user("x-organiser", make_club("x"), "organiser")
    client.force_login(stranger)
    assert client.get(url).status_code == 404


def test_a_stage_must_follow_the_one_before(mleague):
    _club, organiser, season, _teams, _regular, _final = mleague
    with pytest.raises(ServiceError) as e:
        add_stage(season, organiser, "おまけ", FINAL, entrants="members")
    assert {"advance", "first_day", "entrants"} <= set(e.value.errors)


def test_adjustments_count_in_the_stage_they_were_booked_in(mleague):
    """An adjustment counts in the stage open when it was booked (after the stage before it
    closed, before its own close): a team's, and its members', for the team; a member with an
    adjustment but no game is listed in a members' first stage with 0 games."""
    club, organiser, season, teams, regular, final = mleague
    _play_day(club, organiser, season, REGULAR, 2, TOP_DOWN)
    player7 = teams[7].roster.get().member
    services.adjustment_book(
        season=season, user=organiser, team=teams[7], kind="bonus", points=1000, reason="特別"
    )
    services.adjustment_book(
        season=season, user=organiser, member=player7, kind="bonus", points=500, reason="特別"
    )
    rows = {r["name"]: r for r in selectors.stage_standings(stage=regular)}
    assert (rows["チーム7"]["adjust"], rows["チーム7"]["total"]) == (1500, -1002 + 1500)
    assert rows["チーム7"]["through"] and rows["チーム7"]["position"] == 4  # 49.8: over チーム3
    assert all(r["adjust"] == 0 for r in selectors.stage_standings(stage=final))
    services.stage_close(stage=regular, user=organiser)
    regular.refresh_from_db()
    # Booked after the cut: the final's, not the regular stage's.
    services.adjustment_book(
        season=season, user=organiser, member=player7, kind="chombo", points=-200, reason="誤ロン"
    )
    assert {r["name"]: r["adjust"] for r in selectors.stage_standings(stage=regular)}[
        "チーム7"
    ] == 1500
    final_rows = {r["name"]: r for r in selectors.stage_standings(stage=final)}
    assert final_rows["チーム7"]["adjust"] == -200
    assert final_rows["チーム7"]["total"] == final_rows["チーム7"]["carried"] - 200
    # Individuals: a member who never played, with an adjustment, is listed with 0 games.
    other = Season.objects.create(
        club=club, name="個人戦", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )
    cup = add_stage(other, organiser, "予選", REGULAR, advance=2)
    add_stage(other, organiser, "決勝", FINAL)
    idle = Member.objects.create(club=club, name="見学")
    services.adjustment_book(
        season=other, user=organiser, member=idle, kind="bonus", points=100, reason="運営"
    )
    rows = {r["name"]: r for r in selectors.stage_standings(stage=cup)}
    assert (rows["見学"]["games"], rows["見学"]["adjust"], rows["見学"]["total"]) == (0, 100, 100)
