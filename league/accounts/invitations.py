"""Invitations: an organiser makes a link (and its QR code); whoever opens it joins the club.

A link is `/join/<secret>/`, the secret "inv_" and 32 random URL-safe characters. As for API
tokens only its SHA-256 is stored (`Invitation.token_hash`), so the link and its QR code are shown
once, when they are made; an organiser who lost it revokes it and makes another.

An invitation gives a role (member or organiser). It may be tied to a player record already in
the club (the organiser knows who it is for); otherwise whoever uses it picks their name from the
club's players who have no login yet, or is added as a new player under the name they give.

Using one is a single transaction that locks the invitation row, so that a link allowed one use
cannot be used twice by two people at once. Expired, revoked and used-up links are refused with a
message that says which. Every creation, revocation and use is in the club's audit log.
"""

from __future__ import annotations

import datetime
import secrets
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError
from django.db.models import Exists, F, OuterRef, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from league import limits
from league.accounts.tokens import hash_secret
from league.club import services as club_services
from league.core import names
from league.core.actions import action
from league.core.errors import NON_FIELD, ServiceError
from league.core.locks import for_update
from league.models import Club, Member, Membership
from league.models import audit as models_audit
from league.models.audit import User, audit, save_audited
from league.models.invitations import Invitation, invitation_snapshot
from league.models.memberships import invitation_revoked, links_revoke

SECRET_PREFIX = "inv_"
PREFIX_LENGTH = 10  # Invitation.prefix: "inv_" and the secret's first 6 random characters
MAX_SECRET_LENGTH = 100
EXPIRY_DAYS = (1, 7, 30)
DEFAULT_EXPIRY_DAYS = 7
MAX_USES = 100  # a member link for a whole club's LINE group; an organiser link is one use

# Why a link cannot be used; the join page shows these words.
OK, EXPIRED, REVOKED, USED_UP = "ok", "expired", "revoked", "used_up"


def state(invitation: Invitation, now: datetime.datetime | None = None) -> str:
    if invitation.revoked_at is not None:
        return REVOKED
    if invitation.uses >= invitation.max_uses:
        return USED_UP
    if invitation.expires_at <= (now or timezone.now()):
        return EXPIRED
    if not maker_may_invite(invitation):
        return REVOKED
    return OK


def _maker_organises(club: Any, user: Any) -> Q:
    """Users (filtered by `user`, a pk or an OuterRef) who may invite into `club`: active, and
    organisers of it or superusers."""
    organises = Membership.objects.filter(club_id=club, user_id=user, role=Membership.ORGANISER)
    return Q(is_active=True) & (Q(is_superuser=True) | Exists(organises))


def with_maker_check(invitations: Any) -> Any:
    """The invitations annotated with whether their maker may still invite (`maker_ok`), so
    that `state` asks no query per row of a list."""
    makers = get_user_model()._default_manager.filter(
        _maker_organises(OuterRef(OuterRef("club_id")), OuterRef("pk")),
        pk=OuterRef("created_by_id"),
    )
    return invitations.annotate(maker_ok=Q(created_by__isnull=True) | Exists(makers))


def maker_may_invite(invitation: Invitation) -> bool:
    """Whether the link's maker may still invite into its club: an active account that organises
    the club (or a superuser). Checked whenever a link is opened or used, whatever path changed
    the maker (Membership.save and a deactivation also cancel their links: this holds even where
    a change went around them)."""
    annotated = getattr(invitation, "maker_ok", None)
    if annotated is not None:
        return bool(annotated)
    if invitation.created_by_id is None:  # made by the system, not by a person
        return True
    users = get_user_model()._default_manager.filter(pk=invitation.created_by_id)
    return users.filter(_maker_organises(invitation.club_id, OuterRef("pk"))).exists()


def refusal(status: str) -> str:
    """What to tell whoever opened a link that cannot be used."""
    return {
        EXPIRED: _("This invitation has expired. Ask an organiser of the club for a new link."),
        REVOKED: _("This invitation was cancelled. Ask an organiser of the club for a new link."),
        USED_UP: _(
            "This invitation has already been used. Ask an organiser of the club for a new link."
        ),
    }[status]


_snapshot = invitation_snapshot


def unlinked_members(club: Club):
    """The players a newcomer may say they are: active, not merged away, no login yet."""
    return Member.objects.filter(
        club=club, user__isnull=True, merged_into__isnull=True, is_active=True
    ).order_by("kana", "name")


# --- organisers: make and revoke -------------------------------------------------------------


