"""点数係 (league.table): a hanchan recorded hand by hand, played by the engine on the server,
idempotent per hand, refused or merged per hand index, saved as an ordinary game whose
settlement is `settle` on the engine's final output, with its hand statistics."""

from __future__ import annotations

import datetime
import json
import re
import uuid

import pytest
from django.test import Client

import scoring
from league.core.errors import ServiceError
from league.models import ChipEvent, Game, Hand, HandStat, Result
from league.recording import services as recording
from league.table import services
from league.table.services import HandConflict
from tests.support.table import DATE, game_hands, ids, record_all, refused_on


def test_whole_game_saves_what_settle_gives_on_the_engines_output(tg, members, organiser, club):
    hands = game_hands(members)
    record_all(tg, organiser, hands)
    played = services.play(tg)
    assert played.state.ended == "bust"
    out = scoring.hands_json(
        {
            "rules": services.hand_rules_for(tg.rules_version).to_json(),
            "players": ids(members),
            "hands": [e for e, _m in hands],
        }
    )["final"]
    game = services.table_game_save(tg=tg, user=organiser)
    assert services.table_game_save(tg=tg, user=organiser) == game  # once
    expected = scoring.settle_game(
        tg.rules_version.rules,
        scoring.Game(
            seats=tuple(scoring.Seat(p["name"], p["points"]) for p in out["players"]),
            deposits=out["deposits"],
            chombo=tuple(out.get("chombo", ())),
            chips=(
                scoring.ChipEvent("ippatsu", str(members[3].pk), None, 1),
                scoring.ChipEvent("yakuman", str(members[3].pk), str(members[0].pk), 1),
            ),
            rate="0.3",
        ),
    )
    results = list(Result.objects.filter(game=game, counted=True).order_by("seat"))
    assert [r.points for r in results] == [p["points"] for p in out["players"]]
    assert [r.score for r in results] == [p.score for p in expected.players]
    assert [r.yen for r in results] == [p.yen for p in expected.players]
    assert game.deposits == out["deposits"]
    kinds = sorted(ChipEvent.objects.filter(game=game).values_list("kind", flat=True))
    assert kinds == [
        "ippatsu",
        "yakuman",
    ]  # マメの会 has no 裏ドラ chips: the ura mark stays a mark
    assert Hand.objects.filter(table_game=tg, live=True).count() == 5


def test_hand_statistics_against_a_hand_computed_example(tg, members, organiser):
    record_all(tg, organiser, game_hands(members))
    game = services.table_game_save(tg=tg, user=organiser)
    stats = {s.member_id: s for s in HandStat.objects.filter(game=game, counted=True)}
    a, b, c, d = (stats[m.pk] for m in members[:4])
    # 5 hands each; draws 2; a: riichi in hand 1, tenpai at 1 of 2 draws, dealt in a yakuman.
    assert (a.hands, a.draws, a.draw_tenpai, a.riichi, a.deal_ins) == (5, 2, 1, 1, 1)
    # The hands: 東1 draw (a, the dealer, tenpai: 1 honba), 東1-1 double ron (a does not win:
    # the deal passes, honba 0), 東2 draw, nobody tenpai (the deal passes, honba 1), 東3-1 tsumo
    # by d, 東4 (d deals) a dealer yakuman dealt in by a: 48,000, honba 0.
    assert a.deal_in_points == 48_000
    # b: won 3 han 40 fu = 5,200, +300 for the honba, called; the stick of hand 1 is not 打点.
    assert (b.wins, b.win_points, b.called_wins) == (1, 5_500, 1)
    # c: 2 han 30 fu = 2,000 (the second winner gets no honba under マメの会's `first`).
    assert (c.wins, c.win_points, c.riichi) == (1, 2_000, 1)
    # d: a mangan tsumo as 東3-1's non-dealer (2,000/4,000 = 8,000, +100 honba from each: 8,300;
    # the two sticks taken are not 打点) + 東4's dealer yakuman 48,000.
    assert (d.wins, d.win_points, d.ippatsu, d.yakuman, d.deal_ins) == (2, 56_300, 1, 1, 1)
    assert d.deal_in_points == 5_200 + 300 + 2_000


