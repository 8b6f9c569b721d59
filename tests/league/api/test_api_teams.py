"""The API reads a season's teams, its team match tables and its stages (league.api.teams):
the same figures as the pages, another club's token gets 404, constant queries."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league.accounts import tokens as api_auth
from league.models import Member, Season
from league.recording import services as recording
from league.teams import services
from tests.support.api import call, url

D = datetime.date(2026, 10, 10)


@pytest.fixture
def league(club, organiser):
    season = Season.objects.create(
        club=club, name="2026秋", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )
    teams = []
    for i in range(4):
        p = Member.objects.create(club=club, name=f"選手{i}")
        data = services.TeamInput(f"チーム{i}", f"T{i}", "#112233", [p], [p])
        teams.append(services.team_create(season=season, user=organiser, data=data))
    services.stage_create(
        season=season,
        user=organiser,
        data=services.StageInput(
            "予選", season.start, datetime.date(2026, 11, 30), entrants="teams", advance=2
        ),
    )
    return season, teams


def _play(club, organiser, season, games):
    for match in services.match_day_schedule(season=season, user=organiser, date=D, games=games):
        slots = list(match.slots.select_related("team").order_by("seat"))
        players = [s.team.roster.get().member for s in slots]
        for slot, p in zip(slots, players, strict=True):
            services.slot_name(slot=slot, user=organiser, member=p, organiser=True)
        data = recording.GameInput(
            date=D,
            seats=[
                recording.SeatInput(p, pts)
                for p, pts in zip(players, (40000, 30000, 20000, 10000), strict=True)
            ],
        )
        recording.game_record(
            club=club, user=organiser, data=data, team_match=match.pk, confirm_duplicate=True
        )


@pytest.mark.django_db
def test_teams_fixtures_and_stages(club, organiser, league, other_club, stranger):
    season, _teams = league
    secret = api_auth.token_create(club=club, user=organiser, name="bot")[1]
    _play(club, organiser, season, 1)
    paths = [f"seasons/{season.pk}/{r}" for r in ("teams", "fixtures", "stages")]

    def counts() -> list[int]:
        out = []
        for p in paths:
            with CaptureQueriesContext(connection) as captured:
                assert call("GET", url(club, p), secret).status_code == 200
            out.append(len(captured))
        return out

    body = call("GET", url(club, paths[0]), secret).json()
    assert [t["name"] for t in body["teams"]] == ["チーム0", "チーム1", "チーム2", "チーム3"]
    assert body["teams"][0]["members"][0]["captain"] is True
    fixtures = call("GET", url(club, paths[1]) + f"?date={D}", secret).json()
    (match,) = fixtures["matches"]
    assert match["game_id"] and [s["member"] for s in match["slots"]] == [
        "選手0",
        "選手1",
        "選手2",
        "選手3",
    ]
    stages = call("GET", url(club, paths[2]), secret).json()["stages"]
    assert [r["through"] for r in stages[0]["rows"]] == [True, True, False, False]
    few = counts()
    _play(club, organiser, season, 3)
    assert counts() == few
    theirs = api_auth.token_create(club=other_club, user=stranger, name="x")[1]
    for p in paths:
        assert call("GET", url(club, p), theirs).status_code == 404
    other_season = Season.objects.create(
        club=other_club, name="x", start=season.start, end=season.end
    )
    assert call("GET", url(club, f"seasons/{other_season.pk}/teams"), secret).status_code == 404
