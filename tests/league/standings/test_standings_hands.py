"""The standings' hand columns (?hands=1): 和了率, 放銃率, 立直率, 副露率, 平均打点 and 平均放銃 with
how many games recorded hand by hand (局記録) and hands (局数) they count, on the season and the
all-time standings and in the standings workbook, worked by hand from three games recorded hand
by hand and one without hands; off by default, one query when on, sorted by the database.

マメの会's hand rules (25,000 to start, a player below zero ends the game). Values as HandStat
keeps them: 打点 is the hand's value with honba and without sticks, 放銃 what the discarder paid.
"""

from __future__ import annotations

import datetime
import io
from typing import Any

import openpyxl
import pytest
from django.conf import settings
from django.urls import reverse

from league.models import Club, Game, Member, Season
from league.recording import services as recording
from league.standings.tables import HAND_COLUMNS
from league.standings.views import standings as standings_views
from tests.support.hand_totals import HAND_HEADERS
from tests.support.hands import hand_game

START, END = datetime.date(2026, 10, 1), datetime.date(2026, 10, 31)
F = "福田"  # plays only the game without hands


def _ids(*people: Member) -> list[str]:
    return [str(m.pk) for m in people]


def plain_game(club, date, seated) -> Game:
    points = (40000, 30000, 20000, 10000)
    data = recording.GameInput(
        date=date,
        seats=[recording.SeatInput(m, p) for m, p in zip(seated, points, strict=True)],
        rate="0.3",
    )
    return recording.game_record(club=club, user=None, data=data)


@pytest.fixture
def world(club, members, organiser) -> dict[str, Any]:
    a, b, c, d, e = members
    f = Member.objects.create(club=club, name=F, kana="ふくだ")
    season = Season.objects.create(club=club, name="2026年10月", start=START, end=END)
    ia, ib, ic, id_, ie = _ids(a, b, c, d, e)
    # H1 (10/3), 青木 deals. 東1: 青木 riichi; 馬場 (open hand) rons 千葉, 3 han 40 fu = 5,200
    # (青木's stick is not 打点). 東2: 青木 deals in 土井's yakuman, 32,000: 青木 at 24,000 busts.
    hand_game(
        club,
        organiser,
        datetime.date(2026, 10, 3),
        [a, b, c, d],
        [
            (
                {
                    "result": "ron",
                    "from": ic,
                    "winners": [{"player": ib, "han": 3, "fu": 40}],
                    "riichi": [ia],
                },
                {ib: {"called": True}},
            ),
            ({"result": "ron", "from": ia, "winners": [{"player": id_, "yakuman": 1}]}, {}),
        ],
    )
    # H2 (10/10), 馬場 deals. 東1: 千葉 riichi, tsumo 5 han: 8,000. 東2: a draw, 土井 alone tenpai
    # (江藤 pays 1,000). 東3-1: 土井 deals, rons 江藤 with a yakuman: 48,000 + 300 = 48,300.
    hand_game(
        club,
        organiser,
        datetime.date(2026, 10, 10),
        [b, c, d, e],
        [
            ({"result": "tsumo", "winner": ic, "han": 5, "riichi": [ic]}, {}),
            ({"result": "draw", "tenpai": [id_]}, {}),
            ({"result": "ron", "from": ie, "winners": [{"player": id_, "yakuman": 1}]}, {}),
        ],
    )
    # Without hands: counts in the standings, not in the hand columns.
    plain_game(club, datetime.date(2026, 10, 17), [a, b, c, f])
    # H3 (11/5, after the season: all time only), 青木 deals: a dealer yakuman from 馬場, 48,000.
    hand_game(
        club,
        organiser,
        datetime.date(2026, 11, 5),
        [a, b, c, d],
        [({"result": "ron", "from": ib, "winners": [{"player": ia, "yakuman": 1}]}, {})],
    )
    return {"club": club, "season": season, "people": {m.name: m for m in [*members, f]}}


