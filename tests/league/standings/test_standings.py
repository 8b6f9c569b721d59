"""The standings pages: every statistic against a season settled by hand, database sorting,
pagination, the filter, the all-time view with each season's leader, query counts and access.

The main season is マメの会's October 2026 (mame-no-kai: 25,000 / 30,000, no rounding, uma 10-20,
deposits to the house, 箱下なし, chombo ±20/±30, chips, rate 0.3 = 30 yen per 1,000 and 90 yen a
chip). Each game below is settled by hand in its comment; scores are in tenths.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django_tables2.data import TableListData, TableQuerysetData

from league.core.format import average, hundredths, percent
from league.models import Club, Game, Member, Result, Season
from league.recording import services
from league.rules import services as rules_services
from league.standings import stats
from league.standings.tables import StandingsData
from league.standings.views import standings as standings_views
from tests.support.clubs import make_club, make_user
from tests.support.seasons import make_season

A, B, C, D, E = "青木", "馬場", "千葉", "土井", "江藤"
G = "山田"  # a guest
START, END = datetime.date(2026, 10, 1), datetime.date(2026, 10, 31)
MIN_GAMES = 4

STATS = (
    "games",
    "total",
    "average",
    "avg_rank",
    "first",
    "second",
    "third",
    "fourth",
    "first_rate",
    "second_rate",
    "third_rate",
    "fourth_rate",
    "top_two_rate",
    "avoid_last_rate",
    "best",
    "busts",
    "chombo",
    "chips",
    "yen",
)

# Worked by hand from the games of `season` below (averages and rates truncated):
#        games total  avg  rank  1 2 3 4  1st%  2nd%  3rd%  4th%  top2  !last best bust ch chips yen
EXPECTED: dict[str, tuple[int, ...]] = {
    E: (4, 800, 2000, 200, 2, 1, 0, 1, 5000, 2500, 0, 2500, 7500, 7500, 550, 0, 0, 3, 2620),
    A: (5, 150, 300, 240, 2, 0, 2, 1, 4000, 0, 4000, 2000, 4000, 8000, 790, 0, 1, 0, 450),
    C: (6, 65, 108, 233, 1, 3, 1, 1, 1666, 5000, 1666, 1666, 6666, 8333, 350, 0, 0, -1, -245),
    B: (5, -90, -180, 260, 1, 2, 0, 2, 2000, 4000, 0, 4000, 6000, 6000, 400, 0, 1, -1, -110),
    D: (5, -550, -1100, 280, 1, 0, 3, 1, 2000, 0, 6000, 2000, 2000, 8000, 430, 1, 0, -1, -1740),
    G: (3, -385, -1283, 300, 0, 1, 1, 1, 0, 3333, 3333, 3333, 3333, 6666, 115, 0, 0, 0, -1005),
}
# Qualified (4 games or more) by total, then the guest alone below, position 1 of its group.
ORDER = [E, A, C, B, D, G]
POSITIONS = [1, 2, 3, 4, 5, 1]
KANA = {A: "あおき", B: "ばば", C: "ちば", D: "どい", E: "えとう", G: "やまだ"}


# --- helpers ---------------------------------------------------------------------------------


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def seats(people: dict[str, Member], *spec: tuple[str, int] | tuple[str, int, int]):
    return [services.SeatInput(people[s[0]], s[1], s[2] if len(s) > 2 else 0) for s in spec]


def play(club: Club, date: datetime.date, seat_inputs, **options: Any) -> Game:
    options.setdefault("rate", "0.3" if club.slug == "mame" else "")
    data = services.GameInput(date=date, seats=seat_inputs, **options)
    return services.game_record(club=club, user=None, data=data)


def season_url(club: Club, season: Season, query: str = "") -> str:
    return reverse("standings:season_standings", args=[club.slug, season.pk]) + query


def standings_url(club: Club, query: str = "") -> str:
    return reverse("standings:standings", args=[club.slug]) + query


def records(response) -> list[dict[str, Any]]:
    return [row.record for row in response.context["table"].paginated_rows]


def stats_of(record: dict[str, Any]) -> tuple[int, ...]:
    return tuple(record[key] for key in STATS)


def row_html(response, name: str) -> str:
    rows = re.findall(r"<tr[ >].*?</tr>", response.content.decode(), re.S)
    (row,) = [r for r in rows if f">{name}</a>" in r]
    return row


def cells(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[dh][ >].*?</t[dh]>", html)]


def headers(response) -> list[str]:
    head = response.content.decode().split("<thead>")[1].split("</thead>")[0]
    return cells(head)


@dataclass
class World:
    club: Club
    season: Season
    people: dict[str, Member]
    edited: Game
    voided: Game


@pytest.fixture
def world(club, members, organiser) -> World:
    people = {m.name: m for m in members}
    people[G] = Member.objects.create(club=club, name=G, kana=KANA[G], is_guest=True)
    season = make_season(club=club, name="2026年10月", start=START, end=END, min_games=MIN_GAMES)
    d = datetime.date
    # 1: 青木 tops with 1,000 deposits to the house (T = -1.0); 馬場 chombo pays the top 20;
    #    土井 below zero settles as 0 (箱下なし) but busts. 青木 ippatsu tsumo: +3, -1 each.
    #    馬場 31.0-30+10-20 = ▲9.0, 千葉 19.0-30-10 = ▲21.0, 土井 0-30-20 = ▲50.0,
    #    青木 -1.0+9.0+21.0+50.0 = +79.0 → yen ×30 + chips ×90: 2,640 / ▲360 / ▲720 / ▲1,590.
    play(
        club,
        d(2026, 10, 3),
        seats(people, (A, 52000), (B, 31000, 1), (C, 19000), (D, -3000)),
        deposits=1000,
        chips=[services.ChipInput("ippatsu", people[A])],
    )
    # 2: a seat tie for first (馬場 sits before 千葉) and for third (青木 before 江藤).
    #    千葉 +10.0, 青木 ▲20.0, 江藤 ▲30.0, 馬場 +40.0; 江藤 ippatsu ron from 青木: +3 / -3.
    #    yen 1,200 / 300 / ▲870 / ▲630.
    play(
        club,
        d(2026, 10, 3),
        seats(people, (B, 30000), (C, 30000), (A, 20000), (E, 20000)),
        chips=[services.ChipInput("ippatsu", people[E], people[A])],
    )
    # 3: the top 青木 has a chombo: pays 30, 10 to each other player. 山田 is a guest.
    #    馬場 +15.0, 土井 ▲20.0, 山田 ▲45.0, 青木 +50.0; after chombo +20.0 / +25.0 / ▲10.0 / ▲35.0.
    play(
        club,
        d(2026, 10, 10),
        seats(people, (A, 40000, 1), (B, 35000), (D, 20000), (G, 5000)),
    )
    # 4: 千葉 +8.0, 土井 ▲18.0, 青木 ▲45.0, 江藤 +55.0.
    play(club, d(2026, 10, 10), seats(people, (E, 45000), (C, 28000), (D, 22000), (A, 5000)))
    # 5: recorded wrongly, then edited: only the edit counts.
    #    江藤 +50.0, 千葉 +10.0, 土井 ▲20.0, 馬場 ▲40.0.
    edited = play(
        club, d(2026, 10, 17), seats(people, (B, 40000), (C, 30000), (D, 20000), (E, 10000))
    )
    services.game_edit(
        game=edited,
        user=organiser,
        data=services.GameInput(
            date=d(2026, 10, 17),
            seats=seats(people, (B, 10000), (C, 30000), (D, 20000), (E, 40000)),
            rate="0.3",
        ),
    )
    # 6: voided: counts nowhere.
    voided = play(
        club, d(2026, 10, 17), seats(people, (A, 70000), (B, 10000), (C, 10000), (D, 10000))
    )
    services.game_void(game=voided, user=organiser, reason="entered twice")
    # 7: at rate 0.2 (20 yen per 1,000); all four tied at 25,000: ranks by seat.
    #    江藤 +5.0, 山田 ▲15.0, 馬場 ▲25.0, 千葉 +35.0; yen 700 / 100 / ▲300 / ▲500.
    play(
        club,
        d(2026, 10, 24),
        seats(people, (C, 25000), (E, 25000), (G, 25000), (B, 25000)),
        rate="0.2",
    )
    # 8: 山田 31.5-30+10 = +11.5, 青木 ▲19.0, 千葉 14.5-30-20 = ▲35.5, 土井 +43.0.
    play(club, d(2026, 10, 24), seats(people, (D, 33000), (G, 31500), (A, 21000), (C, 14500)))
    # After the season: counts all time, not in October. 青木 +35.0, 馬場 +5.0, ...
    play(club, d(2026, 11, 5), seats(people, (A, 25000), (B, 25000), (C, 25000), (D, 25000)))
    return World(club, season, people, edited, voided)


# --- the settlement of the games, as worked above ----------------------------------------------


def test_the_games_settle_as_worked_by_hand(world):
    def settled(date: datetime.date) -> list[tuple[str, int, int, int, int | None]]:
        rows = Result.objects.filter(club=world.club, date=date, counted=True)
        return [
            (r.member.name, r.rank, r.score, r.chips, r.yen)
            for r in rows.select_related("member").order_by("game__number", "seat")
        ]

    assert settled(datetime.date(2026, 10, 3)) == [
        (A, 1, 790, 3, 2640),
        (B, 2, -90, -1, -360),
        (C, 3, -210, -1, -720),
        (D, 4, -500, -1, -1590),
        (B, 1, 400, 0, 1200),
        (C, 2, 100, 0, 300),
        (A, 3, -200, -3, -870),
        (E, 4, -300, 3, -630),
    ]
    assert settled(datetime.date(2026, 10, 17)) == [
        (B, 4, -400, 0, -1200),
        (C, 2, 100, 0, 300),
        (D, 3, -200, 0, -600),
        (E, 1, 500, 0, 1500),
    ]
    assert settled(datetime.date(2026, 10, 24)) == [
        (C, 1, 350, 0, 700),
        (E, 2, 50, 0, 100),
        (G, 3, -150, 0, -300),
        (B, 4, -250, 0, -500),
        (D, 1, 430, 0, 1290),
        (G, 2, 115, 0, 345),
        (A, 3, -190, 0, -570),
        (C, 4, -355, 0, -1065),
    ]


# --- every statistic ---------------------------------------------------------------------------


def _without_avoid_last(values: tuple[int, ...]) -> tuple[int, ...]:
    skip = STATS.index("avoid_last_rate")
    return values[:skip] + values[skip + 1 :]


def test_season_page_has_every_statistic_worked_by_hand(member_client, world):
    response = member_client.get(season_url(world.club, world.season))
    assert response.status_code == 200
    rows = records(response)
    assert [r["name"] for r in rows] == ORDER
    assert [r["position"] for r in rows] == POSITIONS
    assert [r["qualified"] for r in rows] == [True] * 5 + [False]
    assert [r["is_guest"] for r in rows] == [False] * 5 + [True]
    for row in rows:
        assert _without_avoid_last(stats_of(row)) == _without_avoid_last(EXPECTED[row["name"]]), (
            row["name"]
        )


def test_avoid_last_rate_is_truncated_like_the_other_rates(world):
    # 千葉 avoided last in 5 of 6 games: 83.33%, and 山田 in 2 of 3: 66.66%, truncated like
    # every other rate. The exact rates (青木 4 of 5: 80.00%) hold either way.
    rows = stats.standings(club=world.club, start=START, end=END, min_games=MIN_GAMES)
    got = {r["name"]: r["avoid_last_rate"] for r in rows}
    assert got[A] == 8000 and got[B] == 6000 and got[D] == 8000 and got[E] == 7500
    assert got == {
        name: values[STATS.index("avoid_last_rate")] for name, values in EXPECTED.items()
    }


def test_season_page_shows_the_numbers_formatted(member_client, world):
    response = english(member_client).get(season_url(world.club, world.season))
    text = response.content.decode()
    assert headers(response) == [
        "#",
        "Player",
        "Games",
        "Total",
        "Average",
        "Avg. rank",
        "1st %",
        "2nd %",
        "3rd %",
        "4th %",
        "Top two %",
        "Not last %",
        "1st",
        "2nd",
        "3rd",
        "4th",
        "Best",
        "Busts",
        "Chombo",
        "Chips",
        "Yen",
    ]
    row = cells(row_html(response, C))
    assert row[:11] + row[12:] == [
        "3",
        C,
        "6",
        "+6.5",
        "+1.08",
        "2.33",
        "16.7%",
        "50.0%",
        "16.7%",
        "16.7%",
        "66.7%",
        "1",
        "3",
        "1",
        "1",
        "+35.0",
        "0",
        "0",
        "-1",
        "-245",
    ]
    assert row[11] == "83.3%"  # ラス回避率, rounded half up like the other rates
    # Unqualified players get no position: a second "1" would read as first place.
    assert cells(row_html(response, G))[:6] == ["–", f"{G} guest", "3", "-38.5", "-12.83", "3.00"]
    assert 'class="unqualified' in row_html(response, G)
    assert "Not qualified: at least 4 games needed" in text
    assert text.index(f">{D}</a>") < text.index("Not qualified") < text.index(f">{G}</a>")
    assert "minus" in row_html(response, D) and "plus" in row_html(response, E)


def test_season_page_in_japanese_writes_minus_as_triangle(member_client, world):
    response = member_client.get(season_url(world.club, world.season))
    assert cells(row_html(response, D))[3:5] == ["▲55.0", "▲11.00"]
    assert cells(row_html(response, E))[3:5] == ["+80.0", "+20.00"]


def test_player_names_link_to_the_player_page_of_the_season(member_client, world):
    response = member_client.get(season_url(world.club, world.season))
    url = reverse("standings:player_detail", args=[world.club.slug, world.people[A].pk])
    assert f'href="{url}?season={world.season.pk}"' in response.content.decode()
    race = reverse("standings:season_race", args=[world.club.slug, world.season.pk])
    assert f'href="{race}"' in response.content.decode()


def test_voided_and_replaced_rows_count_nowhere(world):
    rows = Result.objects.filter(game__in=[world.edited, world.voided])
    assert rows.count() == 12 and rows.filter(counted=True).count() == 4
    totals = {r["name"]: r["total"] for r in stats.standings(club=world.club, start=START, end=END)}
    assert totals == {name: values[1] for name, values in EXPECTED.items()}


def test_rate_filter_on_the_season_page(member_client, world):
    response = member_client.get(season_url(world.club, world.season, "?rate=0.2"))
    rows = records(response)
    # Game 7 alone: one game each, nobody has the season's 4 games; positions by total.
    assert [(r["name"], r["position"], r["qualified"]) for r in rows] == [
        (C, 1, False),
        (E, 2, False),
        (G, 3, False),
        (B, 4, False),
    ]
    assert [r["yen"] for r in rows] == [700, 100, -300, -500]
    bad = member_client.get(season_url(world.club, world.season, "?rate=9.9"))
    assert bad.status_code == 200 and bad.context["table"] is None
    assert bad.context["filter"].form.errors.keys() == {"rate"}


def test_everyone_qualifies_without_a_minimum(member_client, world):
    world.season.min_games = 0
    world.season.save()
    response = member_client.get(season_url(world.club, world.season))
    rows = records(response)
    assert [r["name"] for r in rows] == [E, A, C, B, G, D]
    assert [r["position"] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert "Not qualified" not in response.content.decode()


# --- ties, 3 players, no money -----------------------------------------------------------------


def test_seat_ties_then_split_ties_after_a_rules_change(member_client, other_club, stranger):
    """金曜会: seat ties and 五捨六入, then from April split ties without rounding."""
    names = {"一郎": "いちろう", "二郎": "じろう", "三郎": "さぶろう", "四郎": "しろう"}
    people = {n: Member.objects.create(club=other_club, name=n, kana=k) for n, k in names.items()}
    # Seat tie for first: 一郎 before 二郎. 二郎 30-30+5 = +5.0; 三郎 24,600 → 25: 25-30-5 = ▲10.0;
    # 四郎 15,400 → 15: 15-30-10 = ▲25.0; 一郎 +30.0.
    play(
        other_club,
        datetime.date(2026, 3, 1),
        seats(people, ("一郎", 30000), ("二郎", 30000), ("三郎", 24600), ("四郎", 15400)),
    )
    rules_services.rules_version_create(
        club=other_club,
        user=None,
        effective_from=datetime.date(2026, 4, 1),
        rules_json={"preset": "kinyokai-2015", "ties": "split", "rounding": "none"},
    )
    # Tie for third: both rank 3, both last, sharing uma -5 and -10: 15-30-7.5 = ▲22.5 each.
    # 二郎 30-30+5 = +5.0, 一郎 +40.0.
    play(
        other_club,
        datetime.date(2026, 4, 5),
        seats(people, ("一郎", 40000), ("二郎", 30000), ("三郎", 15000), ("四郎", 15000)),
    )
    last = Result.objects.filter(club=other_club, date=datetime.date(2026, 4, 5))
    assert sorted(last.values_list("rank", "last")) == [
        (1, False),
        (2, False),
        (3, True),
        (3, True),
    ]

    client = english(Client())
    client.force_login(stranger)
    response = client.get(standings_url(other_club))
    got = {r["name"]: stats_of(r) for r in records(response)}
    assert {n: _without_avoid_last(v) for n, v in got.items()} == {
        n: _without_avoid_last(v)
        for n, v in {
            "一郎": (2, 700, 3500, 100, 2, 0, 0, 0, 10000, 0, 0, 0, 10000, 10000, 400, 0, 0, 0, 0),
            "二郎": (2, 100, 500, 200, 0, 2, 0, 0, 0, 10000, 0, 0, 10000, 10000, 50, 0, 0, 0, 0),
            "三郎": (2, -325, -1625, 300, 0, 0, 2, 0, 0, 0, 10000, 0, 0, 5000, -100, 0, 0, 0, 0),
            "四郎": (2, -475, -2375, 350, 0, 0, 1, 1, 0, 0, 5000, 5000, 0, 0, -225, 0, 0, 0, 0),
        }.items()
    }
    assert {n: v[STATS.index("avoid_last_rate")] for n, v in got.items()} == {
        "一郎": 10000,
        "二郎": 10000,
        "三郎": 5000,
        "四郎": 0,
    }
    # No chip kinds and no money in either version: no chips or yen columns.
    assert "Chips" not in headers(response) and "Yen" not in headers(response)
    assert "4th" in headers(response)


def test_three_player_club_has_no_fourth_columns(db):
    club = make_club("sanma", "pairon-kansai-3p", "三麻")
    people = {n: Member.objects.create(club=club, name=n, kana=n) for n in ("X", "Y", "Z")}
    # 35,000 / 40,000, uma +20 / 0 / -20: Y 35-40 = ▲5.0, Z 20-40-20 = ▲40.0, X +45.0.
    play(club, datetime.date(2026, 5, 1), seats(people, ("X", 50000), ("Y", 35000), ("Z", 20000)))
    # Z 40-40 = 0.0, X 20-40-20 = ▲40.0, Y +40.0.
    play(club, datetime.date(2026, 5, 2), seats(people, ("Y", 45000), ("Z", 40000), ("X", 20000)))
    client = english(Client())
    client.force_login(make_user("sanma-member", club))
    response = client.get(standings_url(club))
    got = {r["name"]: stats_of(r) for r in records(response)}
    assert got == {
        "Y": (2, 350, 1750, 150, 1, 1, 0, 0, 5000, 5000, 0, 0, 10000, 10000, 400, 0, 0, 0, 0),
        "X": (2, 50, 250, 200, 1, 0, 1, 0, 5000, 0, 5000, 0, 5000, 5000, 450, 0, 0, 0, 0),
        "Z": (2, -400, -2000, 250, 0, 1, 1, 0, 0, 5000, 5000, 0, 5000, 5000, 0, 0, 0, 0, 0),
    }
    cols = headers(response)
    assert "3rd" in cols and "3rd %" in cols
    assert "4th" not in cols and "4th %" not in cols
    assert len(cells(row_html(response, "X"))) == len(cols)


def test_health_mahjong_club_shows_no_money(db):
    club = make_club("kenko", "takabari-kenko", "高針健康麻雀")
    people = {n: Member.objects.create(club=club, name=n, kana=n) for n in ("K1", "K2", "K3", "K4")}
    # No oka; rank points +4 / +2 / -2 / -4: K2 +7.0, K3 ▲7.0, K4 ▲19.0, K1 +19.0.
    play(
        club,
        datetime.date(2026, 6, 1),
        seats(people, ("K1", 40000), ("K2", 30000), ("K3", 20000), ("K4", 10000)),
    )
    client = english(Client())
    client.force_login(make_user("kenko-member", club))
    response = client.get(standings_url(club))
    assert [(r["name"], r["total"]) for r in records(response)] == [
        ("K1", 190),
        ("K2", 70),
        ("K3", -70),
        ("K4", -190),
    ]
    assert Result.objects.filter(club=club, yen__isnull=False).count() == 0
    cols = headers(response)
    assert "Yen" not in cols and "Chips" not in cols and "4th" in cols
    assert "¥" not in response.content.decode()


# --- sorting in the database -----------------------------------------------------------------


def _expected_order(sort: str) -> list[str]:
    """Qualified first; then the column, ties by total (highest first) and kana."""
    descending = sort.startswith("-")
    key = sort.lstrip("-")

    def value(name: str) -> Any:
        if key == "position":
            return -EXPECTED[name][1]
        if key == "name":
            return KANA[name]
        return EXPECTED[name][STATS.index(key)]

    def order_of(group: list[str]) -> list[str]:
        by_tiebreak = sorted(group, key=lambda n: (-EXPECTED[n][1], KANA[n]))
        return sorted(by_tiebreak, key=value, reverse=descending)

    qualified = [n for n in EXPECTED if EXPECTED[n][0] >= MIN_GAMES]
    return order_of(qualified) + order_of([n for n in EXPECTED if n not in qualified])


SORTS = sorted(stats.SORTS)


def _order_by_terms(sql: str) -> list[str]:
    """The ORDER BY of a standings query as select aliases: ["qualified DESC", "total ASC"]."""
    depth, top = 0, []  # the select list without its subqueries' text (the adjustments')
    for char in sql:
        depth += (char == "(") - (char == ")")
        if depth == 0 or char == "(":
            top.append(char)
    select = "".join(top).split(" FROM ")[0]
    aliases = re.findall(r' AS "(\w+)"', select)
    order_by = sql.rsplit(" ORDER BY ", 1)[1].split(" LIMIT ")[0]
    terms = []
    for term in order_by.split(", "):
        expression, _space, direction = term.rpartition(" ")
        if expression.isdigit():
            expression = aliases[int(expression) - 1]
        terms.append(f"{expression.split('.')[-1].strip(chr(34))} {direction}")
    return terms


@pytest.mark.parametrize("sort", [*SORTS, *(f"-{s}" for s in SORTS)])
def test_every_column_sorts_in_the_database(
    member_client, world, sort, django_assert_num_queries, monkeypatch
):
    def no_python_sorting(*args: Any) -> None:
        raise AssertionError("the table sorted its rows in Python")

    monkeypatch.setattr(TableListData, "order_by", no_python_sorting)
    with django_assert_num_queries(6) as captured:
        response = member_client.get(season_url(world.club, world.season, f"?sort={sort}"))
    assert [r["name"] for r in records(response)] == _expected_order(sort)

    table = response.context["table"]
    assert isinstance(table.data, StandingsData) and isinstance(table.data, TableQuerysetData)
    # The standings query: the kept totals (league.standings.services), sorted by the database.
    (sql,) = [q["sql"] for q in captured.captured_queries if "qualified" in q["sql"]]
    terms = _order_by_terms(sql)
    assert terms[0] == "qualified DESC"
    name = sort.lstrip("-")
    descending = sort.startswith("-")
    column = stats.SORTS[name]
    if column == "position":  # position 1 is the highest total
        column, descending = "total", not descending
    if column == "total":  # a season's total counts its adjustments (none here)
        column = "season_total"
    assert terms[1] == f"{column} {'DESC' if descending else 'ASC'}"
    # The header of the sorted column says so, and its link turns the order around.
    assert table.columns[name].is_ordered
    assert table.columns[name].order_by_alias.next == (name if sort.startswith("-") else f"-{name}")


def test_unknown_sort_falls_back_to_position(member_client, world):
    for junk in ("?sort=password", "?sort=-member__user__password", "?sort=", "?sort=qualified"):
        response = member_client.get(season_url(world.club, world.season, junk))
        assert response.status_code == 200
        assert [r["name"] for r in records(response)] == ORDER


def test_headers_link_to_the_database_sort_keeping_the_filter(member_client, world):
    response = member_client.get(season_url(world.club, world.season, "?rate=0.3&sort=-total"))
    text = response.content.decode()
    assert 'href="?rate=0.3&amp;sort=avg_rank"' in text  # a lower average rank is better
    assert 'href="?rate=0.3&amp;sort=-average"' in text  # the highest average first
    assert 'href="?rate=0.3&amp;sort=total"' in text  # the sorted column turns around
    assert 'aria-sort="descending"' in text


# --- pagination ----------------------------------------------------------------------------


def test_pages_of_the_table_are_one_query_each(
    member_client, world, monkeypatch, django_assert_num_queries
):
    monkeypatch.setattr(standings_views, "PER_PAGE", 4)
    with django_assert_num_queries(6):
        first = english(member_client).get(season_url(world.club, world.season))
    assert [r["name"] for r in records(first)] == ORDER[:4]
    assert 'href="?page=2"' in first.content.decode()
    with django_assert_num_queries(6):
        second = member_client.get(season_url(world.club, world.season, "?page=2&sort=-total"))
    assert [r["name"] for r in records(second)] == ORDER[4:]
    assert "Not qualified" in second.content.decode()
    assert member_client.get(season_url(world.club, world.season, "?page=9")).status_code == 404
    junk = member_client.get(season_url(world.club, world.season, "?page=x"))
    assert [r["name"] for r in records(junk)] == ORDER[:4]


# --- the standings page: any period, all time by default ----------------------------------


def test_standings_default_to_all_time(member_client, world):
    response = member_client.get(standings_url(world.club))
    rows = {r["name"]: r for r in records(response)}
    # The November game counts too: 青木 +35.0, 馬場 +5.0, 千葉 ▲15.0, 土井 ▲25.0.
    assert rows[A]["games"] == 6 and rows[A]["total"] == 150 + 350
    assert rows[B]["total"] == -90 + 50 and rows[C]["total"] == 65 - 150
    assert rows[D]["total"] == -550 - 250 and rows[E]["total"] == 800
    assert all(r["qualified"] for r in rows.values())


@pytest.mark.parametrize(
    "query",
    [
        "?start=2026-10-01&end=2026-10-31&min_games=4",
        "?start=2026/10/01&end=2026/10/31&min_games=４",
        "?start=２０２６/１０/１&end=２０２６年１０月３１日&min_games=4",
        "?season={season}",
        "?season={season}&start=2026/09/01&end=2026/12/31",
    ],
)
def test_standings_of_a_period_match_the_season(member_client, world, query):
    response = member_client.get(standings_url(world.club, query.format(season=world.season.pk)))
    assert response.context["filter"].form.errors == {}
    rows = records(response)
    assert [r["name"] for r in rows] == ORDER and [r["position"] for r in rows] == POSITIONS
    assert {r["name"]: r["total"] for r in rows} == {n: v[1] for n, v in EXPECTED.items()}


def test_standings_filtered_by_rate(member_client, world):
    response = member_client.get(standings_url(world.club, "?rate=0.2"))
    assert {r["name"]: r["total"] for r in records(response)} == {C: 350, E: 50, G: -150, B: -250}


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?start=2026/10/31&end=2026/10/01", "end"),
        ("?start=2026/13/45", "start"),
        ("?end=yesterday", "end"),
        ("?rate=1.0", "rate"),
        ("?min_games=-1", "min_games"),
        ("?min_games=many", "min_games"),
        ("?season=999999", "season"),
    ],
)
def test_bad_filter_shows_an_error_and_no_table(member_client, world, query, field):
    response = english(member_client).get(standings_url(world.club, query))
    assert response.status_code == 200
    assert response.context["table"] is None
    assert field in response.context["filter"].form.errors
    text = response.content.decode()
    assert 'class="errorlist' in text
    assert "Correct the filter above to see the standings." in text
    assert "<table" not in text


def test_end_before_start_error_is_in_english(member_client, world):
    response = english(member_client).get(
        standings_url(world.club, "?start=2026/10/31&end=2026/10/1")
    )
    assert "The last day cannot be before the first day." in response.content.decode()


def test_each_season_links_with_its_leader_in_one_query(
    member_client, world, django_assert_num_queries
):
    whole_year = make_season(
        club=world.club,
        name="2026年",
        start=datetime.date(2026, 1, 1),
        end=datetime.date(2026, 12, 31),
        min_games=6,
    )
    empty = make_season(
        club=world.club,
        name="2027年",
        start=datetime.date(2027, 1, 1),
        end=datetime.date(2027, 12, 31),
    )
    with django_assert_num_queries(7):
        response = member_client.get(standings_url(world.club))
    leaders = {s.name: [r["name"] for r in rows] for s, rows in response.context["season_leaders"]}
    # October: 江藤 +80.0. The year overlaps October and adds November; with 6 games needed
    # 青木 (+50.0) leads 馬場, 千葉 and 土井; 江藤 (4 games) and 山田 (3) do not qualify.
    assert leaders == {"2026年10月": [E], "2026年": [A], "2027年": []}
    text = response.content.decode()
    for season in (world.season, whole_year, empty):
        assert f'href="{season_url(world.club, season)}"' in text
    player = reverse("standings:player_detail", args=[world.club.slug, world.people[E].pk])
    assert f'href="{player}?season={world.season.pk}"' in text


def test_tied_leaders_are_all_named(member_client, club, members):
    people = {m.name: m for m in members}
    make_season(
        club=club, name="秋", start=datetime.date(2026, 9, 1), end=datetime.date(2026, 9, 30)
    )
    # 青木 and 江藤 each win one game by the same score.
    play(
        club,
        datetime.date(2026, 9, 1),
        seats(people, (A, 40000), (B, 30000), (C, 20000), (D, 10000)),
    )
    play(
        club,
        datetime.date(2026, 9, 2),
        seats(people, (E, 40000), (B, 30000), (C, 20000), (D, 10000)),
    )
    response = member_client.get(standings_url(club))
    ((_season, rows),) = response.context["season_leaders"]
    assert sorted(r["name"] for r in rows) == sorted([A, E])


# --- query counts do not grow ----------------------------------------------------------------


def _big_club(club: Club, members: Sequence[Member]) -> None:
    people = list(members) + [
        Member.objects.create(club=club, name=f"打ち手{i}", kana=f"うちて{i}") for i in range(7)
    ]
    assert len(people) == 12
    points = (40000, 30000, 20000, 10000)
    for n in range(57):
        four = [people[(n + k * 3) % 12] for k in range(4)]
        date = datetime.date(2026, 10, 1 + n % 28)
        play(club, date, [services.SeatInput(m, p) for m, p in zip(four, points, strict=True)])


def test_query_counts_do_not_grow_with_games_and_players(
    member_client, club, members, django_assert_num_queries
):
    people = {m.name: m for m in members}
    season = make_season(club=club, name="秋", start=START, end=END, min_games=2)
    for day in (1, 2, 3):
        play(
            club,
            datetime.date(2026, 10, day),
            seats(people, (A, 40000), (B, 30000), (C, 20000), (D, 10000)),
        )
    with django_assert_num_queries(6):
        member_client.get(season_url(club, season))
    with django_assert_num_queries(7):
        member_client.get(standings_url(club))

    _big_club(club, members)
    assert Game.objects.filter(club=club).count() == 60
    assert Result.objects.filter(club=club).values("member").distinct().count() == 12
    with django_assert_num_queries(6):
        response = member_client.get(season_url(club, season, "?sort=-avg_rank"))
    assert len(records(response)) == 12
    with django_assert_num_queries(7):
        response = member_client.get(standings_url(club, "?start=2026/10/01&sort=busts"))
    assert len(records(response)) == 12


# --- who may see the pages ---------------------------------------------------------------------


@pytest.fixture(params=["season", "standings"])
def page_url(request, world) -> str:
    if request.param == "season":
        return season_url(world.club, world.season)
    return standings_url(world.club)


def test_members_and_organisers_see_the_pages(member_client, organiser_client, page_url):
    assert member_client.get(page_url).status_code == 200
    assert organiser_client.get(page_url).status_code == 200


def test_strangers_and_logged_out_users_get_404(stranger_client, client, page_url):
    assert stranger_client.get(page_url).status_code == 404
    assert client.get(page_url).status_code == 404


def test_post_is_not_allowed(member_client, page_url):
    assert member_client.post(page_url).status_code == 405


def test_a_season_of_another_club_is_404(member_client, world, other_club):
    theirs = make_season(club=other_club, name="他", start=START, end=END)
    assert member_client.get(season_url(world.club, theirs)).status_code == 404
    assert member_client.get(season_url(world.club, world.season)).status_code == 200


def test_pages_link_to_the_standings(member_client, world):
    home = member_client.get(
        reverse("recording:club_home", args=[world.club.slug])
    ).content.decode()
    assert f'href="{standings_url(world.club)}"' in home
    seasons = member_client.get(
        reverse("club:season_list", args=[world.club.slug])
    ).content.decode()
    assert f'href="{season_url(world.club, world.season)}"' in seasons


# --- number formats ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "japanese", "english_text"),
    [
        (-774, "▲7.74", "-7.74"),
        (1250, "+12.50", "+12.50"),
        (-5, "▲0.05", "-0.05"),
        (0, "0.00", "0.00"),
    ],
)
def test_average_writes_minus_as_triangle_in_japanese(value, japanese, english_text):
    with translation.override("ja"):
        assert average(value) == japanese
    with translation.override("en"):
        assert average(value) == english_text
    assert average(None) == ""


def test_percent_and_hundredths():
    assert percent(2500) == "25.0%"
    assert percent(1666) == "16.7%"  # 1/6 = 16.666…%
    assert percent(3076) == "30.8%"  # 4/13 = 30.769…%
    assert percent(1234) == "12.3%" and percent(1235) == "12.4%"  # half up
    assert percent(10000) == "100.0%"
    assert percent(0) == "0.0%"
    assert percent(None) == ""
    assert hundredths(256) == "2.56"
    assert hundredths(300) == "3.00"
    assert hundredths(None) == ""


def test_a_season_without_games_says_so(member_client, club):
    season = make_season(club=club, name="空", start=START, end=END, min_games=3)
    response = english(member_client).get(season_url(club, season))
    assert response.status_code == 200
    assert records(response) == []
    assert "No counted games in this period." in response.content.decode()
