"""The audit trail of memberships (who may log in to a club, and as what), on every path.

`Membership.save()` and `.delete()` (and the queryset's `update()` and `delete()`, which go row by
row through them) call `membership_audited`, so that a membership or role changed anywhere — the
admin, a management command, the shell, sign-up — is in the club's audit log. Whoever made the
change is passed as `actor=` where it is known (the admin passes the logged-in superuser);
otherwise it is recorded without an actor, as a system change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model

if TYPE_CHECKING:
    from league.models import Membership
    from league.services import User


def _state(user_id: Any, role: str) -> dict[str, Any]:
    user = get_user_model()._default_manager.filter(pk=user_id).first()
    return {"user": user.get_username() if user else None, "user_id": user_id, "role": role}


def membership_audited(
    *, before: dict[str, Any] | None, after: Membership | None, pk: int, actor: User
) -> None:
    """Audit one membership's change: `before` is its stored row (None: it is new), `after` the
    saved membership (None: it was deleted)."""
    from league.models import Club
    from league.services import audit

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
