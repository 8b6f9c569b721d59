"""API strictness (league/api.py): unknown fields, an Idempotency-Key reused with another body,
a start after the end, and bodies over the size limit, each a JSON 4xx and never stored."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import transaction
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.models import AuditLog, Game
from tests.support.api import _in_threads, body, call, postgresql_only, url
from tests.support.db import as_test_case


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (body(chip=[]), "chip"),
        (body(players=[{**p, "chombos": 1} for p in body()["players"]]), "players[0].chombos"),
        (body(chips=[{"kind": "ippatsu", "winner": "青木", "form": "馬場"}]), "chips[0].form"),
    ],
)
def test_an_unknown_field_is_a_422_naming_it(club, members, secret, data, field):
    response = call("POST", url(club, "games"), secret, data)
    assert response.status_code == 422
    assert field in response.json()["errors"], response.json()
    assert not Game.objects.exists()


def test_unknown_fields_are_refused_on_edits_and_voids_too(club, members, secret):
    game_id = call("POST", url(club, "games"), secret, body()).json()["id"]
    for method, rest, data in [
        ("PATCH", f"games/{game_id}", {"revision": 1, "tabel": "B"}),
        ("PUT", f"games/{game_id}", {**body(), "revision": 1, "extra": 1}),
        ("POST", f"games/{game_id}/void", {"reason": "x", "revison": 1}),
    ]:
        response = call(method, url(club, rest), secret, data)
        assert response.status_code == 422, (method, response.json())
    game = Game.objects.get()
    assert (game.revision, game.table, game.voided) == (1, "A", False)


def test_a_key_reused_with_another_body_is_a_422_and_the_same_body_replays(club, members, secret):
    key = {"Idempotency-Key": "line:7"}
    first = call("POST", url(club, "games"), secret, body(), **key)
    assert first.status_code == 201
    other = call("POST", url(club, "games"), secret, body(table="B"), **key)
    assert other.status_code == 422
    assert "Idempotency-Key" in other.json()["errors"]
    # The same body again, with other spacing and key order: the first answer, not a new game.
    same = json.loads(json.dumps(body()))
    same = dict(reversed(list(same.items())))
    again = call("POST", url(club, "games"), secret, same, **key)
    assert again.status_code == 200
    assert again.json() == first.json()
    assert Game.objects.count() == 1
    assert AuditLog.objects.filter(action="game.create").count() == 1


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_a_key_raced_with_two_bodies_records_one_and_refuses_the_other(club, members, secret):
    tables = iter(["A", "B"] * 4)
    lock = threading.Lock()

    def post() -> tuple[str, int]:
        with lock:
            table = next(tables)
        data = body(table=table)
        response = call("POST", url(club, "games"), secret, data, **{"Idempotency-Key": "r"})
        return table, response.status_code

    results = _in_threads(8, post)
    assert all(isinstance(r, tuple) for r in results), results
    assert Game.objects.count() == 1
    stored = Game.objects.get().table
    # As with one body: the twins that waited for the winner's lock may answer 201 too.
    assert {status for table, status in results if table == stored} <= {200, 201}
    assert [status for table, status in results if table != stored] == [422] * 4


def test_start_after_end_is_a_422(club, members, secret):
    response = call("GET", url(club, "standings?start=2026-12-01&end=2026-11-01"), secret)
    assert response.status_code == 422
    assert "start" in response.json()["errors"]
    ok = call("GET", url(club, "standings?start=2026-11-01&end=2026-11-01"), secret)
    assert ok.status_code == 200


@pytest.mark.parametrize("debug", [False, True])
def test_a_body_over_the_limit_is_a_json_413(club, members, secret, settings, debug):
    settings.DEBUG = debug
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    data = body(table="x" * 20_000)
    client = Client(raise_request_exception=False)
    response = client.post(
        url(club, "games"),
        data=json.dumps(data),
        content_type="application/json",
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert response.status_code == 413
    assert response["Content-Type"].startswith("application/json")
    assert "errors" in response.json()
    assert not Game.objects.exists()


# --- hostile short texts (issue 26, item 10): a 422 naming the field, never a 500 -------------

CONTROLS = ("\n", "\r\n", "\t", "\x1b", "\x85", "\u2028", "\u2029", "\u202e", "\u2066", "\u200e")


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(
    field=st.sampled_from(("table", "rate", "chip_kind")),
    head=st.text(st.characters(categories=("L", "N")), min_size=1, max_size=5),
    control=st.sampled_from(CONTROLS),
    tail=st.text(st.characters(categories=("L", "N")), min_size=1, max_size=5),
)
def test_a_short_text_with_a_control_character_is_a_422_on_the_api(
    club, members, secret, field, head, control, tail
):
    text = head + control + tail
    if field == "chip_kind":
        data = body(chips=[{"kind": text, "winner": "青木"}])
    else:
        data = body(**{field: text})
    with as_test_case():
        response = call("POST", url(club, "games"), secret, data)
        assert response.status_code == 422, response.content
        assert response.json()["errors"]
        assert not Game.objects.exists()
        transaction.set_rollback(True)


@pytest.mark.parametrize("text", ["A\nB", "\u202eB", "A\u2069"])
def test_an_edit_and_a_void_with_a_control_character_are_422s(club, members, secret, text):
    game_id = call("POST", url(club, "games"), secret, body()).json()["id"]
    edit = call("PATCH", url(club, f"games/{game_id}"), secret, {"revision": 1, "table": text})
    assert edit.status_code == 422, edit.content
    assert "table" in json.dumps(edit.json()["errors"])
    void = call("POST", url(club, f"games/{game_id}/void"), secret, {"reason": text, "revision": 1})
    assert void.status_code == 422, void.content
    game = Game.objects.get()
    assert (game.revision, game.table, game.voided) == (1, "A", False)
