"""Nobody gets into another club, and hostile names stay text.

The club-scoped routes are read from the URL resolver, so a route added later is checked without
touching this file; a route with a parameter this file cannot fill fails the test until it can.
"""

from __future__ import annotations

import datetime
import re
import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse
from django.utils import timezone
from django.utils.html import escape

import scoring
from league import money
from league.accounts import invitations
from league.excel import tasks as export_tasks
from league.models import (
    ApiToken,
    Club,
    Day,
    Job,
    LedgerEntry,
    Member,
    ResettleRun,
    RulesVersion,
    ScorePhoto,
    TeamMatch,
    TeamSlot,
)
from league.recording import photos, services
from league.table import services as table_services
from league.teams import services as team_services
from tests.conftest import make_user
from tests.support.seasons import make_season

DATE = datetime.date(2026, 11, 21)
CLUB_PREFIX = "c/"  # league/urls.py: every club's pages are under c/<slug>/
NOT_CLUB_SCOPED = {"site:home", "accounts:login", "accounts:logout", "i18n:set_language"}
NOT_CLUB_SCOPED |= {"accounts:invitation_join"}
NOT_CLUB_SCOPED |= {"site:favicon"}  # a redirect to the static icon (tests/league/test_pages.py)
# The service worker (league.table.views.service_worker): a static file at the site's root.
NOT_CLUB_SCOPED |= {"site:service_worker"}
# A club's public share link (s/<token>/): tested in tests/league/test_public_share.py.
NOT_CLUB_SCOPED |= {"public:public_standings", "public:public_season", "public:public_race"}
NOT_CLUB_SCOPED |= {"public:public_days", "public:public_day", "public:public_season_matrix"}
NOT_CLUB_SCOPED |= {"public:public_rating", "public:public_records"}
# league/accounts: tested in tests/league/test_accounts_*.py.
NOT_CLUB_SCOPED |= {
    "accounts:signup",
    "accounts:account",
    "accounts:password_change",
    "accounts:password_change_done",
    "accounts:password_reset",
    "accounts:password_reset_done",
    "accounts:password_reset_confirm",
    "accounts:password_reset_complete",
    "accounts:club_new",
    "accounts:club_new_example",
    "accounts:slug_check",
}
# The chats' webhooks (league.chat): signed by the chat service, no session, 404 while unset;
# tested in tests/league/test_chat.py.
NOT_CLUB_SCOPED |= {"chat:line_hook", "chat:discord_hook", "chat:telegram_hook", "chat:slack_hook"}
SCRIPT = "<script>alert(1)</script>"
ATTRIBUTE = '"><img src=x onerror=alert(1)>'
POINTS = [(45000, 30000, 20000, 5000), (32000, 28000, 25000, 15000)]


