"""Turning a club's share link on and off, rotating it, allowing money on it. Each change is
audited; the token itself is never written to the audit log (the log would leak the link)."""

from __future__ import annotations

import re
import secrets

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from league.core.actions import action
from league.core.locks import for_update
from league.models import Club
from league.models.audit import save_audited
from league.models.draw import held_of, with_held_round

User = AbstractBaseUser | AnonymousUser
TOKEN_BYTES = 32  # 43 URL-safe characters: not guessable
TOKEN_MAX_LENGTH = 64  # Club.share_token's column
TOKEN_SHAPE = re.compile(rf"[A-Za-z0-9_-]{{1,{TOKEN_MAX_LENGTH}}}")  # token_urlsafe's alphabet


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def _locked(club: Club) -> Club:
    return for_update(Club.objects).get(pk=club.pk)


def _set_token(club: Club, user: User, what: str, token: str) -> Club:
    with action():
        locked = _locked(club)
        was_on = bool(locked.share_token)
        if what == "share.enable" and was_on:
            return locked  # already on: the link people have keeps working
        if what == "share.disable" and not was_on:
            return locked
        save_audited(
            locked,
            {"share_token": token},
            club=locked,
            actor=user,
            action=what,
            target=f"club:{locked.pk}",
            before={"enabled": was_on},
            after={"enabled": bool(token)},
        )
    club.share_token = locked.share_token
    return locked


def share_enable(*, club: Club, user: User) -> Club:
    """Turns the link on with a new random token (nothing changes if it is on already)."""
    return _set_token(club, user, "share.enable", new_token())


def share_rotate(*, club: Club, user: User) -> Club:
    """A new token: the old link answers 404 from now on. Turns the link on if it was off."""
    return _set_token(club, user, "share.rotate", new_token())


def share_disable(*, club: Club, user: User) -> Club:
    """Turns the link off: every public page of the club answers 404."""
    return _set_token(club, user, "share.disable", "")


def share_set_money(*, club: Club, user: User, money: bool) -> Club:
    """Whether the public pages show yen (the standings' yen column, a day's payments)."""
    with action():
        locked = _locked(club)
        if locked.share_money == money:
            return locked
        save_audited(
            locked,
            {"share_money": money},
            club=locked,
            actor=user,
            action="share.money",
            target=f"club:{locked.pk}",
            before={"share_money": not money},
            after={"share_money": money},
        )
    club.share_money = money
    return locked


def club_by_token(token: str) -> Club | None:
    """The club whose share link has `token`, None for an empty, unknown or rotated one.

    One lookup by the unique token (an index): a rotated or disabled token is simply not there.
    The final comparison is constant-time, so the answer's timing says nothing about how much of
    a guessed token was right."""
    if not TOKEN_SHAPE.fullmatch(token):  # nothing else was ever issued (and a NUL is no query)
        return None
    club = with_held_round(Club.objects).filter(share_token=token).first()
    if club is None or not secrets.compare_digest(club.share_token, token):
        return None
    club.held = held_of(club)  # type: ignore[attr-defined]  # views.public_results
    return club
