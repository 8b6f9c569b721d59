"""Seasons that don't swallow each other (league.standings.competitions): a team league's games
(its match tables) and an event's (its stages' days) count in their own competition, and in the
club's individual season only when the organiser said so; two seasons of one kind over the same
dates are refused unless confirmed, naming the other. The kept totals equal their rebuild."""

from __future__ import annotations

import datetime
import uuid

import pytest
from django.urls import reverse

from league.club import services as club_services
from league.core.errors import ServiceError
from league.models import AuditLog, Member, Season
from league.models.stats import PairTotal, SeatTotal
from league.models.totals import MemberRateTotal, MemberTotal
from league.recording import services as recording
from league.standings import services as aggregates
from league.standings import stats
from league.teams import services as teams
from tests.support.games import record_game
from tests.support.stages import add_stage

D = datetime.date(2026, 10, 10)  # a match day
D2 = datetime.date(2026, 10, 11)  # an ordinary evening
YEAR = (datetime.date(2026, 1, 1), datetime.date(2026, 12, 31))
POINTS = (40000, 30000, 20000, 10000)
ORDINARY = (10000, 20000, 30000, 40000)


def _season(club, user, name, kind=Season.INDIVIDUAL, in_club_season=False, **dates):
    start, end = dates.get("start", YEAR[0]), dates.get("end", YEAR[1])
    return club_services.season_create(
        club=club,
        user=user,
        name=name,
        start=start,
        end=end,
        kind=kind,
        in_club_season=in_club_season,
    )


def _autumn_event(club, user):
    """秋の大会: an event over October (D and D2 in it)."""
    return _season(
        club,
        user,
        "秋の大会",
        kind=Season.EVENT,
        start=datetime.date(2026, 10, 1),
        end=datetime.date(2026, 10, 31),
    )


def _counted_in_the_club_season(league, user, counted: bool) -> None:
    """The league edited (its name and dates as they are) to count in the individual season."""
    club_services.season_edit(
        season=league,
        user=user,
        name=league.name,
        start=league.start,
        end=league.end,
        in_club_season=counted,
    )


def _game(club, user, date, names, points, team_match=None):
    members = [Member.objects.get(club=club, name=n) for n in names]
    return record_game(club, user, members, points, date=date, team_match=team_match)


def _totals(season):
    return {
        t.member.name: (t.games, t.total)
        for t in MemberTotal.objects.filter(season=season, games__gt=0).select_related("member")
    }


def _kept(club):
    """Every kept row of the club's seasons and all time, without primary keys (a rebuild makes
    new rows), in a stable order."""
    tables = [
        MemberTotal.objects.filter(club=club).values(),
        MemberRateTotal.objects.filter(club=club).values(),
        PairTotal.objects.filter(club=club).values(),
        SeatTotal.objects.filter(club=club).values(),
    ]
    return [
        sorted((tuple(sorted((k, v) for k, v in row.items() if k != "id")) for row in t), key=repr)
        for t in tables
    ]


def _assert_rebuild_equals_kept(club):
    before = _kept(club)
    assert before[0] and before[2]
    aggregates.club_rebuild(club=club)
    assert _kept(club) == before


def _name_slots(match, organiser, number):
    """Each team's player `number` named at its slot of `match`: their names by seat."""
    names = []
    for slot in match.slots.order_by("seat").select_related("team"):
        member = Member.objects.get(name=f"{slot.team.short_name}{number}")
        teams.slot_name(slot=slot, user=organiser, member=member, organiser=True)
        names.append(member.name)
    return names


@pytest.fixture
def league_day(club, organiser):
    """The club's individual 2026 season; a team league over the autumn (its games apart, as
    created by default) with 4 teams of 2; one match table on D, recorded; and an ordinary game
    on D2 by the same four."""
    individual = _season(club, organiser, "2026年")
    league = _season(
        club,
        organiser,
        "チーム戦2026",
        kind=Season.TEAM,
        start=datetime.date(2026, 10, 1),
        end=datetime.date(2026, 12, 31),
    )
    for name in ("赤", "青", "黄", "緑"):
        people = [Member.objects.create(club=club, name=f"{name}{i}") for i in (1, 2)]
        data = teams.TeamInput(f"{name}組", name, "#c53030", people, [people[0]])
        teams.team_create(season=league, user=organiser, data=data)
    (match,) = teams.match_day_schedule(season=league, user=organiser, date=D, games=1)
    players = _name_slots(match, organiser, 1)
    assert players == ["赤1", "青1", "黄1", "緑1"]
    game = _game(club, organiser, D, players, POINTS, team_match=match.pk)
    match.refresh_from_db()
    assert match.game == game
    _game(club, organiser, D2, players, ORDINARY)
    return individual, league, game


