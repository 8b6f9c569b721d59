"""The player page and the season race: statistics, series and charts checked by hand.

The games (マメの会: 25,000 start, 30,000 return, uma 20-10, top +20 oka, 箱下なし, chombo: the
top gets +20 from the offender; rate 0.3 = 30 yen per 1,000):

    2026-06-07 (before the season)  青木 45,000 / 馬場 30,000 / 千葉 15,000 / 土井 10,000
                                    → 青木 +55.0 (1st)
    2026-08-02 #1  青木 45,000 / 馬場 30,000 / 千葉 15,000 / 土井 10,000
                   → +55.0 / +10.0 / ▲25.0 / ▲40.0
    2026-08-02 #2  馬場 40,000 / 青木 32,000 (chombo) / 土井 18,000 / 千葉 10,000
                   → 馬場 +50.0+20 = +70.0, 青木 +2.0+10−20 = ▲8.0, 土井 ▲22.0, 千葉 ▲40.0
    2026-08-16 #1  青木 60,000 ... voided: counts nowhere
    2026-08-16 #2  recorded with 青木 first, then edited to
                   青木 ▲2,000 / 馬場 45,000 / 千葉 30,000 / 江藤 27,000
                   → 青木 0−30−20 = ▲50.0 (bust, 4th), 千葉 +10.0, 江藤 ▲13.0,
                     馬場 +53.0 (the top pays for 青木's points below zero)

青木 in the season: 3 games, +55.0 ▲8.0 ▲50.0 = ▲3.0; ranks 1, 2, 4; yen 1,650 ▲240 ▲1,500.
"""

from __future__ import annotations

import datetime
import xml.etree.ElementTree as ET
from collections.abc import Sequence

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from league.models import Game, Member, Season
from league.recording import services
from league.standings.views import players
from tests.support.clubs import make_club, make_user

SVG = "{http://www.w3.org/2000/svg}"
DAY1, DAY2 = datetime.date(2026, 8, 2), datetime.date(2026, 8, 16)
BEFORE = datetime.date(2026, 6, 7)
POINTS = (45000, 30000, 15000, 10000)
EVIL = "<script>alert(1)</script>"


def game_input(
    players: Sequence[Member],
    points: Sequence[int] = POINTS,
    date: datetime.date = DAY1,
    chombo: Member | None = None,
    rate: str = "0.3",
) -> services.GameInput:
    seats = [
        services.SeatInput(m, p, 1 if m == chombo else 0)
        for m, p in zip(players, points, strict=True)
    ]
    return services.GameInput(date=date, seats=seats, rate=rate)


def record(club, user, players: Sequence[Member], **options) -> Game:
    return services.game_record(club=club, user=user, data=game_input(players, **options))


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def text(response) -> str:
    return response.content.decode()


def player_url(club, member, season: Season | None = None) -> str:
    url = reverse("standings:player_detail", args=[club.slug, member.pk])
    return f"{url}?season={season.pk}" if season else url


def race_url(club, season) -> str:
    return reverse("standings:season_race", args=[club.slug, season.pk])


def svg_texts(svg: str, css: str) -> list[str]:
    return [t.text for t in ET.fromstring(svg).iter(SVG + "text") if t.get("class") == css]


@pytest.fixture
def season(club) -> Season:
    return Season.objects.create(
        club=club,
        name="2026年 後期",
        start=datetime.date(2026, 7, 1),
        end=datetime.date(2026, 12, 31),
        min_games=5,
    )


@pytest.fixture
def games(club, organiser, members, season) -> list[Game]:
    """The games of the module's docstring."""
    aoki, baba, chiba, doi, eto = members
    played = [
        record(club, organiser, [aoki, baba, chiba, doi], date=BEFORE),
        record(club, organiser, [aoki, baba, chiba, doi]),
        record(
            club,
            organiser,
            [baba, aoki, doi, chiba],
            points=(40000, 32000, 18000, 10000),
            chombo=aoki,
        ),
    ]
    void = record(
        club, organiser, [aoki, baba, chiba, doi], points=(60000, 20000, 15000, 5000), date=DAY2
    )
    services.game_void(game=void, user=organiser, reason="entered twice")
    edited = record(
        club, organiser, [aoki, baba, chiba, eto], points=(45000, 10000, 30000, 15000), date=DAY2
    )
    services.game_edit(
        game=edited,
        user=organiser,
        data=game_input([aoki, baba, chiba, eto], points=(-2000, 45000, 30000, 27000), date=DAY2),
    )
    return [*played, void, edited]


