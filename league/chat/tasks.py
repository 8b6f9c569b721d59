"""The one push a day's close may send: the day's text to each LINE chat whose organiser turned
it on, within the month's quota (league.chat.services.push_claim)."""

from __future__ import annotations

import logging
from typing import Any

from django.utils import translation

from league.chat import line, services, sharing
from league.core.tasks import enqueue_on_commit, task
from league.models import ChatLink, Day

log = logging.getLogger("league.chat")


@task()
def push_day(day_id: int) -> int:
    """Push the closed day's text; returns how many chats it went to."""
    if not line.enabled():
        return 0
    day = Day.objects.select_related("club").filter(pk=day_id).first()
    if day is None:
        return 0
    sent = 0
    for link in ChatLink.objects.filter(club=day.club, platform="line", push_on_close=True):
        recipients = line.group_size(link.chat_id)
        if not services.push_claim(link=link, day=day, recipients=recipients):
            continue
        with translation.override("ja"):
            text = sharing.day_message(club=day.club, day=day)
        line.push(link.chat_id, text)
        sent += 1
    return sent


def day_closed(sender: Any, day_id: int, **kwargs: Any) -> None:
    """league.money's day_closed signal: the push is a task, enqueued once the close commits."""
    if (
        line.enabled()
        and ChatLink.objects.filter(
            club__days__pk=day_id, platform="line", push_on_close=True
        ).exists()
    ):
        enqueue_on_commit(push_day, day_id)