def test_a_team_leagues_games_stay_out_of_the_individual_season(
    club, organiser, organiser_client, league_day
):
    individual, league, game = league_day
    # The individual season has the ordinary game only: 緑1 won it and leads.
    assert _totals(individual) == {
        "赤1": (1, -400),
        "青1": (1, -200),
        "黄1": (1, 100),
        "緑1": (1, 500),
    }
    rows = list(stats.standings(club=club, start=YEAR[0], end=YEAR[1], seasons=[individual]))
    assert rows[0]["name"] == "緑1" and rows[0]["games"] == 1
    # The team league and all time count both games.
    assert {n: g for n, (g, _t) in _totals(league).items()} == dict.fromkeys(
        ["赤1", "青1", "黄1", "緑1"], 2
    )
    all_time = MemberTotal.objects.get(member__name="赤1", season=None)
    assert all_time.games == 2
    # Head-to-head and seats in the season: one game.
    pair = PairTotal.objects.get(member__name="赤1", opponent__name="緑1", season=individual)
    assert pair.games == 1
    assert sum(SeatTotal.objects.filter(season=individual).values_list("games", flat=True)) == 4
    # Kept at write time as a rebuild from scratch has them.
    _assert_rebuild_equals_kept(club)
    # The season's race chart agrees with its standings; the league's has both games.
    page = organiser_client.get(reverse("standings:season_race", args=[club.slug, individual.pk]))
    assert {m.name: t for m, t, _s in page.context["legend"]}["赤1"] == -400
    page = organiser_client.get(reverse("standings:season_race", args=[club.slug, league.pk]))
    assert {m.name: t for m, t, _s in page.context["legend"]}["赤1"] == 100
    # A void of the team game moves the team league, not the individual season.
    recording.game_void(game=game, user=organiser, reason="wrong day")
    assert _totals(individual)["赤1"] == (1, -400)
    assert _totals(league)["赤1"] == (1, -400)
    _assert_rebuild_equals_kept(club)


def test_asked_when_created_or_edited_the_league_counts_in_the_individual_season(
    club, organiser, league_day
):
    individual, league, _ = league_day
    _counted_in_the_club_season(league, organiser, True)
    assert _totals(individual)["赤1"] == (2, 500 - 400)
    entry = AuditLog.objects.filter(action="season.edit", target=f"season:{league.pk}").get()
    assert entry.before["in_club_season"] is False and entry.after["in_club_season"] is True
    _assert_rebuild_equals_kept(club)
    _counted_in_the_club_season(league, organiser, False)
    assert _totals(individual)["赤1"] == (1, -400)
    _assert_rebuild_equals_kept(club)


def test_an_events_stage_days_stay_out_of_the_individual_season(club, organiser, members):
    individual = _season(club, organiser, "2026年")
    names = [m.name for m in members[:4]]
    before = _game(club, organiser, D, names, POINTS)  # recorded before the stage exists
    _game(club, organiser, D2, names, ORDINARY)
    event = _autumn_event(club, organiser)
    assert _totals(individual)[names[0]][0] == 2  # no stage yet: no day is the event's
    add_stage(event, organiser, "予選", D)
    assert _totals(individual)[names[0]] == (1, -400)  # D's game left it
    _game(club, organiser, D, names, ORDINARY)  # recorded on the stage's day: the event's
    assert _totals(individual)[names[0]] == (1, -400)
    assert _totals(event)[names[0]][0] == 3
    _assert_rebuild_equals_kept(club)
    recording.game_void(game=before, user=organiser, reason="test")
    assert _totals(individual)[names[0]] == (1, -400)
    _assert_rebuild_equals_kept(club)


