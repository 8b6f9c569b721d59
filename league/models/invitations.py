"""Invitations: a link (and its QR code) that lets whoever opens it join a club.

Only a SHA-256 of the link's secret is stored, as for API tokens: the link is shown once, when it
is made. Each use is counted here and written to the club's audit log.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _


class Invitation(models.Model):
    club = models.ForeignKey("league.Club", on_delete=models.PROTECT, related_name="invitations")
    role = models.CharField(
        _("role"),
        max_length=20,
        choices=[("organiser", _("organiser")), ("member", _("member"))],
        default="member",
    )
    # Tied to an existing player record: whoever uses it becomes that member. None: they pick
    # their name from the club's unlinked members (or are added as a new one).
    member = models.ForeignKey(
        "league.Member", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=12, editable=False)  # tells links apart on the list
    note = models.CharField(_("note"), max_length=100, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    max_uses = models.PositiveIntegerField(_("uses allowed"), default=1)
    uses = models.PositiveIntegerField(default=0)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # Sent by mail (league.accounts.tasks.invitation_mail): the worker makes the link's secret
    # when it sends the mail, so that no secret waits in the task queue. The organiser's list
    # shows whether it went, or why not.
    email = models.EmailField(_("email"), blank=True)
    mail_status = models.CharField(
        max_length=10,
        blank=True,
        choices=[("queued", "queued"), ("sent", "sent"), ("failed", "failed")],
    )
    mail_error = models.CharField(max_length=200, blank=True)
    mail_at = models.DateTimeField(null=True, blank=True)  # when it was sent or failed

    class Meta:
        app_label = "league"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(uses__lte=F("max_uses")), name="invitation_uses"),
            models.CheckConstraint(condition=Q(max_uses__gte=1), name="invitation_max_uses"),
        ]
        indexes = [models.Index(fields=["club", "-created_at"], name="invitation_club_recent")]

    def __str__(self) -> str:
        return f"{self.club_id} {self.prefix}… ({self.role})"


def invitation_snapshot(invitation: Invitation) -> dict[str, object]:
    """An invitation as its audit entries show it."""
    return {
        "prefix": invitation.prefix,
        "role": invitation.role,
        "member": invitation.member_id,
        "expires_at": invitation.expires_at.isoformat(),
        "max_uses": invitation.max_uses,
        "uses": invitation.uses,
        "revoked": invitation.revoked_at is not None,
        **({"email": invitation.email} if invitation.email else {}),
    }
