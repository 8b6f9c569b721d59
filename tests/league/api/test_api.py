"""The JSON API: every endpoint's allowed case, who is kept out (401, 404, 403), wrong methods,
idempotent recording (also under concurrency on PostgreSQL), optimistic concurrency on edits, and
that the API stores exactly what the web form stores."""

from __future__ import annotations

import datetime
import json
import threading
import uuid
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league.accounts import tokens as api_auth
from league.models import ApiToken, AuditLog, Game, LedgerEntry, Member, Membership, Result, Season
from league.recording import services
from league.recording.services import ChipInput, GameInput, SeatInput
from tests.support.api import (
    DATE,
    NAMES,
    POINTS,
    TYPED_POINTS,
    _in_threads,
    body,
    call,
    postgresql_only,
    record,
    url,
)
from tests.support.clubs import make_user

HOSTILE = '<script>alert("x")</script>&amp;"\''


# --- helpers ---------------------------------------------------------------------------------


@pytest.fixture
def stranger_secret(other_club, stranger) -> str:
    return api_auth.token_create(club=other_club, user=stranger, name="their bot")[1]


@pytest.fixture
def game(club, organiser, members) -> Game:
    return record(club, organiser, members[:4])


@pytest.fixture
def season(club) -> Season:
    return Season.objects.create(
        club=club, name="2026", start=datetime.date(2026, 1, 1), end=datetime.date(2026, 12, 31)
    )


def endpoints(club, game) -> list[tuple[str, str, Any]]:
    """Every operation: (method, path, body); in this order each write succeeds after those
    before it (the PUT makes revision 2, which the PATCH names)."""
    player = game.results.values_list("member_id", flat=True).first()
    return [
        ("GET", url(club, "seasons"), None),
        ("GET", url(club, "days"), None),
        ("GET", url(club, f"days/{DATE}"), None),
        ("GET", url(club, f"days/{DATE}/ledger"), None),
        ("GET", url(club, "standings"), None),
        ("GET", url(club, f"games/{game.pk}"), None),
        ("GET", url(club, f"players/{player}/stats"), None),
        ("GET", url(club, "seats"), None),
        ("GET", url(club, "ratings"), None),
        ("GET", url(club, f"players/{player}/rating"), None),
        ("POST", url(club, "games"), body(confirm_duplicate=True)),
        (
            "PUT",
            url(club, f"games/{game.pk}"),
            {**body(confirm_duplicate=True), "revision": game.revision},
        ),
        ("PATCH", url(club, f"games/{game.pk}"), {"revision": game.revision + 1, "table": "B"}),
        ("POST", url(club, f"games/{game.pk}/void"), {"reason": "entered twice"}),
    ]


# --- who gets in -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_every_endpoint_answers_a_token_of_the_club(club, game, secret, season) -> None:
    for method, path, data in endpoints(club, game):
        response = call(method, path, secret, data)
        assert response.status_code in (200, 201), (method, path, response.content)
        assert response["Content-Type"] == "application/json; charset=utf-8"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "Bearer ",
        "Bearer jch_not-a-token",
        "Basic b3JnYW5pc2VyOnBhc3N3b3Jk",
        "Bearer ユニコード",
        "Bearer " + "x" * 5000,
    ],
)
def test_without_a_live_token_every_endpoint_is_401(club, game, secret, authorization) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    for method, path, data in endpoints(club, game):
        response = call(method, path, None, data, **headers)
        assert response.status_code == 401, (method, path)
    assert Game.objects.count() == 1 and not Game.objects.get().voided