def invitation_create(
    *,
    club: Club,
    user: User,
    role: str = Membership.MEMBER,
    member: Member | None = None,
    days: int = DEFAULT_EXPIRY_DAYS,
    max_uses: int = 1,
    note: str = "",
    email: str = "",
) -> tuple[Invitation, str]:
    """A new invitation and its secret (never stored: shown once). With `email` the link is
    mailed instead (mail_status "queued": the caller enqueues league.accounts.tasks.
    invitation_mail, which makes the secret the mail carries); the secret returned then opens
    nothing."""
    if role not in (Membership.MEMBER, Membership.ORGANISER):
        raise ServiceError.one("role", _("Choose member or organiser."))
    if days not in EXPIRY_DAYS:
        raise ServiceError.one("days", _("Choose how long the link works."))
    if not 1 <= max_uses <= MAX_USES:
        raise ServiceError.one(
            "max_uses", _("Enter a number from 1 to %(max)s.") % {"max": MAX_USES}
        )
    if member is not None or role == Membership.ORGANISER:
        max_uses = 1  # a link for one person's record, or one that makes an organiser: one use
    if member is not None:
        if member.club_id != club.pk:
            raise ServiceError.one("member", _("Choose a player of this club."))
        if member.user_id is not None or member.merged_into_id is not None:
            raise ServiceError.one("member", _("This player already has a login."))
    note = " ".join(note.split())
    if errors := limits.column_problems(Invitation, note=note):
        raise ServiceError(errors)
    email = _mail_address(club, email)
    secret = SECRET_PREFIX + secrets.token_urlsafe(24)
    with action():
        invitation = Invitation.objects.create(
            email=email,
            mail_status=MAIL_QUEUED if email else "",
            club=club,
            role=role,
            member=member,
            token_hash=hash_secret(secret),
            prefix=secret[:PREFIX_LENGTH],
            note=note,
            created_by=models_audit.stored_user(user),
            expires_at=timezone.now() + datetime.timedelta(days=days),
            max_uses=max_uses,
        )
        audit(
            club=club,
            actor=user,
            action="invitation.create",
            target=f"invitation:{invitation.pk}",
            after=_snapshot(invitation),
        )
    return invitation, secret


def invitation_revoke(*, invitation: Invitation, user: User) -> Invitation:
    with action():
        invitation = for_update(Invitation.objects).get(pk=invitation.pk)
        if invitation.revoked_at is not None:
            raise ServiceError.one(NON_FIELD, _("This invitation is already cancelled."))
        invitation_revoked(invitation, actor=user)
    return invitation


def invitations_of_revoked(*, club: Club, creator: Any, actor: User) -> int:
    """Cancel the open links `creator` made in `club`: called when they stop being an organiser
    (removed, demoted or leaving), so that no link of theirs lets them, or anyone, back in.
    (Membership.save and .delete do the same on every other path: league.models.memberships.)"""
    return links_revoke(
        creator_id=getattr(creator, "pk", creator),
        club_id=club.pk,
        actor=actor,
        why="creator no longer an organiser",
    )


# --- whoever has the link: look it up and use it ---------------------------------------------


def invitation_for_secret(secret: str) -> Invitation | None:
    """The invitation with this secret, whatever its state (the page says why it cannot be used),
    or None for a secret that was never made."""
    secret = secret.strip()
    if not secret or len(secret) > MAX_SECRET_LENGTH or not secret.isascii():
        return None
    return (
        Invitation.objects.filter(token_hash=hash_secret(secret))
        .select_related("club", "member")
        .first()
    )


@dataclass(frozen=True)
class Joined:
    membership: Membership
    member: Member | None  # the player record now linked to the user
    role_changed: bool  # an existing member who was made an organiser


NEW = "new"  # `choice`: "I am not on the list": a new player under `name`


def invitation_use(
    *, secret: str, user: User, choice: Member | str | None = None, name: str = ""
) -> Joined:
    """`user` joins the invitation's club with its role, linked to its player record, or to
    `choice` (an unlinked player of the club, or NEW with `name`); None: no player record (an
    organiser who does not play)."""
    if user is None or not user.is_authenticated:
        raise ServiceError.one(NON_FIELD, _("Log in or sign up first."))
    found = invitation_for_secret(secret)
    if found is None:
        raise ServiceError.one(NON_FIELD, _("This invitation link is not valid."))
    try:
        with action():
            return _use(found, user, choice, name)
    except IntegrityError:  # a concurrent use linked the same player or made the same name
        raise ServiceError.one(
            NON_FIELD, _("Someone else was joining at the same moment. Please try again.")
        ) from None


