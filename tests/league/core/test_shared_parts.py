"""The parts of a page that a club's members share (league.access.shared_part): a season's table
and a day's games are rendered once and kept in Django's cache under the club's data version, so
a second member's first view reads none of their queries; any write in the club gives a new
part, a write in another club does not; the part depends on the role and the language, and keeps
nothing of the query but what it reads."""

from __future__ import annotations

import datetime
import re

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from league.models import Member, Season
from tests.support.clubs import client_for, make_club, make_user
from tests.support.pages import DATE, record


@pytest.fixture
def season(club):
    return Season.objects.create(
        club=club, name="2026秋", start=datetime.date(2026, 9, 1), end=datetime.date(2026, 11, 30)
    )


@pytest.fixture
def played(club, organiser, members, season):
    record(club, organiser, members[:4])


@pytest.fixture
def second_client(club) -> Client:
    return client_for(make_user("second", club))


def pages(club, season) -> dict[str, str]:
    return {
        "season": reverse("standings:season_standings", args=[club.slug, season.pk]),
        "day": reverse("recording:day_detail", args=[club.slug, DATE]),
        "ledger": reverse("money:day_ledger", args=[club.slug, DATE]),
    }


def queries_of(client: Client, address: str, django_assert_max_num_queries) -> tuple[int, str]:
    with django_assert_max_num_queries(50) as captured:
        response = client.get(address)
    assert response.status_code == 200
    return len(captured.captured_queries), response.content.decode()


# The part's own queries, left out when it comes from the cache: the season's rules and table
# (the rules versions, the table's rows); the day's games, their results, chips and totals; the
# day's ledger (its rules, games, entries and the book's parts and transfers).
SAVED = {"season": 2, "day": 4, "ledger": 9}


def user_read() -> int:
    """The user's row: read from the database on a browser's first page, and from the shared
    cache after it where there is one (league.accounts.backends)."""
    return int(settings.CACHE_SHARED)


@pytest.mark.parametrize("page", sorted(SAVED))
def test_a_second_member_reads_the_part_from_the_cache(
    club, season, played, member_client, second_client, page, django_assert_max_num_queries
):
    address = pages(club, season)[page]
    first, _ = queries_of(member_client, address, django_assert_max_num_queries)
    second, again = queries_of(second_client, address, django_assert_max_num_queries)
    assert second == first - SAVED[page]
    assert "青木" in again  # the table or the games, as the first member saw them
    # With the cache emptied, the second member's page renders the part again (and, where the
    # sessions are kept in a shared cache, reads its session from the database once).
    cache.clear()
    third, _ = queries_of(second_client, address, django_assert_max_num_queries)
    assert third == first + settings.CACHE_SHARED


@pytest.mark.parametrize("page", sorted(SAVED))
def test_a_game_in_the_club_gives_a_new_part_one_in_another_club_does_not(
    club,
    season,
    organiser,
    members,
    played,
    member_client,
    second_client,
    page,
    django_assert_max_num_queries,
):
    address = pages(club, season)[page]
    first, _ = queries_of(member_client, address, django_assert_max_num_queries)
    other_club = make_club("other")
    others = [Member.objects.create(club=other_club, name=f"他{n}") for n in range(4)]
    record(other_club, make_user("other-organiser", other_club, "organiser"), others)
    kept, _ = queries_of(second_client, address, django_assert_max_num_queries)
    assert kept == first - SAVED[page]
    # A game in the club: 江藤 plays for the first time, and the part shows it at once.
    record(club, organiser, [members[4], *members[1:4]])
    fresh, html = queries_of(second_client, address, django_assert_max_num_queries)
    assert fresh == first - user_read() and "江藤" in html


def test_an_organiser_and_a_member_each_get_their_own_part(
    club, season, played, organiser_client, member_client
):
    address = pages(club, season)["season"]
    teams = reverse("teams:season_teams", args=[club.slug, season.pk])
    assert teams in organiser_client.get(address).content.decode()
    assert teams not in member_client.get(address).content.decode()
    assert teams in organiser_client.get(address).content.decode()


def test_the_language_is_part_of_the_key(club, season, played, member_client, second_client):
    address = pages(club, season)["day"]
    assert "<h2>対局</h2>" in member_client.get(address).content.decode()
    english = second_client.get(address, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<h2>Games</h2>" in english and "対局" not in english


def test_the_part_keeps_no_query_parameter_it_does_not_read(
    club, season, played, member_client, second_client, django_assert_max_num_queries
):
    address = pages(club, season)["season"]
    first, html = queries_of(
        member_client, address + "?sort=-total&fresh=secret123", django_assert_max_num_queries
    )
    # The table's links (its columns' order, the filter's "clear") keep the order and no more.
    assert 'href="?sort=' in html and not re.search(r'href="[^"]*secret123', html)
    second, html = queries_of(
        second_client, address + "?sort=-total", django_assert_max_num_queries
    )
    assert second == first - SAVED["season"] and "secret123" not in html
    # Another order is another part.
    third, _ = queries_of(second_client, address + "?sort=total", django_assert_max_num_queries)
    assert third == first - user_read()


def test_a_logout_ends_the_session_everywhere(club, season, member_user):
    """Two browsers (or two app servers) holding one session: a logout through one ends it for
    the other, whether the sessions are in the database or in the shared cache (cached_db). A
    cache of each process's own would have kept it: the settings keep sessions there only when
    the cache is shared."""
    here = client_for(member_user)
    there = Client()
    there.cookies = here.cookies
    address = pages(club, season)["season"]
    assert there.get(address).status_code == 200
    assert here.post(reverse("accounts:logout")).status_code == 200  # "logged out"
    assert there.get(address).status_code == 404  # a stranger: the club's existence does not leak


def test_an_organisers_ledger_is_never_shared(
    club, season, played, organiser_client, member_client, django_assert_max_num_queries
):
    """The organiser's ledger has forms (their CSRF token, their undo): it is rendered for them
    each time and kept for nobody; a member's has none, and is kept for the members."""
    address = pages(club, season)["ledger"]
    settle = reverse("money:transfer_settle", args=[club.slug, DATE])
    first, _ = queries_of(organiser_client, address, django_assert_max_num_queries)
    again, html = queries_of(organiser_client, address, django_assert_max_num_queries)
    assert again == first - user_read() and settle in html
    _, html = queries_of(member_client, address, django_assert_max_num_queries)
    assert settle not in html and "青木" in html
    assert settle in organiser_client.get(address).content.decode()


class Unreachable:
    """A cache that never answers, as Redis when it is down."""

    def get(self, *args, **kwargs):
        raise ConnectionError("the cache is down")

    set = get


def test_a_cache_that_does_not_answer_renders_the_part(
    club, season, played, member_client, monkeypatch, caplog
):
    from league import access

    monkeypatch.setattr(access, "cache", Unreachable())
    for address in pages(club, season).values():
        response = member_client.get(address)
        assert response.status_code == 200 and "青木" in response.content.decode()
    assert "the cache did not answer" in caplog.text
