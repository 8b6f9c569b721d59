"""The chat's writes: one-time link codes, linking a chat or a chat user, handling a webhook event
once, and the one push at a day's close. Each is audited where the club's book changes hands:
a code made, a code used (the chat or the member it linked)."""

from __future__ import annotations

import datetime
import hashlib
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from league.core.actions import action
from league.core.errors import NON_FIELD, ServiceError
from league.core.locks import for_update
from league.models import ChatCode, ChatEvent, ChatLink, ChatPush, ChatUser, Club, Day, Member
from league.models.audit import User, audit, stored_user

log = logging.getLogger("league.chat")

CODE_LIFETIME = datetime.timedelta(minutes=10)
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read off a phone
CODE_LENGTH = 6


@dataclass(frozen=True)
class Message:
    """A text typed in a chat, as every adapter hands it to the command core."""

    platform: str  # "line", "discord", "telegram", "slack"
    event_id: str  # the platform's id of this event: handled once
    chat_id: str  # the group, channel or 1:1 chat
    user_id: str  # who typed it
    text: str
    group: bool = True  # False: a 1:1 chat with the bot


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def code_create(*, club: Club, user: User, member: Member | None = None) -> str:
    """A new one-time code for the club's group (`member` None) or for `member`'s chat account.
    Returns the code; only its hash is kept."""
    kind = ChatCode.GROUP if member is None else ChatCode.MEMBER
    code = "".join(secrets.choice(CODE_ALPHABET) for _i in range(CODE_LENGTH))
    now = timezone.now()
    with action():
        row = ChatCode.objects.create(
            club=club,
            kind=kind,
            member=member,
            code_hash=_hash(code),
            created_by=stored_user(user),
            expires_at=now + CODE_LIFETIME,
        )
        audit(
            club=club,
            actor=user,
            action=f"chat.code.{kind}",
            target=f"chatcode:{row.pk}",
            after={"kind": kind, "member": member.pk if member else None},
        )
    return code


CODE_UNKNOWN = _("That code is unknown, used or expired. Make a new one (valid for 10 minutes).")
CODE_IN_GROUP = _("Type this code in the group to link (not 1:1 with the bot).")
NO_USER_ID = _(
    "LINE does not tell who you are here (LINE on a computer): send the code from a phone."
)


def code_use(*, message: Message, code: str) -> tuple[ChatCode, Club]:
    """Link the message's chat (a group code) or its sender (a member code) by `code`.
    ServiceError when the code is unknown, used or expired. Runs inside handle()'s transaction."""
    now = timezone.now()
    row = (
        for_update(ChatCode.objects, of=("self",))
        .filter(code_hash=_hash(code.upper()), used_at__isnull=True, expires_at__gt=now)
        .select_related("club", "member")
        .first()
    )
    if row is None:
        raise ServiceError.one(NON_FIELD, str(CODE_UNKNOWN))
    if row.kind == ChatCode.GROUP and not message.group:
        raise ServiceError.one(NON_FIELD, str(CODE_IN_GROUP))
    if row.kind == ChatCode.MEMBER and not message.user_id:
        raise ServiceError.one(NON_FIELD, str(NO_USER_ID))
    if row.kind == ChatCode.GROUP:
        ChatLink.objects.update_or_create(
            platform=message.platform,
            chat_id=message.chat_id,
            defaults={"club": row.club},
        )
        after = {"platform": message.platform, "chat": message.chat_id}
    else:
        ChatUser.objects.update_or_create(
            club=row.club,
            platform=message.platform,
            user_id=message.user_id,
            defaults={"member": row.member},
        )
        after = {"platform": message.platform, "user": message.user_id, "member": row.member_id}
    row.used_at = now
    row.save(update_fields=["used_at"])
    audit(
        club=row.club,
        actor=None,
        action=f"chat.link.{row.kind}",
        target=f"chatcode:{row.pk}",
        after=after,
    )
    return row, row.club


def handle(message: Message, run: Callable[[Message], list[str]]) -> list[str] | None:
    """Run the command core (`run`) on a message once: a webhook event already handled (LINE
    re-sends) answers None and changes nothing. The event and whatever the command writes are
    one transaction."""
    try:
        with action():
            ChatEvent.objects.create(
                platform=message.platform, event_id=message.event_id, sender=message.user_id
            )
            return run(message)
    except IntegrityError:
        if ChatEvent.objects.filter(platform=message.platform, event_id=message.event_id).exists():
            log.info("chat: %s event %s already handled", message.platform, message.event_id)
            return None
        raise


def event_game(*, message: Message, club: Club, game_id: int) -> None:
    """Note the game the message recorded, for 取消 (inside handle()'s transaction)."""
    ChatEvent.objects.filter(platform=message.platform, event_id=message.event_id).update(
        club=club, game_id=game_id
    )


def push_setting(*, link: ChatLink, user: User, push_on_close: bool) -> None:
    """The organiser turns the day-close push of a linked chat on or off."""
    with action():
        before = link.push_on_close
        link.push_on_close = push_on_close
        link.save(update_fields=["push_on_close"])
        audit(
            club=link.club,
            actor=user,
            action="chat.push_setting",
            target=f"chatlink:{link.pk}",
            before={"push_on_close": before},
            after={"push_on_close": push_on_close},
        )


def pushes_this_month(*, club: Club, now: datetime.datetime | None = None) -> int:
    """Messages pushed to the club's LINE chats this month, counted per recipient as LINE does."""
    now = timezone.localtime(now or timezone.now())
    start = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    rows = ChatPush.objects.filter(link__club=club, link__platform="line", sent_at__gte=start)
    return sum(rows.values_list("recipients", flat=True))


def push_claim(*, link: ChatLink, day: Day, recipients: int) -> bool:
    """Claim the one push of `day` to `link`: False when it was pushed already or the month's
    quota would be exceeded (nothing stored then)."""
    quota = settings.LINE_PUSH_QUOTA
    with action():
        for_update(ChatLink.objects).filter(pk=link.pk).first()  # one claim at a time
        if ChatPush.objects.filter(link=link, day=day).exists():
            return False
        if pushes_this_month(club=link.club) + recipients > quota:
            log.warning("chat: push of day %s skipped, the month's quota %s is used", day, quota)
            return False
        ChatPush.objects.create(link=link, day=day, recipients=recipients)
        return True