def named_routes() -> list[tuple[str, str, list[str]]]:
    """(view name with its namespace, route, parameters) of every named route of ours, read from
    the resolver through each domain's namespace; not the admin's or the API's (api:)."""
    found: list[tuple[str, str, list[str]]] = []

    def walk(patterns: list[Any], prefix: str, namespace: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                if inner.split(":")[0] not in {"admin", "api"}:
                    walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            elif pattern.name:
                route = prefix + str(pattern.pattern)
                params = re.findall(r"<(?:\w+:)?(\w+)>", route)
                found.append((namespace + pattern.name, route, params))

    walk(get_resolver().url_patterns, "", "")
    return found


def club_routes() -> list[tuple[str, list[str]]]:
    """(URL name, its parameters) of every club-scoped route; fails on an unknown other route."""
    routes, others = [], []
    for name, route, params in named_routes():
        if route.startswith(CLUB_PREFIX):
            routes.append((name, params))
        else:
            others.append(name)
    # A new page outside the clubs must be looked at (and added here) on purpose.
    assert set(others) <= NOT_CLUB_SCOPED, set(others) - NOT_CLUB_SCOPED
    assert routes
    return sorted(routes)


def money_rules() -> dict[str, Any]:
    """マメの会's rules with 花月杯's session shūgi: every page of the app has something to show."""
    return {**scoring.PRESETS["mame-no-kai"].rules.to_json(), "session_shugi": 2000}


def populate(club: Club, organiser, players: list[Member]) -> dict[str, Any]:
    """Games, a day, a season, a deferred debt and an API token; the values to fill routes with."""
    version = RulesVersion.objects.create(
        club=club, effective_from=datetime.date(2026, 1, 1), rules_json=money_rules()
    )
    for points in POINTS:
        services.game_record(
            club=club,
            user=organiser,
            data=services.GameInput(
                date=DATE,
                seats=[services.SeatInput(m, p) for m, p in zip(players, points, strict=True)],
                rate="0.3",
            ),
        )
    day = Day.objects.get(club=club, date=DATE)
    transfer = next(t for t in money.day_ledger(day=day).transfers if t.payer is not None)
    entry = money.transfer_defer(
        day=day,
        user=organiser,
        payer=int(transfer.payer),
        payee=None if transfer.payee is None else int(transfer.payee),
    )
    season = make_season(
        club=club, name="2026", start=datetime.date(2026, 1, 1), end=datetime.date(2026, 12, 31)
    )
    team = team_services.team_create(
        season=season,
        user=organiser,
        data=team_services.TeamInput(
            name=f"{players[0].name}のチーム",
            short_name="一",
            colour="#c53030",
            members=players[:2],
            captains=players[:1],
        ),
    )
    adjustment = team_services.adjustment_book(
        season=season,
        user=organiser,
        member=players[1],
        kind="chombo",
        points=-200,
        rate="0.3",
        reason=f"{players[1].name}のチョンボ",
    )
    # A team match day's table (league.teams): made directly, one team is not a fixture.
    match = TeamMatch.objects.create(club=club, season=season, date=DATE, round=1, position=0)
    slot = TeamSlot.objects.create(match=match, team=team, seat=0)
    stage = team_services.stage_create(
        season=season,
        user=organiser,
        data=team_services.StageInput(
            f"{players[0].name}の予選", DATE, DATE, advance=2, carry="half"
        ),
    )
    token = ApiToken.objects.create(
        user=organiser, club=club, name="bot", prefix="abcd", key_hash="0" * 64
    )
    invitation, _secret = invitations.invitation_create(club=club, user=organiser)
    export = export_tasks.export_start(
        club=club, user=organiser, params={}, name="log.xlsx", fallback="log.xlsx"
    ).export
    # A table game (league.table) with a hand recorded.
    table = table_services.table_start(
        club=club, user=organiser, key=uuid.uuid4(), date=DATE, members=players, rate="0.3"
    )
    table_services.hand_record(
        tg=table,
        user=organiser,
        index=0,
        key=uuid.uuid4(),
        event={"result": "draw", "tenpai": [str(players[0].pk)]},
    )
    # A re-settle run's progress page (league.rules.tasks): the row its confirmation makes.
    job = Job.objects.create(club=club, user=organiser, kind=Job.RESETTLE)
    run = ResettleRun.objects.create(club=club, version=version, user=organiser, job=job)
    # A photo being read (league.recording.photos): its owner's status page.
    photo = ScorePhoto.objects.create(
        club=club,
        user=organiser,
        kind="display",
        players=4,
        total=100_000,
        image=b"",
        sha256="0" * 64,
        expires=timezone.now() + datetime.timedelta(hours=1),
    )
    return {
        "photo_id": photo.pk,
        "run_id": run.pk,
        "job_id": run.job_id,
        "key": table.key,
        "export_id": export.pk,
        "invitation_id": invitation.pk,
        "slug": club.slug,
        "date": day.date,
        "game_id": club.games.first().pk,
        "member_id": players[0].pk,
        "season_id": season.pk,
        "team_id": team.pk,
        "slot_id": slot.pk,
        "stage_id": stage.pk,
        "adjustment_id": adjustment.pk,
        "version_id": version.pk,
        "entry_id": entry.pk,
        "token_id": token.pk,
    }


def url(name: str, params: list[str], values: dict[str, Any], **override: Any) -> str:
    missing = set(params) - values.keys()
    if missing:
        pytest.fail(f"route {name!r}: tests/league/test_isolation.py cannot fill {missing}")
    return reverse(name, kwargs={p: override.get(p, values[p]) for p in params})


def assert_hidden(client: Client, address: str) -> None:
    """404 to GET and to POST, except 405 for a method the view never takes (asked before the
    club is looked at, so it tells nothing); at least one of the two is 404."""
    statuses = [client.get(address).status_code, client.post(address).status_code]
    assert set(statuses) <= {404, 405} and 404 in statuses, (address, statuses)


@pytest.fixture
def values(club, organiser, members, settings) -> dict[str, Any]:
    # A chat configured (league.chat; Telegram needs no other service), so its club pages exist,
    # and the organiser plays too (their own chat page is for a member with a player).
    settings.TELEGRAM_SECRET_TOKEN = "isolation"
    Member.objects.filter(pk=members[4].pk).update(user=organiser)
    return populate(club, organiser, members[:4])


def test_every_club_route_can_be_filled_and_opens_for_its_organiser(organiser_client, values):
    """The control for the tests below: with these values each route exists for the club."""
    for name, params in club_routes():
        address = url(name, params, values)
        status = organiser_client.get(address).status_code
        if status == 405:
            status = organiser_client.post(address).status_code
        if "photo" in name and not photos.available():
            continue  # without requirements-photo.txt the photo pages are not there (404)
        assert status != 404, (name, address)


@pytest.fixture
def unthrottled(monkeypatch):
    """The walk asks for hundreds of club addresses that are not the user's: each is counted as
    a probe (league.throttle.CLUB_PROBE, tested in test_club_probe.py); no limit here."""
    from dataclasses import replace

    from league import throttle

    monkeypatch.setattr(
        throttle, "CLUB_PROBE", replace(throttle.CLUB_PROBE, pair=10**6, name=10**6, address=10**6)
    )


@pytest.mark.usefixtures("unthrottled")
def test_a_user_of_another_club_gets_404_everywhere(stranger_client, values):
    for name, params in club_routes():
        assert_hidden(stranger_client, url(name, params, values))


def test_a_user_of_another_club_cannot_reach_its_objects_through_their_own_club(
    stranger_client, other_club, values
):
    """Their own club's address with this club's game, member, day... ids: 404 too."""
    for name, params in club_routes():
        if params != ["slug"]:
            assert_hidden(stranger_client, url(name, params, values, slug=other_club.slug))


def test_a_logged_out_user_gets_404_everywhere(client, values):
    for name, params in club_routes():
        assert_hidden(client, url(name, params, values))


@pytest.mark.usefixtures("unthrottled")
def test_a_club_that_does_not_exist_looks_the_same(stranger_client, values):
    for name, params in club_routes():
        assert_hidden(stranger_client, url(name, params, values, slug="no-such-club"))


def test_the_home_page_sends_a_logged_out_user_to_log_in(client, db):
    response = client.get(reverse("site:home"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("accounts:login"))


# --- hostile names ---------------------------------------------------------------------------


@pytest.fixture
def hostile(club, organiser, members) -> dict[str, Any]:
    """Two members with HTML in their names, in games, on the day, owing money."""
    bad = [
        Member.objects.create(club=club, name=SCRIPT, kana="あ"),
        Member.objects.create(club=club, name=ATTRIBUTE, kana="い"),
    ]
    values = populate(club, organiser, [bad[0], members[0], members[1], bad[1]])
    return {**values, "bad": bad}


def pages_with_names(values: dict[str, Any]) -> list[str]:
    slug, date = values["slug"], values["date"]
    addresses = [
        reverse("recording:club_home", args=[slug]),
        reverse("recording:day_detail", args=[slug, date]),
        reverse("money:day_ledger", args=[slug, date]),
        reverse("recording:game_detail", args=[slug, values["game_id"]]),
        reverse("recording:game_edit", args=[slug, values["game_id"]]),
        reverse("club:member_list", args=[slug]),
        reverse("standings:standings", args=[slug]),
        reverse("standings:season_standings", args=[slug, values["season_id"]]),
        reverse("standings:season_race", args=[slug, values["season_id"]]),
        reverse("money:debt_list", args=[slug]),
    ]
    for member in values["bad"]:
        addresses += [
            reverse("standings:player_detail", args=[slug, member.pk]),
            reverse("money:member_statement", args=[slug, member.pk]),
        ]
    return addresses


def test_names_with_html_are_shown_escaped_everywhere(organiser_client, hostile):
    for address in pages_with_names(hostile):
        response = organiser_client.get(address)
        assert response.status_code == 200, address
        html = response.content.decode()
        assert SCRIPT not in html and "<img src=x" not in html, address
        assert escape(SCRIPT) in html or escape(ATTRIBUTE) in html, address


def test_each_hostile_name_appears_escaped_on_the_pages_that_list_players(
    organiser_client, hostile
):
    slug = hostile["slug"]
    for address in [
        reverse("recording:club_home", args=[slug]),
        reverse("recording:day_detail", args=[slug, hostile["date"]]),
        reverse("money:day_ledger", args=[slug, hostile["date"]]),
        reverse("club:member_list", args=[slug]),
        reverse("standings:standings", args=[slug]),
        reverse("standings:season_race", args=[slug, hostile["season_id"]]),
    ]:
        html = organiser_client.get(address).content.decode()
        for name in (SCRIPT, ATTRIBUTE):
            assert escape(name) in html, (address, name)


def test_a_member_of_the_club_sees_the_same_escaping(club, hostile):
    client = Client()
    client.force_login(make_user("plain", club))
    for address in pages_with_names(hostile):
        html = client.get(address).content.decode()
        assert SCRIPT not in html and "<img src=x" not in html, address


def test_an_organiser_recording_sees_hostile_names_escaped_in_the_pickers(
    organiser_client, hostile
):
    html = organiser_client.get(
        reverse("recording:game_new", args=[hostile["slug"]])
    ).content.decode()
    assert SCRIPT not in html and "<img src=x" not in html
    assert escape(SCRIPT) in html and escape(ATTRIBUTE) in html


def test_ledger_rows_of_another_club_are_never_listed(organiser_client, values, other_club):
    """The other club's debts do not leak into this club's debt list."""
    stranger_member = Member.objects.create(club=other_club, name="余所者")
    LedgerEntry.objects.create(
        club=other_club, kind=LedgerEntry.DEFERRAL, borrower=stranger_member, amount=1000
    )
    html = organiser_client.get(reverse("money:debt_list", args=[values["slug"]])).content.decode()
    assert "余所者" not in html