def test_two_seasons_of_one_kind_overlapping_are_confirmed_naming_the_other(club, organiser):
    first = _season(club, organiser, "2026年")
    with pytest.raises(ServiceError) as e:
        _season(club, organiser, "2026後期", start=datetime.date(2026, 7, 1))
    (message,) = e.value.errors["confirm_overlap"]
    assert "2026年" in message and "2026/01/01" in message and "2026/12/31" in message
    assert Season.objects.filter(club=club).count() == 1
    # A team league over the same dates is another kind: no question.
    _season(club, organiser, "チーム戦", kind=Season.TEAM)
    second = club_services.season_create(
        club=club,
        user=organiser,
        name="2026後期",
        start=datetime.date(2026, 7, 1),
        end=YEAR[1],
        confirm_overlap=True,
    )
    assert second.kind == Season.INDIVIDUAL
    # Editing one season into the other's dates asks again; its own dates don't.
    later = _season(
        club, organiser, "2027年", start=datetime.date(2027, 1, 1), end=datetime.date(2027, 12, 31)
    )
    with pytest.raises(ServiceError) as e:
        club_services.season_edit(
            season=later,
            user=organiser,
            name="2027年",
            start=datetime.date(2026, 12, 1),
            end=later.end,
        )
    assert "confirm_overlap" in e.value.errors
    club_services.season_edit(
        season=first, user=organiser, name="2026年度", start=first.start, end=first.end
    )


def test_the_season_form_asks_about_an_overlap_with_a_box_to_tick(
    club, organiser, organiser_client
):
    _season(club, organiser, "2026年")
    url = reverse("club:season_new", args=[club.slug])
    data = {
        "name": "秋季",
        "start": "2026/10/01",
        "end": "2026/12/31",
        "min_games": "0",
        "kind": Season.INDIVIDUAL,
    }
    page = organiser_client.post(url, data)
    assert page.status_code == 200
    body = page.content.decode()
    assert "2026年" in body and 'type="checkbox" name="confirm_overlap"' in body
    assert Season.objects.filter(club=club).count() == 1
    response = organiser_client.post(url, {**data, "confirm_overlap": "on"})
    assert response.status_code == 302
    # A team league, its games apart by default, is made from the same form.
    response = organiser_client.post(url, {**data, "name": "チーム戦", "kind": Season.TEAM})
    assert response.status_code == 302
    league = Season.objects.get(name="チーム戦")
    assert league.kind == Season.TEAM and not league.in_club_season
    # An unknown kind names the field.
    page = organiser_client.post(url, {**data, "name": "x", "kind": "cup"})
    assert page.status_code == 200 and "kind" in page.context["form"].errors


def test_a_game_from_a_match_table_through_the_form_stays_out_of_the_season(
    club, organiser, organiser_client, league_day
):
    individual, league, _ = league_day
    (match,) = teams.match_day_schedule(
        season=league, user=organiser, date=datetime.date(2026, 10, 24), games=1
    )
    players = _name_slots(match, organiser, 2)
    url = reverse("recording:game_new", args=[club.slug]) + f"?team_match={match.pk}"
    data = {
        "date": "2026-10-24",
        "rate": "0.3",
        "action": "save",
        "submission_key": str(uuid.uuid4()),
        **{f"member_{i}": n for i, n in enumerate(players)},
        **{f"points_{i}": str(p) for i, p in enumerate(POINTS)},
    }
    assert organiser_client.post(url, data).status_code == 302
    match.refresh_from_db()
    assert match.game is not None
    assert "赤2" not in _totals(individual)
    assert _totals(league)["赤2"][0] == 1


@pytest.fixture
def event(club, organiser, members):
    """An event in stages (予選 on D with a cut of 2 carrying half, 決勝 on D2) and its games:
    予選's two games on D; the cut made; one game of the final on D2."""
    names = [m.name for m in members[:4]]
    event = _autumn_event(club, organiser)
    first = add_stage(event, organiser, "予選", D, advance=2, carry="half")
    add_stage(event, organiser, "決勝", D2)
    _game(club, organiser, D, names, POINTS)
    _game(club, organiser, D, names, POINTS)
    teams.stage_close(stage=first, user=organiser)
    return event


