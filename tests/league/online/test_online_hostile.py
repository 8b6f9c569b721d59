"""The online import never answers 500 and never keeps an unbounded game (issue 39): a player's
name with NUL, a lone surrogate or U+202E is refused at the first step; a log of more hands than
any game has (32,768 abortive draws overflowed the hand-number column) is refused as it is read."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from django.utils import translation

import scoring
from league.core.errors import ServiceError
from league.models import Game, OnlineLog
from league.online import services
from scoring import online
from tests.support.clubs import client_for
from tests.support.online import make_tenhou_organiser, text


@pytest.fixture
def organiser(tenhou_club):
    return make_tenhou_organiser(tenhou_club)


def abortive_log(hands: int) -> str:
    """A tenhou.net/6 log of `hands` 九種九牌 draws in a row (the dealer stays, honba grows)."""
    kyoku = [[0, 0, 0], [250] * 4, [], [], ["九種九牌"]]  # the shortest hand the reader takes
    log = [[[0, h, 0], *kyoku[1:]] for h in range(hands)]
    return json.dumps(
        {"name": ["a", "b", "c", "d"], "rule": {"disp": "般南喰赤"}, "log": log,
         "sc": [250, 0, 250, 0, 250, 0, 250, 0]},
        ensure_ascii=False, separators=(",", ":"),
    )  # fmt: skip


@pytest.mark.parametrize("bad", ["a\x00b", "\ud800x", "x\u202egnp", "a\nb"])
def test_a_name_with_control_surrogate_or_direction_characters_is_refused(bad):
    data = json.loads(text())
    data["name"][1] = bad
    with pytest.raises(scoring.InputError) as caught:
        online.parse_online_log(json.dumps(data))
    assert caught.value.problems[0].field == "name"


@pytest.mark.parametrize("bad", ["鬼\x00ヅモ", "\ud800鬼"])
def test_the_page_refuses_it_at_the_first_step_and_stores_nothing(tenhou_club, organiser, bad):
    data = json.loads(text())
    data["name"][0] = bad
    log = json.dumps(data)  # the lone surrogate escaped, as a pasted log has it
    c = client_for(organiser)
    url = reverse("online:online_import", args=[tenhou_club.slug])
    with translation.override("ja"):
        response = c.post(url, {"step": "read", "text": log}, HTTP_ACCEPT_LANGUAGE="ja")
    assert response.status_code == 200
    assert 'role="alert"' in response.content.decode()
    assert not Game.objects.exists() and not OnlineLog.objects.exists()


def test_a_log_of_more_hands_than_any_game_is_refused_as_it_is_read(db):
    # 200 draws are read (the game has not ended: refused later, by the engine's check) ...
    game = online.parse_online_log(abortive_log(online.MAX_HANDS))
    assert len(game.events) == online.MAX_HANDS
    # ... 201 are refused at once, before any hand is played.
    assert len(abortive_log(32_768).encode()) < online.MAX_LOG_BYTES
    for hands in (online.MAX_HANDS + 1, 32_768):
        with pytest.raises(scoring.InputError) as caught:
            online.parse_online_log(abortive_log(hands))
        assert caught.value.problems[0].params == {"most": online.MAX_HANDS}
    with pytest.raises(ServiceError) as caught:
        services.log_read(abortive_log(32_768))
    assert "200" in str(caught.value.errors["log"][0])


@pytest.mark.parametrize("bad", ["\u202e", "\n", "\x00"])
def test_a_yaku_name_with_control_or_direction_characters_is_refused_naming_the_hand(
    tenhou_club, organiser, bad
):
    data = json.loads(text("2019021004gm-00a9-0000-e2f6516d"))
    win = data["log"][0][-1][2]  # 東1局: ["和了", deltas, [who, from, pao, "text", yaku…]]
    win[4] = bad + win[4]
    with pytest.raises(ServiceError) as caught, translation.override("ja"):
        services.log_read(json.dumps(data, ensure_ascii=False))
    message = caught.value.errors["log"][0]
    assert "東1局" in message and f"U+{ord(bad):04X}" in message
    assert not OnlineLog.objects.exists() and not Game.objects.exists()
