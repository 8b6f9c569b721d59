"""Mail sent by the worker (league.core.tasks), so that a request never waits for a mail server:
a password reset answers in the same time whether or not the address is known, and an
invitation mail's failure waits on the organisers' list (league.accounts.invitations)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.tokens import default_token_generator
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from league.accounts import invitations
from league.core.actions import action
from league.core.tasks import enqueue_on_commit, task

SUBJECT_TEMPLATE = "registration/password_reset_subject.txt"
EMAIL_TEMPLATE = "registration/password_reset_email.txt"


@task()
def password_reset_mail(
    *, user_id: int, domain: str, site_name: str, protocol: str, language: str
) -> bool:
    """The reset mail of one user, with a token made now (Django's reset view makes the same
    context); False when the user or their address is gone meanwhile."""
    user = get_user_model()._default_manager.filter(pk=user_id, is_active=True).first()
    email = getattr(user, "email", "") if user is not None else ""
    if not email:
        return False
    context = {
        "email": email,
        "domain": domain,
        "site_name": site_name,
        "uid": urlsafe_base64_encode(force_bytes(user.pk)),
        "user": user,
        "token": default_token_generator.make_token(user),
        "protocol": protocol,
    }
    with translation.override(language):
        PasswordResetForm().send_mail(SUBJECT_TEMPLATE, EMAIL_TEMPLATE, context, None, email)
    return True


@task()
def invitation_mail(*, invitation_id: int, base_url: str, language: str) -> str:
    """Mail an invitation's link (a secret made now) to its address; returns the mail status."""
    with translation.override(language):
        return invitations.invitation_mail_send(invitation_id=invitation_id, base_url=base_url)


def password_reset_queue(
    *, user_id: int, domain: str, site_name: str, protocol: str, language: str
) -> None:
    """A reset mail for the worker (nothing else is written: an action of its own)."""
    with action():
        enqueue_on_commit(
            password_reset_mail,
            user_id=user_id,
            domain=domain,
            site_name=site_name,
            protocol=protocol,
            language=language,
        )


def invitation_mail_queue(*, invitation_id: int, base_url: str, language: str) -> None:
    """An invitation's mail for the worker, after the invitation's own action committed."""
    with action():
        enqueue_on_commit(
            invitation_mail, invitation_id=invitation_id, base_url=base_url, language=language
        )