def test_same_key_twice_is_one_hand_and_another_phone_is_merged_or_refused(tg, members, organiser):
    a, _b, _c, _d = ids(members)
    key = uuid.uuid4()
    event = {"result": "tsumo", "winner": a, "han": 1, "fu": 30}
    hand, created = services.hand_record(tg=tg, user=organiser, index=0, key=key, event=event)
    again, created2 = services.hand_record(tg=tg, user=organiser, index=0, key=key, event=event)
    assert created and not created2 and hand.pk == again.pk
    # Another phone, the same hand at the same index: merged into it.
    same, new = services.hand_record(
        tg=tg, user=organiser, index=0, key=uuid.uuid4(), event=dict(event)
    )
    assert same.pk == hand.pk and not new
    # Another phone, another hand at the same index: refused.
    with pytest.raises(HandConflict):
        services.hand_record(
            tg=tg, user=organiser, index=0, key=uuid.uuid4(), event={"result": "draw"}
        )
    with pytest.raises(ServiceError):  # a gap
        services.hand_record(
            tg=tg, user=organiser, index=5, key=uuid.uuid4(), event={"result": "draw"}
        )
    assert Hand.objects.filter(table_game=tg).count() == 1


def test_undo_keeps_the_hand_and_the_engine_refuses_bad_hands(tg, members, organiser):
    a, b, _c, _d = ids(members)
    services.hand_record(
        tg=tg, user=organiser, index=0, key=uuid.uuid4(), event={"result": "draw", "tenpai": [a]}
    )
    assert services.hand_undo(tg=tg, user=organiser, index=0)
    assert not services.hand_undo(tg=tg, user=organiser, index=0)  # a retry does nothing
    assert Hand.objects.filter(table_game=tg).count() == 1
    assert services.play(tg).state.points == (25_000,) * 4
    ron = {"result": "ron", "from": b, "winners": [{"player": a, "han": 1, "fu": 20}]}
    assert "winners[0].fu" in refused_on(tg, organiser, ron)


def test_edit_by_hands_follows_the_games_revision(tg, members, organiser):
    hands = game_hands(members)
    record_all(tg, organiser, hands)
    game = services.table_game_save(tg=tg, user=organiser)
    with pytest.raises(ServiceError):  # not by its final points
        recording.game_edit(game=game, user=organiser, data=recording.game_input_from_stored(game))
    changed = [{"event": e, "marks": m} for e, m in hands[:-1]] + [
        {
            "event": {
                "result": "ron",
                "from": ids(members)[0],
                "winners": [{"player": ids(members)[3], "yakuman": 7}],
            }
        }
    ]
    with pytest.raises(ServiceError):
        services.table_game_edit(tg=tg, user=organiser, hands=changed, expected_revision=1)
    changed[-1]["event"]["winners"][0]["yakuman"] = 1
    changed[-1]["event"]["riichi"] = []
    changed[1]["marks"] = {}
    game = services.table_game_edit(tg=tg, user=organiser, hands=changed, expected_revision=1)
    assert game.revision == 2
    assert Hand.objects.filter(table_game=tg, live=True, revision=2).count() == 5
    assert Hand.objects.filter(table_game=tg, live=False).count() == 5
    b = HandStat.objects.get(game=game, counted=True, member=members[1])
    assert b.called_wins == 0 and b.revision == 2
    recording.game_void(game=game, user=organiser, reason="test")
    assert not HandStat.objects.filter(game=game, counted=True).exists()


def api_url(club, tg, rest=""):
    return f"/api/clubs/{club.slug}/tables/{tg.key}{rest}"


def put_hand(client, club, tg, index, event, key, **extra):
    """As table.js sends a hand: the API with the page's session, its key as Idempotency-Key."""
    headers = {"Idempotency-Key": key, **extra}
    body = json.dumps({"event": event})
    return client.put(
        api_url(club, tg, f"/hands/{index}"), body, "application/json", headers=headers
    )


def test_the_phone_records_through_the_api_with_its_session(organiser_client, tg, members, club):
    a, _b, _c, _d = ids(members)
    assert organiser_client.get(f"/c/{club.slug}/table/{tg.key}/").status_code == 200
    draw = {"result": "draw", "tenpai": [a]}
    key = str(uuid.uuid4())
    first = put_hand(organiser_client, club, tg, 0, draw, key)
    assert first.status_code == 201
    assert first.json()["points"] == [28_000, 24_000, 24_000, 24_000]
    again = put_hand(organiser_client, club, tg, 0, draw, key)
    assert again.status_code == 200 and again.json()["next_index"] == 1
    conflict = put_hand(organiser_client, club, tg, 0, {"result": "draw"}, str(uuid.uuid4()))
    assert conflict.status_code == 409
    assert "東1局は別の端末で違う内容が記録されています" in conflict.json()["errors"]["index"][0]
    assert conflict.json()["state"]["hands"][0]["event"] == draw  # the table's hand, to take
    bad = put_hand(organiser_client, club, tg, 1, [], str(uuid.uuid4()))
    assert bad.status_code == 422 and bad.json()["errors"]
    state = organiser_client.get(api_url(club, tg))
    assert state.status_code == 200 and state.json()["next_index"] == 1
    undo = organiser_client.delete(api_url(club, tg, "/hands/0"))
    assert undo.status_code == 200 and undo.json()["next_index"] == 0
    assert organiser_client.get(f"/c/{club.slug}/table/{tg.key}/finish/").status_code == 302
    assert not Game.objects.exists()
    assert Hand.objects.get(table_game=tg).recorded_by is not None