def _use(found: Invitation, user: User, choice: Member | str | None, name: str) -> Joined:
    # Locks in the order a merge of two players takes them (league.club.services: the club row,
    # the players, then the invitations tied to them), so that the two wait, never deadlock.
    list(for_update(Club.objects, no_key=True).filter(pk=found.club_id).values_list("pk"))
    wanted = found.member.merged_into_id or found.member_id if found.member else None
    if wanted is None and isinstance(choice, Member):
        wanted = choice.pk
    if wanted is not None:
        list(for_update(Member.objects).filter(pk=wanted).values_list("pk"))
    invitation = (
        for_update(Invitation.objects, of=("self",)).select_related("club").get(pk=found.pk)
    )
    club = invitation.club
    status = state(invitation)
    if status != OK:
        raise ServiceError.one(NON_FIELD, refusal(status))
    existing = for_update(Membership.objects).filter(club=club, user=user).first()
    linked = Member.objects.filter(club=club, user=user, merged_into__isnull=True).first()

    member = _member_for(invitation, user, choice, name, linked)
    if member is not None and member != linked:
        locked = for_update(Member.objects).get(pk=member.pk)
        if locked.merged_into_id is not None:  # merged while this page was open
            raise ServiceError.one(
                "member", _("This player was merged into another record: open the link again.")
            )
        if locked.user_id is not None and locked.user_id != user.pk:
            raise ServiceError.one("member", _("This player already has a login."))
        save_audited(
            locked,
            {"user": user},
            club=club,
            actor=user,
            action="member.link",
            target=f"member:{locked.pk}",
            before={"user": locked.user_id},
            after={"user": user.pk, "invitation": invitation.pk},
        )
        member = locked

    role_changed = False
    if existing is None:
        membership = Membership(club=club, user=user, role=invitation.role)
        membership.save(actor=user)
    else:
        membership = existing
        if invitation.role == Membership.ORGANISER and existing.role != Membership.ORGANISER:
            existing.role = Membership.ORGANISER
            existing.save(actor=user)
            role_changed = True
        elif member is None or member == linked:
            raise ServiceError.one(NON_FIELD, _("You are already in this club."))

    Invitation.objects.filter(pk=invitation.pk).update(uses=F("uses") + 1)
    invitation.refresh_from_db(fields=["uses"])
    audit(
        club=club,
        actor=user,
        action="invitation.use",
        target=f"invitation:{invitation.pk}",
        after={
            "user": user.pk,
            "username": user.get_username(),
            "role": membership.role,
            "member": member.pk if member is not None else None,
            "uses": invitation.uses,
        },
    )
    return Joined(membership=membership, member=member, role_changed=role_changed)


def _same_name(club: Club, name: str) -> Member | None:
    """The club's record whose name is `name` the way names are one (no spaces, widths or case:
    league.core.names.name_key), followed to the record it was merged into; None if there is
    none."""
    key = names.name_key(name)
    if not key:
        return None
    same = Member.objects.filter(club=club, name_key=key).select_related("merged_into").first()
    if same is not None and same.merged_into is not None:
        return same.merged_into
    return same


def _member_for(
    invitation: Invitation,
    user: User,
    choice: Member | str | None,
    name: str,
    linked: Member | None,
) -> Member | None:
    """The player record the user becomes: the invitation's own, or their choice."""
    if invitation.member_id is not None:
        member = invitation.member
        assert member is not None
        if member.merged_into_id is not None:
            member = member.merged_into
        if linked is not None and linked != member:
            raise ServiceError.one(
                NON_FIELD,
                _("You are already %(name)s in this club; this invitation is for %(other)s.")
                % {"name": linked.name, "other": member.name},
            )
        return member
    if linked is not None:
        return linked  # already someone in the club: the choice is not asked again
    if choice is None:
        if invitation.role == Membership.ORGANISER:
            return None
        raise ServiceError.one("member", _("Choose your name, or add yourself as a new player."))
    if choice == NEW:
        same = _same_name(invitation.club, name)
        if same is None:
            return club_services.member_create(club=invitation.club, user=user, name=name)
        if same.user_id is not None and same.user_id != user.pk:
            raise ServiceError.one(
                "name",
                _("%(name)s already has a login. If that is you, log in with it.")
                % {"name": same.name},
            )
        return same  # 林直子 typed for 林 直子, who has no login yet: that record is theirs
    assert isinstance(choice, Member)
    if choice.club_id != invitation.club_id or choice.merged_into_id is not None:
        raise ServiceError.one("member", _("Choose your name, or add yourself as a new player."))
    return choice


# --- by mail: the request queues it, the worker sends it -------------------------------------

MAIL_QUEUED, MAIL_SENT, MAIL_FAILED = "queued", "sent", "failed"
MAILS_PER_DAY = 50  # invitation mails one club may send in 24 hours (not a mail relay)
MAIL_SUBJECT = "league/accounts/invitation_mail_subject.txt"
MAIL_BODY = "league/accounts/invitation_mail.txt"


def mail_available() -> bool:
    """Whether this installation sends mail (settings: SMTP configured, or DEBUG's console)."""
    return bool(getattr(settings, "PASSWORD_RESET_BY_MAIL", False))


