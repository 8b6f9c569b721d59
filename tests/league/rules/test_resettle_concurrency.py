"""Re-settles racing the record form and edits, on PostgreSQL (SQLite serialises every write):
issue 26, item 3. Every writer takes the club's row first (league.core.locks.lock_club), so a
re-settle never deadlocks against a recording or an edit: no 500, nothing lost, and the kept
totals are those a rebuild computes."""

from __future__ import annotations

import datetime

from django.urls import reverse

import scoring
from league.core import errors
from league.models import AuditLog, Game, Result, RulesVersion
from league.rules import services as rules_services
from league.standings import services as aggregates
from tests.support.concurrency import (
    CHANGED,
    POINTS,
    RACES,
    attempt,
    edit_post,
    kept,
    logged_in,
    new_game_post,
    race,
)
from tests.support.games import record_game

pytestmark = RACES  # PostgreSQL only, transactional

# Four back-dated versions, each governing a quarter of the games below.
STARTS = [datetime.date(2026, m, 1) for m in (1, 3, 5, 7)]
DATES = [s + datetime.timedelta(days=d) for s in STARTS for d in (3, 10, 17)]
RECORDINGS = 10
EDITS = 10
CORRECTION = (53000, 30000, 19000, -3000)


def _rules(uma: list[int]) -> dict:
    return {**scoring.PRESETS["mame-no-kai"].rules.to_json(), "uma": uma}


def test_resettles_racing_twenty_recordings_and_edits_never_deadlock(club, members, organiser):
    for date in DATES:  # two games a day, under the club's first rules
        for table in "AB":
            record_game(club, organiser, members[:4], POINTS, date=date, table=table, deposits=1000)
    versions = [
        rules_services.rules_version_create(
            club=club, user=organiser, effective_from=start, rules_json=_rules(uma)
        )
        for start, uma in zip(
            STARTS,
            ([30, 10, -10, -30], [15, 5, -5, -15], [20, 0, 0, -20], [10, 5, -5, -10]),
            strict=True,
        )
    ]
    before = Game.objects.count()
    edited = list(Game.objects.order_by("date", "number")[: 2 * EDITS : 2])
    new_url = reverse("recording:game_new", args=[club.slug])
    recorders = [logged_in(organiser) for _ in range(RECORDINGS)]
    editors = [logged_in(organiser) for _ in edited]

    calls = [
        lambda v=v: attempt(
            lambda: rules_services.resettle_apply(version=v, user=organiser, expected=None)
        )
        for v in versions
    ]
    calls += [
        lambda c=c, i=i: c.post(
            new_url,
            new_game_post(table=f"N{i}")
            | {"date": DATES[i].isoformat(), "confirm_duplicate": "on"},
        )
        for i, c in enumerate(recorders)
    ]
    calls += [
        lambda c=c, g=g: c.post(
            reverse("recording:game_edit", args=[club.slug, g.pk]),
            edit_post(CORRECTION, revision=1),
        )
        for c, g in zip(editors, edited, strict=True)
    ]
    outcomes = race(calls)  # a DeadlockDetected (a 500) fails here

    for outcome in outcomes[: len(versions)]:
        assert isinstance(outcome, int | errors.ServiceError), outcome
    recorded = outcomes[len(versions) : len(versions) + RECORDINGS]
    assert [r.status_code for r in recorded] == [302] * RECORDINGS
    assert Game.objects.count() == before + RECORDINGS
    for response, game in zip(outcomes[len(versions) + RECORDINGS :], edited, strict=True):
        game.refresh_from_db()
        points = [r.points for r in Result.objects.filter(game=game, counted=True).order_by("seat")]
        if response.status_code == 302:  # saved: the correction is what counts now
            assert points == list(CORRECTION)
        else:  # a re-settle came first: the organiser is told, the form comes back
            assert response.status_code == 200
            assert CHANGED in response.content.decode()
            assert points == list(POINTS)
    # Every game counts once, at its current revision, with every player.
    for game in Game.objects.all():
        rows = Result.objects.filter(game=game, counted=True)
        assert sorted(rows.values_list("revision", flat=True)) == [game.revision] * 4
    applied = sum(isinstance(o, int) for o in outcomes[: len(versions)])
    assert AuditLog.objects.filter(action="game.resettle").count() >= applied
    # The kept totals are those a rebuild computes from the stored results.
    now = kept(club)
    aggregates.club_rebuild(club=club)
    assert kept(club) == now
    assert RulesVersion.objects.filter(club=club).count() == 5
