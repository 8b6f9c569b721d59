"""Who may log in to a club, and as what; every change is in the audit log, on every path.

What someone could do only as a member or an organiser ends with it, on every path too: when a
membership ends (or moves to another club) their API tokens in the club are revoked for good, and
when they stop organising it the invitation links they made there are cancelled; when their
account is deactivated, both, in every club. Each is audited (token.revoke, invitation.revoke).

`Membership.save()` and `.delete()` (and the queryset's `update()` and `delete()`, which go row by
row through them) call `membership_audited`, so that a membership or role changed anywhere — the
admin, a management command, the shell, sign-up — is in the club's audit log. Whoever made the
change is passed as `actor=` where it is known (the admin passes the logged-in superuser);
otherwise it is recorded without an actor, as a system change.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models, transaction
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from league.core.locks import for_update
from league.models.accounts import ApiToken
from league.models.audit import User, audit, save_audited, stored_user
from league.models.clubs import Club
from league.models.invitations import Invitation, invitation_snapshot


class MembershipQuerySet(models.QuerySet["Membership"]):
    """Bulk changes go row by row through save() and delete(), so that each is audited."""

    def update(self, **kwargs: Any) -> int:
        with transaction.atomic(using=self.db):
            rows = list(for_update(self))
            for row in rows:
                for name, value in kwargs.items():
                    setattr(row, name, value)
                row.save()
        return len(rows)

    def delete(self) -> tuple[int, dict[str, int]]:  # type: ignore[override]
        with transaction.atomic(using=self.db):
            rows = list(for_update(self))
            for row in rows:
                row.delete()
        return len(rows), {Membership._meta.label: len(rows)}

    def bulk_create(self, objs: Any, *args: Any, **kwargs: Any) -> list[Membership]:  # type: ignore[override]
        rows = list(objs)
        with transaction.atomic(using=self.db):
            for row in rows:
                row.save()
        return rows


class Membership(models.Model):
    """Who may log in to a club, and whether they organise it. Every change is audited
    (league.memberships): pass `actor=` to save() and delete() when the one who acts is known."""

    ORGANISER = "organiser"
    MEMBER = "member"
    ROLES = [(ORGANISER, _("organiser")), (MEMBER, _("member"))]

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="memberships")
    role = models.CharField(_("role"), max_length=20, choices=ROLES, default=MEMBER)

    objects = MembershipQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "club"], name="membership_once_per_club"),
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.club} ({self.role})"

    def save(self, *args: Any, actor: Any = None, **kwargs: Any) -> None:
        with transaction.atomic():
            before = (
                Membership.objects.filter(pk=self.pk).values("user_id", "club_id", "role").first()
                if self.pk is not None
                else None
            )
            super().save(*args, **kwargs)
            membership_audited(before=before, after=self, pk=self.pk, actor=actor)
            if before is not None:
                _what_ends(before, after=self, actor=actor)

    def delete(self, *args: Any, actor: Any = None, **kwargs: Any) -> tuple[int, dict[str, int]]:
        with transaction.atomic():
            pk = self.pk
            before = Membership.objects.filter(pk=pk).values("user_id", "club_id", "role").first()
            deleted = super().delete(*args, **kwargs)
            if before is not None:
                membership_audited(before=before, after=None, pk=pk, actor=actor)
                _what_ends(before, after=None, actor=actor)
        return deleted


def _what_ends(before: dict[str, Any], *, after: Membership | None, actor: Any) -> None:
    """Revoke what the membership's change ends: tokens when it ends or moves, links when its
    user no longer organises the club."""
    club_id, user_id = before["club_id"], before["user_id"]
    same = after is not None and after.club_id == club_id and after.user_id == user_id
    if not same:
        tokens_revoke(user_id=user_id, club_id=club_id, actor=actor, why="no longer a member")
    if before["role"] == Membership.ORGANISER and not (same and after.role == Membership.ORGANISER):
        links_revoke(
            creator_id=user_id, club_id=club_id, actor=actor, why="creator no longer an organiser"
        )


def links_revoke(*, creator_id: Any, club_id: Any = None, actor: Any, why: str) -> int:
    """Cancel the open invitation links `creator_id` made (in `club_id`, or in every club),
    each audited; returns how many."""
    now = timezone.now()
    links = for_update(Invitation.objects).filter(
        created_by_id=creator_id,
        revoked_at__isnull=True,
        uses__lt=models.F("max_uses"),
        expires_at__gt=now,
    )
    if club_id is not None:
        links = links.filter(club_id=club_id)
    revoked = 0
    for invitation in links.select_related("club").order_by("pk"):
        invitation_revoked(invitation, actor=actor, now=now, why=why)
        revoked += 1
    return revoked


def invitation_revoked(
    invitation: Invitation, *, actor: Any, now: Any = None, why: str | None = None
) -> None:
    """Mark one open invitation link cancelled (at `now`, else now), audited (`why` says what
    cancelled it, when not an organiser by hand). The caller holds the link's row lock."""
    before = invitation_snapshot(invitation)
    invitation.revoked_at = now or timezone.now()
    invitation.revoked_by = stored_user(actor)
    invitation.save(update_fields=["revoked_at", "revoked_by"])
    after = invitation_snapshot(invitation)
    audit(
        club=invitation.club,
        actor=actor,
        action="invitation.revoke",
        target=f"invitation:{invitation.pk}",
        before=before,
        after=after if why is None else {**after, "why": why},
    )