def _mail_address(club: Club, email: str) -> str:
    """The address checked ("" for none), within the club's daily number of mails."""
    email = email.strip()
    if not email:
        return ""
    if not mail_available():
        raise ServiceError.one("email", _("This installation sends no mail."))
    try:
        validate_email(email)
    except ValidationError:
        raise ServiceError.one("email", _("Enter a valid email address.")) from None
    local, _at, domain = email.rpartition("@")
    since = timezone.now() - datetime.timedelta(days=1)
    sent = Invitation.objects.filter(club=club, mail_at__gte=since).exclude(email="").count()
    queued = Invitation.objects.filter(club=club, mail_status=MAIL_QUEUED).count()
    if sent + queued >= MAILS_PER_DAY:
        raise ServiceError.one(
            "email",
            _("This club has sent %(n)s invitation mails today: make a link instead.")
            % {"n": MAILS_PER_DAY},
        )
    return f"{local}@{domain.lower()}"


def invitation_mail_again(*, invitation: Invitation, user: User) -> Invitation:
    """Queue a mailed invitation's mail again (it failed, or never arrived): the worker makes a
    new secret, so that a link in an earlier mail stops working. The caller enqueues the task."""
    with action():
        invitation = for_update(Invitation.objects).get(pk=invitation.pk)
        if not invitation.email:
            raise ServiceError.one(NON_FIELD, _("This invitation was not sent by mail."))
        if invitation.mail_status == MAIL_QUEUED:
            raise ServiceError.one(NON_FIELD, _("The mail is already waiting to be sent."))
        status = state(invitation)
        if status != OK:
            raise ServiceError.one(NON_FIELD, refusal(status))
        _mail_address(invitation.club, invitation.email)  # the club's daily number
        before = _snapshot(invitation)
        invitation.mail_status, invitation.mail_error = MAIL_QUEUED, ""
        invitation.save(update_fields=["mail_status", "mail_error"])
        audit(
            club=invitation.club,
            actor=user,
            action="invitation.mail_again",
            target=f"invitation:{invitation.pk}",
            before=before,
            after={**_snapshot(invitation), "mail": MAIL_QUEUED},
        )
    return invitation


def invitation_mail_send(*, invitation_id: int, base_url: str) -> str:
    """The worker's part: make the invitation's secret and mail the link to its address, in one
    transaction (a mail that could not be sent keeps the old secret and says why on the
    organisers' list). Returns the mail status ("" when there was nothing to send)."""
    try:
        with action():
            invitation = (
                for_update(Invitation.objects, of=("self",))
                .select_related("club", "member")
                .filter(pk=invitation_id)
                .first()
            )
            if invitation is None or not invitation.email:
                return ""
            if invitation.mail_status != MAIL_QUEUED:
                return invitation.mail_status  # sent already (a task run twice)
            status = state(invitation)
            if status != OK:
                raise _NotSent(refusal(status))
            secret = SECRET_PREFIX + secrets.token_urlsafe(24)
            before = _snapshot(invitation)
            invitation.token_hash = hash_secret(secret)
            invitation.prefix = secret[:PREFIX_LENGTH]
            invitation.mail_status, invitation.mail_error = MAIL_SENT, ""
            invitation.mail_at = timezone.now()
            invitation.save(
                update_fields=["token_hash", "prefix", "mail_status", "mail_error", "mail_at"]
            )
            audit(
                club=invitation.club,
                actor=None,
                action="invitation.mail",
                target=f"invitation:{invitation.pk}",
                before=before,
                after={**_snapshot(invitation), "mail": MAIL_SENT},
            )
            link = base_url.rstrip("/") + reverse("accounts:invitation_join", args=[secret])
            context = {"invitation": invitation, "club": invitation.club, "link": link}
            subject = " ".join(render_to_string(MAIL_SUBJECT, context).split())
            body = render_to_string(MAIL_BODY, context)
            mail.send_mail(subject, body, None, [invitation.email])
    except Exception as e:  # the mail server refused it or could not be reached
        why = e.message if isinstance(e, _NotSent) else f"{type(e).__name__}: {e}"
        _mail_failed(invitation_id, why)
        return MAIL_FAILED
    return MAIL_SENT


class _NotSent(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _mail_failed(invitation_id: int, why: str) -> None:
    with action():
        invitation = for_update(Invitation.objects).filter(pk=invitation_id).first()
        if invitation is None:
            return
        before = _snapshot(invitation)
        invitation.mail_status = MAIL_FAILED
        invitation.mail_error = " ".join(why.split())[:200]
        invitation.mail_at = timezone.now()
        invitation.save(update_fields=["mail_status", "mail_error", "mail_at"])
        audit(
            club=invitation.club,
            actor=None,
            action="invitation.mail",
            target=f"invitation:{invitation.pk}",
            before=before,
            after={**_snapshot(invitation), "mail": MAIL_FAILED, "error": invitation.mail_error},
        )
