"""Issue 42 item 3, results held back: with the day's switch on (the draw page's room controls),
no result of round r shows to a player on the day's pages, the share link or the API until
every table of round r is recorded; the organiser sees all; the round opens by itself when its
last table comes in (nothing stored for that: computed from the tables' games)."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from league.chat import commands
from league.draw import selectors as sel
from league.draw import services as draw
from league.models import AuditLog, Day, Member, Season
from league.models.draw import DrawRoom
from league.public import services as public_services
from tests.support.draw import DATE, _record, check_in_all, current, people


@pytest.fixture
def held(club, organiser, organiser_client) -> Day:
    """8 players, round 1 drawn (tables A and B), results held back (through the page)."""
    day = check_in_all(club, organiser, people(club, 8))
    draw.round_draw(club=club, user=organiser, date=DATE)
    response = organiser_client.post(
        reverse("draw:draw_room", args=[club.slug, DATE]), {"do": "hold"}, follow=True
    )
    assert "その回戦の結果は伏せています" in response.content.decode()
    return day


def names(tv: sel.TableView) -> list[str]:
    return [m.name for m in tv.players]


def day_page(client: Client, club) -> str:
    response = client.get(reverse("recording:day_detail", args=[club.slug, DATE]))
    assert response.status_code == 200
    return response.content.decode()


def shown(page: str, players: list[str]) -> bool:
    return any(f">{n}<" in page or f">{n} " in page or f"{n} " in page for n in players)


def test_the_switch_is_the_organisers_and_audited(club, member_client, held) -> None:
    assert DrawRoom.objects.get(day=held).hold_results
    assert AuditLog.objects.get(action="draw.hold_results").after == {"hold_results": True}
    member_client.post(reverse("draw:draw_room", args=[club.slug, DATE]), {"do": "release"})
    assert DrawRoom.objects.get(day=held).hold_results


def test_a_round_shows_only_when_its_last_table_is_in(
    club, organiser, member_client, organiser_client, held
) -> None:
    a, b = current(held).tables
    game_a = _record(club, organiser, a.players, table=a.table.label)
    # A player sees nothing of table A yet: not the game, not its players' totals.
    page = day_page(member_client, club)
    assert "data-held" in page and f'id="game-{game_a.number}"' not in page
    assert not shown(page, names(a))
    game_url = reverse("recording:game_detail", args=[club.slug, game_a.pk])
    assert member_client.get(game_url).status_code == 404
    ledger = member_client.get(reverse("money:day_ledger", args=[club.slug, DATE]))
    assert ledger.status_code == 302
    assert member_client.get(reverse("chat:day_share", args=[club.slug, DATE])).status_code == 302
    home = member_client.get(reverse("recording:club_home", args=[club.slug])).content.decode()
    assert game_url not in home and not shown(home, names(a))
    # The organiser sees all.
    page = day_page(organiser_client, club)
    assert f'id="game-{game_a.number}"' in page and shown(page, names(a))
    assert organiser_client.get(game_url).status_code == 200

    game_b = _record(club, organiser, b.players, table=b.table.label)
    page = day_page(member_client, club)
    assert "data-held" not in page
    assert f'id="game-{game_a.number}"' in page and f'id="game-{game_b.number}"' in page
    assert shown(page, names(a)) and shown(page, names(b))
    assert member_client.get(game_url).status_code == 200
    assert member_client.get(reverse("money:day_ledger", args=[club.slug, DATE])).status_code == 200
    assert (
        game_url
        in member_client.get(reverse("recording:club_home", args=[club.slug])).content.decode()
    )


def test_the_next_round_is_held_while_the_one_before_shows(club, organiser, member_client, held):
    for tv in current(held).tables:
        _record(club, organiser, tv.players, table=tv.table.label)
    first = {g.pk for g in held.games.all()}
    draw.round_draw(club=club, user=organiser, date=DATE)
    tv = current(held).tables[0]
    game = _record(club, organiser, tv.players, table=tv.table.label)
    assert sel.held_games(held) == {game.pk}
    page = day_page(member_client, club)
    assert f'id="game-{game.number}"' not in page
    assert all(
        f'id="game-{n}"' in page
        for n in held.games.filter(pk__in=first).values_list("number", flat=True)
    )


def test_the_share_link_holds_back_too(club, organiser, held) -> None:
    a, _b = current(held).tables
    game = _record(club, organiser, a.players, table=a.table.label)
    token = public_services.share_enable(club=club, user=organiser).share_token
    page = Client().get(f"/s/{token}/days/{DATE}/").content.decode()
    assert "data-held" in page and f'id="game-{game.number}"' not in page
    assert not shown(page, names(a))


def test_the_api_holds_back_for_players(club, organiser, member_client, organiser_client, held):
    a, b = current(held).tables
    game = _record(club, organiser, a.players, table=a.table.label)
    base = f"/api/clubs/{club.slug}"
    day = json.loads(member_client.get(f"{base}/days/{DATE}").content)
    assert day["games"] == []
    assert member_client.get(f"{base}/games/{game.pk}").status_code == 404
    assert member_client.get(f"{base}/days/{DATE}/ledger").status_code == 404
    organiser_day = json.loads(organiser_client.get(f"{base}/days/{DATE}").content)
    assert [g["id"] for g in organiser_day["games"]] == [game.pk]
    assert organiser_client.get(f"{base}/games/{game.pk}").status_code == 200
    _record(club, organiser, b.players, table=b.table.label)
    day = json.loads(member_client.get(f"{base}/days/{DATE}").content)
    assert len(day["games"]) == 2
    assert member_client.get(f"{base}/games/{game.pk}").status_code == 200


def test_the_projector_standings_leave_a_held_round_out(
    club, organiser, organiser_client, member_client, held
) -> None:
    a, b = current(held).tables
    _record(club, organiser, a.players, table=a.table.label)
    organiser_client.post(reverse("draw:draw_room", args=[club.slug, DATE]), {"do": "show"})
    page = member_client.get(
        reverse("draw:draw_projector", args=[club.slug, DATE])
    ).content.decode()
    assert not shown(page.partition('id="standings"')[2], names(a))
    _record(club, organiser, b.players, table=b.table.label)
    page = member_client.get(
        reverse("draw:draw_projector", args=[club.slug, DATE])
    ).content.decode()
    assert f"<span>{a.players[0].name}</span>" in page.partition('id="standings"')[2]


def test_without_the_switch_a_game_shows_at_once(club, organiser, member_client) -> None:
    day = check_in_all(club, organiser, people(club, 8))
    draw.round_draw(club=club, user=organiser, date=DATE)
    a = current(day).tables[0]
    game = _record(club, organiser, a.players, table=a.table.label)
    assert f'id="game-{game.number}"' in day_page(member_client, club)
    assert sel.held_games(day) == set()


def results_pages(club, season, member) -> list[str]:
    """Every page of the club's results over many days (league.access.results_page)."""
    slug = club.slug
    return [
        reverse("standings:standings", args=[slug]),
        reverse("standings:season_standings", args=[slug, season.pk]),
        reverse("standings:season_race", args=[slug, season.pk]),
        reverse("standings:season_matrix", args=[slug, season.pk]),
        reverse("standings:player_detail", args=[slug, member.pk]),
        reverse("standings:rating_list", args=[slug]),
        reverse("standings:club_seats", args=[slug]),
        reverse("standings:records", args=[slug]),
        reverse("teams:season_teams", args=[slug, season.pk]),
        reverse("teams:season_stages", args=[slug, season.pk]),
        reverse("excel:export_standings", args=[slug]),
    ]