def test_the_hand_written_json_urls_are_gone(organiser_client, tg, club):
    for rest in ("state/", "hands/", "undo/", "value/"):
        url = f"/c/{club.slug}/table/{tg.key}/{rest}"
        assert organiser_client.post(url, "{}", "application/json").status_code == 404, rest


def test_a_session_write_without_the_csrf_token_is_refused(organiser, tg, members, club):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(organiser)
    page = browser.get(f"/c/{club.slug}/table/{tg.key}/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    draw = {"result": "draw", "tenpai": [ids(members)[0]]}
    refused = put_hand(browser, club, tg, 0, draw, "k1")
    assert refused.status_code == 403
    assert not Hand.objects.filter(table_game=tg).exists()
    wrong = put_hand(browser, club, tg, 0, draw, "k1", **{"X-CSRFToken": "x" * 64})
    assert wrong.status_code == 403
    calculator = browser.post(
        f"/api/clubs/{club.slug}/calculator",
        json.dumps({"tiles": "123456m234p56799s", "win": "7s", "table": str(tg.key)}),
        "application/json",
    )
    assert calculator.status_code == 403
    assert browser.get(api_url(club, tg)).status_code == 200  # a read needs no token
    sent = put_hand(browser, club, tg, 0, draw, "k1", **{"X-CSRFToken": token})
    assert sent.status_code == 201
    assert browser.delete(api_url(club, tg, "/hands/0")).status_code == 403
    assert Hand.objects.get(table_game=tg).live
    undone = browser.delete(api_url(club, tg, "/hands/0"), headers={"X-CSRFToken": token})
    assert undone.status_code == 200


def test_a_bad_token_beside_a_session_is_401_not_the_session(organiser_client, tg, members, club):
    """A request with an Authorization header is the token's: the session is not tried."""
    draw = {"result": "draw", "tenpai": [ids(members)[0]]}
    bearer = {"Authorization": "Bearer jch_not-a-token"}
    assert organiser_client.get(api_url(club, tg), headers=bearer).status_code == 401
    assert put_hand(organiser_client, club, tg, 0, draw, "k", **bearer).status_code == 401
    assert Client().get(api_url(club, tg)).status_code == 401  # no session, no token
    assert not Hand.objects.filter(table_game=tg).exists()


def test_others_cannot_reach_a_table_through_the_api(
    member_client, stranger_client, tg, members, club, other_club
):
    """Another club's organiser: 404 on every operation, as on the pages. A plain member of the
    club: the score may be read (as with a member's token), not written (403)."""
    draw = {"result": "draw", "tenpai": [ids(members)[0]]}
    calc = {"tiles": "123456m234p56799s", "win": "7s", "table": str(tg.key)}
    calculator = f"/api/clubs/{club.slug}/calculator"
    assert stranger_client.get(api_url(club, tg)).status_code == 404
    assert put_hand(stranger_client, club, tg, 0, draw, "s").status_code == 404
    assert stranger_client.delete(api_url(club, tg, "/hands/0")).status_code == 404
    assert stranger_client.post(calculator, json.dumps(calc), "application/json").status_code == 404
    assert stranger_client.post(api_url(club, tg, "/game")).status_code == 404
    # The stranger's own club's URL with this club's table key: not found there either.
    mine = f"/api/clubs/{other_club.slug}/tables/{tg.key}"
    assert stranger_client.get(mine).status_code == 404
    assert (
        stranger_client.put(
            mine + "/hands/0",
            json.dumps({"event": draw}),
            "application/json",
            headers={"Idempotency-Key": "s"},
        ).status_code
        == 404
    )
    assert put_hand(member_client, club, tg, 0, draw, "m").status_code == 403
    assert member_client.delete(api_url(club, tg, "/hands/0")).status_code == 403
    assert member_client.get(api_url(club, tg)).status_code == 200
    assert not Hand.objects.filter(table_game=tg).exists()


def test_others_cannot_reach_a_table(member_client, stranger_client, tg, club):
    url = f"/c/{club.slug}/table/{tg.key}/"
    watching = member_client.get(url)  # a member not at the table watches (test_table_scorers)
    assert watching.status_code == 200 and "data-watching" in watching.content.decode()
    assert stranger_client.get(url).status_code == 404


def test_game_page_has_the_hands_and_their_chart(
    organiser_client, tg, members, organiser, club, django_assert_max_num_queries
):
    record_all(tg, organiser, game_hands(members))
    game = services.table_game_save(tg=tg, user=organiser)
    page = organiser_client.get(f"/c/{club.slug}/games/{game.pk}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "data-game-hands" in html and "data-hands-chart" in html and "<svg" in html
    assert html.count('class="hand-text"') == 5
    # A hand's changes are signed as table mode shows them: +8,000 / ▲8,000.
    assert re.search(r'<td class="num plus">\+\d[\d,]*</td>', html)
    assert re.search(r'<td class="num minus">▲\d[\d,]*</td>', html)
    assert f"/c/{club.slug}/games/{game.pk}/edit/" not in html  # corrected by its hands
    with django_assert_max_num_queries(20) as before:
        organiser_client.get(f"/c/{club.slug}/games/{game.pk}/")
    assert len(before) <= 20


def test_player_page_shows_the_hand_statistics(organiser_client, tg, members, organiser, club):
    from league.standings import selectors as stats_selectors

    record_all(tg, organiser, game_hands(members))
    services.table_game_save(tg=tg, user=organiser)
    a = stats_selectors.hand_stats(member=members[0])
    assert (a["games"], a["hands"], a["win_rate"], a["deal_in_rate"], a["riichi_rate"]) == (
        1,
        5,
        0,
        2_000,
        2_000,
    )
    assert (a["draw_tenpai_rate"], a["avg_win"], a["avg_deal_in"]) == (5_000, None, 48_000)
    d = stats_selectors.hand_stats(member=members[3])
    assert (d["win_rate"], d["avg_win"], d["avg_deal_in"], d["called_rate"]) == (
        4_000,
        28_150,
        7_500,
        0,
    )
    b = stats_selectors.hand_stats(member=members[1])
    assert b["called_rate"] == 10_000
    assert stats_selectors.hand_stats(member=members[4]) is None  # no game with hands
    assert stats_selectors.hand_stats(member=members[0], end=DATE - datetime.timedelta(1)) is None
    html = organiser_client.get(f"/c/{club.slug}/players/{members[3].pk}/").content.decode()
    assert "data-hand-stats" in html and "40.0%" in html and "28,150" in html and "7,500" in html


def test_game_log_has_a_hands_sheet_that_the_import_leaves_alone(tg, members, organiser, club):
    import io

    from openpyxl import load_workbook

    from league.excel import exports, imports

    record_all(tg, organiser, game_hands(members))
    services.table_game_save(tg=tg, user=organiser)
    buffer = io.BytesIO()
    exports.game_log_workbook(club=club).save(buffer)
    book = load_workbook(io.BytesIO(buffer.getvalue()))
    assert len(book.sheetnames) == 2
    rows = list(book.worksheets[1].iter_rows(values_only=True))
    assert len(rows) == 1 + 5 * 4  # the header, then each player of each hand
    last = [r for r in rows[1:] if r[3] == 5]
    assert [r[9] for r in last] == [-48_000, 0, 0, 48_000]
    assert [r[10] for r in last] == [-24_600, 30_900, 20_400, 73_300]
    parsed = imports.workbook_read(buffer.getvalue(), players=4)
    assert parsed.rows == 4 and not parsed.problems  # the game's four rows, not the hands


def test_a_table_game_keeps_a_full_width_table_as_the_game_does(club, members, organiser):
    tg = services.table_start(
        club=club,
        user=organiser,
        key=uuid.uuid4(),
        date=DATE,
        members=members[:4],
        table="Ｂ　",
        rate="0.3",
    )
    assert tg.table == "B"


def test_a_saved_table_games_history_says_how_it_was_recorded(
    organiser_client, tg, members, organiser, club
):
    """Its history listed 「変更」 after 「記録」, though nothing was changed after saving."""
    from django.urls import reverse

    record_all(tg, organiser, game_hands(members))
    game = services.table_game_save(tg=tg, user=organiser)
    page = organiser_client.get(reverse("recording:game_detail", args=[club.slug, game.pk]))
    history = page.content.decode().split("<h2>履歴</h2>", 1)[1]
    assert "局ごとに記録（点数係）" in history
    assert "変更" not in history


def test_the_save_preview_shows_the_settlement_breakdown(organiser_client, tg, members, club):
    """As the record form: return, oka, uma, chombo, chips and yen, step by step (issue 41, 3)."""
    a = ids(members)[0]
    record_all(tg, None, [({"result": "chombo", "player": a}, {}), *game_hands(members)])
    page = organiser_client.get(f"/c/{club.slug}/table/{tg.key}/finish/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'class="breakdown-table"' in html
    for step in ("返し", "ウマ", "オカ", "チョンボ", "チップ", "収支"):
        assert f'<th scope="row" class="wrap">{step}' in html, step
