"""A club with something on every page, and its club-scoped routes, for the isolation tests."""

from __future__ import annotations

import datetime
import re
import uuid
from typing import Any

import pytest
from django.urls import URLResolver, get_resolver, reverse
from django.utils import timezone

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
from league.table import services as table_services
from league.teams import services as team_services
from tests.support.games import record_game
from tests.support.seasons import make_season

DATE = datetime.date(2026, 11, 21)


CLUB_PREFIX = "c/"  # league/urls.py: every club's pages are under c/<slug>/
NOT_CLUB_SCOPED = {"site:home", "accounts:login", "accounts:logout", "i18n:set_language"}
NOT_CLUB_SCOPED |= {"accounts:invitation_join"}
NOT_CLUB_SCOPED |= {
    "site:favicon"
}  # a redirect to the static icon (tests/league/recording/test_pages.py)
# The service worker (league.table.views.service_worker): a static file at the site's root.
NOT_CLUB_SCOPED |= {"site:service_worker"}
# A club's public share link (s/<token>/): tested in tests/league/public/test_public_share.py.
NOT_CLUB_SCOPED |= {"public:public_standings", "public:public_season", "public:public_race"}
NOT_CLUB_SCOPED |= {"public:public_days", "public:public_day", "public:public_season_matrix"}
NOT_CLUB_SCOPED |= {"public:public_rating", "public:public_records"}
# league/accounts: tested in tests/league/accounts/test_accounts_*.py.
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
# tested in tests/league/chat/test_chat.py.
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


def owing_day(club: Club, organiser, players: list[Member]) -> tuple[Day, LedgerEntry]:
    """Two games on DATE, settled, and one of the day's transfers deferred: a debt in the
    club's books (league.money's actions, as the pages make them)."""
    for points in POINTS:
        record_game(club, organiser, players, points, date=DATE)
    day = Day.objects.get(club=club, date=DATE)
    transfer = next(t for t in money.day_ledger(day=day).transfers if t.payer is not None)
    entry = money.transfer_defer(
        day=day,
        user=organiser,
        payer=int(transfer.payer),
        payee=None if transfer.payee is None else int(transfer.payee),
    )
    return day, entry


def populate(club: Club, organiser, players: list[Member]) -> dict[str, Any]:
    """Games, a day, a season, a deferred debt and an API token; the values to fill routes with."""
    version = RulesVersion.objects.create(
        club=club, effective_from=datetime.date(2026, 1, 1), rules_json=money_rules()
    )
    day, entry = owing_day(club, organiser, players)
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
        pytest.fail(
            f"route {name!r}: tests/league/security/test_isolation.py cannot fill {missing}"
        )
    return reverse(name, kwargs={p: override.get(p, values[p]) for p in params})
