"""Online games kept hand by hand (league.online → league.table's Hand and HandStat): a recorded
Tenhou log's hands are the game's hands, its players' hand statistics count it, and a 3-player
(三麻) log is recorded the same way into a 3-player club."""

from __future__ import annotations

import datetime
import json
from dataclasses import replace

import pytest

from league.core.errors import ServiceError
from league.models import Game, Hand, HandStat, Member, Membership, OnlineLog, Result, TableGame
from league.online import services
from league.recording import services as recording
from league.table import services as table_services
from tests.support import paths
from tests.support.clubs import client_for, make_club, make_user
from tests.support.online import make_tenhou_organiser

DATA = paths.DATA / "online"
GAME = "2019021004gm-00a9-0000-e2f6516d"
PAO = "2019103023gm-00a9-0000-f90e0fe9"  # a double yakuman paid by the liable player
DAY = datetime.date(2024, 5, 1)


@pytest.fixture
def organiser(tenhou_club):
    return make_tenhou_organiser(tenhou_club)


def record(club, user, players, log):
    read = services.log_read(log)
    return services.online_game_record(club=club, user=user, read=read, members=players, date=DAY)


def text(name: str) -> str:
    return (DATA / f"{name}.json").read_text(encoding="utf-8")


def test_an_online_games_hands_are_kept_and_counted(tenhou_club, organiser, players):
    game = record(tenhou_club, organiser, players, text(GAME))
    tg = TableGame.objects.get(game=game)
    assert tg.seats == [m.pk for m in players]
    log = OnlineLog.objects.get(game=game)
    hands = list(Hand.objects.filter(table_game=tg, live=True).order_by("index"))
    assert len(hands) == len(log.hands["hands"]) == 10
    pk = {name: str(m.pk) for name, m in zip(log.names, players, strict=True)}
    for hand, kept in zip(hands, log.hands["hands"], strict=True):
        assert hand.deltas == [kept["deltas"][name] for name in log.names]
        assert (hand.round, hand.honba) == (kept["round"], kept["honba"])
    # 東1: Sidecar (千葉) tsumo haneman, named by member as at the table.
    assert hands[0].event["winner"] == pk["Sidecar"] and hands[-1].ended == "last-hand"
    stats = {s.member_id: s for s in HandStat.objects.filter(game=game, counted=True)}
    assert set(stats) == {m.pk for m in players}
    assert all(s.hands == 10 for s in stats.values())
    wins = sum(len(h.event.get("winners", [])) + (h.event["result"] == "tsumo") for h in hands)
    assert sum(s.wins for s in stats.values()) == wins
    assert stats[players[2].pk].wins >= 1
    # The game page shows them; the game is corrected on the ordinary form (its players only).
    page = client_for(organiser).get(f"/c/{tenhou_club.slug}/games/{game.pk}/")
    body = page.content.decode()
    assert page.status_code == 200 and "data-game-hands" in body
    assert "data-edit-hands" not in body and f"/games/{game.pk}/edit/" in body


def test_a_name_mapped_to_the_wrong_member_is_corrected_and_the_hands_follow(
    tenhou_club, organiser, players
):
    game = record(tenhou_club, organiser, players, text(GAME))
    a = str(players[0].pk)
    wins_before = {s.member_id: s.wins for s in HandStat.objects.filter(game=game, counted=True)}
    data = recording.game_input_from_stored(game)
    swapped = [data.seats[2], data.seats[0]]  # 千葉 and 青木 were the other way round
    seats = list(data.seats)
    seats[0] = replace(data.seats[0], member=swapped[0].member)
    seats[2] = replace(data.seats[2], member=swapped[1].member)
    game = recording.game_edit(
        game=game, user=organiser, data=replace(data, seats=seats), expected_revision=1
    )
    assert game.revision == 2
    tg = TableGame.objects.get(game=game)
    assert tg.seats == [players[2].pk, players[1].pk, players[0].pk, players[3].pk]
    live = list(Hand.objects.filter(table_game=tg, live=True).order_by("index"))
    assert len(live) == 10 and all(h.revision == 2 for h in live)
    assert live[0].event["winner"] == a  # 東1 Sidecar's tsumo: the third seat, now 青木
    assert Hand.objects.filter(table_game=tg, live=False).count() == 10
    stats = {s.member_id: s for s in HandStat.objects.filter(game=game, counted=True)}
    assert all(s.revision == 2 for s in stats.values())
    assert stats[players[0].pk].wins == wins_before[players[2].pk]
    assert stats[players[2].pk].wins == wins_before[players[0].pk]
    # Its points are the log's: an edit of them is refused, as is a correction of its hands.
    data = recording.game_input_from_stored(game)
    seats = [replace(data.seats[0], points=data.seats[0].points + 1000), *data.seats[1:]]
    seats[1] = replace(seats[1], points=seats[1].points - 1000)
    with pytest.raises(ServiceError):
        recording.game_edit(
            game=game, user=organiser, data=replace(data, seats=seats), expected_revision=2
        )
    with pytest.raises(ServiceError):
        table_services.table_game_edit(
            tg=tg,
            user=organiser,
            hands=[{"event": h.event} for h in live],
            expected_revision=2,
        )
    game.refresh_from_db()
    assert game.revision == 2


