"""A member's adjustments (league.teams' `Adjustment`, booked outside any game: M.League's
chombo) count in the individual season standings: the page, the share link, the workbook and
My page rank by the games' total plus the adjustments, show them in a 調整 column, and read them
in the same queries (a subquery of the standings query; `has_adjustments` read with the season)."""

from __future__ import annotations

import datetime
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from openpyxl import load_workbook

from league.models import Season
from league.mypage import selectors as mypage
from league.recording import services as recording
from league.standings import stats
from league.teams import services

D = datetime.date(2026, 10, 10)


@pytest.fixture
def season(club, members):
    season = Season.objects.create(
        club=club, name="2026秋", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )
    a, _b, c, d, e = members  # 青木 馬場 千葉 土井 江藤
    # mame-no-kai (test_standings): 江藤 +55.0, 千葉 +8.0, 土井 ▲18.0, 青木 ▲45.0.
    seats = [(e, 45000), (c, 28000), (d, 22000), (a, 5000)]
    data = recording.GameInput(
        date=D, seats=[recording.SeatInput(m, p, 0) for m, p in seats], rate="0.3"
    )
    recording.game_record(club=club, user=None, data=data)
    return season


def _rows(club, season):
    rows = stats.standings(club=club, start=season.start, end=season.end, seasons=[season])
    return [(r["name"], r["scores"], r["adjust"], r["total"], r["position"]) for r in rows]


def _book(season, organiser, members):
    _a, _b, _c, d, e = members
    services.adjustment_book(
        season=season, user=organiser, member=e, kind="chombo", points=-200, reason="誤ロン"
    )
    return services.adjustment_book(
        season=season, user=organiser, member=d, kind="bonus", points=500, reason="大会運営"
    )


def test_adjustments_count_in_the_season_total_and_rank(club, members, organiser, season):
    assert _rows(club, season)[0] == ("江藤", 550, 0, 550, 1)
    bonus = _book(season, organiser, members)
    assert _rows(club, season) == [
        ("江藤", 550, -200, 350, 1),
        ("土井", -180, 500, 320, 2),
        ("千葉", 80, 0, 80, 3),
        ("青木", -450, 0, -450, 4),
    ]
    # The average stays the games' own; all time (no season) has no adjustments.
    (top,) = [
        r
        for r in stats.standings(club=club, seasons=[season], start=season.start, end=season.end)
        if r["name"] == "江藤"
    ]
    assert top["average"] == 5500
    all_time = {r["name"]: (r["total"], r["adjust"]) for r in stats.standings(club=club)}
    assert all_time["土井"] == (-180, 0)
    # My page puts 土井 second, as the table does.
    d = members[3]
    mine = mypage.standing(club=club, member=d, season=season)
    assert mine is not None and mine.position == 2 and mine.row["total"] == 320
    # Undone by a reversing entry: back to the games' total.
    services.adjustment_reverse(entry=bonus, user=organiser)
    assert ("土井", -180, 0, -180, 3) in _rows(club, season)


def test_the_season_page_shows_the_column_in_the_same_queries(
    club, members, organiser, season, member_client
):
    url = reverse("standings:season_standings", args=[club.slug, season.pk])
    with CaptureQueriesContext(connection) as before:
        html = member_client.get(url).content.decode()
    assert "調整" not in html
    _book(season, organiser, members)
    with CaptureQueriesContext(connection) as after:
        response = member_client.get(url)
    html = response.content.decode()
    assert len(after) == len(before)
    assert "調整" in html
    names = [r["name"] for r in response.context["table"].data.data]
    assert names == ["江藤", "土井", "千葉", "青木"]
    assert "▲20.0" in html and "+50.0" in html and "+35.0" in html and "+32.0" in html
    # The all-time page: no adjustments column (they are a season's).
    page = member_client.get(reverse("standings:standings", args=[club.slug]))
    assert "調整" not in page.content.decode()


def test_the_share_link_and_the_workbook_show_adjustments(
    club, members, organiser, season, organiser_client, member_client
):
    _book(season, organiser, members)
    organiser_client.post(reverse("public:share_settings", args=[club.slug]), {"action": "enable"})
    club.refresh_from_db()
    page = member_client.get(reverse("public:public_season", args=[club.share_token, season.pk]))
    html = page.content.decode()
    assert "調整" in html and "+32.0" in html and "▲20.0" in html
    assert "誤ロン" not in html  # the reasons stay inside the club
    response = member_client.get(
        reverse("excel:export_standings", args=[club.slug]), {"season": season.pk}
    )
    ws = load_workbook(io.BytesIO(b"".join(response.streaming_content))).worksheets[0]
    rows = [list(r) for r in ws.iter_rows(values_only=True)]
    header = rows[0]
    name, adjust, total = header.index("プレイヤー"), header.index("調整"), header.index("合計")
    by_name = {r[name]: r for r in rows[1:]}
    assert float(by_name["土井"][adjust]) == 50.0 and float(by_name["江藤"][adjust]) == -20.0
    assert float(by_name["土井"][total]) == 32.0 and by_name["千葉"][adjust] in (None, 0)


def test_the_form_offers_the_m_league_chombo(club, members, organiser_client, season):
    from scoring import presets

    m_league = presets.PRESETS["m-league"]
    assert "m-league.aja0.com/?p=66023" in m_league.note and "adjustment" in m_league.note
    url = reverse("teams:adjustment_new", args=[club.slug, season.pk])
    form = organiser_client.get(url, {"kind": "chombo"}).context["form"]
    assert form.initial["kind"] == "chombo" and form.initial["points"] == "▲20.0"
    assert form.initial["reason"] == "チョンボ"
    plain = organiser_client.get(url).context["form"]
    assert "points" not in plain.initial


