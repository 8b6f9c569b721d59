"""The draw's fairness inside teams (issue 25): on a team match day each slot not named yet
suggests a roster player (fewest team games this season, then fewest meetings with the players
named at the table, then out longest, then the roster's order), the captain still chooses
anyone allowed, each roster player shows their games, and the page reads it all in a fixed
number of queries."""

from __future__ import annotations

import datetime
from types import SimpleNamespace

import pytest
from django.urls import reverse

from league.models import Member, Season, TeamMatch
from league.recording import services as recording
from league.teams import selectors, services
from scoring import lineup

POINTS = (40000, 30000, 20000, 10000)
D1, D2, D3 = datetime.date(2026, 10, 3), datetime.date(2026, 10, 10), datetime.date(2026, 10, 17)


@pytest.fixture
def season(club):
    return Season.objects.create(
        club=club, name="2026秋", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )


@pytest.fixture
def teams(club, organiser, season):
    """赤組 with a roster of 5 (赤1 its captain, then 赤2…赤5 in that order); 青, 黄, 緑 of 2."""
    out = []
    for name, size in [("赤", 5), ("青", 2), ("黄", 2), ("緑", 2)]:
        people = [Member.objects.create(club=club, name=f"{name}{i}") for i in range(1, size + 1)]
        data = services.TeamInput(f"{name}組", name, "#c53030", people, [people[0]])
        out.append(services.team_create(season=season, user=organiser, data=data))
    return out


def _slot(match, team):
    return match.slots.get(team__short_name=team)


def _name(match, user, **by_team):
    for team, name in by_team.items():
        member = Member.objects.get(name=name)
        services.slot_name(slot=_slot(match, team), user=user, member=member, organiser=True)


def _play(club, organiser, match, red, others):
    """Name 赤's player and the others' (group 1: 青1 黄1 緑1, 2: 青2 黄2 緑2), record the game."""
    _name(match, organiser, 赤=red, 青=f"青{others}", 黄=f"黄{others}", 緑=f"緑{others}")
    slots = match.slots.order_by("seat").select_related("member")
    data = recording.GameInput(
        date=match.date,
        seats=[recording.SeatInput(s.member, p) for s, p in zip(slots, POINTS, strict=True)],
    )
    recording.game_record(club=club, user=organiser, data=data, team_match=match.pk)


def _day(season, organiser, date, games):
    return services.match_day_schedule(season=season, user=organiser, date=date, games=games)


def _page(client, club, season, date):
    page = client.get(reverse("teams:team_day", args=[club.slug, season.pk, date]))
    assert page.status_code == 200
    return page


def _suggested(page):
    """Round → (赤's suggested player, why) on the page."""
    out = {}
    for r in page.context["rounds"]:
        for table in r["tables"]:
            for slot in table["slots"]:
                if slot.team.short_name == "赤":
                    who = Member.objects.get(pk=slot.suggested).name if slot.suggested else None
                    out[r["round"]] = (who, slot.suggested_by)
    return out


def test_the_suggestion_follows_fewest_games_then_fewest_meetings(
    club, season, teams, organiser, organiser_client
):
    # Worked by hand. Day 1: round 1 赤1 v group 1, round 2 赤2 v group 2, round 3 赤1 v group 2.
    # Day 2: round 4 赤4 v group 1, round 5 赤3 v group 2. 赤5 has not played.
    for match, (red, group) in zip(
        _day(season, organiser, D1, 3), [("赤1", 1), ("赤2", 2), ("赤1", 2)], strict=True
    ):
        _play(club, organiser, match, red, group)
    for match, (red, group) in zip(
        _day(season, organiser, D2, 2), [("赤4", 1), ("赤3", 2)], strict=True
    ):
        _play(club, organiser, match, red, group)
    # Games: 赤1 2 (last round 3), 赤2 1 (2), 赤3 1 (5), 赤4 1 (4), 赤5 0.
    r6, r7, _r8 = _day(season, organiser, D3, 3)
    page = _page(organiser_client, club, season, D3)
    # Round 6: 赤5 alone has the fewest games. Round 7: 赤5 counted for round 6 now, all but 赤1
    # have one game, none meets anybody named (nobody is), so out longest: 赤2 (round 2).
    # Round 8: 赤3 (round 5) and 赤4 (round 4) left on one game: 赤4, out longer.
    assert _suggested(page) == {
        6: ("赤5", lineup.FEWEST_GAMES),
        7: ("赤2", lineup.LONGEST_OUT),
        8: ("赤4", lineup.LONGEST_OUT),
    }
    html = page.content.decode()
    assert "赤1（2半荘）" in html and "赤5（0半荘）" in html and "赤3（1半荘）" in html
    assert "おすすめ：赤5（出場が少ない順）" in html
    # 赤5 plays round 6 at group 2's table; group 2 is named for round 7 too.
    _name(r6, organiser, 赤="赤5", 青="青2", 黄="黄2", 緑="緑2")
    _name(r7, organiser, 青="青2", 黄="黄2", 緑="緑2")
    page = _page(organiser_client, club, season, D3)
    # Round 7: 赤2…赤5 tied on one game; met group 2: 赤2 3 (round 2), 赤3 3 (round 5), 赤5 3
    # (today, round 6), 赤4 0: 赤4, though 赤2 is out longer and first on the roster.
    assert _suggested(page)[7] == ("赤4", lineup.FEWEST_MEETINGS)
    assert _suggested(page)[8] == ("赤2", lineup.LONGEST_OUT)
    assert "おすすめ：赤4（この卓の相手との対戦が少ない順）" in page.content.decode()
    # The captain's choice other than the suggestion still works.
    captain = Member.objects.get(name="赤1")
    captain.user = organiser
    captain.save(update_fields=["user"])
    services.slot_name(
        slot=_slot(r7, "赤"), user=organiser, member=Member.objects.get(name="赤3"), organiser=False
    )
    assert _slot(r7, "赤").member.name == "赤3"
    page = _page(organiser_client, club, season, D3)
    # Named, the slot suggests nobody; 赤3 counts for round 7, so round 8 goes to 赤2 still
    # (one game, out longest), and the form pre-selects whoever is named.
    assert _suggested(page) == {6: (None, ""), 7: (None, ""), 8: ("赤2", lineup.LONGEST_OUT)}
    html = page.content.decode()
    slot = _slot(r7, "赤")
    chosen = f'<option value="{slot.member_id}" selected>'
    assert chosen in html
    # Named but not played yet, 赤5 shows no game still; played, 赤1 shows 2.
    assert "赤5（0半荘）" in html and "赤1（2半荘）" in html


