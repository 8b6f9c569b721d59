"""The club's group chats (league.chat): which chat is which club's, which chat user is which
member, the one-time codes that link them, the webhook events already handled, and the pushes
sent (LINE counts them against a monthly quota)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from league.models.clubs import Club
from league.models.games import Day, Game
from league.models.members import Member

PLATFORMS = [
    ("line", "LINE"),
    ("discord", "Discord"),
    ("telegram", "Telegram"),
    ("slack", "Slack"),
]


class ChatLink(models.Model):
    """A group chat (a LINE group, a Discord or Slack channel, a Telegram chat) of a club."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="chat_links")
    platform = models.CharField(max_length=10, choices=PLATFORMS)
    chat_id = models.CharField(max_length=100)
    # The organiser's choice: one push of the day's text when the day is closed (LINE only).
    push_on_close = models.BooleanField(default=False)
    linked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["platform", "chat_id"], name="chat_link_once"),
        ]

    def __str__(self) -> str:
        return f"{self.platform}:{self.chat_id}"


class ChatUser(models.Model):
    """A chat account tied to a member of a club (by a code from My page)."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="chat_users")
    platform = models.CharField(max_length=10, choices=PLATFORMS)
    user_id = models.CharField(max_length=100)
    linked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["club", "platform", "user_id"], name="chat_user_once_per_club"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.platform}:{self.user_id} → {self.member_id}"


class ChatCode(models.Model):
    """A one-time code: typed in a chat as 「連携 ABC123」, it links that chat to the club
    (GROUP) or the chat user to `member` (MEMBER). Only its SHA-256 is stored; single use,
    valid for ten minutes (league.chat.services.CODE_LIFETIME)."""

    GROUP = "group"
    MEMBER = "member"

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=10, choices=[(GROUP, GROUP), (MEMBER, MEMBER)])
    member = models.ForeignKey(Member, null=True, on_delete=models.PROTECT, related_name="+")
    code_hash = models.CharField(max_length=64, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True)

    def __str__(self) -> str:
        return f"{self.kind} code {self.pk}"


class ChatEvent(models.Model):
    """A webhook event handled once: LINE re-sends an event it thinks was not delivered, and a
    re-sent event must record nothing twice. `game`: the game it recorded (for 取消)."""

    platform = models.CharField(max_length=10, choices=PLATFORMS)
    event_id = models.CharField(max_length=100)
    club = models.ForeignKey(Club, null=True, on_delete=models.PROTECT, related_name="+")
    sender = models.CharField(max_length=100, blank=True)
    game = models.ForeignKey(Game, null=True, on_delete=models.PROTECT, related_name="+")
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["platform", "event_id"], name="chat_event_once"),
        ]
        indexes = [models.Index(fields=["platform", "sender", "-received_at"], name="chat_asker")]

    def __str__(self) -> str:
        return f"{self.platform}:{self.event_id}"


class ChatPush(models.Model):
    """A message pushed (not replied) to a chat: the day's text at its close. LINE counts a
    push once per recipient against the plan's monthly quota."""

    link = models.ForeignKey(ChatLink, on_delete=models.PROTECT, related_name="pushes")
    day = models.ForeignKey(Day, on_delete=models.PROTECT, related_name="+")
    recipients = models.PositiveIntegerField()
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["link", "day"], name="chat_push_once_a_day"),
        ]

    def __str__(self) -> str:
        return f"{self.link} {self.day_id} ×{self.recipients}"