def test_an_online_pao_game_keeps_the_liable_player(tenhou_club, organiser, players):
    game = record(tenhou_club, organiser, players, text(PAO))
    events = [h.event for h in Hand.objects.filter(table_game__game=game).order_by("index")]
    paos = [w["pao"] for e in events for w in e.get("winners", [e]) if "pao" in w]
    assert paos and all(p["player"] in {str(m.pk) for m in players} for p in paos)
    assert HandStat.objects.filter(game=game).count() == 4


def sanma_log() -> str:
    """A 3-player (三鳳南) tenhou.net/6 log of one hand: the dealer's 大三元 on B's discard
    (48,000) busts B."""
    empty: list = []
    kyoku = [[0, 0, 0], [35000, 35000, 35000, 0], [31], [], *([empty] * 12)]
    kyoku.append(["和了", [48000, -48000, 0, 0], [0, 1, 0, "役満48000点", "大三元(役満)"]])
    return json.dumps(
        {
            "ref": "2024050112gm-00b9-0000-00000000",
            "rule": {"disp": "三鳳南喰赤"},
            "name": ["A", "B", "C", ""],
            "log": [kyoku],
            "sc": [83000, 93, -13000, -63, 35000, -30, 0, 0],
        }
    )


def test_a_three_player_log_is_recorded_hand_by_hand(db):
    club = make_club("sanma", "pairon-kansai-3p", "三麻部")
    user = make_user("sanma-organiser", club, Membership.ORGANISER)
    people = [Member.objects.create(club=club, name=n) for n in ("青木", "馬場", "千葉")]
    read = services.log_read(sanma_log())
    assert read.game.rules == "tenhou-3p" and read.points == [83000, -13000, 35000]
    game = record(club, user, people, sanma_log())
    assert [r.points for r in Result.objects.filter(game=game).order_by("seat")] == [
        83000,
        -13000,
        35000,
    ]
    hand = Hand.objects.get(table_game__game=game)
    assert hand.deltas == [48000, -48000, 0] and hand.ended == "bust"
    assert HandStat.objects.filter(game=game).count() == 3
    # A 4-player club cannot take it: refused, nothing stored.
    four = make_club("four", "tenhou", "四麻部")
    user4 = make_user("four-organiser", four, Membership.ORGANISER)
    members4 = [Member.objects.create(club=four, name=n) for n in ("青木", "馬場", "千葉")]
    with pytest.raises(ServiceError) as caught:
        record(four, user4, members4, sanma_log())
    assert "3人打ち" in caught.value.errors["log"][0]
    # The page says so at once, before asking for the members.
    page = client_for(user4).post(
        f"/c/{four.slug}/online/", {"text": sanma_log()}, HTTP_ACCEPT_LANGUAGE="ja"
    )
    body = page.content.decode()
    assert page.status_code == 200 and "data-online-map" not in body
    assert "3人" in body and "4人" in body
    assert not Game.objects.filter(club=four).exists()
    assert not TableGame.objects.filter(club=four).exists()


@pytest.mark.parametrize(
    ("name", "scores"),
    [
        ("2018110809gm-00b9-0000-00a79b89", [80, -660, 580]),
        ("2009060321gm-00b9-0000-75b25bcf", [660, -610, -50]),
    ],
)
def test_a_real_three_player_log_is_settled_as_tenhou_wrote_it(db, name, scores):
    # A 3-player club on the tenhou-3p preset: its hand preset is Tenhou's 3-player one (200 a
    # honba on a ron), and its result line is Tenhou's own (8.0 / -66.0 / 58.0).
    club = make_club("sanma-tenhou", "tenhou-3p", "三麻天鳳部")
    user = make_user("sanma-tenhou-organiser", club, Membership.ORGANISER)
    people = [Member.objects.create(club=club, name=n) for n in ("青木", "馬場", "千葉")]
    path = DATA / "more" / f"{name}.xml"
    read = services.log_read(path.read_text(encoding="utf-8"), filename=path.name)
    assert read.game.log_id == name
    game = services.online_game_record(club=club, user=user, read=read, members=people, date=DAY)
    rows = Result.objects.filter(game=game).order_by("seat")
    assert [r.score for r in rows] == scores
    assert [r.points for r in rows] == list(read.game.final_points)
    assert Hand.objects.filter(table_game__game=game).count() == len(read.game.events)
    # 北 set aside is not a call: no player of these games has an open win.
    assert sum(s.called_wins for s in HandStat.objects.filter(game=game)) == 0
