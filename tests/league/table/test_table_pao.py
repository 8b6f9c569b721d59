"""点数係 (league.table) with 責任払い (pao), 流し満貫 (nagashi mangan), the point calculator and
three players: what the phone sends is played by the engine on the server, refused where the
club's rules do not have it."""

from __future__ import annotations

import datetime
import json
import uuid

import pytest
from django.test import Client

import scoring
from league.core.errors import ServiceError
from league.models import Game, HandStat, Member, Membership, Result
from league.table import services
from tests.support.clubs import MEMBER_NAMES, make_club, make_user
from tests.support.pao import post
from tests.support.table import refused_on

DATE = datetime.date(2026, 11, 20)


def ids(members, n=4):
    return [str(m.pk) for m in members[:n]]


def put_hand(client, club, tg, index, event):
    """As the phone sends a hand: the API with its session, the hand's key as Idempotency-Key."""
    return client.put(
        f"/api/clubs/{club.slug}/tables/{tg.key}/hands/{index}",
        json.dumps({"event": event}),
        "application/json",
        headers={"Idempotency-Key": str(uuid.uuid4())},
    )


def test_pao_and_nagashi_from_the_phone_are_the_engines(organiser_client, tg, members, club):
    """マメの会: nagashi mangan is a win; pao on 大三元 splits a ron, the honba split 1:2."""
    a, b, c, d = ids(members)
    hands = [
        {"result": "draw", "tenpai": [a], "nagashi": [c], "riichi": [b]},
        {"result": "draw", "tenpai": [a, d]},  # 東2 (c's nagashi passed the deal), 1 honba → 東3
        {
            "result": "ron",
            "from": a,
            "winners": [{"player": b, "yakuman": 1, "pao": {"player": d, "yaku": "daisangen"}}],
        },
    ]
    for i, event in enumerate(hands):
        answer = put_hand(organiser_client, club, tg, i, event)
        assert answer.status_code == 201, answer.json()
    state = answer.json()
    expected = scoring.hands_json({"rules": tg.hand_rules, "players": ids(members), "hands": hands})
    assert [h["deltas"] for h in state["hands"]] == [
        [h["deltas"][p] for p in ids(members)] for h in expected["hands"]
    ]
    # The nagashi: a mangan tsumo by c (a non-dealer), b's riichi stick to c.
    assert state["hands"][0]["deltas"] == [-4000, -3000, 9000, -2000]
    # 大三元 dealt in by a, d liable: 32,000 split; 東3 has 1 honba (300), split 100/200.
    assert state["hands"][2]["deltas"] == [-16100, 32300, 0, -16200]


def test_the_engine_refuses_pao_and_nagashi_the_rules_do_not_allow(
    organiser_client, tg, members, club, organiser
):
    _a, b, _c, d = ids(members)
    not_yakuman = {
        "result": "tsumo",
        "winner": b,
        "han": 5,
        "pao": {"player": d, "yaku": "daisangen"},
    }
    answer = put_hand(organiser_client, club, tg, 0, not_yakuman)
    assert answer.status_code == 422
    assert "pao" in answer.json()["errors"]
    on_self = {
        "result": "tsumo",
        "winner": b,
        "yakuman": 1,
        "pao": {"player": b, "yaku": "daisangen"},
    }
    answer = put_hand(organiser_client, club, tg, 0, on_self)
    assert answer.status_code == 422
    # 高針健康麻雀 has no nagashi mangan: refused, nothing stored.
    other = make_club("takabari", "takabari-kenko")
    people = [Member.objects.create(club=other, name=n, kana=k) for n, k in MEMBER_NAMES[:4]]
    tk = services.table_start(
        club=other, user=organiser, key=uuid.uuid4(), date=DATE, members=people
    )
    draw = {"result": "draw", "tenpai": [], "nagashi": [str(people[0].pk)]}
    assert "nagashi" in refused_on(tk, organiser, draw)
    assert not tk.hands.exists()


def value(client, club, tg, body):
    """As the phone asks: the API's calculator, with the table's key for its hand rules."""
    return post(client, f"/api/clubs/{club.slug}/calculator", {**body, "table": str(tg.key)})


