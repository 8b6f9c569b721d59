"""A club's public share link (league.public): off by default, turned on, rotated, turned off and
allowed money by organisers (each change audited); read-only pages under s/<token>/ that link
nowhere into the club's own pages and show money only when the club allows it."""

from __future__ import annotations

import datetime
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from league import money
from league.models import AuditLog, Club, Member, MemberDay, Result, Season
from league.public import services as share
from tests.support.clubs import make_club
from tests.support.games import record_game
from tests.support.isolation import (
    ATTRIBUTE,
    CLUB_PREFIX,
    NOT_CLUB_SCOPED,
    SCRIPT,
    named_routes,
    populate,
)
from tests.support.seasons import make_season

PUBLIC_ROUTES = [
    "public:public_standings",
    "public:public_season",
    "public:public_race",
    "public:public_days",
    "public:public_day",
]
PUBLIC_ROUTES += ["public:public_season_matrix", "public:public_rating", "public:public_records"]
OTHER_DATE = datetime.date(2026, 10, 3)  # a day only the other club played


# --- helpers ---------------------------------------------------------------------------------


class Page(HTMLParser):
    """Every link, form action and standings row of a page."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.links: list[str] = []
        self.forms: list[str | None] = []
        self.rows: list[list[str]] = []
        self.meta: dict[str, str] = {}
        self._in_standings = False
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in ("a", "link") and a.get("href") is not None:
            self.links.append(a["href"] or "")
        if tag == "form":
            self.forms.append(a.get("action"))
        if tag == "meta" and a.get("name"):
            self.meta[a["name"] or ""] = a.get("content") or ""
        if tag == "table" and "standings" in (a.get("class") or "").split():
            self._in_standings = True
        if self._in_standings and tag == "tr":
            self._row = []
        if self._row is not None and tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in_standings = False
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        if tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def settings_url(club: Club) -> str:
    return reverse("public:share_settings", args=[club.slug])


def act(client: Client, club: Club, action: str) -> Club:
    response = client.post(settings_url(club), {"action": action})
    assert response.status_code == 302, response.status_code
    club.refresh_from_db()
    return club


def public_urls(token: str, values: dict[str, Any]) -> list[str]:
    return [
        reverse("public:public_standings", args=[token]),
        reverse("public:public_season", args=[token, values["season_id"]]),
        reverse("public:public_race", args=[token, values["season_id"]]),
        reverse("public:public_days", args=[token]),
        reverse("public:public_day", args=[token, values["date"]]),
        reverse("public:public_season_matrix", args=[token, values["season_id"]]),
        reverse("public:public_rating", args=[token]),
        reverse("public:public_records", args=[token]),
    ]


def html(response) -> str:
    return response.content.decode()


def known_yen(club: Club) -> set[int]:
    """Every yen amount of the club that a page could show: each player's yen in each game, each
    day total, each payment; those of four digits or more (unmistakable for another number)."""
    amounts = set(Result.objects.filter(game__club=club).values_list("yen", flat=True))
    amounts |= set(MemberDay.objects.filter(club=club).values_list("yen", flat=True))
    for day in club.days.all():
        amounts |= {t.yen for t in money.day_ledger(day=day).transfers}
    return {abs(a) for a in amounts if a is not None and abs(a) >= 1000}


def yen_text(amount: int) -> str:
    return f"{amount:,}"


@pytest.fixture
def values(club, organiser, members) -> dict[str, Any]:
    return populate(club, organiser, members[:4])


@pytest.fixture
def on(organiser_client, club, values) -> str:
    """The link turned on by the organiser: its token."""
    return act(organiser_client, club, "enable").share_token


@pytest.fixture
def other(other_club, stranger) -> dict[str, Any]:
    """The other club: a game on a day of its own, a season, and its own share link on."""
    players = [Member.objects.create(club=other_club, name=f"余所者{i}") for i in range(4)]
    record_game(
        other_club, stranger, players, (40000, 30000, 20000, 10000), date=OTHER_DATE, rate=""
    )
    season = make_season(
        club=other_club,
        name="余所の季",
        start=datetime.date(2026, 1, 1),
        end=datetime.date(2026, 12, 31),
    )
    share.share_enable(club=other_club, user=stranger)
    return {"season": season, "players": players, "token": other_club.share_token}


# --- off by default, on, rotate, off -----------------------------------------------------------


def test_the_link_is_off_by_default(club, values, client):
    assert club.share_token == ""
    assert not club.share_money
    for token in ["x", "a" * 43, "a" * 65, share.new_token()]:
        for address in public_urls(token, values):
            assert client.get(address).status_code == 404, address
    assert share.club_by_token("") is None


def test_an_empty_token_never_matches_a_club_whose_link_is_off(club, values):
    assert share.club_by_token("") is None
    assert Club.objects.filter(share_token="").exists()  # the clubs with the link off


def test_turning_the_link_on_opens_every_public_page_and_is_audited(
    organiser_client, organiser, club, values, client
):
    token = act(organiser_client, club, "enable").share_token
    assert len(token) >= 43 and re.fullmatch(r"[A-Za-z0-9_-]+", token)
    for address in public_urls(token, values):
        response = client.get(address)
        assert response.status_code == 200, address
        assert club.name in html(response)
    log = AuditLog.objects.get(club=club, action="share.enable")
    assert log.actor == organiser
    assert log.before == {"enabled": False} and log.after == {"enabled": True}
    assert token not in str(log.before) + str(log.after)  # the log does not leak the link


def test_turning_it_on_twice_keeps_the_link(organiser_client, club, on):
    assert act(organiser_client, club, "enable").share_token == on
    assert AuditLog.objects.filter(club=club, action="share.enable").count() == 1


def test_two_clubs_get_different_unguessable_tokens(club, other, on):
    assert on != other["token"]
    assert len({share.new_token() for _ in range(50)}) == 50


def test_rotating_makes_the_old_link_404_and_the_new_one_work(
    organiser_client, club, values, on, client
):
    new = act(organiser_client, club, "rotate").share_token
    assert new and new != on
    for old, current in zip(public_urls(on, values), public_urls(new, values), strict=True):
        assert client.get(old).status_code == 404, old
        assert client.get(current).status_code == 200, current
    assert AuditLog.objects.filter(club=club, action="share.rotate").count() == 1


def test_turning_it_off_makes_every_page_404(organiser_client, club, values, on, client):
    assert act(organiser_client, club, "disable").share_token == ""
    for address in public_urls(on, values):
        assert client.get(address).status_code == 404, address
    log = AuditLog.objects.get(club=club, action="share.disable")
    assert log.before == {"enabled": True} and log.after == {"enabled": False}
    # On again: a new link, the one turned off stays dead.
    again = act(organiser_client, club, "enable").share_token
    assert again != on
    assert client.get(reverse("public:public_standings", args=[on])).status_code == 404
    assert client.get(reverse("public:public_standings", args=[again])).status_code == 200


def test_money_on_and_off_is_audited(organiser_client, organiser, club, on):
    assert act(organiser_client, club, "money_on").share_money
    assert not act(organiser_client, club, "money_off").share_money
    logs = list(AuditLog.objects.filter(club=club, action="share.money").order_by("id"))
    assert [log.after for log in logs] == [{"share_money": True}, {"share_money": False}]
    assert all(log.actor == organiser for log in logs)


def test_an_unknown_action_is_refused_and_changes_nothing(organiser_client, club, values):
    before = AuditLog.objects.count()
    response = organiser_client.post(settings_url(club), {"action": "drop"})
    assert response.status_code == 400
    club.refresh_from_db()
    assert club.share_token == "" and AuditLog.objects.count() == before


# --- the settings page -------------------------------------------------------------------------


def test_the_settings_page_shows_the_full_link_with_a_copy_button(organiser_client, club, values):
    page = html(organiser_client.get(settings_url(club)))
    assert 'value="enable"' in page and "data-copy" not in page
    token = act(organiser_client, club, "enable").share_token
    page = html(organiser_client.get(settings_url(club)))
    assert f'value="http://testserver/s/{token}/"' in page
    assert "data-copy" in page and "league/share.js" in page
    assert 'value="rotate"' in page and 'value="disable"' in page and 'value="money_on"' in page
    assert "<script>" not in page  # strict CSP: the script is a file


def test_the_club_home_links_organisers_to_the_settings(organiser_client, member_client, club):
    assert settings_url(club) in html(
        organiser_client.get(reverse("recording:club_home", args=[club.slug]))
    )
    assert settings_url(club) not in html(
        member_client.get(reverse("recording:club_home", args=[club.slug]))
    )


def test_only_organisers_reach_the_settings(member_client, stranger_client, client, club, values):
    assert member_client.get(settings_url(club)).status_code == 403
    assert member_client.post(settings_url(club), {"action": "enable"}).status_code == 403
    for visitor in (stranger_client, client):
        assert visitor.get(settings_url(club)).status_code == 404
        assert visitor.post(settings_url(club), {"action": "enable"}).status_code == 404
    club.refresh_from_db()
    assert club.share_token == ""
    assert not AuditLog.objects.filter(action__startswith="share.").exists()


# --- what the public pages show ----------------------------------------------------------------


def _plain_season(club) -> int:
    """A season without stages over the games (populate's season is an event: its page ranks
    as its stage does, test_competitions), for comparing the standings tables."""
    return make_season(
        club=club, name="通年", start=datetime.date(2026, 1, 1), end=datetime.date(2026, 12, 31)
    ).pk


def test_the_public_standings_equal_the_clubs(organiser_client, club, values, on, client):
    act(organiser_client, club, "money_on")  # every column, as on the club's page
    season_id = _plain_season(club)
    club_page = Page(
        html(
            organiser_client.get(reverse("standings:season_standings", args=[club.slug, season_id]))
        )
    )
    assert len(club_page.rows) == 5  # the header and four players
    for address in (
        reverse("public:public_standings", args=[on]),
        reverse("public:public_season", args=[on, season_id]),
    ):
        assert Page(html(client.get(address))).rows == club_page.rows, address


def test_without_money_the_standings_are_the_same_but_for_the_yen(
    organiser_client, club, values, on, client
):
    club_rows = Page(
        html(
            organiser_client.get(
                reverse("standings:season_standings", args=[club.slug, _plain_season(club)])
            )
        )
    ).rows
    yen_column = club_rows[0].index("収支")  # "Yen" in Japanese
    expected = [row[:yen_column] + row[yen_column + 1 :] for row in club_rows]
    assert Page(html(client.get(reverse("public:public_standings", args=[on])))).rows == expected


def test_without_money_no_yen_appears_anywhere(club, values, on, client):
    amounts = known_yen(club)
    assert len(amounts) >= 4
    for address in public_urls(on, values):
        page = html(client.get(address))
        assert "円" not in page and "収支" not in page, address  # "Yen" is 収支 in Japanese
        for amount in amounts:
            assert yen_text(amount) not in page, (address, amount)
        assert "レート" not in page, address


def test_with_money_the_yen_and_the_days_payments_show(organiser_client, club, values, on, client):
    act(organiser_client, club, "money_on")
    standings = html(client.get(reverse("public:public_standings", args=[on])))
    day = html(client.get(reverse("public:public_day", args=[on, values["date"]])))
    totals = MemberDay.objects.filter(club=club).values_list("yen", flat=True)
    for amount in totals:
        assert yen_text(abs(amount)) in standings and yen_text(abs(amount)) in day
    for result in Result.objects.filter(game__club=club, counted=True):
        assert yen_text(abs(result.yen)) in day
    transfers = money.day_ledger(day=club.days.get()).transfers
    assert transfers
    for t in transfers:
        assert yen_text(t.yen) in day
    assert "支払い" in day or "精算" in day


def test_the_day_shows_each_game_with_players_ranks_and_scores(club, values, on, client):
    page = html(client.get(reverse("public:public_day", args=[on, values["date"]])))
    for result in Result.objects.filter(game__club=club, counted=True).select_related("member"):
        assert result.member.name in page
    # Scores as the club's pages write them: +45.3 / ▲12.3.
    from league.core.format import score

    for tenths in Result.objects.filter(game__club=club, counted=True).values_list(
        "score", flat=True
    ):
        assert score(tenths) in page
    assert page.count('class="card game"') == 2


def test_the_days_list_links_to_the_public_day(club, values, on, client):
    page = Page(html(client.get(reverse("public:public_days", args=[on]))))
    assert reverse("public:public_day", args=[on, values["date"]]) in page.links


def test_the_race_names_every_player_without_links(club, values, members, on, client):
    page = html(client.get(reverse("public:public_race", args=[on, values["season_id"]])))
    for member in members[:4]:
        assert member.name in page
    assert "<svg" in page


VISITORS = ["anonymous", "stranger", "member", "organiser"]


@pytest.fixture
def visitor(request, client, stranger_client, member_client, organiser_client) -> Client:
    return {
        "anonymous": client,
        "stranger": stranger_client,
        "member": member_client,
        "organiser": organiser_client,
    }[request.param]


@pytest.mark.parametrize("visitor", VISITORS, indirect=True)
@pytest.mark.parametrize("with_money", [False, True])
def test_no_public_page_links_into_a_club_or_to_an_action(
    organiser_client, club, values, on, visitor, with_money
):
    """Whoever looks (logged out, logged in to another club or to this one), the page has no
    link into /c/, to an account page or to the admin, and no form but the language switch."""
    if with_money:
        act(organiser_client, club, "money_on")
    allowed_forms = {reverse("i18n:set_language")}
    for address in public_urls(on, values):
        response = visitor.get(address)
        assert response.status_code == 200
        page = Page(html(response))
        assert page.links, address
        for link in page.links:
            assert link.startswith((f"/s/{on}/", "?", "/static/")), (address, link)
            # The token is random letters: look only at what follows it.
            rest = link.removeprefix(f"/s/{on}/")
            assert "/c/" not in rest and "edit" not in rest and "/new" not in rest
        assert set(page.forms) <= allowed_forms, (address, page.forms)
        text = html(response)
        assert "/c/" not in text and "/accounts/" not in text and "/admin/" not in text
        assert "statement" not in text
        assert 'method="post"' not in text.replace(
            f'<form action="{reverse("i18n:set_language")}" method="post"', ""
        )


def test_the_pages_are_not_indexed_cached_or_leaking_the_token(client, values, on):
    for address in [*public_urls(on, values), reverse("public:public_standings", args=["wrong"])]:
        response = client.get(address)
        assert response.headers["X-Robots-Tag"].startswith("noindex"), address
        assert response.headers["Referrer-Policy"] == "same-origin", address
        cache = response.headers["Cache-Control"]
        assert "no-store" in cache and "private" in cache, address
        page = Page(html(response))
        assert page.meta["robots"].startswith("noindex") and page.meta["referrer"] == "same-origin"


def test_the_public_pages_only_read(client, values, on):
    for address in public_urls(on, values):
        assert client.post(address).status_code == 405, address


# --- another club's data never shows -------------------------------------------------------------


def test_another_clubs_days_and_seasons_are_404_under_this_token(client, values, on, other):
    assert client.get(reverse("public:public_day", args=[on, OTHER_DATE])).status_code == 404
    for name in ("public:public_season", "public:public_race", "public:public_season_matrix"):
        assert client.get(reverse(name, args=[on, other["season"].pk])).status_code == 404
        # Under the other club's own token it is there.
        theirs = reverse(name, args=[other["token"], other["season"].pk])
        assert client.get(theirs).status_code == 200, name
    # Under the other club's own token they are there.
    assert (
        client.get(reverse("public:public_day", args=[other["token"], OTHER_DATE])).status_code
        == 200
    )


def test_no_public_page_shows_another_clubs_names(client, values, on, other):
    for address in public_urls(on, values):
        page = html(client.get(address))
        assert "余所者" not in page and "余所の季" not in page and "金曜会" not in page, address
    page = html(client.get(reverse("public:public_standings", args=[other["token"]])))
    assert "余所者0" in page and "青木" not in page and "マメの会" not in page


def test_the_other_clubs_token_opens_only_the_other_club(client, values, on, other):
    assert (
        client.get(reverse("public:public_day", args=[other["token"], values["date"]])).status_code
        == 404
    )
    assert (
        client.get(
            reverse("public:public_season", args=[other["token"], values["season_id"]])
        ).status_code
        == 404
    )


# --- hostile names -------------------------------------------------------------------------------


def test_hostile_club_and_member_names_are_escaped(organiser, client):

    club = make_club("evil", name=SCRIPT)
    bad = [
        Member.objects.create(club=club, name=SCRIPT, kana="あ"),
        Member.objects.create(club=club, name=ATTRIBUTE, kana="い"),
        Member.objects.create(club=club, name="普通", kana="う"),
        Member.objects.create(club=club, name="平凡", kana="え"),
    ]
    values = populate(club, organiser, bad)
    token = share.share_enable(club=club, user=organiser).share_token
    share.share_set_money(club=club, user=organiser, money=True)
    for address in public_urls(token, values):
        page = html(client.get(address))
        assert SCRIPT not in page and "<img src=x" not in page, address
        assert escape(SCRIPT) in page, address
    for address in (
        reverse("public:public_standings", args=[token]),
        reverse("public:public_race", args=[token, values["season_id"]]),
        reverse("public:public_day", args=[token, values["date"]]),
    ):
        assert escape(ATTRIBUTE) in html(client.get(address)), address


# --- constant queries ----------------------------------------------------------------------------


def fill(
    club: Club, organiser, players: list[Member], days: int, games: int, season: bool = True
) -> Season | None:
    """`days` days of `games` games each, in one season (or none)."""
    for d in range(days):
        date = datetime.date(2026, 3, 1) + datetime.timedelta(days=d)
        for g in range(games):
            order = players[g % len(players) :] + players[: g % len(players)]
            record_game(club, organiser, order[:4], (45000, 30000, 20000, 5000), date=date)
    if not season:
        return None
    return make_season(
        club=club, name="2026", start=datetime.date(2026, 1, 1), end=datetime.date(2026, 12, 31)
    )


# The club by its token, then what the club's page of the same name reads (no membership query).
QUERIES = {
    "public_standings": 5,  # club, rules, seasons, the standings' kept totals, the leaders
    "public_season": 4,  # club, season, rules, the standings
    "public_race": 5,  # club, season, games kept apart?, the daily totals, the players
    "public_days": 4,  # club, the count of days, one page of days, their games counted
    # club, day, the games held back (issue 42), games, their results, the day's totals
    "public_day": 6,
    # and the ledger: rules, games, attendees, shūgi, entries, members; from the book, the
    # players' parts and the open transfers
    "public_day_money": 16,
}


@pytest.mark.parametrize(("days", "games", "players"), [(1, 1, 4), (6, 5, 7)])
def test_query_counts_do_not_grow(
    club, organiser, members, client, days, games, players, django_assert_num_queries
):
    roster = [*members, *(Member.objects.create(club=club, name=f"客{i}") for i in range(2))]
    season = fill(club, organiser, roster[:players], days, games)
    assert season is not None
    token = share.share_enable(club=club, user=organiser).share_token
    date = datetime.date(2026, 3, 1)
    pages = {
        "public_standings": reverse("public:public_standings", args=[token]),
        "public_season": reverse("public:public_season", args=[token, season.pk]),
        "public_race": reverse("public:public_race", args=[token, season.pk]),
        "public_days": reverse("public:public_days", args=[token]),
        "public_day": reverse("public:public_day", args=[token, date]),
    }
    for name, address in pages.items():
        with django_assert_num_queries(QUERIES[name], info=name):
            assert client.get(address).status_code == 200, name
    share.share_set_money(club=club, user=organiser, money=True)
    with django_assert_num_queries(QUERIES["public_day_money"]):
        assert client.get(pages["public_day"]).status_code == 200


def test_english_pages_too(client, values, on):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    page = html(client.get(reverse("public:public_standings", args=[on])))
    assert "Standings" in page and "Yen" not in page


def test_every_public_route_is_tested_here():
    """The routes tests/league/security/test_isolation.py leaves to this file are those public_urls opens."""

    # The share link's pages: the namespace `public` less its settings page inside the club.
    names = {
        n
        for n, route, _params in named_routes()
        if n.startswith("public:") and not route.startswith(CLUB_PREFIX)
    }
    assert names == set(PUBLIC_ROUTES) and names <= NOT_CLUB_SCOPED
    for name in names:
        assert not reverse(name, kwargs=_kwargs(name)).startswith("/c/")


def _kwargs(name: str) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"token": "t"}
    if "season" in name or "race" in name:
        kwargs["season_id"] = 1
    if name == "public:public_day":
        kwargs["date"] = datetime.date(2026, 1, 1)
    return kwargs


def test_the_public_pages_keep_to_the_policy(client, values, on):
    """The same Content-Security-Policy as every page, and no inline script, style or handler."""
    from tests.support.security import POLICY, inline_code, policy

    for address in [*public_urls(on, values), reverse("public:public_standings", args=["wrong"])]:
        response = client.get(address)
        assert policy(response).items() >= POLICY.items(), address
        assert inline_code(html(response)) == [], address


def test_an_empty_token_is_no_page(client, values):
    assert client.get("/s//").status_code == 404
    assert client.get("/s/%20/").status_code == 404


@pytest.mark.parametrize("token", ["%00", "a%00b", "%E6%97%A5%E6%9C%AC", "a'--", "*", "a" * 200])
def test_odd_tokens_are_404_not_500(client, values, on, token):
    response = client.get(f"/s/{token}/")
    assert response.status_code == 404
    assert response.headers["Referrer-Policy"] == "same-origin"


def test_without_a_season_the_standings_are_all_time(organiser, club, members, client):
    fill(club, organiser, members[:4], 1, 1, season=False)
    token = share.share_enable(club=club, user=organiser).share_token
    page = html(client.get(reverse("public:public_standings", args=[token])))
    assert "通算" in page or "All time" in page
    assert len(Page(page).rows) == 5


def test_the_current_season_is_the_one_being_played():
    from league.public.views import current_season

    def season(pk: int, start: tuple[int, int], end: tuple[int, int]) -> Season:
        return Season(
            pk=pk, start=datetime.date(2026, *start), end=datetime.date(2026, *end), name=str(pk)
        )

    year, autumn, next_one = season(1, (1, 1), (12, 31)), season(2, (9, 1), (11, 30)), None
    newest_first = [season(3, (12, 1), (12, 31)), autumn, year]
    assert current_season(newest_first, datetime.date(2026, 10, 1)) == autumn
    assert current_season(newest_first, datetime.date(2026, 3, 1)) == year
    assert current_season([autumn], datetime.date(2026, 12, 15)) == autumn  # over: still shown
    assert current_season([autumn], datetime.date(2026, 8, 1)) is next_one  # not started


@pytest.mark.parametrize("query", ["?page=abc", "?page=0", "?page=99999", "?sort=nope", "?page=-1"])
def test_odd_page_parameters_are_never_a_500(client, values, on, query):
    for address in public_urls(on, values):
        assert client.get(address + query).status_code in (200, 404), (address, query)