def tokens_revoke(*, user_id: Any, club_id: Any = None, actor: Any, why: str) -> int:
    """Revoke for good the live API tokens of `user_id` (in `club_id`, or in every club), each
    audited: a token never comes back, even when its user joins the club again."""
    tokens = for_update(ApiToken.objects).filter(user_id=user_id, revoked_at__isnull=True)
    if club_id is not None:
        tokens = tokens.filter(club_id=club_id)
    revoked = 0
    for token in tokens.select_related("club").order_by("pk"):
        token_revoked(token, actor=actor, why=why)
        revoked += 1
    return revoked


def token_revoked(token: ApiToken, *, actor: Any, why: str | None = None) -> None:
    """Mark one live token revoked now, audited (`why` says what revoked it, when not its owner
    or an organiser by hand). The caller holds the token's row lock."""
    after = {"name": token.name, "prefix": token.prefix, "revoked": True}
    save_audited(
        token,
        {"revoked_at": timezone.now()},
        club=token.club,
        actor=actor,
        action="token.revoke",
        target=f"token:{token.pk}",
        before={"name": token.name, "prefix": token.prefix, "revoked": False},
        after=after if why is None else {**after, "why": why},
    )


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="league.user_deactivated")
def _user_deactivated(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A deactivated account (the admin, the shell) loses its links and tokens in every club."""
    if instance.is_active:
        return
    with transaction.atomic():
        links_revoke(creator_id=instance.pk, actor=None, why="creator deactivated")
        tokens_revoke(user_id=instance.pk, actor=None, why="user deactivated")


def _state(user_id: Any, role: str) -> dict[str, Any]:
    user = get_user_model()._default_manager.filter(pk=user_id).first()
    return {"user": user.get_username() if user else None, "user_id": user_id, "role": role}


def membership_audited(
    *, before: dict[str, Any] | None, after: Membership | None, pk: int, actor: User
) -> None:
    """Audit one membership's change: `before` is its stored row (None: it is new), `after` the
    saved membership (None: it was deleted)."""
    target = f"membership:{pk}"
    old = _state(before["user_id"], before["role"]) if before else None
    new = _state(after.user_id, after.role) if after is not None else None
    if before is not None and after is not None and before["club_id"] != after.club_id:
        # Moved to another club: it left one club and joined the other.
        club = Club.objects.get(pk=before["club_id"])
        audit(club=club, actor=actor, action="membership.delete", target=target, before=old)
        audit(club=after.club, actor=actor, action="membership.create", target=target, after=new)
        return
    if after is None:
        assert before is not None
        club = Club.objects.get(pk=before["club_id"])
        audit(club=club, actor=actor, action="membership.delete", target=target, before=old)
    elif before is None:
        audit(club=after.club, actor=actor, action="membership.create", target=target, after=new)
    elif old != new:
        action = (
            "membership.role"
            if old and new and old["user_id"] == new["user_id"]
            else "membership.change"
        )
        audit(club=after.club, actor=actor, action=action, target=target, before=old, after=new)
