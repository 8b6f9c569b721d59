"""API tokens: an organiser's secret for bots and other clients (the actions that create and
revoke them, and the lookup of a secret).

A token is "jch_" and 43 random URL-safe characters. Only its SHA-256 is stored (`hash_secret`,
as for invitation links), so a copy of the database gives no one a working token; the first
characters (`prefix`) are kept to tell tokens apart on the tokens page."""

from __future__ import annotations

import hashlib
import secrets

from django.db.models import OuterRef, Subquery
from django.utils.translation import gettext as _

from league import limits
from league.core.actions import action
from league.core.errors import NON_FIELD, ServiceError
from league.core.locks import for_update
from league.models import ApiToken, Club, Membership
from league.models.audit import User, audit
from league.models.memberships import token_revoked

SECRET_PREFIX = "jch_"
PREFIX_LENGTH = 12  # ApiToken.prefix: "jch_" and the secret's first 8 random characters
MAX_SECRET_LENGTH = 100  # far longer than ours; anything longer is not worth hashing


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def token_create(*, club: Club, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token for `user` in `club`; returns it and its secret, which is never stored."""
    name = " ".join(name.split())
    if not name:
        raise ServiceError.one("name", _("Enter a name."))
    if errors := limits.column_problems(ApiToken, name=name):
        raise ServiceError(errors)
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    with action():
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
    with action():
        token = for_update(ApiToken.objects).get(pk=token.pk)
        if token.revoked_at is not None:
            raise ServiceError.one(NON_FIELD, _("This token is already revoked."))
        token_revoked(token, actor=user)
    return token


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