def test_the_season_leader_counts_adjustments(club, members, organiser, season, member_client):
    _a, _b, _c, d, e = members
    services.adjustment_book(
        season=season, user=organiser, member=e, kind="chombo", points=-200, reason="誤ロン"
    )
    services.adjustment_book(
        season=season, user=organiser, member=d, kind="bonus", points=800, reason="大会運営"
    )
    # 土井 ▲18.0 + 80.0 = +62.0 passes 江藤 +55.0 ▲20.0 = +35.0.
    response = member_client.get(reverse("standings:standings", args=[club.slug]))
    ((_season, leaders),) = response.context["season_leaders"]
    assert [(r["name"], r["total"]) for r in leaders] == [("土井", 620)]


def test_a_member_with_adjustments_and_no_game_is_listed_with_0_games(
    club, members, organiser, season, member_client
):
    """馬場 played no game of the season: a bonus lists them (0 games, no averages), in the
    table, on the page (the same queries) and after the kept rows are rebuilt."""
    from django.core.management import call_command

    b = members[1]
    url = reverse("standings:season_standings", args=[club.slug, season.pk])
    with CaptureQueriesContext(connection) as before:
        member_client.get(url)
    services.adjustment_book(
        season=season, user=organiser, member=b, kind="bonus", points=100, reason="運営"
    )
    rows = stats.standings(club=club, start=season.start, end=season.end, seasons=[season])
    baba = next(r for r in rows if r["name"] == "馬場")
    assert (baba["games"], baba["scores"], baba["adjust"], baba["total"]) == (0, 0, 100, 100)
    assert baba["average"] is None and baba["position"] == 2
    with CaptureQueriesContext(connection) as after:
        response = member_client.get(url)
    assert len(after) == len(before) and "馬場" in response.content.decode()
    workbook = member_client.get(
        reverse("excel:export_standings", args=[club.slug]), {"season": season.pk}
    )
    ws = load_workbook(io.BytesIO(b"".join(workbook.streaming_content))).worksheets[0]
    assert "馬場" in [r[1] for r in ws.iter_rows(values_only=True)]
    mine = mypage.standing(club=club, member=b, season=season)
    assert mine is not None and mine.row["games"] == 0 and mine.row["total"] == 100
    call_command("rebuild_aggregates", club.slug, verbosity=0)
    assert ("馬場", 0, 100, 100, 2) in _rows(club, season)
    # All time lists only who played.
    assert "馬場" not in [r["name"] for r in stats.standings(club=club)]


def test_filtered_by_rate_a_member_with_adjustments_and_no_game_at_it_is_listed(
    club, members, organiser, season, member_client
):
    """As without a rate: the season's standings of one rate list 馬場 (no game of the season)
    and 大野 (games at another rate only) for their adjustments, with 0 games at the rate, and
    土井 (games at it) once; on the page for the same queries, and after a rebuild."""
    from django.core.management import call_command

    from league.models import Member

    a, b, c, d, _e = members
    f = Member.objects.create(club=club, name="大野", kana="おおの")
    seats = [(a, 40000), (c, 30000), (d, 20000), (f, 10000)]
    data = recording.GameInput(
        date=D, seats=[recording.SeatInput(m, p, 0) for m, p in seats], rate="0.2"
    )
    recording.game_record(club=club, user=None, data=data)
    url = reverse("standings:season_standings", args=[club.slug, season.pk]) + "?rate=0.3"

    def rows(rate):
        listed = list(
            stats.standings(
                club=club, start=season.start, end=season.end, seasons=[season], rate=rate
            )
        )
        named = {r["name"]: (r["games"], r["scores"], r["adjust"], r["total"]) for r in listed}
        assert len(named) == len(listed)  # nobody twice
        return named

    with CaptureQueriesContext(connection) as before:
        member_client.get(url)
    assert set(rows("0.3")) == {"江藤", "千葉", "土井", "青木"}
    games, scores, _adjust, _total = rows("0.2")["大野"]
    for member, kind, points in [(b, "bonus", 100), (f, "penalty", -200), (d, "bonus", 300)]:
        services.adjustment_book(
            season=season, user=organiser, member=member, kind=kind, points=points, reason="運営"
        )
    at_03 = rows("0.3")
    assert at_03["馬場"] == (0, 0, 100, 100)
    assert at_03["大野"] == (0, 0, -200, -200)
    assert at_03["土井"] == (1, -180, 300, 120)
    assert set(at_03) == {"江藤", "千葉", "土井", "青木", "馬場", "大野"}
    at_02 = rows("0.2")
    assert at_02["馬場"] == (0, 0, 100, 100)
    assert at_02["大野"] == (games, scores, -200, scores - 200) and games == 1
    assert set(at_02) == {"青木", "千葉", "土井", "大野", "馬場"}
    with CaptureQueriesContext(connection) as after:
        response = member_client.get(url)
    assert len(after) == len(before) and "大野" in response.content.decode()
    call_command("rebuild_aggregates", club.slug, verbosity=0)
    assert rows("0.3") == at_03 and rows("0.2") == at_02
    # All time with a rate lists only who played at it.
    assert "馬場" not in [r["name"] for r in stats.standings(club=club, rate="0.3")]