# --- the player page: statistics -------------------------------------------------------------


def test_player_statistics_in_the_season_match_the_hand_computed_values(
    member_client, club, members, season, games
):
    response = english(member_client).get(player_url(club, members[0], season))
    assert response.status_code == 200
    row = response.context["row"]
    assert row["games"] == 3
    assert row["total"] == -30
    assert (row["first"], row["second"], row["third"], row["fourth"]) == (1, 1, 0, 1)
    assert (row["busts"], row["chombo"], row["chips"], row["yen"]) == (1, 1, 0, -90)
    assert row["best"] == 550
    assert row["qualified"] is False  # 3 games of the 5 the season asks for
    shown = {stat.label: stat.text for stat in response.context["stats"]}
    assert shown == {
        "Games": "3",
        "Total": "-3.0",
        "Average": "-1.00",
        "Avg. rank": "2.33",
        "Top two %": "66.7%",
        "Not last %": "66.7%",  # 2 of 3 games not last, rounded half up like every rate
        "Best": "+55.0",
        "Busts": "1",
        "Chombo": "1",
        "Chips": "0",
        "Yen": "-90",
    }
    assert "Below the season's minimum of 5 games" in text(response)


def test_player_statistics_all_time_include_games_before_the_season(
    member_client, club, members, games
):
    response = english(member_client).get(player_url(club, members[0]))
    row = response.context["row"]
    assert (row["games"], row["total"], row["first"]) == (4, 520, 2)
    assert "Below the season" not in text(response)  # all time has no minimum


def test_cumulative_score_adds_up_the_counted_games_in_order(
    member_client, club, members, games, season
):
    response = member_client.get(player_url(club, members[0], season))
    assert response.context["cumulative"] == [(0, 0), (1, 550), (2, 470), (3, -30)]
    chart = response.context["score_chart"]
    assert len(list(ET.fromstring(chart).iter(SVG + "path"))) == 1
    assert svg_texts(chart, "end") == ["▲3.0"]  # the last value, Japanese by default


def test_cumulative_score_of_the_second_player(member_client, club, members, games, season):
    response = member_client.get(player_url(club, members[1], season))
    assert response.context["cumulative"] == [(0, 0), (1, 100), (2, 800), (3, 1330)]


def test_rank_chart_counts_each_rank(member_client, club, members, games, season):
    response = member_client.get(player_url(club, members[0], season))
    chart = response.context["rank_chart"]
    assert len(list(ET.fromstring(chart).iter(SVG + "rect"))) == 4
    assert svg_texts(chart, "value") == ["1 (33.3%)", "1 (33.3%)", "0 (0.0%)", "1 (33.3%)"]


def test_games_are_the_counted_ones_newest_first_and_linked(
    member_client, club, members, games, season
):
    response = member_client.get(player_url(club, members[0], season))
    listed = response.context["games"]
    assert [(r.game_id, r.score, r.rank) for r in listed] == [
        (games[4].pk, -500, 4),
        (games[2].pk, -80, 2),
        (games[1].pk, 550, 1),
    ]
    body = text(response)
    for game in (games[1], games[2], games[4]):
        assert reverse("recording:game_detail", args=[club.slug, game.pk]) in body
    assert (
        reverse("recording:game_detail", args=[club.slug, games[3].pk]) not in body
    )  # the void one
    assert response.context["shown"].yen
    assert not response.context["games_capped"]


def test_games_list_is_capped_with_a_note(member_client, club, members, games, season, monkeypatch):
    monkeypatch.setattr(players, "GAMES_SHOWN", 2)
    response = english(member_client).get(player_url(club, members[0], season))
    assert len(response.context["games"]) == 2
    assert response.context["games_capped"]
    assert "The latest 2 of 3 games." in text(response)


def test_player_page_links_back_to_the_season_standings(member_client, club, members, season):
    response = member_client.get(player_url(club, members[0], season))
    assert reverse("standings:season_standings", args=[club.slug, season.pk]) in text(response)
    assert race_url(club, season) in text(response)
    response = member_client.get(player_url(club, members[0]))
    assert reverse("standings:season_standings", args=[club.slug, season.pk]) not in text(response)