# Worked by hand. Rates: count × 10,000 // hands (or // wins for 副露率), shown to one decimal
# rounded half up; averages: points // wins (or deal-ins); "–" with nothing to divide.
#        局記録 局数 和了率 放銃率 立直率 副露率 平均打点 平均放銃
SEASON = {
    # 青木: H1, 2 hands: riichi 1, dealt in 32,000.
    "青木": ("1", "2", "0.0%", "50.0%", "50.0%", "–", "–", "32,000"),
    # 馬場: 5 hands, won 5,200 with an open hand.
    "馬場": ("2", "5", "20.0%", "0.0%", "0.0%", "100.0%", "5,200", "–"),
    # 千葉: 5 hands, riichi and won 8,000, dealt in 5,200.
    "千葉": ("2", "5", "20.0%", "20.0%", "20.0%", "0.0%", "8,000", "5,200"),
    # 土井: 5 hands, won 32,000 and 48,300: 80,300 // 2.
    "土井": ("2", "5", "40.0%", "0.0%", "0.0%", "0.0%", "40,150", "–"),
    # 江藤: H2, 3 hands, dealt in 48,300: 1 of 3 = 33.33% → 33.3%.
    "江藤": ("1", "3", "0.0%", "33.3%", "0.0%", "–", "–", "48,300"),
    F: ("–",) * 8,
}
ALL_TIME = SEASON | {
    # + H3: 青木 won 48,000 in 1 hand (3 hands: 33.3%), 馬場 dealt it in (6 hands: 16.66% → 16.7%).
    "青木": ("2", "3", "33.3%", "33.3%", "33.3%", "0.0%", "48,000", "32,000"),
    "馬場": ("3", "6", "16.7%", "16.7%", "0.0%", "100.0%", "5,200", "48,000"),
    "千葉": ("3", "6", "16.7%", "16.7%", "16.7%", "0.0%", "8,000", "5,200"),
    "土井": ("3", "6", "33.3%", "0.0%", "0.0%", "0.0%", "40,150", "–"),
}


def season_url(world, query: str = "") -> str:
    return (
        reverse("standings:season_standings", args=[world["club"].slug, world["season"].pk]) + query
    )


def standings_url(club: Club, query: str = "") -> str:
    return reverse("standings:standings", args=[club.slug]) + query


def hand_cells(response) -> dict[str, tuple[str, ...]]:
    """Each player's hand cells as the page writes them."""
    table = response.context["table"]
    names = [b.name for b in table.columns]
    out = {}
    for row in table.fast_rows:
        texts = dict(zip(names, (c.html for c in row.cells), strict=True))
        out[row.record["name"]] = tuple(str(texts[k]) for k in HAND_COLUMNS)
    return out


def headers(response) -> list[str]:
    return [str(b.header) for b in response.context["table"].columns]


def test_hand_columns_are_off_by_default(member_client, world):
    for url in (season_url(world), standings_url(world["club"])):
        response = member_client.get(url)
        table = response.context["table"]
        assert not set(HAND_COLUMNS) & {b.name for b in table.columns}
        assert table.hand_figures is None
        text = response.content.decode()
        assert "局の成績を表示" in text and 'href="?hands=1"' in text
        assert "和了率" not in text


def test_season_hand_columns_worked_by_hand(member_client, world):
    response = member_client.get(season_url(world, "?hands=1"))
    assert response.status_code == 200
    assert headers(response)[-8:] == HAND_HEADERS
    assert hand_cells(response) == SEASON
    text = response.content.decode()
    assert "局の成績を隠す" in text and "局ごとに記録した対局だけ" in text
    # The figures are the player page's (selectors.hand_stats), formatted the same way.
    player = reverse(
        "standings:player_detail", args=[world["club"].slug, world["people"]["土井"].pk]
    )
    page = member_client.get(f"{player}?season={world['season'].pk}").content.decode()
    assert "40.0%" in page and "40,150" in page
    # The Excel link of the season keeps the hand columns.
    assert f'?season={world["season"].pk}&amp;hands=1"' in text


def test_all_time_hand_columns_worked_by_hand(member_client, world):
    response = member_client.get(standings_url(world["club"], "?hands=1"))
    assert headers(response)[-8:] == HAND_HEADERS
    assert hand_cells(response) == ALL_TIME
    # A season chosen on the all-time page counts the season's hand games.
    season = member_client.get(
        standings_url(world["club"], f"?season={world['season'].pk}&hands=1")
    )
    assert hand_cells(season) == SEASON


