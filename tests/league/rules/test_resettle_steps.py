"""A re-settle runs in short transactions of a day each (league.rules.services.resettle_apply),
each taking the club's lock for its own day only: a game recorded through the API at the same
club while a re-settle runs is recorded between two steps, and the re-settle carries on."""

from __future__ import annotations

import contextlib
import datetime
import threading
import time

import pytest
from django.db import connection

from league.models import Game
from league.rules import services as rules_services
from tests.support.api import body, call, url
from tests.support.manage import record

D = datetime.date
POINTS = [(52000, 31000, 19000, -2000), (40000, 30000, 20000, 10000)]
DAYS = [D(2026, 4, d) for d in (3, 10, 17)]


def _history(club, organiser, members) -> None:
    for day in DAYS:
        for points in POINTS:
            record(club, organiser, members[:4], day, points)


def _version(club, organiser):
    return rules_services.rules_version_create(
        club=club,
        user=organiser,
        effective_from=D(2026, 4, 1),
        rules_json={"preset": "mame-no-kai", "uma": [10, 5, -5, -10]},
    )


def test_an_api_record_between_two_steps_succeeds(club, members, organiser, secret, monkeypatch):
    """Between the first day's step and the next, a bot records a game on the last day through
    the API: it answers 201 at once, and the re-settle carries on with the other days."""
    _history(club, organiser, members)
    version = _version(club, organiser)
    real = rules_services.action
    steps: list[int] = []
    answers: list[int] = []

    @contextlib.contextmanager
    def step():
        steps.append(len(steps))
        if len(steps) == 2:  # after the first day's step committed, before the second's
            response = call(
                "POST",
                url(club, "games"),
                secret,
                body(date=DAYS[2].isoformat(), table="C", confirm_duplicate=True),
            )
            answers.append(response.status_code)
        with real():
            yield

    monkeypatch.setattr(rules_services, "action", step)
    moved = rules_services.resettle_apply(version=version, user=organiser)
    assert answers == [201] and len(steps) == 3
    assert moved == 6  # the one recorded meanwhile is recorded under the new rules already
    assert Game.objects.filter(club=club, voided=False).count() == 7
    assert not Game.objects.filter(club=club, voided=False).exclude(rules_version=version).exists()


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="concurrency is only real on PostgreSQL"
)
@pytest.mark.django_db(transaction=True)
def test_an_api_record_during_a_resettle_waits_one_step_at_most(
    club, members, organiser, secret, monkeypatch
):
    """On PostgreSQL, a re-settle of three days, a step a day: a game recorded through the API
    while the first step holds the club's lock waits for that step, and is recorded before the
    re-settle's last step, which sees it. Held for the whole re-settle, the lock would make it
    wait until the end, and no step would see it. No clock: the first step holds the lock until
    PostgreSQL shows the API's request waiting for it."""
    _history(club, organiser, members)
    version = _version(club, organiser)
    started = threading.Event()
    seen: list[int] = []  # the club's games each step sees, under its lock

    def waited() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND datname = current_database() AND pid <> pg_backend_pid()"
            )
            return cursor.fetchone()[0] > 0

    def step(state: rules_services.ResettleProgress) -> None:  # inside each step, under the lock
        seen.append(Game.objects.filter(club=club, voided=False).count())
        if len(seen) == 1:
            started.set()
            for _ in range(600):  # the API's request, blocked on the lock (a minute at most)
                if waited():
                    break
                time.sleep(0.1)

    def resettle() -> None:
        try:
            rules_services.resettle_apply(version=version, user=organiser, progress=step)
        finally:
            connection.close()

    worker = threading.Thread(target=resettle)
    worker.start()
    assert started.wait(timeout=60)
    response = call(
        "POST", url(club, "games"), secret, body(date=DAYS[2].isoformat(), confirm_duplicate=True)
    )
    worker.join(timeout=120)
    assert response.status_code == 201 and not worker.is_alive()
    assert len(seen) == 3
    assert seen[0] == 6  # the first step held the lock: the API's game waited
    assert seen[-1] == 7  # recorded between two steps, before the re-settle ended
    assert not Game.objects.filter(club=club, voided=False).exclude(rules_version=version).exists()


def test_the_one_progress_view_reads_any_job(client, club, members, organiser, member_user):
    """league/club/views/jobs.py: a re-settle's job is the club's, an export's its maker's."""
    from django.urls import reverse

    from league.excel import tasks as export_tasks
    from league.rules import tasks as rules_tasks

    _history(club, organiser, members)
    run = rules_tasks.resettle_start(version=_version(club, organiser), user=organiser)
    export = export_tasks.export_start(
        club=club, user=organiser, params={}, name="x.xlsx", fallback="x.xlsx"
    ).export
    client.force_login(member_user)
    shown = client.get(reverse("club:job_progress", args=[club.slug, run.job_id])).json()
    assert shown["kind"] == "resettle" and shown["status"] == "done"
    assert (shown["done"], shown["total"], shown["counts"]) == (6, 6, {"moved": 6, "failed": 0})
    # Another member's export is not theirs to follow; its maker follows it.
    assert (
        client.get(reverse("club:job_progress", args=[club.slug, export.job_id])).status_code == 404
    )
    client.force_login(organiser)
    made = client.get(reverse("club:job_progress", args=[club.slug, export.job_id])).json()
    assert (made["kind"], made["status"], made["done"]) == ("export", "done", 24)
