"""Team match days (league.teams): the season's fixture scheduled day by day (scoring.fixtures),
a slot per team at each table, the captain (or an organiser) naming who plays from the roster or
a substitute, recording from the table pre-filling the form and linking the game; audited,
isolated per club, a page of constant queries."""

from __future__ import annotations

import datetime
import uuid
from collections import Counter

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league.club import services as club_services
from league.core.errors import ServiceError
from league.models import AuditLog, Member, Membership, TeamMatch, TeamSlot
from league.recording import services as recording
from league.teams import selectors, services
from tests.support.clubs import PASSWORD, make_user
from tests.support.seasons import make_season
from tests.support.stages import add_stage

D = datetime.date(2026, 10, 10)
D2 = datetime.date(2026, 10, 17)
POINTS = (40000, 30000, 20000, 10000)


@pytest.fixture
def season(club):
    return make_season(
        club=club, name="2026秋", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )


@pytest.fixture
def four_teams(club, organiser, season):
    """4 teams of 2 (captain first): 赤 (赤1, 赤2), 青, 黄, 緑; and 控え, on no team."""
    teams = []
    for name, colour in [
        ("赤", "#c53030"),
        ("青", "#2b6cb0"),
        ("黄", "#d69e2e"),
        ("緑", "#38a169"),
    ]:
        people = [Member.objects.create(club=club, name=f"{name}{i}") for i in (1, 2)]
        data = services.TeamInput(f"{name}組", name, colour, people, [people[0]])
        teams.append(services.team_create(season=season, user=organiser, data=data))
    Member.objects.create(club=club, name="控え")
    return teams


def _name(slot, user, name, organiser=True):
    member = Member.objects.get(name=name)
    return services.slot_name(slot=slot, user=user, member=member, organiser=organiser)


def test_a_day_schedules_the_next_rounds_of_the_fixture(season, four_teams, organiser):
    first = services.match_day_schedule(season=season, user=organiser, date=D, games=2)
    assert [(m.round, m.position) for m in first] == [(1, 0), (2, 0)]
    second = services.match_day_schedule(season=season, user=organiser, date=D2, games=2)
    assert [m.round for m in second] == [3, 4]
    seats = Counter(TeamSlot.objects.values_list("team", "seat"))
    assert len(seats) == 16 and set(seats.values()) == {1}  # every team once in every seat
    entry = AuditLog.objects.filter(action="team_day.schedule").first()
    assert entry.after["date"] == D.isoformat()
    assert entry.after["matches"][0]["teams"] == [t.pk for t in four_teams]


def test_a_day_needs_a_date_in_the_season_and_enough_teams(season, organiser, club):
    with pytest.raises(ServiceError) as e:
        services.match_day_schedule(
            season=season, user=organiser, date=datetime.date(2027, 1, 5), games=0
        )
    assert set(e.value.errors) == {"date", "games"}
    for name in ("赤", "青", "黄"):
        data = services.TeamInput(f"{name}組", name, "#c53030", [], [])
        services.team_create(season=season, user=organiser, data=data)
    with pytest.raises(ServiceError) as e:
        services.match_day_schedule(season=season, user=organiser, date=D, games=1)
    assert "3" in str(e.value.errors)
    assert not TeamMatch.objects.exists()


def test_a_fifth_team_sits_out_in_turn(season, four_teams, organiser, club):
    """5 teams at tables of 4: one team sits out each round, each once in five rounds, and over
    the cycle (20 rounds) every team meets every other equally and sits in every seat."""
    extra = Member.objects.create(club=club, name="五番")
    five = [
        *four_teams,
        services.team_create(
            season=season,
            user=organiser,
            data=services.TeamInput("紫組", "紫", "#805ad5", [extra], []),
        ),
    ]
    services.match_day_schedule(season=season, user=organiser, date=D, games=5)
    played = [set(m.slots.values_list("team", flat=True)) for m in TeamMatch.objects.all()]
    assert len(played) == 5 and all(len(p) == 4 for p in played)
    sat_out = Counter(t.pk for p in played for t in five if t.pk not in p)
    assert sorted(sat_out.values()) == [1, 1, 1, 1, 1]
    for date in (D2, datetime.date(2026, 10, 24), datetime.date(2026, 10, 31)):
        services.match_day_schedule(season=season, user=organiser, date=date, games=5)
    seats = Counter(TeamSlot.objects.values_list("team", "seat"))
    assert len(seats) == 20 and set(seats.values()) == {4}
    met = Counter()
    for match in TeamMatch.objects.prefetch_related("slots"):
        teams = sorted(s.team_id for s in match.slots.all())
        met.update((a, b) for i, a in enumerate(teams) for b in teams[i + 1 :])
    assert len(met) == 10 and set(met.values()) == {12}


