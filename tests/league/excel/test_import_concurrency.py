"""Import confirmations under concurrent requests, on PostgreSQL (SQLite serialises writes):
the same upload confirmed from several sessions at once (a double tap, or two app servers)
imports once; an import and the record form writing the same day number their games without
collisions."""

from __future__ import annotations

import datetime

from django.test import Client

from league.models import AuditLog, Game, ImportUpload, Membership, Result
from tests.support.clubs import make_user
from tests.support.concurrency import (
    DATE,
    RACES,
    logged_in,
    new_game_post,
    race,
)
from tests.support.imports import (
    STANDARD,
    english,
    game,
    simple,
    upload,
    url,
)

pytestmark = RACES  # PostgreSQL only, transactional


def vary(i: int) -> tuple[tuple[str, int], ...]:
    """STANDARD with 100·i points moved from the top to the fourth: a game of its own (the same
    points again are a duplicate, league.recording.services.duplicate_of)."""
    (a, pa), b, c, (d, pd) = STANDARD
    return ((a, pa - 100 * i), b, c, (d, pd + 100 * i))


TWO_GAMES = simple(game(*STANDARD), game(*vary(1), table="B"))


def test_one_upload_confirmed_from_four_sessions_at_once_imports_once(club, members, organiser):
    assert upload(logged_in(organiser), club, TWO_GAMES).status_code == 302
    clients = [logged_in(organiser) for _ in range(4)]
    responses = race([lambda c=c: c.post(url("excel:import_confirm", club)) for c in clients])
    assert all(r.status_code == 302 for r in responses)
    assert Game.objects.count() == 2
    assert AuditLog.objects.filter(action="import.apply").count() == 1
    assert ImportUpload.objects.get().imported  # kept for its status page


def test_an_import_and_the_record_form_on_the_same_day_number_their_games_apart(
    club, members, organiser
):
    importer = logged_in(organiser)
    data = simple(*[game(*vary(i), date=DATE, table=str(i)) for i in range(6)])
    assert upload(importer, club, data).status_code == 302
    recorders: list[Client] = [logged_in(organiser) for _ in range(3)]
    calls = [lambda: importer.post(url("excel:import_confirm", club))]
    # The imported games have no rate (the workbook has no yen): a form game at 0.3 saved after
    # the import has committed is a rate new to the day, and the form asks first (check_rate).
    # Whichever commits first, this test is about the numbering, so the forms confirm both.
    confirmed = {"confirm_duplicate": "on", "confirm_rate": "on"}
    calls += [
        lambda c=c, i=i: c.post(
            url("recording:game_new", club), new_game_post(table=f"F{i}") | confirmed
        )
        for i, c in enumerate(recorders)
    ]
    responses = race(calls)
    assert all(r.status_code == 302 for r in responses), [r.status_code for r in responses]
    numbers = sorted(Game.objects.filter(date=DATE).values_list("number", flat=True))
    assert numbers == list(range(1, 10))


def test_two_organisers_confirming_the_same_workbook_at_once_import_it_once(
    club, members, organiser
):
    """Issue 26, item 1: each organiser uploaded the same workbook; both confirm at the same
    moment. The duplicates are checked under the club's lock: the second one records nothing
    and says the games were recorded meanwhile."""
    second = make_user("organiser2", club, Membership.ORGANISER)
    days = [DATE - datetime.timedelta(days=d) for d in (14, 7, 0)]
    data = simple(*[game(*vary(i), date=d, table=f"T{i}") for d in days for i in range(10)])
    clients = [english(logged_in(organiser)), english(logged_in(second))]
    for c in clients:
        assert upload(c, club, data).status_code == 302
    responses = race([lambda c=c: c.post(url("excel:import_confirm", club)) for c in clients])
    assert [r.status_code for r in responses] == [302, 302]
    assert Game.objects.count() == 30
    assert Result.objects.filter(counted=True).count() == 4 * 30
    assert AuditLog.objects.filter(action="game.create").count() == 30
    # What each import did, as its status page says it (the worker's outcome on the upload).
    outcomes = [u.outcome for u in ImportUpload.objects.all()]
    done = sorted(o.get("games", 0) for o in outcomes)
    meanwhile = sorted(o.get("recorded_meanwhile", 0) for o in outcomes)
    assert done == [0, 30] and meanwhile == [0, 30]
