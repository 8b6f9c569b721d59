"""Who may call the API: API tokens (an organiser's secret for bots and other clients) and the
site's own login session (table mode on the phone), and which club each lets in.

A token (league.accounts.tokens makes, revokes and finds them) acts for its user in its club only,
and only as long as that user still belongs to the club: every request re-reads the user's role,
so removing an organiser (or making them a plain member) takes their tokens' write access away
at once.

A browser logged in to the site calls the same operations with its session (SessionAuth, ninja's
session authentication with Django's CSRF check on every unsafe method): the club is the URL's,
and its access rules are the pages' (league.access.club_for): another club is a 404, a write by a
plain member a 403. A request with an Authorization header is the token's alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _
from ninja.errors import AuthorizationError
from ninja.security import HttpBearer
from ninja.security import SessionAuth as NinjaSessionAuth

from league.access import club_for
from league.accounts.tokens import token_for_secret
from league.models import ApiToken, Club, Membership
from league.models.audit import User

# Writes (by URL name) that a plain member may make: table mode's, where the operation itself
# decides (league.table.services.may_score: an organiser, a player seated at the table, the
# evening's named scorer), and the calculator, which stores nothing. Every other write needs an
# organiser, checked before the body is read.
SCORING_OPERATIONS = frozenset({"table_start", "hand_put", "table_save", "calculator"})


class TokenAuth(HttpBearer):
    """`Authorization: Bearer <secret>`; a missing, unknown or revoked token is a 401.

    The token is also checked against the club in the URL here, before the request's body is
    read: another club's token gets its 404 (a plain member's write its 403) whatever it sends.
    """

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        found = token_for_secret(token)
        match = request.resolver_match
        if found is not None and match is not None and "slug" in match.kwargs:
            _club_for_token(found, match.kwargs["slug"], organiser=_organisers_only(request))
        return found


@dataclass
class SessionCaller:
    """request.auth for a logged-in browser: its user, and the club of the URL as
    league.access.club_for found it (with `is_organiser`), read once per request."""

    user: User
    club: Club | None = None


class SessionAuth(NinjaSessionAuth):
    """The browser's login session, with Django's CSRF check (`X-CSRFToken`) on every unsafe
    method: a POST, PUT or DELETE without the token is a 403 before anything is read.

    A request with an Authorization header is left to TokenAuth (a bad token stays a 401, never
    a CSRF 403), and so is an anonymous one (401, as for a missing token). The club in the URL
    is checked here, as TokenAuth does, before the body is read: another club is a 404, a plain
    member's write a 403 (league.access.club_for, the pages' own rules).
    """

    def __init__(self) -> None:
        super().__init__(csrf=True)

    def __call__(self, request: HttpRequest) -> SessionCaller | None:
        if "HTTP_AUTHORIZATION" in request.META or not request.user.is_authenticated:
            return None
        user = super().__call__(request)  # the CSRF check, then the session's user
        if user is None:
            return None
        caller = SessionCaller(user=user)
        match = request.resolver_match
        if match is not None and "slug" in match.kwargs:
            organiser = _organisers_only(request)
            caller.club = _club_for_session(request, match.kwargs["slug"], organiser=organiser)
        return caller


def api_club(request: HttpRequest, slug: str, *, organiser: bool = False) -> Club:
    """The club at `slug` if the request's token or session may use it: the API's
    `access.club_for`.

    Another club's slug is a 404 whether or not it exists (as on the web); so is a club the
    user no longer belongs to. Writes need the user to be an organiser now: else 403.
    """
    caller = request.auth  # type: ignore[attr-defined]
    if isinstance(caller, SessionCaller):
        club = caller.club
        if club is None or club.slug != slug:
            club = caller.club = _club_for_session(request, slug, organiser=organiser)
        if organiser and not club.is_organiser:  # type: ignore[attr-defined]
            raise AuthorizationError(message=_("Only the club's organisers can change its games."))
        return club
    return _club_for_token(caller, slug, organiser=organiser)


def _organisers_only(request: HttpRequest) -> bool:
    match = request.resolver_match
    writing = request.method not in ("GET", "HEAD", "OPTIONS")
    return writing and (match is None or match.url_name not in SCORING_OPERATIONS)


def api_is_organiser(request: HttpRequest, club: Club) -> bool:
    """Whether the caller is one of `club`'s organisers now (or a superuser)."""
    caller: Any = request.auth  # type: ignore[attr-defined]
    if isinstance(caller, SessionCaller):
        return bool(getattr(club, "is_organiser", False))
    return caller.user.is_superuser or caller.role == Membership.ORGANISER  # type: ignore[no-any-return]


def api_user(request: HttpRequest) -> User:
    """Who acts: the token's user, or the session's."""
    return request.auth.user  # type: ignore[attr-defined,no-any-return]


def idempotency_scope(request: HttpRequest) -> str:
    """What an Idempotency-Key is unique within: a token (its id, as keys were before sessions
    could call the API) or a session's user. The same key from two callers stays two writes."""
    caller: Any = request.auth  # type: ignore[attr-defined]
    if isinstance(caller, SessionCaller):
        return f"user:{caller.user.pk}"
    return str(caller.pk)


def _club_for_session(request: HttpRequest, slug: str, *, organiser: bool) -> Club:
    try:
        return club_for(request, slug, organiser=organiser)
    except PermissionDenied:
        raise AuthorizationError(
            message=_("Only the club's organisers can change its games.")
        ) from None


def _club_for_token(token: ApiToken, slug: str, *, organiser: bool) -> Club:
    club = token.club
    if club.slug != slug:
        raise Http404
    role = token.role  # type: ignore[attr-defined]
    if token.user.is_superuser:
        role = Membership.ORGANISER
    if role is None:
        raise Http404
    if organiser and role != Membership.ORGANISER:
        raise AuthorizationError(message=_("Only the club's organisers can change its games."))
    return club