def test_captains_name_their_own_slot_organisers_any(
    club, season, four_teams, organiser, member_user
):
    (match,) = services.match_day_schedule(season=season, user=organiser, date=D, games=1)
    red, blue, *_ = TeamSlot.objects.filter(match=match).order_by("seat")
    Member.objects.filter(name="赤1").update(user=member_user)  # the member is 赤組's captain
    _name(red, member_user, "赤2", organiser=False)
    with pytest.raises(PermissionDenied):
        _name(blue, member_user, "青1", organiser=False)
    with pytest.raises(ServiceError) as e:
        _name(red, organiser, "青1")  # on another team
    assert "member" in e.value.errors
    slot = _name(red, organiser, "控え")  # a substitute, by an organiser
    assert slot.substitute and slot.member.name == "控え"
    with pytest.raises(ServiceError):
        _name(blue, organiser, "控え")  # already plays at this table
    entries = AuditLog.objects.filter(action="team_slot.name", target=f"team_slot:{red.pk}")
    assert [e.after["substitute"] for e in entries.order_by("pk")] == [False, True]
    assert entries.order_by("pk").last().before["member"] == Member.objects.get(name="赤2").pk


def _fill(match, organiser, names):
    for slot, name in zip(match.slots.order_by("seat"), names, strict=True):
        _name(slot, organiser, name)


def test_recording_from_the_table_prefills_the_form_and_links_the_game(
    club, season, four_teams, organiser, organiser_client
):
    first, second = services.match_day_schedule(season=season, user=organiser, date=D, games=2)
    _fill(first, organiser, ["赤1", "青1", "黄1", "緑1"])
    day = reverse("teams:team_day", args=[club.slug, season.pk, D])
    page = organiser_client.get(day)
    (table,) = page.context["rounds"][0]["tables"]
    url = table["record_url"]
    assert "team_match" in url and "record_url" not in page.context["rounds"][1]["tables"][0]
    form = organiser_client.get(url).content.decode()
    assert 'value="赤1"' in form and 'value="緑1"' in form
    data = {
        "date": D.isoformat(),
        "table": "A",
        "rate": "0.3",
        "action": "save",
        "submission_key": str(uuid.uuid4()),
        **{f"member_{i}": n for i, n in enumerate(["赤1", "青1", "黄1", "緑1"])},
        **{f"points_{i}": str(p) for i, p in enumerate(POINTS)},
    }
    response = organiser_client.post(url, data)
    assert response.status_code == 302 and response.url == day
    first.refresh_from_db()
    assert first.game is not None
    assert AuditLog.objects.filter(action="team_match.recorded", game=first.game).exists()
    rows = {r["name"]: r["total"] for r in selectors.team_standings(season=season)}
    assert rows["赤組"] > rows["青組"] > rows["黄組"] > rows["緑組"]
    # Recorded, the table names nobody any more.
    with pytest.raises(ServiceError):
        _name(first.slots.first(), organiser, "赤2")
    # Other players than the named ones: the game is recorded, the table is not its.
    _fill(second, organiser, ["青2", "黄2", "緑2", "赤2"])
    posted = {
        **data,
        "submission_key": str(uuid.uuid4()),
        "member_0": "控え",
        **{f"points_{i}": str(p) for i, p in enumerate((35000, 30000, 25000, 10000))},
    }
    for i, n in enumerate(["青2", "黄2", "緑2"], start=1):
        posted[f"member_{i}"] = n
    address = reverse("recording:game_new", args=[club.slug]) + f"?team_match={second.pk}"
    assert organiser_client.post(address, posted).status_code == 302
    second.refresh_from_db()
    assert second.game is None


