"""The read pages: home, club home, a day with its totals, one game with its history."""

from __future__ import annotations

import datetime
import re
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Sum
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from league.core.format import sign_class, wind
from league.models import Day, Game, Member, Membership, Result
from league.recording import selectors, services
from tests.support.clubs import make_club, make_user
from tests.support.pages import DATE, game_input, record


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def text(response) -> str:
    return response.content.decode()


def url(name: str, club, *args) -> str:
    return reverse(name, args=[club.slug, *args])


# --- filters ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "css"), [(453, "plus"), (-1, "minus"), (0, ""), (None, "")])
def test_sign_class(value, css):
    assert sign_class(value) == css


def test_wind_names_the_four_seats_and_nothing_else():
    assert [wind(i) for i in range(4)] != ["", "", "", ""]
    assert len({wind(i) for i in range(4)}) == 4
    assert wind(4) == wind(None) == ""


# --- home ------------------------------------------------------------------------------------


def test_home_logged_out_goes_to_login(client, db):
    response = client.get(reverse("site:home"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("accounts:login"))


def test_home_with_one_club_goes_to_it(member_client, club):
    response = member_client.get(reverse("site:home"))
    assert response.status_code == 302
    assert response.url == url("recording:club_home", club)


def test_home_lists_the_users_clubs_only(club, other_club):
    make_club("third", name="三番目の会")
    user = make_user("both", club)
    Membership.objects.create(user=user, club=other_club)
    client = Client()
    client.force_login(user)
    response = client.get(reverse("site:home"))
    assert response.status_code == 200
    assert "マメの会" in text(response) and "金曜会" in text(response)
    assert "三番目の会" not in text(response)


def test_home_for_a_superuser_lists_every_club(club, other_club):
    admin = get_user_model().objects.create_superuser("admin", password="x" * 12)
    client = Client()
    client.force_login(admin)
    response = client.get(reverse("site:home"))
    assert response.status_code == 200
    assert "マメの会" in text(response) and "金曜会" in text(response)


def test_home_without_a_club_says_so(db):
    client = english(Client())
    client.force_login(make_user("lonely"))
    response = client.get(reverse("site:home"))
    assert response.status_code == 200
    assert "do not belong to any club" in text(response)


def test_home_refuses_post(member_client):
    assert member_client.post(reverse("site:home")).status_code == 405


def other_club_game(other_club) -> Game:
    """A game of 金曜会 (no rate) on the same date."""
    players = [Member.objects.create(club=other_club, name=f"他{i}") for i in range(4)]
    return record(other_club, None, players, points=(40000, 30000, 20000, 9000), rate="")


# --- permissions -----------------------------------------------------------------------------


@pytest.fixture
def game(club, organiser, members) -> Game:
    return record(club, organiser, members[:4])


def club_urls(club, game) -> list[str]:
    return [
        url("recording:club_home", club),
        url("recording:day_detail", club, DATE),
        url("recording:game_detail", club, game.pk),
    ]


@pytest.mark.parametrize("who", ["organiser_client", "member_client"])
def test_club_pages_open_to_members_and_organisers(request, who, club, game):
    client = request.getfixturevalue(who)
    for page in club_urls(club, game):
        assert client.get(page).status_code == 200, page


def test_club_pages_are_404_for_a_stranger(stranger_client, club, game):
    for page in club_urls(club, game):
        assert stranger_client.get(page).status_code == 404, page


def test_club_pages_are_404_when_logged_out(client, club, game):
    for page in club_urls(club, game):
        assert client.get(page).status_code == 404, page


def test_club_pages_refuse_post(organiser_client, club, game):
    for page in club_urls(club, game):
        assert organiser_client.post(page).status_code == 405, page


def test_login_page_renders_and_reports_a_bad_password(client, organiser):
    english(client)
    response = client.get(reverse("accounts:login"))
    assert response.status_code == 200
    assert 'name="username"' in text(response) and 'name="password"' in text(response)
    response = client.post(
        reverse("accounts:login"), {"username": "organiser", "password": "wrong"}
    )
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert 'class="errorlist"' in text(response)


# --- club home -------------------------------------------------------------------------------


def test_club_home_shows_recent_games_with_scores(member_client, club, game):
    response = member_client.get(url("recording:club_home", club))
    page = text(response)
    assert "マメの会" in page
    assert url("recording:game_detail", club, game.pk) in page
    for name, shown in [("青木", "+79.0"), ("馬場", "▲9.0"), ("千葉", "▲21.0"), ("土井", "▲50.0")]:
        assert re.search(rf"{name} <span class=\"[a-z]*\">{re.escape(shown)}</span>", page), name
    assert url("club:member_list", club) in page
    assert url("club:season_list", club) in page
    assert url("rules:rules_list", club) in page
    assert url("recording:day_detail", club, DATE) in page


def test_club_home_in_english_writes_minus_signs(member_client, club, game):
    page = text(english(member_client).get(url("recording:club_home", club)))
    assert "+79.0" in page and "-50.0" in page and "▲" not in page


def test_club_home_record_button_only_for_organisers(organiser_client, member_client, club):
    new_game = url("recording:game_new", club)
    assert new_game in text(organiser_client.get(url("recording:club_home", club)))
    assert new_game not in text(member_client.get(url("recording:club_home", club)))


def test_club_home_links_todays_day_in_tokyo(member_client, club, organiser, members):
    today = timezone.localdate(timezone=ZoneInfo("Asia/Tokyo"))
    response = member_client.get(url("recording:club_home", club))
    assert response.context["today_day"] is None
    record(club, organiser, members[:4], date=today)
    response = member_client.get(url("recording:club_home", club))
    assert response.context["today_day"].date == today
    assert url("recording:day_detail", club, today) in text(response)


def test_club_home_lists_the_last_ten_games_newest_first(member_client, club, organiser, members):
    games = [
        record(club, organiser, members[:4], date=DATE + datetime.timedelta(days=i // 3))
        for i in range(12)
    ]
    shown = member_client.get(url("recording:club_home", club)).context["recent_games"]
    assert [g.pk for g in shown] == [g.pk for g in reversed(games)][:10]


def test_club_home_strikes_through_a_voided_game(member_client, club, organiser, game):
    services.game_void(game=game, user=organiser, reason="miscount")
    page = text(english(member_client).get(url("recording:club_home", club)))
    line = re.search(
        rf'<li>\s*<a href="{url("recording:game_detail", club, game.pk)}" class="void">', page
    )
    assert line is not None
    assert '<span class="badge">void</span>' in page


def test_club_home_shows_only_its_own_games(member_client, club, other_club, game):
    theirs = other_club_game(other_club)
    page = text(member_client.get(url("recording:club_home", club)))
    assert "他0" not in page
    assert reverse("recording:game_detail", args=[other_club.slug, theirs.pk]) not in page


# --- day -------------------------------------------------------------------------------------


def test_day_detail_is_404_without_a_day(member_client, club, game):
    response = member_client.get(
        url("recording:day_detail", club, DATE + datetime.timedelta(days=1))
    )
    assert response.status_code == 404


def test_day_detail_is_404_for_another_clubs_day(member_client, club, other_club):
    Day.objects.create(club=other_club, date=DATE)
    assert member_client.get(url("recording:day_detail", club, DATE)).status_code == 404


def test_day_detail_shows_each_settled_table(member_client, club, organiser, members):
    first = record(club, organiser, members[:4])
    second = record(
        club,
        organiser,
        members[1:5],
        points=(20000, 30000, 40000, 9000),
        chombo_seat=None,
        table="B",
        chips=[services.ChipInput("ippatsu", members[3])],
    )
    page = text(member_client.get(url("recording:day_detail", club, DATE)))
    assert url("recording:game_detail", club, first.pk) in page
    assert url("recording:game_detail", club, second.pk) in page
    for cell in ["52,000", "▲3,000", "+79.0", "▲50.0", "2,370", "▲1,500"]:
        assert cell in page
    assert page.index("第1半荘") < page.index("第2半荘")
    assert 'class="badge chombo"' in page
    assert '<td class="num score plus">+79.0</td>' in page
    assert '<td class="num score minus">▲50.0</td>' in page


def test_day_totals_match_the_counted_results(member_client, club, organiser, members):
    record(club, organiser, members[:4])
    record(club, organiser, members[1:5], points=(20000, 30000, 40000, 9000), chombo_seat=None)
    record(club, organiser, [members[4], members[0], members[2], members[1]], rate="")
    response = member_client.get(url("recording:day_detail", club, DATE))
    expected = {
        row["member__name"]: row
        for row in Result.objects.filter(game__day__date=DATE, counted=True)
        .values("member__name")
        .annotate(games=Count("id"), score=Sum("score"), chips=Sum("chips"), yen=Sum("yen"))
    }
    ledger = {row["name"]: row for row in response.context["ledger"]}
    assert set(ledger) == set(expected) == {m.name for m in members}
    for name, row in ledger.items():
        want = expected[name]
        assert (row["games"], row["score"], row["chips"], row["yen"]) == (
            want["games"],
            want["score"],
            want["chips"],
            want["yen"],
        )
    assert ledger["青木"]["games"] == 2
    assert ledger["青木"]["score"] == 790 - 90  # +79.0 as top, then ▲9.0 as 2nd with a chombo
    assert sum(row["score"] for row in ledger.values()) == -30  # deposits to the house
    scores = [row["score"] for row in response.context["ledger"]]
    assert scores == sorted(scores, reverse=True)


def test_day_totals_leave_out_voided_games_and_old_revisions(
    member_client, club, organiser, members
):
    kept = record(club, organiser, members[:4])
    voided = record(club, organiser, members[1:5], chombo_seat=None)
    services.game_void(game=voided, user=organiser, reason="wrong table")
    services.game_edit(
        game=kept,
        user=organiser,
        data=game_input(players=members[:4], points=(40000, 31000, 19000, 9000)),
    )
    response = english(member_client).get(url("recording:day_detail", club, DATE))
    ledger = {row["name"]: row for row in response.context["ledger"]}
    assert set(ledger) == {"青木", "馬場", "千葉", "土井"}
    assert all(row["games"] == 1 for row in ledger.values())
    current = {r.member.name: r.score for r in Result.objects.filter(game=kept, revision=2)}
    assert {name: row["score"] for name, row in ledger.items()} == current
    page = text(response)
    assert 'class="settled void"' in page
    assert "wrong table" in page


def test_day_detail_offers_recording_to_organisers_only(
    organiser_client, member_client, club, game
):
    link = f"{url('recording:game_new', club)}?date=2026-11-21"
    assert link in text(organiser_client.get(url("recording:day_detail", club, DATE)))
    assert link not in text(member_client.get(url("recording:day_detail", club, DATE)))


def test_day_detail_without_money_has_no_yen_column(member_client, club, organiser, members):
    record(club, organiser, members[:4], rate="")
    response = english(member_client).get(url("recording:day_detail", club, DATE))
    assert response.context["ledger_has_yen"] is False
    assert ">Yen<" not in text(response)


# --- game ------------------------------------------------------------------------------------


def test_game_detail_is_404_for_another_clubs_game(member_client, club, other_club):
    theirs = other_club_game(other_club)
    assert member_client.get(url("recording:game_detail", club, theirs.pk)).status_code == 404
    assert member_client.get(url("recording:game_detail", club, 999999)).status_code == 404


def test_game_detail_shows_table_rules_recorder_and_chips(member_client, club, organiser, members):
    game = record(
        club,
        organiser,
        members[:4],
        chips=[
            services.ChipInput("ippatsu", members[0]),
            services.ChipInput("yakuman", members[2], members[3], 2),
        ],
    )
    response = english(member_client).get(url("recording:game_detail", club, game.pk))
    page = text(response)
    assert "+79.0" in page and "-50.0" in page
    assert "Mame no Kai" in page and "mame-no-kai" not in page and "2020/01/01" in page
    assert "organiser" in page
    recorded = timezone.localtime(game.recorded_at, ZoneInfo("Asia/Tokyo"))
    assert recorded.strftime("%Y/%m/%d %H:%M") in page
    assert "千葉 ← 土井 ×2" in page
    assert "青木 ← tsumo" in page
    assert response.context["game"].has_chips


def test_game_detail_history_lists_create_edit_void_with_the_user(
    organiser_client, club, organiser, members
):
    game = record(club, organiser, members[:4])
    services.game_edit(
        game=game,
        user=organiser,
        data=game_input(players=members[:4], points=(52000, 29000, 21000, -3000)),
    )
    services.game_void(game=Game.objects.get(pk=game.pk), user=organiser, reason="double entry")
    response = english(organiser_client).get(url("recording:game_detail", club, game.pk))
    page = text(response)
    history = response.context["history"]
    assert [e.action for e in history] == ["game.create", "game.edit", "game.void"]
    assert [str(e.label) for e in history] == ["created", "edited", "voided"]
    assert all(e.actor == organiser for e in history)
    edit = history[1]
    assert [p.name for p in edit.players] == ["馬場", "千葉"]
    baba = edit.players[0]
    assert (baba.points_before, baba.points_after) == (31000, 29000)
    assert (baba.score_before, baba.score_after) == (-90, -110)
    assert "31,000 → 29,000" in page and "-9.0 → " in page and "-11.0" in page
    assert "double entry" in page
    for label in ["created", "edited", "voided"]:
        assert f"<strong>{label}</strong>" in page
    assert page.count("organiser · ") >= 3


def test_game_history_reports_changed_table_rate_and_deposits(club, organiser, members):
    game = record(club, organiser, members[:4])
    data = game_input(players=members[:4], rate="0.5", table="C")
    services.game_edit(game=game, user=organiser, data=data)
    edit = selectors.game_history(game=game)[1]
    assert {c.field: (c.before, c.after) for c in edit.fields} == {
        "table": ("A", "C"),
        "rate": ("0.3", "0.5"),
    }
    assert edit.players == []  # same points and scores; only yen moved


def test_game_detail_edit_and_void_links(organiser_client, member_client, club, organiser, game):
    links = [url("recording:game_edit", club, game.pk), url("recording:game_void", club, game.pk)]
    page = text(organiser_client.get(url("recording:game_detail", club, game.pk)))
    assert all(link in page for link in links)
    page = text(member_client.get(url("recording:game_detail", club, game.pk)))
    assert not any(link in page for link in links)
    services.game_void(game=game, user=organiser, reason="test")
    page = text(organiser_client.get(url("recording:game_detail", club, game.pk)))
    assert not any(link in page for link in links)
    assert 'class="settled void"' in page


# --- query counts ----------------------------------------------------------------------------


def seat_members(club, count: int) -> list[Member]:
    return [Member.objects.create(club=club, name=f"打ち手{i:02}") for i in range(count)]


def fill_day(club, organiser, players: list[Member], games: int) -> Game:
    """`games` games on DATE rotating through `players`, one of them voided, one edited."""
    last = None
    for n in range(games):
        table = [players[(n + k) % len(players)] for k in range(4)]
        last = record(club, organiser, table, table=str(n % 3))
    assert last is not None
    if games > 1:
        first = Game.objects.filter(day__date=DATE).order_by("number").first()
        services.game_void(game=first, user=organiser, reason="test")
    services.game_edit(
        game=last,
        user=organiser,
        data=game_input(players=[players[k] for k in range(4)], chombo_seat=None),
    )
    return last


# session + user, the club with the role, then the page's own reads.
# game_detail: 9 with the hands of a game recorded hand by hand (league.table; one query
# for any game, a second only for a game with hands). club_home: 9 with the seasons running
# today (league.teams.selectors.running_seasons). day_detail, as the organiser: its tables'
# latest games (the next-game buttons) in a query of their own, apart from the games shared
# with the members (league.access.shared_part).
QUERIES = {"club_home": 8, "day_detail": 9, "game_detail": 8}


@pytest.mark.parametrize(("games", "players"), [(1, 5), (20, 12)])
def test_query_counts_do_not_grow(
    organiser_client, club, organiser, games, players, django_assert_num_queries
):
    last = fill_day(club, organiser, seat_members(club, players), games)
    pages = {
        "club_home": url("recording:club_home", club),
        "day_detail": url("recording:day_detail", club, DATE),
        "game_detail": url("recording:game_detail", club, last.pk),
    }
    for name, page in pages.items():
        with django_assert_num_queries(QUERIES[name]):
            assert organiser_client.get(page).status_code == 200


def test_a_logged_out_visitor_is_offered_to_log_in_and_come_back(client, club):
    """A member taps a club link from LINE while logged out: still a 404 (a club's existence
    does not leak, and a made-up club gets the same page), with a way to log in and come back."""
    client.cookies["django_language"] = "ja"
    for address in (f"/c/{club.slug}/me/", "/c/no-such-club/me/"):
        response = client.get(address)
        assert response.status_code == 404
        page = response.content.decode()
        assert f'href="/accounts/login/?next={address}"' in page
        assert "ログインするとこのページに戻ります" in page


def test_every_page_names_the_favicon_and_favicon_ico_leads_to_it(client, member_client, club):
    from django.contrib.staticfiles import finders

    login = client.get(reverse("accounts:login")).content.decode()
    home = member_client.get(reverse("recording:club_home", args=[club.slug])).content.decode()
    for page in (login, home):
        found = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', page)
        assert found and found.group(1).endswith("league/favicon.svg")
    response = client.get("/favicon.ico")  # logged out: browsers ask before anything else
    assert response.status_code == 302 and response["Location"].endswith("league/favicon.svg")
    assert finders.find("league/favicon.svg")


def test_a_game_is_named_as_every_page_names_it_in_japanese(
    organiser_client, club, organiser, members
):
    """The records page and a player's page wrote 「2026/11/21 #1」 where every other page says
    「第1半荘」 (found by a phone walkthrough)."""
    record(club, organiser, members[:4])
    pages = [
        reverse("standings:records", args=[club.slug]),
        reverse("standings:player_detail", args=[club.slug, members[0].pk]),
    ]
    for address in pages:
        page = text(organiser_client.get(address))
        assert "2026/11/21 第1半荘" in page, address
        assert "#1<" not in page, address