def test_player_without_games_sees_empty_charts(member_client, club, members, season):
    response = english(member_client).get(player_url(club, members[0], season))
    assert response.status_code == 200
    assert response.context["row"] is None
    assert "No counted games in this period." in text(response)
    assert text(response).count("No games yet") == 2


def test_guest_badge_and_kana(member_client, club):
    guest = Member.objects.create(club=club, name="藤井", kana="ふじい", is_guest=True)
    response = english(member_client).get(player_url(club, guest))
    assert "ふじい" in text(response)
    assert '<span class="badge">guest</span>' in text(response)


def test_three_player_club_shows_three_rank_bars(db):
    sanma = make_club("sanma", "pairon-kansai-3p")
    user = make_user("sanma-member", sanma)
    a, b, c = (Member.objects.create(club=sanma, name=n) for n in ("東", "南", "西"))
    record(sanma, user, [a, b, c], points=(50000, 35000, 20000), rate="")
    client = Client()
    client.force_login(user)
    response = client.get(player_url(sanma, a))
    chart = response.context["rank_chart"]
    assert len(list(ET.fromstring(chart).iter(SVG + "rect"))) == 3
    assert svg_texts(chart, "value") == ["1 (100.0%)", "0 (0.0%)", "0 (0.0%)"]


def test_club_without_money_has_no_yen(db):
    kenko = make_club("kenko", "takabari-kenko")
    user = make_user("kenko-member", kenko)
    four = [Member.objects.create(club=kenko, name=n) for n in ("東", "南", "西", "北")]
    record(kenko, user, four, points=(40000, 30000, 20000, 10000), rate="")
    client = english(Client())
    client.force_login(user)
    response = client.get(player_url(kenko, four[0]))
    assert not response.context["shown"].yen
    labels = {stat.label for stat in response.context["stats"]}
    assert "Yen" not in labels and "Chips" not in labels  # 健康麻雀: no rates, no chip kinds
    assert ">Yen<" not in text(response)


def test_names_are_escaped_on_the_player_page(member_client, club, organiser, members):
    evil = Member.objects.create(club=club, name=EVIL, kana="わる")
    record(club, organiser, [evil, *members[1:4]])
    body = text(member_client.get(player_url(club, evil)))
    assert EVIL not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


# --- the player page: who may see it ---------------------------------------------------------


def test_player_page_is_for_the_clubs_users(
    client, member_client, stranger_client, club, members, season
):
    url = player_url(club, members[0], season)
    assert member_client.get(url).status_code == 200
    assert stranger_client.get(url).status_code == 404
    assert client.get(url).status_code == 404  # logged out
    assert member_client.post(url).status_code == 405


def test_player_page_404s_for_another_clubs_member_or_season(
    member_client, club, other_club, members
):
    outsider = Member.objects.create(club=other_club, name="外部")
    other_season = Season.objects.create(
        club=other_club, name="他", start=datetime.date(2026, 1, 1), end=datetime.date(2026, 12, 31)
    )
    assert member_client.get(player_url(club, outsider)).status_code == 404
    assert member_client.get(player_url(club, members[0], other_season)).status_code == 404
    assert member_client.get(player_url(club, members[0]) + "?season=x").status_code == 404
    missing = reverse("standings:player_detail", args=[club.slug, 999_999])
    assert member_client.get(missing).status_code == 404


# --- the player page: queries ----------------------------------------------------------------

# session, user, the club with the role, member, seasons, rules, statistics, series, games, hand
# statistics (league.table: one aggregate; the yaku only for a player with hand games); then
# head-to-head, seats, the rating's latest games and its place (league.standings.views.stats),
# and whether a rating replay is waiting (its notice)
PLAYER_QUERIES = 15


def play(club, user, members: Sequence[Member], count: int, date: datetime.date = DAY1) -> None:
    """`count` games among the first four `members`, their seats turning each game."""
    for i in range(count):
        table = [members[(i + k) % 4] for k in range(4)]
        record(club, user, table, date=date + datetime.timedelta(days=i % 30))