def test_a_substitutes_game_at_the_slot_counts_for_the_team(club, season, four_teams, organiser):
    game = _substitute_game(club, season, organiser)
    first = game.results.get(member__name="控え").score
    rows = {r["name"]: (r["games"], r["scores"]) for r in selectors.team_standings(season=season)}
    assert rows["赤組"] == (1, first) and first > 0
    # Corrected, the team's figure follows the game's current revision.
    recording.game_void(game=game, user=organiser, reason="entered wrongly")
    rows = {r["name"]: (r["games"], r["scores"]) for r in selectors.team_standings(season=season)}
    assert rows["赤組"] == (0, 0)


def _substitute_game(club, season, organiser):
    """控え, on no team, plays 赤組's slot of the day's one table: the game recorded."""
    (match,) = services.match_day_schedule(season=season, user=organiser, date=D, games=1)
    _fill(match, organiser, ["控え", "青1", "黄1", "緑1"])
    data = recording.GameInput(
        date=D,
        seats=[
            recording.SeatInput(Member.objects.get(name=n), p)
            for n, p in zip(["控え", "青1", "黄1", "緑1"], POINTS, strict=True)
        ],
    )
    return recording.game_record(club=club, user=organiser, data=data, team_match=match.pk)


def _join(team, organiser, name):
    """`name` put on `team`'s roster (its captain stays its first member)."""
    roster = [
        *Member.objects.filter(
            team_places__team=team, team_places__removed_at__isnull=True
        ).order_by("pk")
    ]
    people = [*roster, Member.objects.get(name=name)]
    data = services.TeamInput(team.name, team.short_name, team.colour, people, [roster[0]])
    services.team_edit(team=team, user=organiser, data=data)


@pytest.mark.parametrize("joins", ["赤組", "青組"])
def test_a_substitutes_game_counts_once_when_they_join_a_team(
    club, season, four_teams, organiser, joins
):
    """A substitute put on a team later has the game in their season total, which counts for
    their new team: it counts for the slot's team only (赤組), once, whichever team they join."""
    score = _substitute_game(club, season, organiser).results.get(member__name="控え").score
    _join(next(t for t in four_teams if t.name == joins), organiser, "控え")
    rows = {r["name"]: (r["games"], r["scores"]) for r in selectors.team_standings(season=season)}
    blue = Member.objects.get(name="青1").results.get().score
    assert rows["赤組"] == (1, score)
    assert rows["青組"] == (1, blue)
    assert rows["黄組"][0] == rows["緑組"][0] == 1


def test_a_substitute_merged_into_a_roster_member_counts_once(club, season, four_teams, organiser):
    score = _substitute_game(club, season, organiser).results.get(member__name="控え").score
    keep, gone = Member.objects.get(name="赤2"), Member.objects.get(name="控え")
    club_services.member_merge(keep=keep, gone=gone, user=organiser)
    rows = {r["name"]: (r["games"], r["scores"]) for r in selectors.team_standings(season=season)}
    assert rows["赤組"] == (1, score)


@pytest.mark.parametrize("after", ["nothing", "joins 赤組", "joins 青組", "merged"])
def test_a_team_stage_counts_a_substitutes_game_as_the_season_does(
    club, season, four_teams, organiser, after
):
    """A stage of teams over the day sums the same games as the season's team standings: the
    substitute's game for the slot's team only, once, whatever became of the substitute."""
    score = _substitute_game(club, season, organiser).results.get(member__name="控え").score
    if after == "merged":
        gone = Member.objects.get(name="控え")
        club_services.member_merge(keep=Member.objects.get(name="赤2"), gone=gone, user=organiser)
    elif after != "nothing":
        _join(next(t for t in four_teams if t.name == after[-2:]), organiser, "控え")
    stage = add_stage(season, organiser, "リーグ戦", D, entrants="teams")
    staged = {r["name"]: (r["games"], r["score"]) for r in selectors.stage_standings(stage=stage)}
    whole = {r["name"]: (r["games"], r["scores"]) for r in selectors.team_standings(season=season)}
    assert staged == whole
    assert staged["赤組"] == (1, score)
    assert sum(g for g, _s in staged.values()) == 4