def test_english_headers(member_client, world):
    member_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    response = member_client.get(season_url(world, "?hands=1"))
    assert headers(response)[-8:] == [
        "Hand games",
        "Hands",
        "Win %",
        "Deal-in %",
        "Riichi %",
        "Called wins %",
        "Avg. win",
        "Avg. deal-in",
    ]
    assert "Hide hand statistics" in response.content.decode()


def test_a_period_without_hand_games_or_with_a_rate_says_so(member_client, world):
    club = world["club"]
    response = member_client.get(standings_url(club, "?start=2026/10/17&end=2026/10/17&hands=1"))
    assert not set(HAND_COLUMNS) & {b.name for b in response.context["table"].columns}
    assert "局ごとに記録した対局はありません" in response.content.decode()
    assert "局の成績を隠す" in response.content.decode()
    response = member_client.get(standings_url(club, "?rate=0.3&hands=1"))
    assert not set(HAND_COLUMNS) & {b.name for b in response.context["table"].columns}
    assert "レート" in response.content.decode().split("data-hand-columns")[1].split("</div>")[0]


def test_only_hands_1_turns_them_on(member_client, world):
    for junk in ("?hands=0", "?hands=yes", "?hands=", "?hands=1x"):
        response = member_client.get(season_url(world, junk))
        assert response.context["table"].hand_figures is None


@pytest.mark.parametrize("descending", [True, False])
def test_hand_columns_sort_in_the_database_players_without_hands_last(
    member_client, world, descending, django_assert_num_queries
):
    sort = "-win_rate" if descending else "win_rate"
    with django_assert_num_queries(7):
        response = member_client.get(season_url(world, f"?hands=1&sort={sort}"))
    names = [r.record["name"] for r in response.context["table"].fast_rows]
    # 和了率: 土井 40.0, 馬場 and 千葉 20.0, 青木 and 江藤 0.0; 福田 has no hands: last either way.
    groups = [{"土井"}, {"馬場", "千葉"}, {"青木", "江藤"}]
    if not descending:
        groups.reverse()
    sizes = [0, *(len(g) for g in groups)]
    starts = [sum(sizes[: i + 1]) for i in range(len(groups))]
    assert [set(names[s : s + len(g)]) for s, g in zip(starts, groups, strict=True)] == groups
    assert names[5] == F
    table = response.context["table"]
    assert table.columns["win_rate"].is_ordered and table.hand_sorted
    # Hiding the hand columns goes back to the default order: no sort by a column gone.
    assert 'href="?">局の成績を隠す' in response.content.decode()


def test_every_hand_column_sorts(member_client, world):
    for name in HAND_COLUMNS:
        for sort in (name, f"-{name}"):
            response = member_client.get(standings_url(world["club"], f"?hands=1&sort={sort}"))
            rows = response.context["table"].fast_rows
            column = HAND_COLUMNS.index(name)
            values = [ALL_TIME[r.record["name"]][column] for r in rows]
            numbers = [float(v.rstrip("%").replace(",", "")) if v != "–" else None for v in values]
            present = [n for n in numbers if n is not None]
            assert present == sorted(present, reverse=sort.startswith("-")), sort
            # Nothing to show ("–": no hands, no wins, no deal-ins) is last either way.
            assert numbers[len(present) :] == [None] * (len(numbers) - len(present)), sort
            assert [r.record["name"] for r in rows].index(F) >= len(present), sort


def test_headers_sort_the_best_first(member_client, world):
    text = member_client.get(season_url(world, "?hands=1")).content.decode()
    assert 'href="?hands=1&amp;sort=-win_rate"' in text  # the most wins first
    assert 'href="?hands=1&amp;sort=deal_in_rate"' in text  # the fewest deal-ins first
    assert 'href="?hands=1&amp;sort=avg_deal_in"' in text
    assert 'href="?hands=1&amp;sort=-avg_win"' in text


def test_a_sort_by_a_hand_column_without_them_falls_back(member_client, world):
    response = member_client.get(season_url(world, "?sort=-win_rate"))
    assert response.context["table"].hand_figures is None
    assert not response.context["table"].hand_sorted