@pytest.mark.django_db
def test_a_401_says_how_to_authenticate(club) -> None:
    response = call("GET", url(club, "seasons"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert response.json() == {"detail": "Unauthorized"}


@pytest.mark.django_db
def test_a_revoked_token_is_401(club, organiser, game, secret) -> None:
    token = ApiToken.objects.get()
    api_auth.token_revoke(token=token, user=organiser)
    for method, path, data in endpoints(club, game):
        assert call(method, path, secret, data).status_code == 401, (method, path)


@pytest.mark.django_db
def test_a_token_of_a_deactivated_user_is_401(club, organiser, game, secret) -> None:
    organiser.is_active = False
    organiser.save()
    assert call("GET", url(club, "seasons"), secret).status_code == 401


@pytest.mark.django_db
def test_another_clubs_token_is_404_everywhere(club, game, stranger_secret) -> None:
    for method, path, data in endpoints(club, game):
        response = call(method, path, stranger_secret, data)
        assert response.status_code == 404, (method, path)
    assert Game.objects.filter(club=club).count() == 1


@pytest.mark.django_db
def test_another_clubs_token_is_404_before_its_body_is_even_read(
    club, game, stranger_secret
) -> None:
    for method, path, _data in endpoints(club, game):
        if method != "GET":
            assert call(method, path, stranger_secret, {"nonsense": True}).status_code == 404


@pytest.mark.django_db
def test_another_clubs_game_is_404_through_the_own_club(
    other_club, stranger, game, stranger_secret
) -> None:
    """A token may only name its own club; a game id of another club is still no game."""
    for method, path, data in endpoints(other_club, game)[5:]:
        if "games/" in path:
            assert call(method, path, stranger_secret, data).status_code == 404, (method, path)


@pytest.mark.django_db
def test_a_missing_club_is_404_like_another_clubs(club, game, secret) -> None:
    assert call("GET", "/api/clubs/no-such-club/seasons", secret).status_code == 404


@pytest.mark.django_db
def test_writes_need_the_user_to_still_be_an_organiser(club, organiser, game, secret) -> None:
    Membership.objects.filter(user=organiser, club=club).update(role=Membership.MEMBER)
    for method, path, data in endpoints(club, game):
        expected = 200 if method == "GET" else 403
        assert call(method, path, secret, data).status_code == expected, (method, path)
    for method, path, _data in endpoints(club, game):
        if method != "GET":
            assert call(method, path, secret, {"nonsense": True}).status_code == 403
    game.refresh_from_db()
    assert (Game.objects.count(), game.revision, game.voided) == (1, 1, False)


@pytest.mark.django_db
def test_a_user_who_left_the_club_is_401(club, organiser, game, secret) -> None:
    """Leaving the club revokes their tokens (issue 26, item 4): refused as unknown."""
    Membership.objects.filter(user=organiser, club=club).delete()
    for method, path, data in endpoints(club, game):
        assert call(method, path, secret, data).status_code == 401, (method, path)


@pytest.mark.django_db
def test_a_superusers_token_may_write_without_a_membership(club, members) -> None:
    admin = make_user("admin")
    admin.is_superuser = True
    admin.save()
    secret = api_auth.token_create(club=club, user=admin, name="admin")[1]
    assert call("POST", url(club, "games"), secret, body()).status_code == 201


@pytest.mark.django_db
def test_wrong_methods_are_405(club, game, secret) -> None:
    wrong = {
        url(club, "seasons"): "POST",
        url(club, "days"): "DELETE",
        url(club, f"days/{DATE}"): "PUT",
        url(club, f"days/{DATE}/ledger"): "POST",
        url(club, "standings"): "PATCH",
        url(club, f"games/{game.pk}"): "DELETE",
        url(club, "games"): "GET",
        url(club, f"games/{game.pk}/void"): "GET",
    }
    for path, method in wrong.items():
        assert call(method, path, secret).status_code == 405, (method, path)


@pytest.mark.django_db
def test_the_schema_is_public_and_names_every_operation(client) -> None:
    schema = client.get("/api/openapi.json").json()
    operations = {(m.upper(), p) for p, ops in schema["paths"].items() for m in ops}
    assert operations == {
        ("GET", "/api/clubs/{slug}/seasons"),
        ("GET", "/api/clubs/{slug}/days"),
        ("GET", "/api/clubs/{slug}/days/{date}"),
        ("GET", "/api/clubs/{slug}/days/{date}/ledger"),
        ("GET", "/api/clubs/{slug}/days/{date}/draw"),
        ("GET", "/api/clubs/{slug}/standings"),
        ("GET", "/api/clubs/{slug}/players/{member_id}/stats"),
        ("GET", "/api/clubs/{slug}/seats"),
        ("GET", "/api/clubs/{slug}/ratings"),
        ("GET", "/api/clubs/{slug}/players/{member_id}/rating"),
        ("GET", "/api/clubs/{slug}/games/{game_id}"),
        ("POST", "/api/clubs/{slug}/games"),
        ("PUT", "/api/clubs/{slug}/games/{game_id}"),
        ("PATCH", "/api/clubs/{slug}/games/{game_id}"),
        ("POST", "/api/clubs/{slug}/games/{game_id}/void"),
        ("POST", "/api/clubs/{slug}/tables"),
        ("GET", "/api/clubs/{slug}/tables/{table_key}"),
        ("PUT", "/api/clubs/{slug}/tables/{table_key}/hands/{index}"),
        ("DELETE", "/api/clubs/{slug}/tables/{table_key}/hands/{index}"),
        ("POST", "/api/clubs/{slug}/tables/{table_key}/game"),
        ("GET", "/api/clubs/{slug}/games/{game_id}/hands"),
        ("PUT", "/api/clubs/{slug}/games/{game_id}/hands"),
        ("GET", "/api/clubs/{slug}/seasons/{season_id}/teams"),
        ("GET", "/api/clubs/{slug}/seasons/{season_id}/fixtures"),
        ("GET", "/api/clubs/{slug}/seasons/{season_id}/stages"),
        ("POST", "/api/clubs/{slug}/calculator"),
    }
    assert schema["components"]["securitySchemes"]["TokenAuth"]["scheme"] == "bearer"


# --- reads -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_seasons(club, secret, season) -> None:
    Season.objects.create(
        club=club, name="2025", start=datetime.date(2025, 1, 1), end=datetime.date(2025, 12, 31)
    )
    response = call("GET", url(club, "seasons"), secret)
    assert [s["name"] for s in response.json()] == ["2026", "2025"]
    assert response.json()[0] == {
        "id": season.pk,
        "name": "2026",
        "start": "2026-01-01",
        "end": "2026-12-31",
        "min_games": 0,
    }


@pytest.mark.django_db
def test_days_are_paginated_newest_first(club, organiser, members, secret) -> None:
    first = datetime.date(2026, 1, 1)
    for n in range(23):
        record(club, organiser, members[:4], date=first + datetime.timedelta(days=n))
    page1 = call("GET", url(club, "days"), secret).json()
    assert (page1["count"], page1["page"], page1["pages"]) == (23, 1, 2)
    assert page1["items"][0] == {"date": "2026-01-23", "venue": "", "games": 1}
    assert len(page1["items"]) == 20
    page2 = call("GET", url(club, "days") + "?page=2", secret).json()
    assert [d["date"] for d in page2["items"]] == ["2026-01-03", "2026-01-02", "2026-01-01"]
    assert call("GET", url(club, "days") + "?page=0", secret).status_code == 422
    assert call("GET", url(club, "days") + "?page=99", secret).json()["items"] == []


@pytest.mark.django_db
def test_a_day_with_its_games(club, organiser, members, game, secret) -> None:
    void = record(club, organiser, members[:4])
    services.game_void(game=void, user=organiser, reason="twice")
    response = call("GET", url(club, f"days/{DATE}"), secret)
    day = response.json()
    assert day["date"] == "2026-11-21"
    assert [(g["number"], g["voided"]) for g in day["games"]] == [(1, False), (2, True)]
    first = day["games"][0]
    assert [p["name"] for p in first["players"]] == list(NAMES)
    assert [p["points"] for p in first["players"]] == list(POINTS)
    assert [p["rank"] for p in first["players"]] == [1, 2, 3, 4]
    assert [p["score"] for p in first["players"]] == [
        r.score for r in Result.objects.filter(game=game).order_by("seat")
    ]
    assert call("GET", url(club, "days/2026-11-22"), secret).status_code == 404
    assert call("GET", url(club, "days/2026-13-01"), secret).status_code == 422


@pytest.mark.django_db
def test_a_games_settled_rows_chips_and_revision(club, organiser, members, secret) -> None:
    game = record(
        club,
        organiser,
        members[:4],
        chips=[ChipInput("ippatsu", members[0], members[2])],
    )
    data = call("GET", url(club, f"games/{game.pk}"), secret).json()
    rows = Result.objects.filter(game=game, counted=True).order_by("seat")
    assert data["players"] == [
        {
            "seat": r.seat,
            "member_id": r.member_id,
            "name": r.member.name,
            "points": r.points,
            "chombo": r.chombo,
            "rank": r.rank,
            "score": r.score,
            "chips": r.chips,
            "yen": r.yen,
            "busted_by_seat": None,
            "yakitori": False,
        }
        for r in rows
    ]
    assert data["chips"] == [
        {"kind": "ippatsu", "winner": members[0].pk, "from": members[2].pk, "multiplier": 1}
    ]
    assert (data["revision"], data["voided"], data["rate"], data["deposits"]) == (
        1,
        False,
        "0.3",
        1000,
    )
    assert data["rules_version"] == game.rules_version_id
    assert data["rules_effective_from"] == "2020-01-01"
    assert call("GET", url(club, f"games/{game.pk + 1000}"), secret).status_code == 404
    assert call("GET", url(club, "games/0"), secret).status_code == 422
    assert call("GET", url(club, f"games/{2**70}"), secret).status_code == 422


@pytest.mark.django_db
def test_the_days_ledger(club, organiser, members, game, secret) -> None:
    data = call("GET", url(club, f"days/{DATE}/ledger"), secret).json()
    yen = {p["name"]: p["yen"] for p in data["players"]}
    assert yen == {
        r.member.name: r.yen for r in Result.objects.filter(game=game).select_related("member")
    }
    assert sum(yen.values()) + data["house"] == 0
    assert data["settled"] is False
    assert all(p["outstanding"] == p["yen"] for p in data["players"])
    # The transfers settle every outstanding amount (+ receives, − pays; null is the club).
    balance = {p["member_id"]: p["outstanding"] for p in data["players"]}
    balance[None] = data["house_outstanding"]
    for t in data["transfers"]:
        balance[t["payer_id"]] += t["yen"]
        balance[t["payee_id"]] -= t["yen"]
    assert not any(balance.values())
    names = {t["payer"] for t in data["transfers"]} | {t["payee"] for t in data["transfers"]}
    assert names <= {*NAMES, club.name}


@pytest.mark.django_db
def test_a_ledger_is_404_when_the_club_keeps_no_money(other_club, stranger, stranger_secret):
    members = [Member.objects.create(club=other_club, name=n) for n in NAMES]
    seats = [SeatInput(m, p) for m, p in zip(members, POINTS, strict=True)]
    services.game_record(
        club=other_club, user=stranger, data=GameInput(date=DATE, seats=seats, deposits=1000)
    )
    path = url(other_club, f"days/{DATE}/ledger")
    assert call("GET", path, stranger_secret).status_code == 404
    assert (
        call("GET", url(other_club, "days/2026-11-22/ledger"), stranger_secret).status_code == 404
    )


@pytest.mark.django_db
def test_standings(club, organiser, members, secret, season) -> None:
    record(club, organiser, members[:4])
    record(club, organiser, members[1:5], date=datetime.date(2025, 6, 1))
    everything = call("GET", url(club, "standings"), secret).json()
    assert {r["name"]: r["games"] for r in everything["rows"]} == {
        "青木": 1,
        "馬場": 2,
        "千葉": 2,
        "土井": 2,
        "江藤": 1,
    }
    this_season = call("GET", url(club, f"standings?season={season.pk}"), secret).json()
    assert (this_season["start"], this_season["end"]) == ("2026-01-01", "2026-12-31")
    assert [r["name"] for r in this_season["rows"]] == list(NAMES)
    assert [r["position"] for r in this_season["rows"]] == [1, 2, 3, 4]
    by_name = call("GET", url(club, "standings?sort=-name&end=2025-12-31"), secret).json()
    assert [r["name"] for r in by_name["rows"]] == ["馬場", "土井", "千葉", "江藤"]
    assert call("GET", url(club, "standings?rate=0.5"), secret).json()["rows"] == []
    assert call("GET", url(club, "standings?sort=nonsense"), secret).status_code == 422
    assert call("GET", url(club, "standings?rate=%00"), secret).status_code == 422
    assert call("GET", url(club, "standings?season=999999"), secret).status_code == 422


# --- recording -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_record_a_game_by_name_with_typed_numbers(club, organiser, members, secret) -> None:
    response = call("POST", url(club, "games"), secret, body())
    assert response.status_code == 201, response.content
    game = Game.objects.get()
    assert response.json()["id"] == game.pk
    assert [r.points for r in game.results.order_by("seat")] == list(POINTS)
    assert (game.deposits, game.rate, game.table, game.recorded_by) == (1000, "0.3", "A", organiser)
    log = AuditLog.objects.get(game=game)
    assert (log.action, log.actor) == ("game.create", organiser)


@pytest.mark.django_db
def test_record_by_member_id_and_reading(club, members, secret) -> None:
    players = [
        {"member_id": members[0].pk, "points": 52000},
        {"name": "ばば", "points": "31000"},  # a reading finds its member, as on the form
        {"member_id": members[2].pk, "points": 19000, "chombo": 0},
        {"name": "土井", "points": -3000},
    ]
    response = call("POST", url(club, "games"), secret, body(players=players))
    assert response.status_code == 201, response.content
    assert [p["name"] for p in response.json()["players"]] == list(NAMES)


@pytest.mark.django_db
def test_an_omitted_rate_is_the_rules_first_as_on_the_form(club, members, secret) -> None:
    """Before the day's first game; after it, the evening's (tests/league/recording/test_evening_rate.py).
    "" is no money: a rate new to the evening, confirmed (issue 37)."""
    data = body()
    del data["rate"]
    assert call("POST", url(club, "games"), secret, data).json()["rate"] == "0.2"
    again = body(rate="", confirm_duplicate=True, confirm_rate=True)
    assert call("POST", url(club, "games"), secret, again).json()["rate"] == ""


@pytest.mark.django_db
def test_record_with_chips_by_name_and_id(club, members, secret) -> None:
    chips = [
        {"kind": "ippatsu", "winner": "青木", "from": members[2].pk},
        {"kind": "yakuman", "winner": members[1].pk, "multiplier": 2},
    ]
    response = call("POST", url(club, "games"), secret, body(chips=chips))
    assert response.status_code == 201, response.content
    assert response.json()["chips"] == [
        {"kind": "ippatsu", "winner": members[0].pk, "from": members[2].pk, "multiplier": 1},
        {"kind": "yakuman", "winner": members[1].pk, "from": None, "multiplier": 2},
    ]


def _player(i: int, **fields: Any) -> list[dict[str, Any]]:
    players = body()["players"]
    players[i] = {**players[i], **fields}
    return players


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"players": _player(1, points="abc")}, "players[1].points"),
        ({"players": _player(2, points="19,050")}, "players[2].points"),
        ({"players": _player(3, points=10**30)}, "players[3].points"),
        ({"players": _player(0, points=True)}, "players[0].points"),
        ({"players": _player(0, points=52000.5)}, "players[0].points"),
        ({"players": _player(0, name="誰か")}, "players[0].name"),
        ({"players": _player(0, name="馬場")}, "players[1].name"),  # a player twice
        ({"players": _player(0, name=None)}, "players[0].member_id"),
        ({"players": _player(0, chombo=10)}, "players[0].chombo"),
        ({"players": body()["players"][:3]}, "players"),  # how many
        ({"players": _player(0, points=53000)}, "players"),  # the sum is off
        ({"deposits": "千"}, "deposits"),
        ({"deposits": -1000}, "deposits"),
        ({"rate": "9.9"}, "rate"),
        ({"date": "2019-12-31"}, "date"),  # before the club's first rules
        ({"date": "tomorrow"}, "date"),
        ({"table": "x" * 21}, "table"),
        ({"table": "A\x00"}, "table"),
        ({"chips": [{"kind": "ippatsu", "winner": "江藤"}]}, "chips[0].winner"),
        ({"chips": [{"kind": "ippatsu", "winner": "青木", "from": "青木"}]}, "chips[0].from"),
        ({"chips": [{"kind": "nope", "winner": "青木"}]}, "chips[0].kind"),
        (
            {"chips": [{"kind": "ippatsu", "winner": "青木", "multiplier": 0}]},
            "chips[0].multiplier",
        ),
    ],
)
def test_bad_input_is_422_on_its_field_and_nothing_is_stored(
    club, members, secret, change, field
) -> None:
    response = call("POST", url(club, "games"), secret, body(**change))
    assert response.status_code == 422, response.content
    errors = response.json()["errors"]
    assert field in errors, errors
    assert all(isinstance(m, str) and m for ms in errors.values() for m in ms)
    assert not Game.objects.exists()
    assert not AuditLog.objects.filter(action__startswith="game.").exists()