def test_the_day_is_isolated_and_members_only_see_it(
    club, season, four_teams, organiser, member_user, member_client, stranger_client
):
    (match,) = services.match_day_schedule(season=season, user=organiser, date=D, games=1)
    day = reverse("teams:team_day", args=[club.slug, season.pk, D])
    assert stranger_client.get(day).status_code == 404
    slot = match.slots.first()
    name = reverse("teams:team_slot_name", args=[club.slug, season.pk, slot.pk])
    member = Member.objects.get(name="赤1")
    assert stranger_client.post(name, {"member": member.pk}).status_code == 404
    page = member_client.get(day).content.decode()
    assert "赤組"[0] in page and 'name="member"' not in page  # no captain: nothing to name
    assert member_client.post(name, {"member": member.pk}).status_code == 403
    other = make_user("other-organiser", club=None)
    Membership.objects.create(user=other, club=stranger_client_club(), role="organiser")
    from django.test import Client

    c = Client()
    assert c.login(username="other-organiser", password=PASSWORD)
    assert c.get(day).status_code == 404
    assert c.post(name, {"member": member.pk}).status_code == 404
    assert TeamSlot.objects.get(pk=slot.pk).member is None
    # Linked to 赤組's captain, the member names 赤組's slot on the page, and only that one.
    Member.objects.filter(name="赤1").update(user=member_user)
    page = member_client.get(day).content.decode()
    assert page.count('name="member"') == 1
    assert member_client.post(name, {"member": member.pk}).status_code == 302
    assert TeamSlot.objects.get(pk=slot.pk).member == member


def stranger_client_club():
    from league.models import Club

    return Club.objects.get(slug="kinyokai")


def test_the_day_page_queries_do_not_grow(club, season, four_teams, organiser, organiser_client):
    day = reverse("teams:team_day", args=[club.slug, season.pk, D])
    services.match_day_schedule(season=season, user=organiser, date=D, games=1)

    def count() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert organiser_client.get(day).status_code == 200
        return len(captured)

    few = count()
    services.match_day_schedule(season=season, user=organiser, date=D, games=6)
    for slot in TeamSlot.objects.select_related("team"):  # each team's captain plays
        _name(slot, organiser, slot.team.short_name + "1")
    assert count() == few


def test_match_points_where_the_season_says_so(
    club, season, four_teams, organiser, organiser_client
):
    first, second = services.match_day_schedule(season=season, user=organiser, date=D, games=2)
    for match, names, pts in (
        (first, ["赤1", "青1", "黄1", "緑1"], (60000, 20000, 15000, 5000)),
        (second, ["青2", "黄2", "緑2", "赤2"], (26000, 25500, 24500, 24000)),
    ):
        _fill(match, organiser, names)
        data = recording.GameInput(
            date=D,
            seats=[
                recording.SeatInput(Member.objects.get(name=n), p)
                for n, p in zip(names, pts, strict=True)
            ],
        )
        recording.game_record(club=club, user=organiser, data=data, team_match=match.pk)
    by_score = [r["name"] for r in selectors.team_standings(season=season)]
    url = reverse("teams:team_points", args=[club.slug, season.pk])
    assert organiser_client.post(url, {"points": "4 2 1"}).status_code == 302  # 3 of 4
    season.refresh_from_db()
    assert season.team_match_points == []
    assert organiser_client.post(url, {"points": "４、２、１、０"}).status_code == 302
    season.refresh_from_db()
    assert season.team_match_points == [4, 2, 1, 0]
    # 赤: 1st then 4th = 4; 青: 2nd, 1st = 6; 黄: 3rd, 2nd = 3; 緑: 4th, 3rd = 1.
    rows = selectors.team_standings(season=season)
    assert [(r["name"], r["match_points"], r["position"]) for r in rows] == [
        ("青組", 6, 1),
        ("赤組", 4, 2),
        ("黄組", 3, 3),
        ("緑組", 1, 4),
    ]
    assert by_score[0] == "赤組"  # by the scores 赤組's big win would put it first
    entry = AuditLog.objects.get(action="season.team_points")
    assert entry.after == {"team_match_points": [4, 2, 1, 0]}
    page = organiser_client.get(reverse("teams:season_teams", args=[club.slug, season.pk]))
    assert "4・2・1・0" in page.content.decode()
    assert organiser_client.post(url, {"points": ""}).status_code == 302  # back to scores
    season.refresh_from_db()
    assert selectors.team_standings(season=season)[0]["match_points"] is None
