"""Teams in a season and adjustments outside any game (league.teams): team standings as the sum
of the members' kept season totals plus adjustments, worked by hand; one team per member per
season; adjustments audited, immutable, undone by a reversal; the page's constant queries."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from league.core.errors import ServiceError
from league.models import Adjustment, AuditLog, Member, Season, Team, TeamMember
from league.teams import selectors, services
from league.teams.forms import parse_points
from tests.support.games import record_game

D = datetime.date(2026, 10, 10)


def _play(club, *seats, rate="0.3"):
    members, points = [m for m, _ in seats], [p for _, p in seats]
    return record_game(club, None, members, points, date=D, rate=rate)


def _team(season, user, name, members, captains=(), colour="#c53030"):
    data = services.TeamInput(
        name=name, short_name=name[:2], colour=colour, members=members, captains=list(captains)
    )
    return services.team_create(season=season, user=user, data=data)


@pytest.fixture
def season(club):
    return Season.objects.create(
        club=club, name="2026秋", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )


@pytest.fixture
def league(club, members, organiser, season):
    a, b, c, d, e = members  # 青木 馬場 千葉 土井 江藤
    # mame-no-kai, worked in test_standings: 江藤 +55.0, 千葉 +8.0, 土井 ▲18.0, 青木 ▲45.0;
    # all at 25,000 in seat order: 千葉 +35.0, 江藤 +5.0, 馬場 ▲15.0, 土井 ▲25.0.
    _play(club, (e, 45000), (c, 28000), (d, 22000), (a, 5000))
    _play(club, (c, 25000), (e, 25000), (b, 25000), (d, 25000), rate="0.2")
    red = _team(season, organiser, "赤組", [a, c], captains=[c])
    blue = _team(season, organiser, "青組", [d, e], colour="#2b6cb0")
    return red, blue


def _totals(season):
    return {
        r["name"]: (r["games"], r["scores"], r["adjust"], r["total"], r["position"])
        for r in selectors.team_standings(season=season)
    }


def test_team_standings_are_the_members_season_totals(league, season):
    # 赤組: 千葉 +8.0 +35.0, 青木 ▲45.0 = ▲2.0; 青組: 江藤 +55.0 +5.0, 土井 ▲18.0 ▲25.0 = +17.0.
    assert _totals(season) == {"青組": (4, 170, 0, 170, 1), "赤組": (3, -20, 0, -20, 2)}
    rosters = selectors.team_rosters(season=season)
    red = [(r["name"], r["is_captain"], r["total"]) for r in rosters[league[0].pk]]
    assert red == [("千葉", True, 430), ("青木", False, -450)]


def test_a_later_game_moves_the_team_standings(club, members, league, season):
    a, b, _c, d, e = members
    _play(club, (a, 40000), (b, 30000), (d, 20000), (e, 10000))
    rows = selectors.team_rosters(season=season)
    expected = sum(r["total"] for r in rows[league[0].pk])
    assert _totals(season)["赤組"][3] == expected
    assert expected > -20  # 青木 won: the team went up


def test_a_member_is_on_one_team_per_season(league, members, organiser, season):
    a, b, *_ = members
    with pytest.raises(ServiceError) as e:
        _team(season, organiser, "緑組", [a, b])
    assert "members" in e.value.errors and "青木" in e.value.errors["members"][0]
    assert not Team.objects.filter(name="緑組").exists()
    # Another season is another matter.
    other = Season.objects.create(
        club=season.club,
        name="2027",
        start=datetime.date(2027, 1, 1),
        end=datetime.date(2027, 12, 31),
    )
    assert _team(other, organiser, "緑組", [a, b]).roster.count() == 2


def test_editing_a_roster_keeps_the_old_rows_and_audits(league, members, organiser, season):
    red, _blue = league
    a, b, c, *_ = members
    data = services.TeamInput("赤組", "赤", "#c53030", [a, b, c], [a])
    services.team_edit(team=red, user=organiser, data=data)
    rows = TeamMember.objects.filter(team=red)
    assert rows.filter(removed_at__isnull=True).count() == 3
    assert rows.filter(removed_at__isnull=False).count() == 2  # 青木 and 千葉's captaincy moved
    entry = AuditLog.objects.filter(action="team.edit").get()
    assert entry.before["captains"] == [c.pk] and entry.after["captains"] == [a.pk]
    # 馬場's ▲15.0 now counts for 赤組.
    assert _totals(season)["赤組"][1] == -20 - 150


def test_bad_team_input_names_the_field_and_stores_nothing(season, members, organiser):
    bad = services.TeamInput(" ", "", "red", [members[0]], [members[1]])
    with pytest.raises(ServiceError) as e:
        services.team_create(season=season, user=organiser, data=bad)
    assert set(e.value.errors) == {"name", "short_name", "colour", "captains"}
    assert not Team.objects.exists()


def test_adjustments_count_and_are_undone_by_a_reversal(league, members, organiser, season):
    a, *_ = members
    red, blue = league
    penalty = services.adjustment_book(
        season=season,
        user=organiser,
        member=a,
        kind=Adjustment.CHOMBO,
        points=-200,
        reason="チョンボ",
        rate="0.3",
    )
    assert penalty.yen == -600  # 30 yen per 1,000 points
    services.adjustment_book(
        season=season,
        user=organiser,
        team=blue,
        kind=Adjustment.BONUS,
        points=100,
        reason="フェアプレー賞",
    )
    assert _totals(season) == {"青組": (4, 170, 100, 270, 1), "赤組": (3, -20, -200, -220, 2)}
    roster = {r["name"]: r["total"] for r in selectors.team_rosters(season=season)[red.pk]}
    assert roster["青木"] == -450 - 200
    reversal = services.adjustment_reverse(entry=penalty, user=organiser)
    assert (reversal.points, reversal.yen, reversal.reverses_id) == (200, 600, penalty.pk)
    assert _totals(season)["赤組"] == (3, -20, 0, -20, 2)
    with pytest.raises(ServiceError):
        services.adjustment_reverse(entry=penalty, user=organiser)
    with pytest.raises(ServiceError):
        services.adjustment_reverse(entry=reversal, user=organiser)
    actions = list(
        AuditLog.objects.filter(action__startswith="adjustment.").values_list("action", flat=True)
    )
    assert actions == ["adjustment.create", "adjustment.create", "adjustment.reverse"]
    with pytest.raises(PermissionError):
        penalty.save()
    with pytest.raises(PermissionError):
        Adjustment.objects.all().delete()


def test_bad_adjustments_name_the_field(league, members, organiser, season, other_club):
    stranger = Member.objects.create(club=other_club, name="他人")
    cases = [
        ({"member": members[0], "kind": "penalty", "points": 50}, "points"),
        ({"member": members[0], "kind": "bonus", "points": -50}, "points"),
        ({"member": members[0], "kind": "penalty", "points": 0}, "points"),
        ({"member": stranger, "kind": "penalty", "points": -50}, "target"),
        ({"kind": "penalty", "points": -50}, "target"),
        ({"member": members[0], "kind": "penalty", "points": -50, "rate": "9.9"}, "rate"),
        ({"member": members[0], "kind": "oops", "points": -50}, "kind"),
    ]
    for kwargs, field in cases:
        with pytest.raises(ServiceError) as e:
            services.adjustment_book(season=season, user=organiser, reason="x", **kwargs)
        assert field in e.value.errors, kwargs
    assert not Adjustment.objects.exists()


@pytest.mark.parametrize(
    ("text", "tenths"),
    [
        ("▲20", -200),
        ("-20.0", -200),
        ("＋５．５", 55),
        ("1,000.5", 10005),
        ("△0.5", -5),
        ("−3", -30),
    ],
)
def test_points_as_typed(text, tenths):
    assert parse_points(text) == tenths


@pytest.mark.parametrize("text", ["", "abc", "1.25", "1.", "▲", "1.a"])
def test_points_that_are_not(text):
    with pytest.raises(ValueError):
        parse_points(text)


def test_the_teams_page_and_forms(league, members, organiser_client, member_client, season):
    url = reverse("teams:season_teams", args=[season.club.slug, season.pk])
    page = member_client.get(url).content.decode()
    assert "赤組" in page and "青組" in page and "キャプテン" in page
    assert reverse("teams:team_new", args=[season.club.slug, season.pk]) not in page
    assert (
        member_client.get(reverse("teams:team_new", args=[season.club.slug, season.pk])).status_code
        == 403
    )
    new = reverse("teams:adjustment_new", args=[season.club.slug, season.pk])
    response = organiser_client.post(
        new, {"target": f"m{members[1].pk}", "kind": "penalty", "points": "二十", "reason": "遅刻"}
    )
    assert response.status_code == 200 and "小数" in response.content.decode()
    response = organiser_client.post(
        new,
        {
            "target": f"m{members[1].pk}",
            "kind": "penalty",
            "points": "▲１０",
            "rate": "0.3",
            "reason": "遅刻",
        },
    )
    assert response.status_code == 302
    entry = Adjustment.objects.get()
    assert (entry.points, entry.yen, entry.member_id) == (-100, -300, members[1].pk)
    page = organiser_client.get(url).content.decode()
    assert "遅刻" in page and "▲10.0" in page
    undo = reverse("teams:adjustment_undo", args=[season.club.slug, season.pk, entry.pk])
    assert organiser_client.post(undo).status_code == 302
    assert Adjustment.objects.filter(reverses=entry).exists()
    form = organiser_client.post(
        reverse("teams:team_new", args=[season.club.slug, season.pk]),
        {
            "name": "緑組",
            "short_name": "緑",
            "colour": "#38a169",
            "members": [members[0].pk, members[1].pk],
        },
    )
    assert form.status_code == 200 and "青木" in form.content.decode()  # already on 赤組


def test_the_teams_page_is_isolated(league, season, stranger_client):
    url = reverse("teams:season_teams", args=[season.club.slug, season.pk])
    assert stranger_client.get(url).status_code == 404


def test_the_teams_page_queries_do_not_grow(
    club, season, organiser, member_client, django_assert_num_queries
):
    url = reverse("teams:season_teams", args=[club.slug, season.pk])
    people = [Member.objects.create(club=club, name=f"選手{i}") for i in range(24)]

    def count() -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as captured:
            assert member_client.get(url).status_code == 200
        return len(captured)

    _team(season, organiser, "一", people[:4])
    for a, b, c, d in [people[0:4], people[4:8]]:
        _play(club, (a, 40000), (b, 30000), (c, 20000), (d, 10000))
    few = count()
    for i in range(1, 6):
        _team(season, organiser, f"チーム{i}", people[4 * i : 4 * i + 4])
        services.adjustment_book(
            season=season,
            user=organiser,
            member=people[4 * i],
            kind="penalty",
            points=-10,
            reason="x",
        )
    for i in range(5):
        _play(club, *[(p, 25000) for p in people[4 * i : 4 * i + 4]])
    assert count() == few
    with django_assert_num_queries(few):
        member_client.get(url)


# --- the season page, the share link and the workbook ------------------------------------------


def test_the_season_page_shows_team_standings_for_one_more_query(
    club, members, season, organiser, member_client
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    url = reverse("standings:season_standings", args=[club.slug, season.pk])
    a, b, c, d, e = members
    _play(club, (e, 45000), (c, 28000), (d, 22000), (a, 5000))

    def queries() -> tuple[int, str]:
        with CaptureQueriesContext(connection) as captured:
            response = member_client.get(url)
        return len(captured), response.content.decode()

    without, page = queries()
    assert "チーム成績" not in page
    _team(season, organiser, "赤組", [a, c])
    _team(season, organiser, "青組", [d, e])
    with_two, page = queries()
    assert with_two == without + 1
    assert "チーム成績" in page and page.index("青組") < page.index("赤組")
    assert "+37.0" in page  # 青組: 江藤 +55.0, 土井 ▲18.0
    for i in range(4):
        _team(season, organiser, f"組{i}", [Member.objects.create(club=club, name=f"追加{i}")])
        _play(club, (a, 40000), (b, 30000), (c, 20000), (d, 10000))
    assert queries()[0] == with_two


def test_the_share_link_and_the_workbook_show_team_standings(
    club, members, season, organiser, organiser_client, member_client
):
    import io

    from openpyxl import load_workbook

    a, _b, c, d, e = members
    _play(club, (e, 45000), (c, 28000), (d, 22000), (a, 5000))
    _team(season, organiser, "赤組", [a, c], captains=[c])
    _team(season, organiser, "青組", [d, e])
    services.adjustment_book(
        season=season, user=organiser, member=a, kind="chombo", points=-200, reason="南2局の誤ロン"
    )
    # 赤組 千葉 +8.0 青木 ▲45.0 ▲20.0 = ▲57.0; 青組 江藤 +55.0 土井 ▲18.0 = +37.0.
    organiser_client.post(reverse("public:share_settings", args=[club.slug]), {"action": "enable"})
    club.refresh_from_db()
    assert club.share_token
    page = member_client.get(reverse("public:public_season", args=[club.share_token, season.pk]))
    html = page.content.decode()
    assert "チーム成績" in html and "+37.0" in html and "▲57.0" in html
    assert "誤ロン" not in html  # the reasons stay inside the club
    response = member_client.get(
        reverse("excel:export_standings", args=[club.slug]), {"season": season.pk}
    )
    book = load_workbook(io.BytesIO(b"".join(response.streaming_content)))
    assert [ws.title for ws in book.worksheets][:2] == ["成績表", "チーム成績"]  # then 統計
    rows = [list(r) for r in book.worksheets[1].iter_rows(values_only=True)]
    assert rows[1][:2] == [1, "青組"] and float(rows[1][5]) == 37.0
    assert rows[2][:2] == [2, "赤組"] and float(rows[2][4]) == -20.0 and float(rows[2][5]) == -57.0
    flat = [v for r in rows for v in r if v is not None]
    assert "キャプテン" in flat and "千葉" in flat


def test_a_new_team_starts_with_a_colour_no_team_of_the_season_has(
    organiser_client, season, members, organiser
):
    """Every new team started blue (#2b6cb0): two teams' squares looked the same."""
    new = reverse("teams:team_new", args=[season.club.slug, season.pk])
    first = organiser_client.get(new).context["form"]["colour"].value()
    _team(season, organiser, "青組", [members[0]], colour=first)
    second = organiser_client.get(new).context["form"]["colour"].value()
    _team(season, organiser, "赤組", [members[1]], colour=second)
    third = organiser_client.get(new).context["form"]["colour"].value()
    assert len({first, second, third}) == 3