def test_the_filter_keeps_the_hand_columns(member_client, world):
    text = member_client.get(standings_url(world["club"], "?hands=1&rate=0.3")).content.decode()
    assert '<input type="hidden" name="hands" value="1">' in text


def _more_games(club, user, people, n: int) -> None:
    """n games more, half of them recorded hand by hand (a dealer yakuman on the first hand)."""
    everyone = list(people.values())
    for i in range(n):
        four = [everyone[(i + k) % len(everyone)] for k in range(4)]
        date = datetime.date(2026, 10, 1 + i % 28)
        if i % 2:
            plain_game(club, date, four)
        else:
            ids = _ids(*four)
            win = {
                "result": "ron",
                "from": ids[1 + i % 3],
                "winners": [{"player": ids[0], "yakuman": 1}],
            }
            hand_game(club, user, date, four, [(win, {})])


def test_query_counts_with_hands_do_not_grow(
    member_client, world, organiser, django_assert_num_queries
):
    club = world["club"]
    sizes = []
    for more in (0, 12):
        _more_games(club, organiser, world["people"], more)
        # Off: as the standings always were (tests/league/standings/test_standings.py pins 6 and 7).
        with django_assert_num_queries(6):
            member_client.get(season_url(world))
        with django_assert_num_queries(7):
            member_client.get(standings_url(club))
        # On: one query more (the season's rows summed per member; the kept all-time totals).
        with django_assert_num_queries(7) as captured:
            response = member_client.get(season_url(world, "?hands=1"))
        assert response.context["table"].hand_rows
        (hand_sql,) = [q["sql"] for q in captured.captured_queries if "handstat" in q["sql"]]
        assert "GROUP BY" in hand_sql
        with django_assert_num_queries(8) as captured:
            member_client.get(standings_url(club, "?hands=1"))
        (hand_sql,) = [q["sql"] for q in captured.captured_queries if "handstat" in q["sql"]]
        assert "handstattotal" in hand_sql
        with django_assert_num_queries(8):
            member_client.get(standings_url(club, "?hands=1&sort=-avg_win"))
        with django_assert_num_queries(7):
            member_client.get(season_url(world, "?hands=1&sort=deal_in_rate"))
        sizes.append(Game.objects.filter(club=club).count())
    assert sizes == [4, 16]


def test_pages_of_the_table_keep_the_hand_columns(member_client, world, monkeypatch):
    monkeypatch.setattr(standings_views, "PER_PAGE", 4)
    first = member_client.get(season_url(world, "?hands=1"))
    assert 'href="?hands=1&amp;page=2"' in first.content.decode()
    second = member_client.get(season_url(world, "?hands=1&page=2"))
    assert set(hand_cells(second)) <= set(SEASON)
    assert all(cells == SEASON[name] for name, cells in hand_cells(second).items())


def _sheet(response) -> list[list[Any]]:
    workbook = openpyxl.load_workbook(io.BytesIO(b"".join(response.streaming_content)))
    return [list(r) for r in workbook.worksheets[0].iter_rows(values_only=True)]


def test_the_workbook_has_the_hand_columns_when_asked(member_client, world):
    url = reverse("excel:export_standings", args=[world["club"].slug])
    season = f"?season={world['season'].pk}"
    plain = _sheet(member_client.get(url + season))
    header = next(r for r in plain if r and "順位" in [str(c) for c in r if c])
    assert "和了率" not in header
    rows = _sheet(member_client.get(url + season + "&hands=1"))
    header = next(r for r in rows if r and "和了率" in [str(c) for c in r if c])
    at = {h: i for i, h in enumerate(header) if h}
    by_name = {r[1]: r for r in rows if r and r[1] in SEASON}  # the player's name
    doi = by_name["土井"]
    assert doi[at["局記録"]] == 2 and doi[at["局数"]] == 5
    assert float(doi[at["和了率"]]) == 0.4 and doi[at["平均打点"]] == 40_150
    assert doi[at["平均放銃"]] is None
    assert by_name["江藤"][at["放銃率"]] == pytest.approx(0.333)
    assert all(by_name[F][at[h]] is None for h in HAND_HEADERS)


def test_strangers_get_404(stranger_client, world):
    assert stranger_client.get(season_url(world, "?hands=1")).status_code == 404
