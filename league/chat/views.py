"""The chats' webhooks (POST /hooks/line/, /hooks/discord/, /hooks/telegram/, /hooks/slack/),
each answering 404 while its service's variables are unset, and the club's chat pages: the
organiser's (a group link code, the day-close push, this month's pushes against the quota) and
a member's (a code that ties their chat account to their player)."""

from __future__ import annotations

import datetime
import logging

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST, require_safe

from league.access import club_for, day_for, held_back
from league.chat import adapters, commands, line, services, sharing
from league.chat.services import Message
from league.models import ChatLink, ChatUser
from league.mypage.selectors import linked_member

log = logging.getLogger("league.chat")


def _answer(message: Message) -> str:
    """The core's reply as one text; a command the core ignored gets the list of commands."""
    replies = commands.respond(message)
    if replies is None:
        return _("Already handled.")
    return "\n".join(replies) or commands.how_to_use()


@csrf_exempt
@require_POST
def line_hook(request: HttpRequest) -> HttpResponse:
    if not line.enabled():
        raise Http404
    try:
        body = request.body.decode("utf-8")
        events = line.parse(body, request.headers.get("X-Line-Signature", ""))
    except (line.BadSignature, UnicodeDecodeError) as e:
        log.warning("chat: LINE webhook refused (%s) from %s", e, request.META.get("REMOTE_ADDR"))
        return HttpResponse(status=400)
    for message, reply_token in events:
        replies = commands.respond(message)
        if replies:
            try:
                line.reply(reply_token, "\n".join(replies))
            except Exception:  # LINE down or the token expired: the event is handled all the same
                log.exception("chat: LINE reply to event %s failed", message.event_id)
    return HttpResponse(status=200)


def _refused(service: str, request: HttpRequest, error: Exception) -> HttpResponse:
    log.warning(
        "chat: %s webhook refused (%s) from %s", service, error, request.META.get("REMOTE_ADDR")
    )
    return HttpResponse(status=401 if service == "Discord" else 400)


@csrf_exempt
@require_POST
def discord_hook(request: HttpRequest) -> HttpResponse:
    if not adapters.discord_enabled():
        raise Http404
    try:
        kind, message = adapters.discord_parse(
            request.body,
            request.headers.get("X-Signature-Ed25519", ""),
            request.headers.get("X-Signature-Timestamp", ""),
        )
    except adapters.Refused as e:
        return _refused("Discord", request, e)
    if kind == adapters.PING:
        return JsonResponse({"type": adapters.PING})
    if message is None:
        return HttpResponse(status=400)
    return JsonResponse(adapters.discord_answer(_answer(message)))


@csrf_exempt
@require_POST
def telegram_hook(request: HttpRequest) -> HttpResponse:
    if not adapters.telegram_enabled():
        raise Http404
    try:
        message = adapters.telegram_parse(
            request.body, request.headers.get("X-Telegram-Bot-Api-Secret-Token", "")
        )
    except adapters.Refused as e:
        return _refused("Telegram", request, e)
    if message is None:
        return HttpResponse(status=200)
    replies = commands.respond(message)
    if not replies:
        return HttpResponse(status=200)
    return JsonResponse(adapters.telegram_answer(message, "\n".join(replies)))


@csrf_exempt
@require_POST
def slack_hook(request: HttpRequest) -> HttpResponse:
    if not adapters.slack_enabled():
        raise Http404
    try:
        message = adapters.slack_parse(
            request.body,
            request.headers.get("X-Slack-Signature", ""),
            request.headers.get("X-Slack-Request-Timestamp", ""),
        )
    except adapters.Refused as e:
        return _refused("Slack", request, e)
    return JsonResponse(adapters.slack_answer(_answer(message)))


def chat_enabled() -> bool:
    return line.enabled() or any(
        f() for f in (adapters.discord_enabled, adapters.telegram_enabled, adapters.slack_enabled)
    )


def chat_settings(request: HttpRequest, slug: str) -> HttpResponse:
    """The organiser's chat page: a one-time code for the club's group, the linked chats and
    their day-close push, and this month's pushes against the LINE plan's quota."""
    club = club_for(request, slug, organiser=True)
    if not chat_enabled():
        raise Http404
    code = None
    if request.method == "POST":
        if request.POST.get("action") == "code":
            code = services.code_create(club=club, user=request.user)
        else:
            link_id = request.POST.get("link", "")
            link = (
                ChatLink.objects.filter(club=club, pk=int(link_id)).first()
                if link_id.isascii() and link_id.isdigit()
                else None
            )
            if link is None:
                raise Http404
            on = request.POST.get("push") == "on"
            services.push_setting(link=link, user=request.user, push_on_close=on)
            messages.success(request, _("Saved."))
            return redirect("chat:chat_settings", club.slug)
    context = {
        "club": club,
        "code": code,
        "minutes": int(services.CODE_LIFETIME.total_seconds() // 60),
        "links": list(ChatLink.objects.filter(club=club).order_by("platform", "linked_at")),
        "pushes": services.pushes_this_month(club=club),
        "quota": settings.LINE_PUSH_QUOTA,
        "hook": request.build_absolute_uri("/hooks/line/"),
    }
    return render(request, "league/chat/chat_settings.html", context)


def chat_me(request: HttpRequest, slug: str) -> HttpResponse:
    """A member's chat page: a one-time code that ties their chat account to their player."""
    club = club_for(request, slug)
    if not chat_enabled():
        raise Http404
    member = linked_member(club=club, user=request.user)
    if member is None:
        raise Http404
    code = None
    if request.method == "POST":
        code = services.code_create(club=club, user=request.user, member=member)
    context = {
        "club": club,
        "me": member,
        "code": code,
        "minutes": int(services.CODE_LIFETIME.total_seconds() // 60),
        "accounts": list(ChatUser.objects.filter(member=member).order_by("platform")),
    }
    return render(request, "league/chat/chat_me.html", context)


@require_safe
def day_share(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    """A day as a message for the club's group chat (sharing.day_message), to copy or share."""
    club = club_for(request, slug)
    day = day_for(club, date)
    if (notice := held_back(request, club, day)) is not None:
        return notice
    text = sharing.day_message(club=club, day=day)
    context = {"club": club, "day": day, "text": text, "lines": text.count("\n") + 1}
    return render(request, "league/chat/day_share.html", context)
