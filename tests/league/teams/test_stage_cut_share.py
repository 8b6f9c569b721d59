"""A stage's cut as a share of its entries (issue 42 item 5): "the top 25%" of the stage's
entries, rounded up, at least 1. The first stage's entries are everyone with a game in it, a
later stage's those who went through to it. The event page says the share and what it comes to
now, before the stage starts and while it runs; closing sends exactly that many on (the tie
rules as ever) and audits the count and the share; a share cannot feed a fixed table; the form
and the service refuse a bad share on its field, in Japanese on screen; the API gives the share
and the count."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league.accounts import tokens as api_auth
from league.core.errors import ServiceError
from league.models import AuditLog, Member, Season, Stage, StageEntry
from league.teams import selectors, services
from tests.support.api import call, url
from tests.support.clubs import make_club, make_user
from tests.support.games import record_game
from tests.support.stages import add_stage

QUAL = datetime.date(2026, 10, 10)
SEMI = datetime.date(2026, 11, 3)
FINAL = datetime.date(2026, 12, 5)
# M.League's rules: 40,100 → +60.1, 30,000 → +10.0, 20,000 → ▲20.0, 9,900 → ▲50.1.
TOP_DOWN = (40100, 30000, 20000, 9900)


def _game(club, organiser, date, players, points=TOP_DOWN):
    return record_game(club, organiser, players, points, date=date, rate="", confirm_duplicate=True)


@pytest.fixture
def event(db):
    """A season of 21 players in stages: a qualifier sending the top 25% on, a semi-final
    sending the top 50% of its entries on, and a final."""
    club = make_club("share", "m-league", "シェア杯")
    organiser = make_user("share-organiser", club, "organiser")
    season = Season.objects.create(
        club=club,
        name="秋の大会",
        start=datetime.date(2026, 10, 1),
        end=datetime.date(2026, 12, 31),
    )
    players = [Member.objects.create(club=club, name=f"P{i:02d}") for i in range(21)]
    qual = add_stage(season, organiser, "予選", QUAL, advance_share=25)
    semi = add_stage(season, organiser, "準決勝", SEMI, advance_share=50)
    final = add_stage(season, organiser, "決勝", FINAL)
    return club, organiser, season, players, qual, semi, final


def _page(client, club, season) -> str:
    response = client.get(reverse("teams:season_stages", args=[club.slug, season.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _section(html: str, number: int) -> str:
    return html.split(f'id="stage-{number}"')[1].split("</section>")[0]


def test_the_top_quarter_of_the_entries_go_through_rounded_up(event, client):
    club, organiser, season, players, qual, semi, _final = event
    client.force_login(organiser)
    # Before the first stage starts: no entries yet, the share and its rule only.
    html = _page(client, club, season)
    assert "参加者の上位25%が勝ち抜け（端数切り上げ、最低1人）" in _section(html, 1)
    assert "参加者の上位50%が勝ち抜け（端数切り上げ、最低1人）" in _section(html, 2)
    # 21 players with a game (five tables and one more with P20 and three again): 6 go on.
    for t in range(5):
        _game(club, organiser, QUAL, players[t * 4 : t * 4 + 4])
    _game(club, organiser, QUAL, [players[20], players[1], players[2], players[3]])
    rows = selectors.stage_standings(stage=qual)
    assert selectors.stage_cut(stage=qual, rows=rows)["entries"] == 21
    assert sum(r["through"] for r in rows) == 6
    with CaptureQueriesContext(connection) as captured:
        html = _page(client, club, season)
    assert "上位25%が勝ち抜け（現在の参加 21人なら 6人、端数切り上げ）" in _section(html, 1)
    assert _section(html, 1).count("勝ち抜け圏") == 6
    # A member with only an adjustment is listed but is not one of the stage's entries.
    services.adjustment_book(
        season=season,
        user=organiser,
        member=Member.objects.create(club=club, name="P99"),
        kind="bonus",
        points=10,
        reason="特別",
    )
    with CaptureQueriesContext(connection) as again:
        html = _page(client, club, season)
    assert len(again) == len(captured)  # the words cost no query
    assert "現在の参加 21人なら 6人" in _section(html, 1)

    entries = services.stage_close(stage=qual, user=organiser)
    assert len(entries) == 6 == StageEntry.objects.filter(stage=semi).count()
    log = AuditLog.objects.get(action="stage.close")
    assert log.after["cut"] == {"advance": None, "share": 25, "entries": 21, "count": 6}
    assert len(log.after["through"]) == 6
    # The semi-final, before it starts: its 6 entries, half of them go on.
    html = _page(client, club, season)
    assert "上位25%が勝ち抜け（参加 21人中 6人、端数切り上げ）" in _section(html, 1)
    assert "上位50%が勝ち抜け（現在の参加 6人なら 3人、端数切り上げ）" in _section(html, 2)


def test_a_tie_at_a_share_cut_follows_the_tie_rules(db):
    """12 entries at 25%: 3 go on; at 30%, 4 (3.6 rounded up), or under "split" everyone tied
    at the cut."""
    club = make_club("split", "m-league", "同点杯")
    organiser = make_user("split-organiser", club, "organiser")
    season = Season.objects.create(
        club=club, name="秋", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )
    players = [Member.objects.create(club=club, name=f"S{i}") for i in range(12)]
    qual = add_stage(season, organiser, "予選", QUAL, advance_share=25, ties="split")
    add_stage(season, organiser, "決勝", FINAL)
    # Three tables of four alike: three at +60.1, three at +10.0, three at ▲20.0, three ▲50.1.
    _game(club, organiser, QUAL, players[0:4])
    _game(club, organiser, QUAL, players[4:8])
    _game(club, organiser, QUAL, players[8:12])
    rows = selectors.stage_standings(stage=qual)
    cut = selectors.stage_cut(stage=qual, rows=rows)
    assert (cut["entries"], cut["count"]) == (12, 3)
    # The three at +60.1 fill the cut exactly: none of the +10.0s goes on.
    assert [r["name"] for r in rows if r["through"]] == ["S0", "S4", "S8"]
    qual.ties = "seat"
    qual.advance_share = 30  # 3.6 → 4: the cut falls among the three +10.0s
    rows = selectors.stage_standings(stage=qual)
    assert sum(r["through"] for r in rows) == 4
    qual.ties = "split"
    rows = selectors.stage_standings(stage=qual)
    assert sum(r["through"] for r in rows) == 6  # every +10.0 tied at the cut goes on


def test_a_share_is_a_whole_percent_and_not_beside_a_number(event):
    _club, organiser, season, *_ = event
    other = Season.objects.create(club=season.club, name="別", start=season.start, end=season.end)
    for share, advance in ((0, None), (100, None), (25, 4)):
        with pytest.raises(ServiceError) as e:
            add_stage(other, organiser, "予選", QUAL, advance=advance, advance_share=share)
        assert set(e.value.errors) == {"advance_share"}
    assert not Stage.objects.filter(season=other).exists()


def test_a_fixed_table_cannot_follow_a_share(db):
    club = make_club("fixed", "m-league", "固定卓杯")
    organiser = make_user("fixed-organiser", club, "organiser")
    season = Season.objects.create(
        club=club, name="秋", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )
    add_stage(season, organiser, "予選", QUAL, advance_share=25)
    with pytest.raises(ServiceError) as e:
        add_stage(season, organiser, "決勝", FINAL, fixed_table=True)
    assert set(e.value.errors) == {"fixed_table"}
    assert "割合" in e.value.errors["fixed_table"][0]
    assert Stage.objects.filter(season=season).count() == 1


def test_the_form_takes_a_percent_and_says_its_errors_in_japanese(event, client):
    club, organiser, season, *_ = event
    other = Season.objects.create(club=club, name="別", start=season.start, end=season.end)
    client.force_login(organiser)
    address = reverse("teams:stage_new", args=[club.slug, other.pk])
    form = {
        "name": "予選",
        "first_day": "2026/10/10",
        "last_day": "2026/10/10",
        "entrants": "members",
        "advance": "",
        "advance_share": "２５％",
        "ties": "seat",
        "carry": "all",
        "bonus": "",
        "seating": "order",
    }
    html = client.get(address).content.decode()
    assert "勝ち抜けの割合" in html
    for bad, words in (
        ("12.5", "1〜99の整数"),
        ("100", "1〜99の整数"),
    ):
        response = client.post(address, {**form, "advance_share": bad})
        assert response.status_code == 200 and words in response.content.decode()
    response = client.post(address, {**form, "advance": "4"})
    assert "人数か割合のどちらか" in response.content.decode()
    assert not Stage.objects.filter(season=other).exists()
    response = client.post(address, form)
    assert response.status_code == 302
    assert Stage.objects.get(season=other).advance_share == 25


def test_the_api_gives_the_share_and_what_it_comes_to(event):
    club, organiser, season, players, *_ = event
    secret = api_auth.token_create(club=club, user=organiser, name="bot")[1]
    for t in range(5):
        _game(club, organiser, QUAL, players[t * 4 : t * 4 + 4])
    stages = call("GET", url(club, f"seasons/{season.pk}/stages"), secret).json()["stages"]
    assert [(s["advance"], s["advance_share"], s["through_count"]) for s in stages] == [
        (None, 25, 5),  # 20 players: exactly 5
        (None, 50, 1),  # no entries yet: at least 1
        (None, None, None),
    ]
    assert sum(r["through"] for r in stages[0]["rows"]) == 5
