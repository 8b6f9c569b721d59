"""API tokens: an organiser's secret for bots and other clients, and who it lets in.

A token is "jch_" and 43 random URL-safe characters. Only its SHA-256 is stored, so a copy of the
database gives no one a working token; the first characters (`prefix`) are kept to tell tokens
apart on the tokens page. A token acts for its user in its club only, and only as long as that user
still belongs to the club: every request re-reads the user's role, so removing an organiser (or
making them a plain member) takes their tokens' write access away at once.
"""

from __future__ import annotations

import hashlib
import secrets

from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _
from ninja.errors import AuthorizationError
from ninja.security import HttpBearer

from league import limits
from league.core.errors import NON_FIELD, ServiceError
from league.models import ApiToken, Club, Membership
from league.models.audit import User, audit
from league.models.memberships import token_revoked

SECRET_PREFIX = "jch_"
PREFIX_LENGTH = 12  # ApiToken.prefix: "jch_" and the secret's first 8 random characters
MAX_SECRET_LENGTH = 100  # far longer than ours; anything longer is not worth hashing


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


# --- creating and revoking (services: the tokens page calls these) --------------------------


def token_create(*, club: Club, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token for `user` in `club`; returns it and its secret, which is never stored."""
    name = " ".join(name.split())
    if not name:
        raise ServiceError.one("name", _("Enter a name."))
    if errors := limits.column_problems(ApiToken, name=name):
        raise ServiceError(errors)
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        token = ApiToken.objects.create(
            user=user,
            club=club,
            name=name,
            prefix=secret[:PREFIX_LENGTH],
            key_hash=hash_secret(secret),
        )
        audit(
            club=club,
            actor=user,
            action="token.create",
            target=f"token:{token.pk}",
            after={"name": token.name, "prefix": token.prefix, "user": token.user_id},
        )
    return token, secret


def token_revoke(*, token: ApiToken, user: User) -> ApiToken:
    """Revoke a token for good: it stops working with the next request."""
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().get(pk=token.pk)
        if token.revoked_at is not None:
            raise ServiceError.one(NON_FIELD, _("This token is already revoked."))
        token_revoked(token, actor=user)
    return token


# --- authenticating API requests -------------------------------------------------------------


def token_for_secret(secret: str) -> ApiToken | None:
    """The live token with this secret (with its user, club and the user's role there), or None.

    One query: the role is read in the same statement, so it is current on every request.
    """
    secret = secret.strip()
    if not secret or len(secret) > MAX_SECRET_LENGTH or not secret.isascii():
        return None
    role = Membership.objects.filter(user=OuterRef("user"), club=OuterRef("club")).values("role")
    return (
        ApiToken.objects.filter(
            key_hash=hash_secret(secret), revoked_at__isnull=True, user__is_active=True
        )
        .select_related("user", "club")
        .annotate(role=Subquery(role[:1]))
        .first()
    )


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