def test_the_calculator_values_the_tiles_for_the_phone(organiser_client, tg, club):
    pinfu = {
        "tiles": "123456m234p56799s",
        "win": "7s",
        "tsumo": True,
        "riichi": True,
        "seat_wind": "south",
        "round_wind": "east",
        "ura": ["8s"],
    }
    answer = value(organiser_client, club, tg, pinfu)
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    # 立直 門前清自摸和 平和 + 裏ドラ 9s ×2: 5 han, a non-dealer mangan tsumo.
    assert (body["han"], body["fu"], body["yakuman"]) == (5, 20, None)
    assert set(body["yaku"]) == {"立直", "門前清自摸和", "平和"}
    assert body["ura"] == 2 and body["aka"] == 0
    assert "2,000" in body["payment"] and "4,000" in body["payment"]
    dealer_ron = {"tiles": "22444m333067p444s", "win": "4s", "seat_wind": "east"}
    body = value(organiser_client, club, tg, dealer_ron).json()
    assert (body["han"], body["fu"], body["aka"]) == (2, 40, 1)  # 断幺九 + 赤
    assert "3,900" in body["payment"]
    daisangen = {
        "tiles": "555666z123m44p",
        "win": "4p",
        "seat_wind": "west",
        "melds": [{"kind": "pon", "tiles": "777z"}],
    }
    body = value(organiser_client, club, tg, daisangen).json()
    assert body["yakuman"] == 1 and body["pao"] == ["daisangen"] and body["yaku"] == ["大三元"]
    assert "32,000" in body["payment"]
    for bad in ({"tiles": "123m", "win": "1m"}, {"tiles": "xyz", "win": "4s"}, {"tiles": 5}):
        answer = value(organiser_client, club, tg, bad)
        assert answer.status_code == 400
        assert answer.json()["errors"]


def test_three_players_hand_by_hand(db):
    """関西ぱいろん 3人 (ツモ減り, 1本場 600/300, nagashi as a win): a game of three seats started,
    played to a bust and saved like a four-player one."""
    club = make_club("pairon3", "pairon-kansai-3p")
    user = make_user("organiser3", club, Membership.ORGANISER)
    people = [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES[:3]]
    with pytest.raises(ServiceError):  # four players at a three-player table
        extra = Member.objects.create(club=club, name="四人目", kana="よにんめ")
        services.table_start(
            club=club, user=user, key=uuid.uuid4(), date=DATE, members=[*people, extra]
        )
    tg = services.table_start(club=club, user=user, key=uuid.uuid4(), date=DATE, members=people)
    assert tg.hand_rules["players"] == 3
    a, b, c = (str(m.pk) for m in people)
    hands = [
        {"result": "draw", "tenpai": [a], "nagashi": [b]},
        {"result": "tsumo", "winner": a, "han": 3, "fu": 30},
        {"result": "ron", "from": c, "winners": [{"player": a, "yakuman": 1}]},
        {"result": "tsumo", "winner": b, "yakuman": 1, "pao": {"player": c, "yaku": "daisangen"}},
    ]
    for i, event in enumerate(hands):
        services.hand_record(tg=tg, user=user, index=i, key=uuid.uuid4(), event=event)
    played = services.play(tg)
    expected = scoring.hands_json({"rules": tg.hand_rules, "players": [a, b, c], "hands": hands})
    assert list(played.state.points) == [p["points"] for p in expected["final"]["players"]]
    assert played.state.ended == expected["final"]["ended"] == "bust"
    # b's nagashi: a mangan tsumo with two payers (ツモ損): dealer 4,000 + 2,000.
    assert list(played.records[0].deltas) == [-4000, 6000, -2000]
    game = services.table_game_save(tg=tg, user=user)
    assert Result.objects.filter(game=game, counted=True).count() == 3
    assert HandStat.objects.filter(game=game).count() == 3
    assert Game.objects.filter(club=club).count() == 1
    client = Client()
    client.force_login(user)
    page = client.get(f"/c/{club.slug}/table/{tg.key}/")
    assert page.status_code == 200
    assert page.content.decode().count('class="seat-box"') == 3
