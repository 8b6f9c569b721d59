"""Online games in the club's season (league/online): a real Tenhou log recorded through the
service and the pages, settled by the club's rules into the same season; Tenhou's own points and
scores under the `tenhou` preset; tampered and duplicate logs refused with nothing stored; names
mapped once and remembered."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation

from league.club import services as club_services
from league.core.errors import ServiceError
from league.models import AuditLog, Game, Member, Membership, OnlineLog, OnlineName, Result
from league.online import services
from tests.support.clubs import client_for, make_club, make_user
from tests.support.online import (
    DATA,
    DAY,
    GAME,
    make_tenhou_organiser,
    record,
    text,
)

NAMES = ["鬼ヅモ@川村軍団", "HN-Koda", "Sidecar", "あがれる間6s"]


@pytest.fixture
def organiser(tenhou_club):
    return make_tenhou_organiser(tenhou_club)


def test_a_real_log_is_recorded_with_tenhous_points_and_scores(tenhou_club, organiser, players):
    game = record(tenhou_club, organiser, players)
    rows = Result.objects.filter(game=game).order_by("seat")
    assert [r.points for r in rows] == [4_400, 7_100, 40_700, 47_800]
    # The club plays the `tenhou` preset: Tenhou's own result line, -46.0 / -33.0 / 21.0 / 58.0.
    assert [r.score for r in rows] == [-460, -330, 210, 580]
    assert [r.member for r in rows] == players
    assert (game.date, game.deposits, game.table) == (DAY, 0, "オンライン")
    log = OnlineLog.objects.get(game=game)
    assert (log.log_id, log.log_format, log.names) == (GAME, "tenhou6-json", NAMES)
    assert len(log.hands["hands"]) == 10
    assert log.hands["final"]["ended"] == "last-hand"
    assert log.hands["hands"][0]["deltas"]["Sidecar"] == 12_000
    remembered = OnlineName.objects.filter(club=tenhou_club).order_by("name")
    assert {o.name: o.member for o in remembered} == dict(zip(NAMES, players, strict=True))
    actions = list(AuditLog.objects.filter(club=tenhou_club).values_list("action", flat=True))
    assert actions.count("online.name") == 4
    assert "online.record" in actions and "game.create" in actions


def test_a_club_with_other_rules_settles_the_same_points_its_own_way(club, organiser, members):
    # マメの会 (no rounding, uma 10-20, deposits to the club, 箱下なし): the same final points.
    club_organiser = make_user("mame-organiser", club, Membership.ORGANISER)
    game = record(club, club_organiser, members[:4])
    rows = Result.objects.filter(game=game).order_by("seat")
    assert [r.points for r in rows] == [4_400, 7_100, 40_700, 47_800]
    # 4th 4.4−30−20 = −45.6; 3rd 7.1−30−10 = −32.9; 2nd 40.7−30+10 = 20.7; top the rest 57.8.
    assert [r.score for r in rows] == [-456, -329, 207, 578]


def test_a_log_id_is_recorded_once(tenhou_club, organiser, players):
    record(tenhou_club, organiser, players)
    with pytest.raises(ServiceError) as caught:
        record(tenhou_club, organiser, players)
    assert "log" in caught.value.errors
    # The same game as an mjlog (no id of its own): the fingerprint finds it.
    with pytest.raises(ServiceError):
        record(tenhou_club, organiser, players, log=text(ext="xml"))
    assert Game.objects.filter(club=tenhou_club).count() == 1
    assert OnlineLog.objects.filter(club=tenhou_club).count() == 1


def test_another_club_may_record_the_same_log(tenhou_club, organiser, players, club, members):
    record(tenhou_club, organiser, players)
    record(club, make_user("mame-org", club, Membership.ORGANISER), members[:4])
    assert OnlineLog.objects.count() == 2


def test_a_tampered_log_is_refused_in_japanese_and_nothing_is_stored(
    tenhou_club, organiser, players
):
    data = json.loads(text())
    data["log"][1][1] = [18000, 22000, 38000, 22000]
    with translation.override("ja"), pytest.raises(ServiceError) as caught:
        record(tenhou_club, organiser, players, log=json.dumps(data, ensure_ascii=False))
    message = caught.value.errors["log"][0]
    assert "東1局" in message and "記録していません" in message
    assert not Game.objects.filter(club=tenhou_club).exists()
    assert not OnlineName.objects.exists()


def test_a_hand_the_rules_refuse_is_named_in_japanese_with_the_rule(
    tenhou_club, organiser, players
):
    data = json.loads(text("handmade-tonpuu-south"))
    # 南1 5本場: a ron of 1 han 20 fu, which no hand can be.
    data["log"][5][-1] = ["和了", [0, 0, 2500, -2500], [2, 3, 2, "20符1飜1000点", "断幺九(1飜)"]]
    with translation.override("ja"), pytest.raises(ServiceError) as caught:
        record(tenhou_club, organiser, players, log=json.dumps(data, ensure_ascii=False))
    message = caught.value.errors["log"][0]
    assert "南1局 5本場" in message and "1翻20符の和了はありえません" in message
    assert "記録していません" in message
    assert not Game.objects.filter(club=tenhou_club).exists()
    assert not OnlineLog.objects.exists() and not OnlineName.objects.exists()


def test_a_log_with_three_noname_seats_is_recorded_by_seat(tenhou_club, organiser, players):
    game = record(tenhou_club, organiser, players, log=text("handmade-west-noname"))
    rows = Result.objects.filter(game=game).order_by("seat")
    assert [r.points for r in rows] == [20_200, 35_400, 22_200, 22_200]
    assert [r.member for r in rows] == players
    # Tenhou's line, half up: 2nd 22 − 30 + 10 = 2 (seat order breaks the tie), 4th −30, top 46.
    assert [r.score for r in rows] == [-300, 460, 20, -180]
    # Only the name nobody shared is remembered: a shared nickname says nothing about who it is.
    assert list(OnlineName.objects.filter(club=tenhou_club).values_list("name", flat=True)) == [
        "千葉"
    ]


def test_one_member_for_two_seats_is_refused(tenhou_club, organiser, players):
    with pytest.raises(ServiceError):
        record(tenhou_club, organiser, [players[0], players[0], players[2], players[3]])
    assert not Game.objects.exists()


def test_an_mjlog_takes_its_id_from_tenhous_file_name(tenhou_club, organiser, players):
    game = record(tenhou_club, organiser, players, log=text(ext="xml"), filename=f"{GAME}.xml")
    assert OnlineLog.objects.get(game=game).log_id == GAME
    assert OnlineLog.objects.get(game=game).log_format == "mjlog-xml"


# --- the pages -------------------------------------------------------------------------------


def test_the_page_is_for_organisers(tenhou_club, players, client):
    url = reverse("online:online_import", args=[tenhou_club.slug])
    member = client_for(make_user("just-a-member", tenhou_club, Membership.MEMBER))
    assert member.get(url).status_code == 403
    stranger = client_for(make_user("stranger-x", make_club("elsewhere"), Membership.ORGANISER))
    assert stranger.get(url).status_code == 404


def test_paste_check_map_and_record_through_the_pages(tenhou_club, organiser, players):
    c = client_for(organiser)
    url = reverse("online:online_import", args=[tenhou_club.slug])
    page = c.get(url)
    assert page.status_code == 200 and "data-online-log" in page.content.decode()
    checked = c.post(url, {"step": "read", "text": text()})
    body = checked.content.decode()
    assert checked.status_code == 200 and "data-online-map" in body
    assert all(name in body for name in NAMES)
    assert 'value="2019-02-10"' in body  # the date in Tenhou's log id
    post = {"step": "record", "log": text(), "filename": "", "date": "2024-05-01"}
    post |= {f"member_{i}": str(m.pk) for i, m in enumerate(players)}
    saved = c.post(url, post)
    game = Game.objects.get(club=tenhou_club)
    assert saved.status_code == 302 and saved["Location"].endswith(f"/games/{game.pk}/")
    # Sent again: the names are remembered, and the page says the log is already recorded.
    again = c.post(url, {"step": "read", "text": text()}).content.decode()
    assert "data-online-found" in again and "data-online-map" not in again
    refused = c.post(url, post)
    assert refused.status_code == 200 and Game.objects.filter(club=tenhou_club).count() == 1


def test_names_once_mapped_come_back_chosen(tenhou_club, organiser, players):
    record(tenhou_club, organiser, players)
    # Another game (a different real log) by the same four online names.
    data = json.loads(text("2019080322gm-00a9-0000-81e85e04"))
    data["name"] = NAMES
    c = client_for(organiser)
    url = reverse("online:online_import", args=[tenhou_club.slug])
    body = c.post(url, {"step": "read", "text": json.dumps(data)}).content.decode()
    assert "data-online-map" in body
    for i, member in enumerate(players):
        assert f'<option value="{member.pk}" selected>' in body, i


def test_an_uploaded_mjlog_file_is_read(tenhou_club, organiser, players):
    c = client_for(organiser)
    url = reverse("online:online_import", args=[tenhou_club.slug])
    upload = SimpleUploadedFile(f"{GAME}.xml", text(ext="xml").encode())
    body = c.post(url, {"step": "read", "file": upload}).content.decode()
    assert "data-online-map" in body and GAME in body


@pytest.mark.parametrize(
    "log", ["", "not a log", '{"log": []}', "<mjloggm", '<!DOCTYPE x [<!ENTITY a "b">]><mjloggm/>']
)
def test_bad_input_is_an_error_on_the_page_never_a_500(tenhou_club, organiser, log):
    c = client_for(organiser)
    url = reverse("online:online_import", args=[tenhou_club.slug])
    with translation.override("ja"):
        for step in ("read", "record"):
            response = c.post(
                url, {"step": step, "text": log, "log": log}, HTTP_ACCEPT_LANGUAGE="ja"
            )
            assert response.status_code == 200
            assert 'role="alert"' in response.content.decode()
    assert not Game.objects.exists()


def test_a_tampered_log_is_refused_on_the_page(tenhou_club, organiser, players):
    data = json.loads(text())
    data["sc"][0] += 1000
    c = client_for(organiser)
    url = reverse("online:online_import", args=[tenhou_club.slug])
    body = c.post(url, {"step": "read", "text": json.dumps(data)}).content.decode()
    assert "data-online-map" not in body and 'role="alert"' in body


def test_the_page_reads_in_constant_queries(
    tenhou_club, organiser, players, django_assert_max_num_queries
):
    for name in sorted(p.stem for p in DATA.glob("*.json"))[:3]:
        record(tenhou_club, organiser, players, log=text(name))
    c = client_for(organiser)
    url = reverse("online:online_import", args=[tenhou_club.slug])
    with django_assert_max_num_queries(8):
        assert c.get(url).status_code == 200


def test_a_remembered_member_merged_since_comes_back_as_the_survivor(
    tenhou_club, organiser, players
):
    record(tenhou_club, organiser, players)
    survivor = Member.objects.create(club=tenhou_club, name="青木 新")
    club_services.member_merge(keep=survivor, gone=players[0], user=organiser)
    remembered = services.remembered_members(tenhou_club, NAMES)
    assert remembered[NAMES[0]] == survivor
    assert remembered[NAMES[1]] == players[1]
