"""Discord, Telegram and Slack: each request's signature checked and its text carried to the
command core (league.chat.commands) as a Message, and the reply carried back in the webhook's own
answer (Discord's interaction response, Telegram's webhook reply, Slack's slash-command
response). Each is off while its variable is unset."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import parse_qs

from django.conf import settings

from league.chat.services import Message

SLACK_MAX_AGE = 60 * 5  # seconds: Slack's advice against replays
DISCORD_LIMIT = 2000
TELEGRAM_LIMIT = 4096


class Refused(Exception):
    """Not signed as the service signs, or not a request it sends."""


def _json(body: bytes) -> dict:
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Refused("not JSON") from None
    if not isinstance(data, dict):
        raise Refused("not a JSON object")
    return data


# --- Discord: an HTTP interactions endpoint, Ed25519-signed ----------------------------------

PING, COMMAND = 1, 2


def discord_enabled() -> bool:
    return bool(settings.DISCORD_PUBLIC_KEY)


def discord_parse(body: bytes, signature: str, timestamp: str) -> tuple[int, Message | None]:
    """(interaction type, its message): Refused unless Ed25519-signed by the application's key
    over timestamp + body (X-Signature-Ed25519, X-Signature-Timestamp)."""
    from nacl.exceptions import BadSignatureError  # imported once Discord is configured
    from nacl.signing import VerifyKey

    try:
        key = VerifyKey(bytes.fromhex(settings.DISCORD_PUBLIC_KEY))
        key.verify(timestamp.encode() + body, bytes.fromhex(signature))
    except (BadSignatureError, ValueError) as e:
        raise Refused(f"bad signature: {e}") from None
    data = _json(body)
    kind = data.get("type")
    if kind != COMMAND:
        return int(kind) if isinstance(kind, int) else 0, None
    options = (data.get("data") or {}).get("options") or []
    text = " ".join(str(o.get("value", "")) for o in options if isinstance(o, dict))
    user = (data.get("member") or {}).get("user") or data.get("user") or {}
    message = Message(
        platform="discord",
        event_id=str(data.get("id", "")),
        chat_id=str(data.get("channel_id", "")),
        user_id=str(user.get("id", "")),
        text=text,
        group=bool(data.get("guild_id")),
    )
    return COMMAND, message


def discord_answer(text: str) -> dict:
    return {"type": 4, "data": {"content": text[:DISCORD_LIMIT]}}


# --- Telegram: a webhook with setWebhook's secret token --------------------------------------


def telegram_enabled() -> bool:
    return bool(settings.TELEGRAM_SECRET_TOKEN)


def telegram_parse(body: bytes, token: str) -> Message | None:
    """The update's text message (None: another kind of update); Refused unless
    X-Telegram-Bot-Api-Secret-Token is the secret given to setWebhook."""
    if not hmac.compare_digest(token.encode(), settings.TELEGRAM_SECRET_TOKEN.encode()):
        raise Refused("bad secret token")
    data = _json(body)
    message = data.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("text"), str):
        return None
    chat = message.get("chat") or {}
    return Message(
        platform="telegram",
        event_id=str(data.get("update_id", "")),
        chat_id=str(chat.get("id", "")),
        user_id=str((message.get("from") or {}).get("id", "")),
        text=message["text"],
        group=chat.get("type") != "private",
    )


def telegram_answer(message: Message, text: str) -> dict:
    """A Bot API call in the webhook's answer: Telegram runs it (sendMessage)."""
    return {"method": "sendMessage", "chat_id": message.chat_id, "text": text[:TELEGRAM_LIMIT]}


# --- Slack: a slash command, signed with the app's signing secret ----------------------------


def slack_enabled() -> bool:
    return bool(settings.SLACK_SIGNING_SECRET)


def slack_parse(body: bytes, signature: str, timestamp: str, now: float | None = None) -> Message:
    """The slash command's text; Refused unless X-Slack-Signature is v0= HMAC-SHA256 of
    "v0:<timestamp>:<body>" with the signing secret, and the timestamp within five minutes."""
    try:
        age = abs((now if now is not None else time.time()) - int(timestamp))
    except ValueError:
        raise Refused("bad timestamp") from None
    if age > SLACK_MAX_AGE:
        raise Refused("too old")
    base = b"v0:" + timestamp.encode() + b":" + body
    digest = hmac.new(settings.SLACK_SIGNING_SECRET.encode(), base, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(f"v0={digest}".encode(), signature.encode()):
        raise Refused("bad signature")
    try:
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8")).items()}
    except UnicodeDecodeError:
        raise Refused("not a form") from None
    team = form.get("team_id", "")
    return Message(
        platform="slack",
        event_id=form.get("trigger_id", ""),
        chat_id=f"{team}:{form.get('channel_id', '')}",
        user_id=f"{team}:{form.get('user_id', '')}",
        text=form.get("text", ""),
        group=not form.get("channel_id", "").startswith("D"),
    )


def slack_answer(text: str) -> dict:
    return {"response_type": "in_channel", "text": text}
