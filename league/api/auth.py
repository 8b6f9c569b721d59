"""API tokens: an organiser's secret for bots and other clients, and who it lets in.

A token is "jch_" and 43 random URL-safe characters. Only its SHA-256 is stored, so a copy of the
database gives no one a working token; the first characters (`prefix`) are kept to tell tokens
apart on the tokens page. A token acts for its user in its club only, and only as long as that user
still belongs to the club: every request re-reads the user's role, so removing an organiser (or
making them a plain member) takes their tokens' write access away at once.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _
from ninja.errors import AuthorizationError
from ninja.security import HttpBearer

from league.accounts.tokens import token_for_secret
from league.models import ApiToken, Club, Membership


class TokenAuth(HttpBearer):
    """`Authorization: Bearer <secret>`; a missing, unknown or revoked token is a 401.

    The token is also checked against the club in the URL here, before the request's body is
    read: another club's token gets its 404 (a plain member's write its 403) whatever it sends.
    """

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        found = token_for_secret(token)
        match = request.resolver_match
        if found is not None and match is not None and "slug" in match.kwargs:
            writing = request.method not in ("GET", "HEAD", "OPTIONS")
            _club_for_token(found, match.kwargs["slug"], organiser=writing)
        return found


def api_club(request: HttpRequest, slug: str, *, organiser: bool = False) -> Club:
    """The club at `slug` if the request's token may use it: the API's `access.club_for`.

    Another club's slug is a 404 whether or not it exists (as on the web); so is a club the
    token's user no longer belongs to. Writes need the user to be an organiser now: else 403.
    """
    return _club_for_token(request.auth, slug, organiser=organiser)  # type: ignore[attr-defined]


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
