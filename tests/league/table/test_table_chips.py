"""Chips, 一発 and 裏 follow the hand as the engine settles it (issue 39): under head bump (頭ハネ)
only the claimant the rules pay gets a winner's chips, and only a winner who declared riichi has
一発 or 裏. Table mode and the API refuse marks the hand cannot have, naming the mark."""

from __future__ import annotations

import json
import uuid
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scoring
from league.accounts import tokens as api_auth
from league.core.errors import ServiceError
from league.models import ChipEvent, Hand
from league.table import services
from scoring.hands_json import hand_rules_from_json, hands_game_from_json
from tests.support.table import DATE, ids, refused_on

SETTINGS = settings(
    max_examples=80,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
def tg(club, members, organiser):
    return services.table_start(
        club=club, user=organiser, key=uuid.uuid4(), date=DATE, members=members[:4], rate="0.3"
    )


def head_bump(tg):
    tg.hand_rules = {**tg.hand_rules, "multi_ron": "atamahane"}
    tg.save(update_fields=["hand_rules"])
    return tg


def test_head_bump_pays_the_yakuman_chip_to_the_first_claimant_only(tg, members, organiser):
    a, b, c, d = ids(members)
    head_bump(tg)
    # Both b and c claim a's discard; b is first in turn from a, so the rules pay b only.
    hands = [
        {
            "result": "ron",
            "from": a,
            "winners": [{"player": c, "yakuman": 1}, {"player": b, "han": 2, "fu": 30}],
        },
        {"result": "ron", "from": d, "winners": [{"player": a, "yakuman": 1}]},
    ]
    for i, event in enumerate(hands):
        services.hand_record(tg=tg, user=organiser, index=i, key=uuid.uuid4(), event=event)
    assert services.play(tg).state.ended == "bust"
    game = services.table_game_save(tg=tg, user=organiser)
    chips = list(ChipEvent.objects.filter(game=game).values_list("kind", "winner_id"))
    assert chips == [("yakuman", members[0].pk)]  # a's; c's points did not move


def test_marks_the_hand_cannot_have_are_refused_naming_the_mark(tg, members, organiser):
    a, b, c, _d = ids(members)
    ron = {"result": "ron", "from": a, "winners": [{"player": b, "han": 2, "fu": 30}]}
    for name, mark in (("ippatsu", {"ippatsu": True}), ("ura", {"ura": 2})):
        assert refused_on(tg, organiser, ron, {b: mark}) == [f"marks.{b}.{name}"]
    # With b's riichi in the hand both are fine; 副露 and 赤 need no riichi.
    services.hand_record(
        tg=tg,
        user=organiser,
        index=0,
        key=uuid.uuid4(),
        event={**ron, "riichi": [b]},
        marks={b: {"ippatsu": True, "ura": 1, "aka": 1}},
    )
    head_bump(tg)
    double = {
        "result": "ron",
        "from": a,
        "winners": [{"player": b, "han": 1, "fu": 30}, {"player": c, "han": 1, "fu": 30}],
        "riichi": [c],
    }
    assert refused_on(tg, organiser, double, {c: {"aka": 1}}, index=1) == [f"marks.{c}"]
    assert Hand.objects.filter(table_game=tg).count() == 1


def test_the_api_refuses_ippatsu_without_riichi(client, club, members, organiser, tg):
    secret = api_auth.token_create(club=club, user=organiser, name="bot")[1]
    _a, b, _c, _d = ids(members)
    body = {
        "event": {"result": "tsumo", "winner": b, "han": 1, "fu": 30},
        "marks": {b: {"ippatsu": True}},
    }
    response = client.put(
        f"/api/clubs/mame/tables/{tg.key}/hands/0",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
        HTTP_IDEMPOTENCY_KEY="k1",
    )
    assert response.status_code == 422, response.content
    assert f"marks.{b}.ippatsu" in json.dumps(response.json(), ensure_ascii=False)
    assert not Hand.objects.exists()


# --- the property: chips equal what the settled hand implies -----------------------------------


@st.composite
def hands_and_marks(draw):
    """Up to six wins (ron with one to three claimants, or tsumo), each with riichi, han or a
    yakuman, and 一発/裏/赤 marks drawn freely (some impossible)."""
    hands = []
    for _ in range(draw(st.integers(1, 6))):
        riichi = draw(st.lists(st.sampled_from(range(4)), unique=True, max_size=4))
        if draw(st.booleans()):
            discarder = draw(st.sampled_from(range(4)))
            others = [s for s in range(4) if s != discarder]
            winners = draw(st.lists(st.sampled_from(others), unique=True, min_size=1, max_size=3))
            hands.append(("ron", discarder, winners, riichi))
        else:
            hands.append(("tsumo", None, [draw(st.sampled_from(range(4)))], riichi))
    wins = [
        [
            (
                draw(st.sampled_from(((1, 30), (2, 30), (3, 40), (None, 1)))),
                draw(st.booleans()),  # ippatsu
                draw(st.integers(0, 2)),  # ura
                draw(st.integers(0, 1)),  # aka
            )
            for _w in hand[2]
        ]
        for hand in hands
    ]
    return hands, wins, draw(st.sampled_from(("atamahane", "double", "triple")))


@SETTINGS
@given(case=hands_and_marks())
def test_chips_equal_what_the_settled_hand_implies(tg, members, case):
    hands, wins, multi_ron = case
    tg.hand_rules = {**tg.hand_rules, "multi_ron": multi_ron}  # not saved: read from here
    players = ids(members)
    rules = hand_rules_from_json(tg.hand_rules)
    most = {"atamahane": 3, "double": 2, "triple": 3}[multi_ron]
    kept: list[Hand] = []
    expected: Counter = Counter()
    for (result, discarder, winners, riichi), marks_drawn in zip(hands, wins, strict=True):
        if result == "ron" and len(winners) > most:
            continue
        event: dict = {"result": result, "riichi": [players[s] for s in riichi]}
        win_objs = []
        for seat, ((han, fu), *_rest) in zip(winners, marks_drawn, strict=True):
            obj = {"yakuman": fu} if han is None else {"han": han, "fu": fu}
            win_objs.append((players[seat], obj))
        if result == "ron":
            event["from"] = players[discarder]
            event["winners"] = [{"player": p, **o} for p, o in win_objs]
        else:
            event["winner"] = win_objs[0][0]
            event.update(win_objs[0][1])
        played = services.play(tg, kept)
        if played.state.ended:
            break
        state = played.state
        try:
            game = hands_game_from_json({"players": players, "hands": [event]})
            record, _after = scoring.play_hand(rules, tuple(players), state, game.hands[0])
        except scoring.InputError:
            continue  # not enough points for a riichi, and the like: the engine refuses it
        marks = {}
        for (who, _obj), (_hf, ippatsu, ura, aka) in zip(win_objs, marks_drawn, strict=True):
            mark = {k: v for k, v in (("ippatsu", ippatsu), ("ura", ura), ("aka", aka)) if v}
            if mark:
                marks[who] = mark
        # The oracle: a winner the rules pay is one whose points the hand raised, their own
        # riichi stick aside.
        riichi_names = set(event["riichi"])
        paid = {
            w
            for w, _o in win_objs
            if record.deltas[players.index(w)] + (1000 if w in riichi_names else 0) > 0
        }
        impossible = any(
            (mark and who not in paid)
            or ((mark.get("ippatsu") or mark.get("ura")) and who not in riichi_names)
            for who, mark in marks.items()
        )
        try:
            cleaned = services._clean_marks(marks, event, players, rules)
        except ServiceError:
            assert impossible, (event, marks)
            cleaned = {
                who: {k: v for k, v in m.items() if k == "aka" or who in riichi_names}
                for who, m in marks.items()
                if who in paid
            }
            cleaned = {k: v for k, v in cleaned.items() if v}
            cleaned = services._clean_marks(cleaned, event, players, rules)
        else:
            assert not impossible, (event, marks)
        kept.append(Hand(event=event, marks=cleaned, index=len(kept)))
        loser = members[players.index(event["from"])] if result == "ron" else None
        for who, obj in win_objs:
            if who not in paid:
                continue
            member = members[players.index(who)]
            mark = cleaned.get(who, {})
            for kind in ("ippatsu", "ura", "aka"):
                if mark.get(kind):
                    expected[(kind, member.pk, loser and loser.pk, int(mark[kind]))] += 1
            if obj.get("yakuman"):
                expected[("yakuman", member.pk, loser and loser.pk, obj["yakuman"])] += 1
    played = services.play(tg, kept)
    by_key = {str(m.pk): m for m in members[:4]}
    # A club whose chips have every kind the marks imply.
    chips = services.hand_chips(played, {"ippatsu", "yakuman", "ura", "aka"}, by_key)
    got = Counter(
        (c.kind, c.winner.pk, c.discarder and c.discarder.pk, c.multiplier) for c in chips
    )
    assert got == expected


@pytest.mark.parametrize("yaku", ["立直\n平和", "\u202e和平", "断\x00幺九", "\ud800"])
def test_a_yaku_name_with_control_or_direction_characters_is_refused(tg, members, organiser, yaku):
    _a, b, _c, _d = ids(members)
    tsumo = {"result": "tsumo", "winner": b, "han": 1, "fu": 30}
    marks = {b: {"yaku": ["門前清自摸和", yaku]}}
    assert refused_on(tg, organiser, tsumo, marks) == [f"marks.{b}.yaku"]
    assert not Hand.objects.exists()