def test_a_voided_game_does_not_count(club, season, teams, organiser, organiser_client):
    (match,) = _day(season, organiser, D1, 1)
    _play(club, organiser, match, "赤1", 1)
    _day(season, organiser, D2, 1)
    html = _page(organiser_client, club, season, D2).content.decode()
    assert "赤1（1半荘）" in html and "おすすめ：赤2（名簿順）" in html  # 赤2…赤5: 0 games
    match.refresh_from_db()
    recording.game_void(game=match.game, user=organiser, reason="entered wrongly")
    html = _page(organiser_client, club, season, D2).content.decode()
    assert "赤1（0半荘）" in html and "おすすめ：赤1（名簿順）" in html


def _fake(round_, tables):
    """A day as selectors.match_day gives it: tables of (team, member or None) slots."""
    return [
        {
            "round": round_,
            "tables": [
                {
                    "game": None,
                    "slots": [SimpleNamespace(team_id=t, member_id=m) for t, m in slots],
                }
                for slots in tables
            ],
        }
    ]


def test_nobody_named_or_suggested_in_a_round_is_suggested_again():
    # A round where team 1 has two tables (a day set up by hand): 1 is named at the first, and
    # has the fewest games; the second table's slot suggests someone else, and the third
    # table's a third player, not the second's again.
    roster = {1: [SimpleNamespace(pk=k) for k in (1, 2, 3)]}
    games = {1: {"before": 0, "last": 0}, 2: {"before": 5, "last": 3}, 3: {"before": 5, "last": 2}}
    rounds = _fake(9, [[(1, 1), (2, 20)], [(1, None), (2, 21)], [(1, None), (2, 22)]])
    selectors.suggest_players(rounds, roster, games, {})
    first, second, third = (t["slots"][0] for t in rounds[0]["tables"])
    assert first.suggested is None
    assert (second.suggested, second.suggested_by) == (3, lineup.LONGEST_OUT)
    assert (third.suggested, third.suggested_by) == (2, lineup.ONLY_ONE)


def test_a_table_recorded_or_named_suggests_nobody():
    roster = {1: [SimpleNamespace(pk=1)]}
    rounds = _fake(1, [[(1, None)]])
    rounds[0]["tables"][0]["game"] = object()
    selectors.suggest_players(rounds, roster, {}, {})
    assert rounds[0]["tables"][0]["slots"][0].suggested is None


def test_the_suggestion_rules_in_order():
    c = lineup.Candidate
    assert lineup.suggest([]) is None
    assert lineup.suggest([c(1, games=2), c(2, games=1)]) == (2, lineup.FEWEST_GAMES)
    assert lineup.suggest([c(1, 1, met=2), c(2, 1, met=1, last=9)]) == (2, lineup.FEWEST_MEETINGS)
    assert lineup.suggest([c(1, 1, last=5), c(2, 1, last=4, order=3)]) == (2, lineup.LONGEST_OUT)
    assert lineup.suggest([c(1, 1, order=1), c(2, 1, order=0)]) == (2, lineup.ROSTER_ORDER)


@pytest.mark.parametrize("days", [2, 6])
def test_the_day_page_is_a_fixed_number_of_queries(
    club, season, teams, organiser, organiser_client, django_assert_num_queries, days
):
    # `days` match days played before (two games each, everyone rotating), then a day with a
    # table half named: the same queries, whatever the season's length.
    people = [f"赤{i}" for i in range(1, 6)]
    for d in range(days):
        date = D1 + datetime.timedelta(days=7 * d)
        for k, match in enumerate(_day(season, organiser, date, 2)):
            _play(club, organiser, match, people[(2 * d + k) % 5], 1 + k % 2)
    date = D1 + datetime.timedelta(days=7 * days)
    first, _second = _day(season, organiser, date, 2)
    _name(first, organiser, 青="青1", 黄="黄2")
    assert TeamMatch.objects.filter(season=season, game__isnull=False).count() == 2 * days
    url = reverse("teams:team_day", args=[club.slug, season.pk, date])
    with django_assert_num_queries(PAGE_QUERIES):
        assert organiser_client.get(url).status_code == 200


# The session and user, the club with the role, the season, the day's slots, the captaincies, the
# rosters, the substitutes, the team match games, the meetings, the team standings, ...
PAGE_QUERIES = 11
