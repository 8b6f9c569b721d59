"""The API's hands (league.api.tables): a table game started, each hand put at its index with an
Idempotency-Key (once, merged or refused), undone, saved, read back and corrected by its hands."""

from __future__ import annotations

import json

import pytest

from league.accounts import tokens as api_auth
from league.models import Game, Hand, HandStat
from tests.support.table import DATE, game_hands


@pytest.fixture
def secret(club, organiser) -> str:
    return api_auth.token_create(club=club, user=organiser, name="table bot")[1]


def call(client, method, path, secret, body=None, key=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    if key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = key
    data = json.dumps(body) if body is not None else None
    return getattr(client, method.lower())(
        f"/api/clubs/mame/{path}", data=data, content_type="application/json", **headers
    )


def test_a_game_through_the_api(client, club, members, secret):
    start = {"date": DATE.isoformat(), "players": [m.pk for m in members[:4]], "rate": "0.3"}
    first = call(client, "POST", "tables", secret, start, key="start-1")
    assert first.status_code == 201, first.content
    again = call(client, "POST", "tables", secret, start, key="start-1")
    assert again.status_code == 200 and again.json()["key"] == first.json()["key"]
    table = first.json()["key"]
    hands = game_hands(members)

    def put(i: int, event, marks):
        body = {"event": event, "marks": marks}
        return call(client, "PUT", f"tables/{table}/hands/{i}", secret, body, key=f"h{i}")

    for i, (event, marks) in enumerate(hands):
        first_put = put(i, event, marks)
        assert first_put.status_code == 201, first_put.content
        # Retried with the same key: the same hand, once.
        assert put(i, event, marks).status_code == 200
    assert Hand.objects.count() == 5
    state = call(client, "GET", f"tables/{table}", secret).json()
    assert state["ended"] == "bust" and state["points"] == [-24_600, 30_900, 20_400, 73_300]
    other = call(
        client, "PUT", f"tables/{table}/hands/4", secret, {"event": {"result": "draw"}}, key="x"
    )
    assert other.status_code == 409
    no_key = call(client, "PUT", f"tables/{table}/hands/5", secret, {"event": {"result": "draw"}})
    assert no_key.status_code == 422
    late = call(
        client, "PUT", f"tables/{table}/hands/5", secret, {"event": {"result": "draw"}}, key="y"
    )
    assert late.status_code == 422  # the game has ended
    saved = call(client, "POST", f"tables/{table}/game", secret)
    assert saved.status_code == 200
    game_id = saved.json()["id"]
    assert call(client, "POST", f"tables/{table}/game", secret).json()["id"] == game_id
    read = call(client, "GET", f"games/{game_id}/hands", secret)
    assert [h["index"] for h in read.json()] == [0, 1, 2, 3, 4]
    changed = [{"event": e, "marks": m} for e, m in hands]
    changed[1]["marks"] = {}
    edit = call(client, "PUT", f"games/{game_id}/hands", secret, {"revision": 1, "hands": changed})
    assert edit.status_code == 200, edit.content
    assert Game.objects.get(pk=game_id).revision == 2
    assert HandStat.objects.filter(game_id=game_id, counted=True, revision=2).count() == 4
    stale = call(client, "PUT", f"games/{game_id}/hands", secret, {"revision": 1, "hands": changed})
    assert stale.status_code == 409


def test_undo_and_bad_hands(client, club, members, secret):
    start = {"date": DATE.isoformat(), "players": [m.pk for m in members[:4]]}
    table = call(client, "POST", "tables", secret, start).json()["key"]
    a = str(members[0].pk)
    ok = call(
        client,
        "PUT",
        f"tables/{table}/hands/0",
        secret,
        {"event": {"result": "draw", "tenpai": [a]}},
        key="1",
    )
    assert ok.status_code == 201
    assert call(client, "DELETE", f"tables/{table}/hands/0", secret).json()["next_index"] == 0
    bad = call(
        client,
        "PUT",
        f"tables/{table}/hands/0",
        secret,
        {"event": {"result": "tsumo", "winner": a, "han": 1, "fu": 25}},
        key="2",
    )
    assert bad.status_code == 422 and "fu" in bad.json()["errors"]
    unknown = call(
        client, "PUT", f"tables/{table}/hands/0", secret, {"event": {"result": "x"}}, key="3"
    )
    assert unknown.status_code == 422
    assert (
        call(client, "GET", "tables/00000000-0000-0000-0000-000000000000", secret).status_code
        == 404
    )
