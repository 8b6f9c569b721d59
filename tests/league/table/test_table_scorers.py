"""Who scores a table (issue 41, item 1): an organiser, any member seated at the table (their
login linked to one of its players) and a member the organiser names as scorer for the evening
enter hands; everyone else in the club watches the score read-only; each hand keeps who entered
it, and the audit log says so."""

from __future__ import annotations

import datetime
import json
import re
import uuid

import pytest

from league.accounts.tokens import token_create
from league.models import AuditLog, Hand, TableGame
from league.table import services
from tests.support.clubs import client_for
from tests.support.table import DATE, linked_login


@pytest.fixture
def seated(club, members):
    """A plain member whose login is linked to the table's first player."""
    return linked_login(club, members[0], "seated")


@pytest.fixture
def watcher(club, members):
    """A plain member linked to a player who is not at the table."""
    return linked_login(club, members[4], "watcher")


def put_hand(client, club, tg, index, event, **headers):
    return client.put(
        f"/api/clubs/{club.slug}/tables/{tg.key}/hands/{index}",
        json.dumps({"event": event}),
        "application/json",
        headers={"Idempotency-Key": str(uuid.uuid4()), **headers},
    )


def draw(members):
    return {"result": "draw", "tenpai": [str(members[0].pk)]}


def boot(page) -> dict:
    found = re.search(r'id="table-boot"[^>]*>(.*?)</script>', page.content.decode(), re.S)
    return json.loads(found.group(1))


def test_a_seated_member_scores_and_the_hand_says_so(club, members, tg, seated):
    phone = client_for(seated)
    page = phone.get(f"/c/{club.slug}/table/{tg.key}/")
    assert page.status_code == 200 and boot(page)["watch"] is False
    answer = put_hand(phone, club, tg, 0, draw(members))
    assert answer.status_code == 201, answer.json()
    hand = Hand.objects.get(table_game=tg)
    assert hand.recorded_by == seated
    entry = AuditLog.objects.get(action="hand.record", target=f"table_game:{tg.pk}")
    assert entry.actor_id == seated.pk
    assert phone.delete(f"/api/clubs/{club.slug}/tables/{tg.key}/hands/0").status_code == 200


def test_a_member_not_at_the_table_watches_only(club, members, tg, watcher):
    phone = client_for(watcher)
    page = phone.get(f"/c/{club.slug}/table/{tg.key}/")
    assert page.status_code == 200
    assert boot(page)["watch"] is True and "data-watching" in page.content.decode()
    assert phone.get(f"/api/clubs/{club.slug}/tables/{tg.key}").status_code == 200
    refused = put_hand(phone, club, tg, 0, draw(members))
    assert refused.status_code == 403
    assert not Hand.objects.filter(table_game=tg).exists()
    assert phone.get(f"/c/{club.slug}/table/{tg.key}/finish/").status_code == 403
    assert phone.post(f"/api/clubs/{club.slug}/tables/{tg.key}/game").status_code == 403


def test_the_evenings_named_scorer_scores_any_table_of_that_day(
    club, members, tg, watcher, organiser, organiser_client
):
    page = organiser_client.get(f"/c/{club.slug}/table/scorers/?date={DATE}")
    assert page.status_code == 200 and 'data-scorer="' + members[4].name in page.content.decode()
    saved = organiser_client.post(
        f"/c/{club.slug}/table/scorers/", {"date": DATE.isoformat(), "scorers": [members[4].pk]}
    )
    assert saved.status_code == 302
    assert services.scorers_of(club=club, date=DATE) == [members[4]]
    assert AuditLog.objects.filter(action="day.scorers", actor=organiser).count() == 1
    phone = client_for(watcher)
    assert boot(phone.get(f"/c/{club.slug}/table/{tg.key}/"))["watch"] is False
    assert put_hand(phone, club, tg, 0, draw(members)).status_code == 201
    # Not on another day.
    other = services.table_start(
        club=club,
        user=organiser,
        key=uuid.uuid4(),
        date=DATE + datetime.timedelta(days=1),
        members=members[:4],
        rate="0.3",
    )
    assert put_hand(phone, club, other, 0, draw(members)).status_code == 403


def test_only_organisers_name_scorers(club, members, member_client):
    url = f"/c/{club.slug}/table/scorers/"
    assert member_client.get(url).status_code == 403
    posted = member_client.post(url, {"date": DATE.isoformat(), "scorers": [members[0].pk]})
    assert posted.status_code == 403
    assert services.scorers_of(club=club, date=DATE) == []


def test_a_seated_member_starts_their_tables_game_but_not_anothers(club, members, seated, watcher):
    def start(user, players):
        data = {"date": DATE.isoformat(), "key": str(uuid.uuid4()), "rate": "0.3"}
        data.update({f"member_{i}": m.pk for i, m in enumerate(players)})
        return client_for(user).post(f"/c/{club.slug}/table/new/", data)

    assert start(watcher, members[:4]).status_code == 200  # refused: the form again
    assert not TableGame.objects.exists()
    assert start(seated, members[:4]).status_code == 302
    assert TableGame.objects.get().created_by == seated


def test_a_seated_members_token_scores_through_the_api(client, club, members, tg, seated, watcher):
    _token, secret = token_create(club=club, user=seated, name="phone")
    bearer = {"Authorization": f"Bearer {secret}"}
    assert put_hand(client, club, tg, 0, draw(members), **bearer).status_code == 201
    _token, other = token_create(club=club, user=watcher, name="phone")
    refused = put_hand(client, club, tg, 1, draw(members), Authorization=f"Bearer {other}")
    assert refused.status_code == 403
    # Every other write still needs an organiser.
    games = client.post(f"/api/clubs/{club.slug}/games", "{}", "application/json", headers=bearer)
    assert games.status_code == 403


def test_the_draw_card_opens_the_running_table_for_its_players_and_watchers(
    club, members, organiser, seated, watcher
):
    from league.draw import services as draw
    from league.models.draw import DrawSeat, DrawTable

    for m in members[:4]:
        draw.attendance_check_in(club=club, user=organiser, date=DATE, member=m)
    draw.round_draw(club=club, user=organiser, date=DATE)
    card = DrawTable.objects.get()
    seats = DrawSeat.objects.filter(table=card).order_by("seat")
    tg = services.table_start(
        club=club,
        user=organiser,
        key=uuid.uuid4(),
        date=DATE,
        members=[s.member for s in seats],
        rate="0.3",
        draw_table=card.pk,
    )
    for user in (seated, watcher, organiser):
        page = client_for(user).get(f"/c/{club.slug}/days/{DATE}/draw/").content.decode()
        assert f"/c/{club.slug}/table/{tg.key}/" in page, user