@pytest.mark.django_db
def test_another_clubs_member_id_is_just_no_such_member(club, other_club, members, secret) -> None:
    theirs = Member.objects.create(club=other_club, name="外部")
    missing = call("POST", url(club, "games"), secret, body(players=_player(0, member_id=2**40)))
    elsewhere = call(
        "POST", url(club, "games"), secret, body(players=_player(0, member_id=theirs.pk))
    )
    assert elsewhere.status_code == missing.status_code == 422
    # Word for word what a number that is nobody's gets: nothing tells that it exists elsewhere.
    assert elsewhere.json() == missing.json()
    assert list(elsewhere.json()["errors"]) == ["players[0].member_id"]
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_an_inactive_member_is_not_offered_for_a_new_game(club, members, secret) -> None:
    Member.objects.filter(pk=members[0].pk).update(is_active=False)
    response = call("POST", url(club, "games"), secret, body())
    assert response.status_code == 422
    assert "players[0].name" in response.json()["errors"]


@pytest.mark.django_db
def test_a_body_that_is_not_json_is_refused(club, members, secret) -> None:
    client = Client()
    response = client.post(
        url(club, "games"),
        data="{not json",
        content_type="application/json",
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert 400 <= response.status_code < 500
    assert not Game.objects.exists()


# --- idempotency -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_same_idempotency_key_twice_records_one_game(club, members, secret) -> None:
    first = call("POST", url(club, "games"), secret, body(), **{"Idempotency-Key": "line:42"})
    again = call("POST", url(club, "games"), secret, body(), **{"Idempotency-Key": "line:42"})
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json() == again.json()
    assert Game.objects.count() == 1
    twin = body(confirm_duplicate=True)  # the same result again: another game on purpose
    other = call("POST", url(club, "games"), secret, twin, **{"Idempotency-Key": "line:43"})
    assert other.status_code == 201 and Game.objects.count() == 2


@pytest.mark.django_db
def test_an_idempotency_key_is_per_token(club, organiser, members, secret) -> None:
    second = api_auth.token_create(club=club, user=organiser, name="Discord bot")[1]
    for token in (secret, second):
        twin = body(confirm_duplicate=True)
        response = call("POST", url(club, "games"), token, twin, **{"Idempotency-Key": "k"})
        assert response.status_code == 201
    assert Game.objects.count() == 2


@pytest.mark.django_db
def test_an_idempotency_key_is_at_most_200_characters(club, members, secret) -> None:
    key = {"Idempotency-Key": "k" * 201}
    assert call("POST", url(club, "games"), secret, body(), **key).status_code == 422
    key = {"Idempotency-Key": "k" * 200}
    assert call("POST", url(club, "games"), secret, body(), **key).status_code == 201


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_the_same_key_from_many_threads_at_once_records_one_game(club, members, secret) -> None:
    def post() -> tuple[int, int]:
        response = call("POST", url(club, "games"), secret, body(), **{"Idempotency-Key": "tap"})
        return response.status_code, response.json()["id"]

    results = _in_threads(8, post)
    assert all(isinstance(r, tuple) for r in results), results
    assert {status for status, _id in results} <= {200, 201}
    assert len({game_id for _status, game_id in results}) == 1
    assert Game.objects.count() == 1
    assert Result.objects.count() == 4
    assert AuditLog.objects.filter(action="game.create").count() == 1


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_two_organisers_editing_at_once_one_is_told_the_game_changed(
    club, organiser, members, secret
) -> None:
    game = record(club, organiser, members[:4])
    other = make_user("second", club, Membership.ORGANISER)
    second = api_auth.token_create(club=club, user=other, name="second")[1]
    tables = iter(["B", "C"])
    tokens = iter([secret, second])
    lock = threading.Lock()

    def patch() -> tuple[int, Any]:
        with lock:
            token, table = next(tokens), next(tables)
        data = {"revision": 1, "table": table}
        response = call("PATCH", url(club, f"games/{game.pk}"), token, data)
        return response.status_code, response.json()

    results = _in_threads(2, patch)
    assert sorted(status for status, _body in results) == [200, 409], results
    conflict = next(body for status, body in results if status == 409)
    assert "changed" in conflict["errors"]["revision"][0]
    game.refresh_from_db()
    assert game.revision == 2
    assert AuditLog.objects.filter(action="game.edit").count() == 1


# --- editing and voiding ---------------------------------------------------------------------


@pytest.mark.django_db
def test_put_replaces_the_game_as_a_new_revision(club, organiser, game, members, secret) -> None:
    points = ["42,000", 41000, 19000, -3000]
    players = [{"name": n, "points": p} for n, p in zip(NAMES, points, strict=True)]
    data = {"revision": 1, "players": players, "deposits": 1000, "rate": "0.5", "table": "B"}
    response = call("PUT", url(club, f"games/{game.pk}"), secret, data)
    assert response.status_code == 200, response.content
    out = response.json()
    assert (out["revision"], out["rate"], out["table"]) == (2, "0.5", "B")
    assert [p["points"] for p in out["players"]] == [42000, 41000, 19000, -3000]
    assert Result.objects.filter(game=game).count() == 8
    assert Result.objects.filter(game=game, counted=True, revision=2).count() == 4
    log = AuditLog.objects.get(action="game.edit")
    assert (log.actor, log.before["revision"], log.after["revision"]) == (organiser, 1, 2)


@pytest.mark.django_db
def test_patch_changes_only_what_it_names(club, game, secret) -> None:
    response = call("PATCH", url(club, f"games/{game.pk}"), secret, {"revision": 1, "table": "C"})
    assert response.status_code == 200, response.content
    out = response.json()
    assert (out["revision"], out["table"], out["rate"], out["deposits"]) == (2, "C", "0.3", 1000)
    assert [p["points"] for p in out["players"]] == list(POINTS)


@pytest.mark.django_db
def test_patch_players_and_chips(club, game, members, secret) -> None:
    players = [{"member_id": m.pk, "points": p} for m, p in zip(members[1:], POINTS, strict=True)]
    chips = [{"kind": "yakuman", "winner": "江藤", "from": members[1].pk}]
    data = {"revision": 1, "players": players, "chips": chips}
    response = call("PATCH", url(club, f"games/{game.pk}"), secret, data)
    assert response.status_code == 200, response.content
    out = response.json()
    assert [p["name"] for p in out["players"]] == ["馬場", "千葉", "土井", "江藤"]
    assert out["chips"] == [
        {"kind": "yakuman", "winner": members[4].pk, "from": members[1].pk, "multiplier": 1}
    ]
    assert (out["rate"], out["deposits"], out["table"]) == ("0.3", 1000, "")


@pytest.mark.django_db
def test_a_stale_revision_is_409_and_changes_nothing(club, game, secret) -> None:
    path = url(club, f"games/{game.pk}")
    assert call("PATCH", path, secret, {"revision": 1, "table": "B"}).status_code == 200
    stale = call("PATCH", path, secret, {"revision": 1, "table": "C"})
    assert stale.status_code == 409
    assert "revision 2" in stale.json()["errors"]["revision"][0]
    put = call("PUT", path, secret, {**body(), "revision": 1})
    assert put.status_code == 409
    game.refresh_from_db()
    assert (game.revision, game.table) == (2, "B")


@pytest.mark.django_db
def test_an_edit_cannot_move_a_game_to_another_day(club, game, secret) -> None:
    data = {**body(date="2026-11-22"), "revision": 1}
    response = call("PUT", url(club, f"games/{game.pk}"), secret, data)
    assert response.status_code == 422
    assert "date" in response.json()["errors"]


@pytest.mark.django_db
def test_a_bad_edit_is_422_on_its_field(club, game, secret) -> None:
    data = {"revision": 1, "players": _player(1, points="31,050")}
    response = call("PATCH", url(club, f"games/{game.pk}"), secret, data)
    assert response.status_code == 422
    assert "players[1].points" in response.json()["errors"]
    game.refresh_from_db()
    assert game.revision == 1


@pytest.mark.django_db
def test_void(club, organiser, game, secret) -> None:
    path = url(club, f"games/{game.pk}/void")
    assert call("POST", path, secret, {"reason": "   "}).status_code == 422
    response = call("POST", path, secret, {"reason": "entered twice", "revision": 1})
    assert response.status_code == 200
    assert (response.json()["voided"], response.json()["void_reason"]) == (True, "entered twice")
    assert not Result.objects.filter(game=game, counted=True).exists()
    log = AuditLog.objects.get(action="game.void")
    assert (log.actor, log.reason) == (organiser, "entered twice")
    again = call("POST", path, secret, {"reason": "again"})
    assert again.status_code == 409
    edit = call("PATCH", url(club, f"games/{game.pk}"), secret, {"revision": 1, "table": "B"})
    assert edit.status_code == 409


@pytest.mark.django_db
def test_void_with_a_stale_revision_is_409(club, game, secret) -> None:
    call("PATCH", url(club, f"games/{game.pk}"), secret, {"revision": 1, "table": "B"})
    response = call(
        "POST", url(club, f"games/{game.pk}/void"), secret, {"reason": "x", "revision": 1}
    )
    assert response.status_code == 409
    game.refresh_from_db()
    assert not game.voided


# --- the API and the web form store the same --------------------------------------------------


def _stored(game: Game) -> dict[str, Any]:
    rows = game.results.filter(counted=True).order_by("seat")
    chips = game.chip_events.filter(revision=game.revision).order_by("id")
    return {
        "game": (game.date, game.table, game.rate, game.deposits, game.rules_version_id),
        "rows": [
            (r.seat, r.member_id, r.points, r.chombo, r.rank, r.score, r.chips, r.yen, r.last)
            for r in rows
        ],
        "chips": [(c.kind, c.winner_id, c.discarder_id, c.multiplier) for c in chips],
    }


@pytest.mark.django_db
def test_api_and_web_form_store_identical_results(club, members, organiser_client, secret) -> None:
    form = {
        "date": "2026-11-21",
        "table": "A",
        "deposits": "1,000",
        "rate": "0.3",
        "submission_key": str(uuid.uuid4()),
        "action": "save",
        "chombo_3": "1",
        "chip_kind_0": "ippatsu",
        "chip_winner_0": "0",
        "chip_from_0": "2",
        "chip_multiplier_0": "1",
    }
    for i, (name, points) in enumerate(zip(NAMES, TYPED_POINTS, strict=True)):
        form[f"member_{i}"] = name
        form[f"points_{i}"] = points
    form.setdefault("chombo_0", "0")
    response = organiser_client.post(reverse("recording:game_new", args=[club.slug]), form)
    assert response.status_code == 302
    web = Game.objects.get()

    players = body()["players"]
    players[3]["chombo"] = 1
    chips = [{"kind": "ippatsu", "winner": "青木", "from": "千葉"}]
    sent = body(players=players, chips=chips, confirm_duplicate=True)  # the web's game again
    response = call("POST", url(club, "games"), secret, sent)
    assert response.status_code == 201, response.content
    api = Game.objects.exclude(pk=web.pk).get()
    assert _stored(api) == _stored(web)


# --- hostile names ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_names_with_html_come_back_as_the_exact_plain_strings(club, organiser, secret) -> None:
    names = [HOSTILE, "<img src=x onerror=alert(1)>", "青木", "{{ 1|add:1 }}"]
    members = [Member.objects.create(club=club, name=n) for n in names]
    game = record(club, organiser, members)
    for path in (f"games/{game.pk}", f"days/{DATE}", "standings", f"days/{DATE}/ledger"):
        response = call("GET", url(club, path), secret)
        assert response["Content-Type"].startswith("application/json")
        assert response["X-Content-Type-Options"] == "nosniff"
        text = json.dumps(response.json(), ensure_ascii=False)
        for name in names:
            assert json.dumps(name, ensure_ascii=False) in text, (path, name)
    data = call("GET", url(club, f"games/{game.pk}"), secret).json()
    assert [p["name"] for p in data["players"]] == names
    players = [{"name": HOSTILE, "points": 52000}, *body()["players"][1:]]
    assert call("POST", url(club, "games"), secret, body(players=players)).status_code == 422


# --- queries ---------------------------------------------------------------------------------


def pay(game: Game, payer: Member, payee: Member) -> None:
    LedgerEntry.objects.create(
        club=game.club, day=game.day, kind=LedgerEntry.PAYMENT, payer=payer, payee=payee, amount=100
    )


def _queries(path: str, secret: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert call("GET", path, secret).status_code == 200
    return len(queries)


@pytest.mark.django_db
def test_reads_take_the_same_number_of_queries_for_more_games(
    club, organiser, members, secret, season
) -> None:
    paths = [
        url(club, "seasons"),
        url(club, "days"),
        url(club, f"days/{DATE}"),
        url(club, f"days/{DATE}/ledger"),
        url(club, f"standings?season={season.pk}"),
    ]
    game = record(club, organiser, members[:4], chips=[ChipInput("ippatsu", members[0])])
    pay(game, members[3], members[0])
    small = [_queries(path, secret) for path in paths]
    everyone = [*members, *(Member.objects.create(club=club, name=f"追加{n}") for n in range(6))]
    for n in range(12):
        record(club, organiser, [everyone[(n + k) % len(everyone)] for k in range(4)])
        record(club, organiser, members[:4], date=DATE - datetime.timedelta(days=n + 1))
    pay(game, members[2], members[1])
    big = [_queries(path, secret) for path in paths]
    assert big == small
    game = Game.objects.first()
    assert _queries(url(club, f"games/{game.pk}"), secret) == 4  # token, game, rows, chips