@pytest.mark.parametrize("count", [3, 40])
def test_player_page_queries_do_not_grow_with_games(
    member_client, organiser, club, members, season, count, django_assert_num_queries
):
    play(club, organiser, members, count)
    url = player_url(club, members[0], season)
    with django_assert_num_queries(PLAYER_QUERIES):
        response = member_client.get(url)
    assert response.context["row"]["games"] == count
    with django_assert_num_queries(PLAYER_QUERIES):  # all time: the same
        member_client.get(player_url(club, members[0]))


# --- the season race -------------------------------------------------------------------------


def race_lines(response) -> dict[str, tuple[int, list[int]]]:
    """Each runner's name → (games, cumulative score at the end of each day)."""
    pairs = zip(response.context["legend"], response.context["runners"], strict=True)
    return {member.name: (runner.games, runner.line) for (member, _t, _s), runner in pairs}


def test_race_shows_qualifying_players_by_day(member_client, club, season, games):
    season.min_games = 2
    season.save()
    response = member_client.get(race_url(club, season))
    assert response.status_code == 200
    legend = [(member.name, total) for member, total, _swatch in response.context["legend"]]
    assert legend == [("馬場", 1330), ("青木", -30), ("千葉", -550), ("土井", -620)]  # not 江藤
    assert race_lines(response) == {
        "馬場": (3, [800, 1330]),
        "青木": (3, [470, -30]),
        "千葉": (3, [-650, -550]),
        "土井": (2, [-620, -620]),  # did not play on the second day: the line stays level
    }
    assert not response.context["everyone"]
    chart = ET.fromstring(response.context["chart"])
    assert [p.find(SVG + "title").text for p in chart.iter(SVG + "path")] == [
        "馬場",
        "青木",
        "千葉",
        "土井",
    ]
    for name in ("馬場", "青木", "千葉", "土井"):
        assert f"?season={season.pk}" in text(response)
        assert name in text(response)


def test_race_shows_everyone_with_a_note_when_nobody_qualifies(member_client, club, season, games):
    season.min_games = 10
    season.save()
    response = english(member_client).get(race_url(club, season))
    assert response.context["everyone"]
    assert len(response.context["legend"]) == 5
    assert "Nobody has played 10 games yet: everyone is shown." in text(response)


def test_race_of_an_empty_season(member_client, club, season):
    response = english(member_client).get(race_url(club, season))
    assert response.status_code == 200
    assert response.context["legend"] == []
    assert "No games yet" in text(response)
    assert "Nobody has played" not in text(response)


def test_race_escapes_names(member_client, club, organiser, members, season):
    season.min_games = 0
    season.save()
    evil = Member.objects.create(club=club, name=EVIL, kana="わる")
    record(club, organiser, [evil, *members[1:4]])
    body = text(member_client.get(race_url(club, season)))
    assert EVIL not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_race_is_for_the_clubs_users(
    client, member_client, stranger_client, club, other_club, season
):
    url = race_url(club, season)
    assert member_client.get(url).status_code == 200
    assert stranger_client.get(url).status_code == 404
    assert client.get(url).status_code == 404
    assert member_client.post(url).status_code == 405
    other_season = Season.objects.create(
        club=other_club, name="他", start=datetime.date(2026, 1, 1), end=datetime.date(2026, 12, 31)
    )
    assert member_client.get(race_url(club, other_season)).status_code == 404


# session, user, the club with the role, season, the (member, date) sums, the members' names
# The club with the role, the season, whether a team league or event keeps games apart from it
# (league.standings.competitions), the daily rows, the members; and the session.
RACE_QUERIES = 7


@pytest.mark.parametrize("count", [4, 20])
def test_race_queries_do_not_grow_with_players(
    member_client, organiser, club, season, count, django_assert_num_queries
):
    season.min_games = 1
    season.save()
    field = [
        Member.objects.create(club=club, name=f"選手{i:02d}", kana=f"{i:02d}") for i in range(count)
    ]
    for first in range(0, count, 4):
        play(
            club, organiser, field[first : first + 4], 3, date=DAY1 + datetime.timedelta(days=first)
        )
    with django_assert_num_queries(RACE_QUERIES):
        response = member_client.get(race_url(club, season))
    assert len(response.context["legend"]) == count
    assert len(list(ET.fromstring(response.context["chart"]).iter(SVG + "path"))) == count