def _stage_rows(html):
    """The names and totals of a page's stage standings table, in order."""
    import re

    table = html.split('class="stage-standings"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<td class="team-name">(?:.*?\s)?(\S+) <span class="muted small">', table)


def test_an_events_season_page_excel_and_api_rank_as_its_stage(
    club, organiser, members, organiser_client, event
):
    from io import BytesIO

    from openpyxl import load_workbook

    names = [m.name for m in members[:4]]
    # The final: the two through, each carrying half of the qualifier; the game's last two won.
    _game(club, organiser, D2, names[2:] + names[:2], POINTS)
    stages = organiser_client.get(reverse("teams:season_stages", args=[club.slug, event.pk]))
    final = stages.context["stages"][1]["rows"]
    order = [r["name"] for r in final]
    assert order[:2] == [names[0], names[1]]  # carried in, ahead of the final's own score
    page = organiser_client.get(reverse("standings:season_standings", args=[club.slug, event.pk]))
    assert page.context["event"][0].name == "決勝"
    assert [r["name"] for r in page.context["event"][1]] == order
    assert "data-event-standings" in page.content.decode()
    assert page.context["table"] is None  # not the raw totals of its dates
    # Excel: the same order.
    response = organiser_client.get(
        reverse("excel:export_standings", args=[club.slug]) + f"?season={event.pk}"
    )
    sheet = load_workbook(BytesIO(b"".join(response.streaming_content))).active
    excel = [row[1] for row in sheet.iter_rows(min_row=2, values_only=True) if row[1]]
    assert excel == order
    # The API: the stage's rows, no second order.
    api = organiser_client.get(f"/api/clubs/{club.slug}/standings?season={event.pk}").json()
    assert api["kind"] == "event" and api["rows"] == []
    assert [r["name"] for r in api["stage"]["rows"]] == order
    # The club's standings page lists it as ranked by its stages, not with a leader by totals.
    body = organiser_client.get(reverse("standings:standings", args=[club.slug])).content.decode()
    assert "ステージの順位で決まります" in body


def test_the_club_home_leads_to_the_running_seasons_stages_and_teams(
    club, organiser, organiser_client, member_client
):
    from league.core.clock import today

    day = today()
    event = _season(club, organiser, "冬の大会", kind=Season.EVENT, start=day, end=day)
    league = _season(club, organiser, "チーム戦", kind=Season.TEAM, start=day, end=day)
    _season(
        club,
        organiser,
        "来年",
        start=day + datetime.timedelta(days=200),
        end=day + datetime.timedelta(days=200),
    )
    for client in (organiser_client, member_client):
        body = client.get(reverse("recording:club_home", args=[club.slug])).content.decode()
        assert reverse("teams:season_stages", args=[club.slug, event.pk]) in body
        assert reverse("teams:season_teams", args=[club.slug, league.pk]) in body
        assert reverse("standings:season_standings", args=[club.slug, league.pk]) in body
        assert "来年" not in body


def test_a_change_nobody_follows_is_an_error(db):
    """league.core.changes: a change without a follower raises, rather than leave a total
    unmoved; league.standings follows the competition days (imported at start)."""
    from dataclasses import dataclass

    from league.core import changes
    from league.core.actions import action

    @dataclass(frozen=True)
    class Unfollowed:
        club_id: int

    with pytest.raises(LookupError, match="Unfollowed"), action():
        changes.record(Unfollowed(1))
    (standings,) = [p for p in changes.PROJECTIONS if changes.CompetitionDaysChanged in p.follows]
    assert standings.apply is aggregates.changes_applied


def test_an_edit_without_a_kind_keeps_the_seasons_kind(club, organiser, organiser_client):
    league = _season(club, organiser, "チーム戦", kind=Season.TEAM)
    url = reverse("club:season_edit", args=[club.slug, league.pk])
    data = {"name": "チーム戦2026", "start": "2026/01/01", "end": "2026/12/31", "min_games": "0"}
    assert organiser_client.post(url, data).status_code == 302
    league.refresh_from_db()
    assert (league.name, league.kind) == ("チーム戦2026", Season.TEAM)