def test_the_results_over_many_days_wait_for_the_round(
    club, organiser, member_user, member_client, organiser_client, held
) -> None:
    """The standings, statistics, ratings, records, player pages, the standings export, My page,
    the share link's pages and the API's: their totals are kept at write time with a held game
    in them, so a player sees a notice naming the round instead, until its last table is in."""
    season = Season.objects.create(club=club, name="2026", start=DATE, end=DATE)
    a, b = current(held).tables
    player = a.players[0]
    Member.objects.filter(pk=player.pk).update(user=member_user)
    _record(club, organiser, a.players, table=a.table.label)
    token = public_services.share_enable(club=club, user=organiser).share_token
    public = [f"/s/{token}/{tail}" for tail in ("", f"seasons/{season.pk}/", "rating/", "records/")]
    base = f"/api/clubs/{club.slug}"
    api = [
        f"{base}/standings",
        f"{base}/players/{player.pk}/stats",
        f"{base}/seats",
        f"{base}/ratings",
        f"{base}/players/{player.pk}/rating",
        f"{base}/seasons/{season.pk}/stages",
    ]
    pages = results_pages(club, season, player)
    notice = "第1回戦の結果は、その回戦の全卓が記録されるまで伏せています"
    for url in pages:
        response = member_client.get(url)
        page = response.content.decode()
        assert response.status_code == 200 and notice in page and not shown(page, names(a)), url
        organiser_page = organiser_client.get(url)
        assert organiser_page.status_code == 200, url
        if url != pages[-1]:  # the export: the file itself
            assert notice in organiser_page.content.decode(), url
    mine = member_client.get(reverse("mypage:my_page", args=[club.slug])).content.decode()
    assert notice in mine and "my-position" not in mine and "my-games" not in mine
    for url in public:
        page = Client().get(url).content.decode()
        assert notice in page and not shown(page, names(a)), url
    for url in api:
        assert member_client.get(url).status_code == 404, url
        assert organiser_client.get(url).status_code == 200, url

    _record(club, organiser, b.players, table=b.table.label)
    export = pages.pop()
    assert "spreadsheetml" in member_client.get(export)["Content-Type"]
    for url in pages:
        page = member_client.get(url).content.decode()
        assert notice not in page, url
    assert shown(member_client.get(pages[0]).content.decode(), names(a))
    mine = member_client.get(reverse("mypage:my_page", args=[club.slug])).content.decode()
    assert notice not in mine and "my-position" in mine and "my-games" in mine
    for url in public:
        assert notice not in Client().get(url).content.decode(), url
    for url in api:
        assert member_client.get(url).status_code == 200, url


def test_the_chat_waits_for_the_round_too(club, organiser, held, monkeypatch) -> None:
    monkeypatch.setattr(commands, "today", lambda: DATE)
    a, b = current(held).tables
    _record(club, organiser, a.players, table=a.table.label)
    assert commands._standings(club, None) == str(commands.HELD_TEXT)
    assert commands._settle(club) == str(commands.HELD_TEXT)
    _record(club, organiser, b.players, table=b.table.label)
    assert commands._standings(club, None) != str(commands.HELD_TEXT)
    assert commands._settle(club) != str(commands.HELD_TEXT)
