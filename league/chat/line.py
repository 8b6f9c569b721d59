"""LINE's Messaging API through the official SDK (line-bot-sdk, v3): the webhook's signature and
events (WebhookParser), replies (free) and the one push a day's close may send.

LINE_API_BASE points the client at another host (tests run a local fake there). The SDK is
imported where it is used: its generated models take seconds to import, which no process should
pay while LINE is not configured."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from league.chat.services import Message

TEXT_LIMIT = 5000  # characters in one text message
MESSAGES_LIMIT = 5  # messages in one reply or push


def enabled() -> bool:
    return bool(settings.LINE_CHANNEL_SECRET and settings.LINE_CHANNEL_ACCESS_TOKEN)


class BadSignature(Exception):
    pass


def parse(body: str, signature: str) -> list[tuple[Message | None, str]]:
    """The webhook's text messages (and a bot's joining a group, as an empty text) with their
    reply tokens; BadSignature when X-Line-Signature is missing or not the body's."""
    from linebot.v3 import WebhookParser
    from linebot.v3.exceptions import InvalidSignatureError
    from linebot.v3.webhooks import (
        GroupSource,
        JoinEvent,
        MessageEvent,
        RoomSource,
        TextMessageContent,
    )

    if not signature:
        raise BadSignature("no X-Line-Signature")
    try:
        events = WebhookParser(settings.LINE_CHANNEL_SECRET).parse(body, signature)
    except InvalidSignatureError as e:
        raise BadSignature(str(e)) from None
    out: list[tuple[Message | None, str]] = []
    for event in events:
        text = None
        if isinstance(event, MessageEvent) and isinstance(event.message, TextMessageContent):
            text = event.message.text
        elif isinstance(event, JoinEvent):
            text = ""  # the bot was added: the core says how to link
        if text is None or not event.reply_token:
            continue
        source = event.source
        if isinstance(source, GroupSource):
            chat_id, group = source.group_id, True
        elif isinstance(source, RoomSource):
            chat_id, group = source.room_id, True
        else:
            chat_id, group = source.user_id, False
        message = Message(
            platform="line",
            event_id=event.webhook_event_id,
            chat_id=chat_id or "",
            user_id=getattr(source, "user_id", None) or "",
            text=text,
            group=group,
        )
        out.append((message, event.reply_token))
    return out


def _messages(text: str) -> list[Any]:
    """The text in as few messages as LINE allows, cut at line ends."""
    from linebot.v3.messaging import TextMessage

    chunks: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        if current and len(current) + len(line) > TEXT_LIMIT:
            chunks.append(current)
            current = ""
        current += line[:TEXT_LIMIT]
    if current:
        chunks.append(current)
    return [TextMessage(text=c, quickReply=None, quoteToken=None) for c in chunks[:MESSAGES_LIMIT]]


def _api() -> Any:
    from linebot.v3.messaging import ApiClient, Configuration

    config = Configuration(
        host=settings.LINE_API_BASE, access_token=settings.LINE_CHANNEL_ACCESS_TOKEN
    )
    return ApiClient(config)


def reply(reply_token: str, text: str) -> None:
    from linebot.v3.messaging import MessagingApi, ReplyMessageRequest

    with _api() as client:
        MessagingApi(client).reply_message(
            ReplyMessageRequest(
                replyToken=reply_token, messages=_messages(text), notificationDisabled=False
            )
        )


def group_size(group_id: str) -> int:
    """How many will receive a push to the group (LINE counts a push once per recipient)."""
    from linebot.v3.messaging import MessagingApi

    with _api() as client:
        return MessagingApi(client).get_group_member_count(group_id).count


def push(to: str, text: str) -> None:
    from linebot.v3.messaging import MessagingApi, PushMessageRequest

    with _api() as client:
        MessagingApi(client).push_message(
            PushMessageRequest(
                to=to,
                messages=_messages(text),
                notificationDisabled=False,
                customAggregationUnits=None,
            )
        )
