"""The club's chat (league.chat, issue 43): signed fixture requests in, against a local fake of
LINE's Messaging API (an HTTP server on 127.0.0.1 that records what the SDK sends it), and the
Discord, Telegram and Slack adapters, whose replies are their webhooks' own answers."""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import html
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

import pytest
from django.urls import reverse
from django.utils import timezone
from nacl.signing import SigningKey

from league.chat import services
from league.core.clock import today
from league.models import (
    AuditLog,
    ChatCode,
    ChatEvent,
    ChatLink,
    ChatPush,
    ChatUser,
    Game,
    Member,
    Result,
)
from league.money import services as money

SECRET = "line-channel-secret"
GROUP = "C0123456789abcdef"
ASKER = "U0123456789abcdef"
RECORD = "記録 青木45000 馬場31000 千葉18000 土井6000"


class FakeLine:
    """LINE's Messaging API on 127.0.0.1: every request it got, as (method, path, JSON body)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                fake.requests.append(("POST", self.path, json.loads(self.rfile.read(length))))
                self._answer({"sentMessages": [{"id": "1", "quoteToken": "q"}]})

            def do_GET(self) -> None:
                fake.requests.append(("GET", self.path, {}))
                self._answer({"count": 12})

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def sent(self, kind: str) -> list[dict]:
        return [body for method, path, body in self.requests if path == f"/v2/bot/message/{kind}"]

    def texts(self, kind: str = "reply") -> list[str]:
        return ["".join(m["text"] for m in body["messages"]) for body in self.sent(kind)]


@pytest.fixture
def fake_line(settings):
    fake = FakeLine()
    settings.LINE_CHANNEL_SECRET = SECRET
    settings.LINE_CHANNEL_ACCESS_TOKEN = "line-access-token"
    settings.LINE_API_BASE = fake.url
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


_ids = iter(range(1, 1_000_000))


def line_event(text: str, *, event_id: str | None = None, source: dict | None = None) -> dict:
    n = next(_ids)
    return {
        "type": "message",
        "mode": "active",
        "timestamp": 1_764_000_000_000,
        "webhookEventId": event_id or f"01JEVENT{n:010d}",
        "deliveryContext": {"isRedelivery": False},
        "replyToken": f"reply-{n}",
        "source": source or {"type": "group", "groupId": GROUP, "userId": ASKER},
        "message": {"type": "text", "id": str(n), "quoteToken": f"q{n}", "text": text},
    }


def post_line(client, *events: dict, secret: str = SECRET, signature: str | None = None):
    body = json.dumps({"destination": "Ubot", "events": list(events)}, ensure_ascii=False)
    digest = hmac.new(secret.encode(), body.encode(), hashlib.sha256).digest()
    headers = {}
    if signature is None:
        headers["HTTP_X_LINE_SIGNATURE"] = base64.b64encode(digest).decode()
    elif signature:
        headers["HTTP_X_LINE_SIGNATURE"] = signature
    return client.post("/hooks/line/", body, content_type="application/json", **headers)


def link_group(client, club, organiser, platform_post=None) -> None:
    code = services.code_create(club=club, user=organiser)
    assert post_line(client, line_event(f"連携 {code}")).status_code == 200


def link_asker(client, club, member, user_id: str = ASKER) -> None:
    code = services.code_create(club=club, user=None, member=member)
    source = {"type": "user", "userId": user_id}
    assert post_line(client, line_event(f"連携 {code}", source=source)).status_code == 200


@pytest.fixture
def linked(client, club, members, organiser, fake_line):
    link_group(client, club, organiser)
    link_asker(client, club, members[0])
    fake_line.requests.clear()
    return fake_line


def live_games(club) -> list[Game]:
    return list(Game.objects.filter(club=club, voided=False))


def seats_of(game: Game) -> list[tuple[str, int, int]]:
    rows = Result.objects.filter(game=game, revision=game.revision).order_by("seat")
    return [(r.member.name, r.points, r.score) for r in rows.select_related("member")]


# --- LINE: recording, idempotency, signatures ------------------------------------------------


def test_a_record_from_a_linked_group_records_one_game_with_one_reply_and_no_push(
    client, club, linked
):
    assert post_line(client, line_event(RECORD)).status_code == 200
    games = live_games(club)
    assert len(games) == 1
    assert games[0].date == today()
    assert [s[:2] for s in seats_of(games[0])] == [
        ("青木", 45000),
        ("馬場", 31000),
        ("千葉", 18000),
        ("土井", 6000),
    ]
    replies = linked.texts("reply")
    assert len(replies) == 1 and "青木" in replies[0] and "第1半荘" in replies[0]
    assert linked.sent("push") == []
    entry = AuditLog.objects.get(action="game.create", game=games[0])
    assert entry.reason == "LINE"


def test_names_by_reading_full_width_digits_and_minus_marks(client, club, linked):
    text = "記録　あおき４５，０００ ばば 31000 ちば24000 どい▲0"
    post_line(client, line_event(text))
    assert [s[:2] for s in seats_of(live_games(club)[0])] == [
        ("青木", 45000),
        ("馬場", 31000),
        ("千葉", 24000),
        ("土井", 0),
    ]


@pytest.mark.rate_rule
def test_a_record_takes_the_evenings_rate_and_is_not_asked_about_it(
    client, club, members, organiser, linked
):
    """The chat cannot tick a box: it records at the evening's rate (the day's last game's), so
    the rate rule (recording.check_rate, issue 37) never stops it."""
    from league.recording import services as recording

    seats = [
        recording.SeatInput(m, p)
        for m, p in zip(members[1:5], (40000, 30000, 20000, 10000), strict=True)
    ]
    recording.game_record(
        club=club,
        user=organiser,
        data=recording.GameInput(date=today(), seats=seats, rate="0.5"),
    )
    post_line(client, line_event(RECORD))
    assert [g.rate for g in live_games(club)] == ["0.5", "0.5"]


def test_the_same_event_sent_twice_records_one_game(client, club, linked):
    event = line_event(RECORD)
    post_line(client, event)
    again = {**event, "replyToken": "another", "deliveryContext": {"isRedelivery": True}}
    assert post_line(client, again).status_code == 200
    assert len(live_games(club)) == 1
    assert len(linked.sent("reply")) == 1


@pytest.mark.parametrize("signature", ["", "bm90IHRoZSBzaWduYXR1cmU="])
def test_a_missing_or_bad_signature_is_400_and_stores_nothing(
    client, club, linked, signature, caplog
):
    stored = (ChatCode.objects.count(), ChatEvent.objects.count(), AuditLog.objects.count())
    response = post_line(client, line_event(RECORD), signature=signature)
    assert response.status_code == 400
    assert live_games(club) == [] and linked.requests == []
    assert (ChatCode.objects.count(), ChatEvent.objects.count(), AuditLog.objects.count()) == stored
    assert "LINE webhook refused" in caplog.text


def test_another_channels_secret_is_refused(client, club, linked):
    assert post_line(client, line_event(RECORD), secret="someone-else").status_code == 400
    assert live_games(club) == []


def test_an_unlinked_group_is_told_how_to_link(client, club, members, fake_line):
    post_line(client, line_event(RECORD))
    assert live_games(club) == []
    [reply] = fake_line.texts("reply")
    assert "連携" in reply and "コード" in reply


def test_a_wrong_sum_gets_the_sum_error_and_no_game(client, club, linked):
    post_line(client, line_event("記録 青木45000 馬場31000 千葉18000 土井5000"))
    assert live_games(club) == []
    [reply] = linked.texts("reply")
    assert "合計" in reply, reply


def test_an_unknown_name_is_named_and_nothing_stored(client, club, linked):
    post_line(client, line_event("記録 青木45000 馬場31000 千葉18000 山田6000"))
    assert live_games(club) == []
    [reply] = linked.texts("reply")
    assert "山田" in reply


def test_a_chat_user_not_linked_to_a_member_may_not_record(client, club, linked):
    other = {"type": "group", "groupId": GROUP, "userId": "Ustranger"}
    post_line(client, line_event(RECORD, source=other))
    assert live_games(club) == []
    assert "メンバー" in linked.texts("reply")[0]


def test_settle_equals_the_days_line_text_byte_for_byte(client, club, linked, organiser):
    post_line(client, line_event(RECORD))
    post_line(client, line_event("記録 青木20000 馬場30000 千葉40000 土井10000"))
    linked.requests.clear()
    post_line(client, line_event("精算"))
    [reply] = linked.texts("reply")
    client.force_login(organiser)
    page = client.get(reverse("chat:day_share", args=[club.slug, today()])).content.decode()
    shown = html.unescape(re.search(r"<textarea[^>]*>(.*?)</textarea>", page, re.S).group(1))
    assert reply.encode() == shown.encode()
    assert "■精算" in reply


def test_undo_voids_the_askers_last_game_within_ten_minutes(client, club, linked):
    post_line(client, line_event(RECORD))
    game = live_games(club)[0]
    post_line(client, line_event("取消"))
    game.refresh_from_db()
    assert game.voided
    assert AuditLog.objects.filter(action="game.void", game=game).exists()


def test_undo_after_ten_minutes_does_nothing(client, club, linked):
    post_line(client, line_event(RECORD))
    game = live_games(club)[0]
    Game.objects.filter(pk=game.pk).update(
        recorded_at=timezone.now() - datetime.timedelta(minutes=11)
    )
    post_line(client, line_event("取消"))
    game.refresh_from_db()
    assert not game.voided


def test_standings_show_the_top_and_the_askers_place(client, club, linked):
    post_line(client, line_event(RECORD))
    linked.requests.clear()
    post_line(client, line_event("順位"))
    [reply] = linked.texts("reply")
    lines = reply.splitlines()
    assert "青木" in lines[1] and "馬場" in lines[2] and "千葉" in lines[3]
    assert "青木" in lines[-1] and len(lines) == 5


def test_ordinary_chat_in_a_linked_group_gets_no_reply(client, club, linked):
    post_line(client, line_event("お疲れさまでした"))
    assert linked.requests == []


# --- link codes ----------------------------------------------------------------------------


def test_a_link_code_works_once_and_is_audited(client, club, organiser, fake_line):
    code = services.code_create(club=club, user=organiser)
    assert AuditLog.objects.filter(action="chat.code.group").count() == 1
    post_line(client, line_event(f"連携 {code}"))
    assert ChatLink.objects.get(platform="line", chat_id=GROUP).club == club
    assert AuditLog.objects.filter(action="chat.link.group").count() == 1
    other = {"type": "group", "groupId": "Cother", "userId": ASKER}
    post_line(client, line_event(f"連携 {code}", source=other))
    assert not ChatLink.objects.filter(chat_id="Cother").exists()
    assert "使用済み" in fake_line.texts("reply")[-1] or "期限" in fake_line.texts("reply")[-1]


def test_a_link_code_expires_after_ten_minutes(client, club, organiser, members, fake_line):
    code = services.code_create(club=club, user=organiser, member=members[1])
    ChatCode.objects.update(expires_at=timezone.now() - datetime.timedelta(seconds=1))
    post_line(client, line_event(f"連携 {code}"))
    assert not ChatUser.objects.exists()
    assert ChatCode.objects.get().expires_at - ChatCode.objects.get().created_at <= (
        datetime.timedelta(minutes=10)
    )


def test_the_organiser_makes_a_code_on_the_chat_page(client, club, organiser, fake_line):
    client.force_login(organiser)
    home = client.get(reverse("recording:club_home", args=[club.slug])).content.decode()
    assert reverse("chat:chat_settings", args=[club.slug]) in home
    page = client.post(reverse("chat:chat_settings", args=[club.slug]), {"action": "code"})
    code = re.search(r"連携 ([A-Z0-9]{6})", page.content.decode()).group(1)
    post_line(client, line_event(f"連携 {code}"))
    assert ChatLink.objects.filter(club=club).count() == 1


def test_a_member_links_their_chat_account_from_my_page(client, club, members, fake_line):
    from tests.support.clubs import make_user

    user = make_user("aoki", club)
    members[0].user = user
    members[0].save()
    client.force_login(user)
    page = client.post(reverse("chat:chat_me", args=[club.slug])).content.decode()
    code = re.search(r"連携 ([A-Z0-9]{6})", page).group(1)
    post_line(client, line_event(f"連携 {code}", source={"type": "user", "userId": "Uaoki"}))
    assert ChatUser.objects.get(user_id="Uaoki").member == members[0]


# --- the day-close push ----------------------------------------------------------------------


def _close_today(club, organiser) -> None:
    from league.models import Day

    day = Day.objects.get(club=club, date=today())
    ledger = money.day_ledger(day=day)
    money.day_close(
        day=day, user=organiser, defer=(), expected=money.transfers_key(ledger.transfers)
    )


def test_no_push_at_close_unless_the_organiser_turned_it_on(
    client, club, linked, organiser, django_capture_on_commit_callbacks
):
    post_line(client, line_event(RECORD))
    with django_capture_on_commit_callbacks(execute=True):
        _close_today(club, organiser)
    assert linked.sent("push") == []


def test_one_push_at_close_when_turned_on_counted_per_recipient(
    client, club, linked, organiser, django_capture_on_commit_callbacks
):
    post_line(client, line_event(RECORD))
    link = ChatLink.objects.get(club=club)
    services.push_setting(link=link, user=organiser, push_on_close=True)
    with django_capture_on_commit_callbacks(execute=True):
        _close_today(club, organiser)
    [push] = linked.sent("push")
    assert push["to"] == GROUP and "■精算" in push["messages"][0]["text"]
    assert ChatPush.objects.get().recipients == 12
    assert services.pushes_this_month(club=club) == 12
    client.force_login(organiser)
    page = client.get(reverse("chat:chat_settings", args=[club.slug])).content.decode()
    assert 'data-push-count="12"' in page and 'data-push-quota="200"' in page


# --- Discord, Telegram, Slack ------------------------------------------------------------------


@pytest.fixture
def discord_key(settings):
    key = SigningKey.generate()
    settings.DISCORD_PUBLIC_KEY = key.verify_key.encode().hex()
    return key


def post_discord(client, payload: dict, key: SigningKey | None):
    body = json.dumps(payload, ensure_ascii=False).encode()
    stamp = str(int(time.time()))
    signer = key or SigningKey.generate()
    signature = signer.sign(stamp.encode() + body).signature.hex()
    return client.post(
        "/hooks/discord/",
        body,
        content_type="application/json",
        HTTP_X_SIGNATURE_ED25519=signature,
        HTTP_X_SIGNATURE_TIMESTAMP=stamp,
    )


def test_discords_ping_gets_pong_only_when_signed(client, discord_key):
    signed = post_discord(client, {"type": 1}, discord_key)
    assert signed.status_code == 200 and signed.json() == {"type": 1}
    forged = post_discord(client, {"type": 1}, None)
    assert forged.status_code == 401


def discord_command(text: str) -> dict:
    n = next(_ids)
    return {
        "id": f"9{n:09d}",
        "type": 2,
        "guild_id": "g1",
        "channel_id": "c1",
        "member": {"user": {"id": "d-aoki"}},
        "data": {"name": "jancho", "options": [{"name": "text", "type": 3, "value": text}]},
    }


@pytest.fixture
def telegram(settings):
    settings.TELEGRAM_SECRET_TOKEN = "telegram-secret"


def post_telegram(client, text: str, token: str = "telegram-secret", update_id: int | None = None):
    n = next(_ids)
    update = {
        "update_id": update_id or n,
        "message": {
            "message_id": n,
            "from": {"id": 777},
            "chat": {"id": -100123, "type": "supergroup"},
            "text": text,
        },
    }
    return client.post(
        "/hooks/telegram/",
        json.dumps(update, ensure_ascii=False),
        content_type="application/json",
        HTTP_X_TELEGRAM_BOT_API_SECRET_TOKEN=token,
    )


@pytest.fixture
def slack(settings):
    settings.SLACK_SIGNING_SECRET = "slack-signing-secret"


def post_slack(client, text: str, secret: str = "slack-signing-secret"):
    n = next(_ids)
    body = urlencode(
        {
            "command": "/jancho",
            "text": text,
            "team_id": "T1",
            "channel_id": "C1",
            "user_id": "U1",
            "trigger_id": f"trigger-{n}",
        }
    )
    stamp = str(int(time.time()))
    base = f"v0:{stamp}:{body}".encode()
    signature = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return client.post(
        "/hooks/slack/",
        body,
        content_type="application/x-www-form-urlencoded",
        HTTP_X_SLACK_SIGNATURE=signature,
        HTTP_X_SLACK_REQUEST_TIMESTAMP=stamp,
    )


def _line_game(client, club, members, organiser) -> list[tuple[str, int, int]]:
    link_group(client, club, organiser)
    link_asker(client, club, members[0])
    post_line(client, line_event(RECORD))
    [game] = live_games(club)
    return seats_of(game)


@pytest.mark.parametrize("platform", ["telegram", "slack", "discord"])
def test_telegram_slack_and_discord_record_the_same_game_as_line(
    client, club, members, organiser, fake_line, settings, platform
):
    expected = _line_game(client, club, members, organiser)
    Game.objects.update(voided=True)  # the same result again is no duplicate of a void game
    settings.TELEGRAM_SECRET_TOKEN = "telegram-secret"
    settings.SLACK_SIGNING_SECRET = "slack-signing-secret"
    key = SigningKey.generate()
    settings.DISCORD_PUBLIC_KEY = key.verify_key.encode().hex()
    group = services.code_create(club=club, user=organiser)
    mine = services.code_create(club=club, user=None, member=members[0])
    if platform == "telegram":
        post_telegram(client, f"/link {group}")
        post_telegram(client, f"連携 {mine}")
        answer = post_telegram(client, RECORD).json()
        assert answer["method"] == "sendMessage" and answer["chat_id"] == "-100123"
        text = answer["text"]
    elif platform == "slack":
        post_slack(client, f"連携 {group}")
        post_slack(client, f"連携 {mine}")
        text = post_slack(client, RECORD).json()["text"]
    else:
        post_discord(client, discord_command(f"連携 {group}"), key)
        post_discord(client, discord_command(f"連携 {mine}"), key)
        text = post_discord(client, discord_command(RECORD), key).json()["data"]["content"]
    [game] = live_games(club)
    assert seats_of(game) == expected
    assert "第2半荘" in text
    assert AuditLog.objects.get(action="game.create", game=game).reason.lower() == platform


def test_telegram_and_slack_refuse_unsigned_requests(client, club, telegram, slack):
    assert post_telegram(client, RECORD, token="wrong").status_code == 400
    assert post_slack(client, RECORD, secret="wrong").status_code == 400
    assert live_games(club) == []


def test_a_telegram_update_sent_twice_records_one_game(client, club, members, organiser, telegram):
    post_telegram(client, f"連携 {services.code_create(club=club, user=organiser)}")
    post_telegram(client, f"連携 {services.code_create(club=club, user=None, member=members[0])}")
    post_telegram(client, RECORD, update_id=424242)
    post_telegram(client, RECORD, update_id=424242)
    assert len(live_games(club)) == 1


# --- off when unset ----------------------------------------------------------------------------


def test_every_hook_is_404_and_no_link_shows_when_the_variables_are_unset(client, club, organiser):
    for hook in ("line", "discord", "telegram", "slack"):
        assert (
            client.post(f"/hooks/{hook}/", "{}", content_type="application/json").status_code == 404
        )
    client.force_login(organiser)
    home = client.get(reverse("recording:club_home", args=[club.slug])).content.decode()
    assert "data-chat-link" not in home
    assert client.get(reverse("chat:chat_settings", args=[club.slug])).status_code == 404


def test_the_bot_added_to_a_group_says_how_to_link(db, client, fake_line):
    join = line_event("")
    del join["message"]
    join["type"] = "join"
    join["source"] = {"type": "group", "groupId": "Cnew"}
    assert post_line(client, join).status_code == 200
    [reply] = fake_line.texts("reply")
    assert "連携" in reply


def test_a_group_code_in_a_one_to_one_chat_links_nothing(client, club, organiser, fake_line):
    code = services.code_create(club=club, user=organiser)
    post_line(client, line_event(f"連携 {code}", source={"type": "user", "userId": ASKER}))
    assert not ChatLink.objects.exists()
    assert ChatCode.objects.get().used_at is None
    assert "グループ" in fake_line.texts("reply")[0]


def test_a_linked_member_records_one_to_one_with_the_bot(client, club, members, linked):
    post_line(client, line_event(RECORD, source={"type": "user", "userId": ASKER}))
    assert len(live_games(club)) == 1


def test_the_organiser_turns_the_push_on_from_the_chat_page(
    client, club, linked, organiser, member_user
):
    link = ChatLink.objects.get(club=club)
    url = reverse("chat:chat_settings", args=[club.slug])
    client.force_login(member_user)
    assert client.post(url, {"link": link.pk, "push": "on"}).status_code == 403
    client.force_login(organiser)
    assert client.post(url, {"link": link.pk, "push": "on"}).status_code == 302
    link.refresh_from_db()
    assert link.push_on_close
    assert AuditLog.objects.filter(action="chat.push_setting").count() == 1
    assert client.post(url, {"link": "１"}).status_code == 404
    assert client.post(url, {"link": "x"}).status_code == 404
    link.refresh_from_db()
    assert link.push_on_close


def test_table_tells_the_asker_their_table_and_wind(client, club, members, linked, organiser):
    from league.draw import selectors as draw_selectors
    from league.draw import services as draw
    from league.models import Day

    extra = [
        Member.objects.create(club=club, name=f"選手{i}", kana=f"せんしゅ{i}") for i in range(3)
    ]
    for member in [*members, *extra]:
        draw.attendance_check_in(club=club, user=organiser, date=today(), member=member)
    draw.round_draw(club=club, user=organiser, date=today())
    day = Day.objects.get(club=club, date=today())
    current = draw_selectors.current_round(draw_selectors.current_rounds(day))
    [(view, wind)] = [
        (v, w) for v in current.tables for w, p in v.seated if p.pk == members[0].pk
    ]  # eight players: two tables, nobody sits out
    post_line(client, line_event("卓"))
    [reply] = linked.texts("reply")
    assert reply.startswith("1回戦") and f"{view.table.label}卓 {wind}家" in reply, reply


def test_no_push_beyond_the_months_quota(
    client, club, linked, organiser, settings, django_capture_on_commit_callbacks
):
    settings.LINE_PUSH_QUOTA = 11  # the fake group has 12 members: one push would be 12
    post_line(client, line_event(RECORD))
    link = ChatLink.objects.get(club=club)
    services.push_setting(link=link, user=organiser, push_on_close=True)
    with django_capture_on_commit_callbacks(execute=True):
        _close_today(club, organiser)
    assert linked.sent("push") == [] and not ChatPush.objects.exists()


def test_another_clubs_organiser_cannot_set_this_clubs_chat(
    client, club, linked, other_club, stranger
):
    """A link id is looked up in the club of the address: 金曜会's organiser, posting マメの会's
    link to their own club's chat page, gets 404, and the link is unchanged."""
    link = ChatLink.objects.get(club=club)
    client.force_login(stranger)
    url = reverse("chat:chat_settings", args=[other_club.slug])
    assert client.get(url).status_code == 200  # the control: their own chat page opens
    assert client.post(url, {"link": link.pk, "push": "on"}).status_code == 404
    link.refresh_from_db()
    assert not link.push_on_close
