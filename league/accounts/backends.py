"""Who is signed in, read from the shared cache: Django's ModelBackend, whose `get_user` (every
request with a session, a 304 included) asks the cache before the database.

Used only with a cache that every process shares (settings.CACHE_SHARED: Redis), as are the
sessions themselves (cached_db): a user saved or deleted anywhere is dropped from it at once and
again when the change commits, so a password change, a deactivation or a new superuser flag is
seen by the next request on every server. A request that read the user from the database just
before such a change may put the old row back; it is kept USER_SECONDS at most.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

logger = logging.getLogger(__name__)

USER_SECONDS = 60


def _key(user_id: Any) -> str:
    return f"auth-user:{user_id}"


class CachedUserBackend(ModelBackend):
    def authenticate(
        self, request: Any, username: Any = None, password: Any = None, **kwargs: Any
    ) -> Any:
        user = super().authenticate(request, username, password, **kwargs)
        if user is None and password is not None:
            # Refused here: ModelBackend, listed after this one for the sessions from before,
            # would only hash the password a second time (twice the cost of a wrong guess).
            raise PermissionDenied
        return user

    def get_user(self, user_id: Any) -> Any:
        try:
            user = cache.get(_key(user_id))
        except Exception:  # the cache unreachable (Redis down): the database, as without it
            logger.exception("CachedUserBackend: the cache did not answer")
            return super().get_user(user_id)
        if user is None:
            user = super().get_user(user_id)
            if user is not None:
                try:
                    cache.set(_key(user_id), user, USER_SECONDS)
                except Exception:
                    logger.exception("CachedUserBackend: the cache did not answer")
        return user if user is not None and self.user_can_authenticate(user) else None


def _forget(user_id: Any) -> None:
    try:
        cache.delete(_key(user_id))
    except Exception:
        logger.exception("CachedUserBackend: the cache did not answer")


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="league.cached_user")
@receiver(post_delete, sender=settings.AUTH_USER_MODEL, dispatch_uid="league.cached_user_gone")
def _user_changed(sender: Any, instance: Any, **kwargs: Any) -> None:
    _forget(instance.pk)
    transaction.on_commit(lambda: _forget(instance.pk))
