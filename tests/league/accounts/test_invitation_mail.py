"""Invitations sent by mail (league.accounts.invitations, league.accounts.tasks.invitation_mail):
the organiser's request only queues the mail; the worker makes the link's secret and sends it;
a mail that cannot be sent is recorded on the invitation, shown on the organisers' list, and can
be sent again. The mails land in Django's in-memory outbox (locmem backend)."""

from __future__ import annotations

import re
import smtplib

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from league.accounts import invitations
from league.models import AuditLog
from league.models.invitations import Invitation
from tests.support.clubs import make_user

LINK = re.compile(r"https?://[^\s<\"]+/join/(inv_[A-Za-z0-9_-]+)/")


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def mail_invitation(client: Client, club, email: str = "newcomer@example.jp", **data):
    post = {"role": "member", "days": "7", "max_uses": "1", "note": "", "email": email, **data}
    return client.post(reverse("accounts:invitation_list", args=[club.slug]), post)


def run_queued() -> None:
    """What the worker does with each queued task (tests/league/core/test_worker.py runs a real one)."""
    for queued in DBTaskResult.objects.order_by("enqueued_at"):
        queued.task.call(*queued.task_result.args, **queued.task_result.kwargs)
        queued.delete()


@pytest.fixture(autouse=True)
def mail_on(settings) -> None:
    settings.PASSWORD_RESET_BY_MAIL = True  # the installation sends mail (SMTP, or DEBUG)


def test_a_mailed_invitation_is_sent_by_the_task_and_its_link_works(
    organiser_client, club, organiser
):
    response = english(organiser_client).post(
        reverse("accounts:invitation_list", args=[club.slug]),
        {"role": "member", "days": "7", "max_uses": "1", "email": "New.Comer@Example.JP"},
        follow=True,
    )
    page = response.content.decode()
    assert "The invitation mail to New.Comer@example.jp is on its way." in page
    assert not LINK.search(page)  # the link is in the mail, not on the page
    invitation = Invitation.objects.get()
    assert (invitation.email, invitation.mail_status) == ("New.Comer@example.jp", "sent")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["New.Comer@example.jp"] and club.name in message.subject
    secret = LINK.search(message.body).group(1)
    assert invitations.invitation_for_secret(secret) == invitation  # the hash the worker stored
    assert invitation.prefix == secret[: invitations.PREFIX_LENGTH]
    newcomer = make_user("newcomer")
    joined = Client()
    joined.force_login(newcomer)
    assert joined.get(reverse("accounts:invitation_join", args=[secret])).status_code == 200
    listing = english(organiser_client).get(reverse("accounts:invitation_list", args=[club.slug]))
    assert "New.Comer@example.jp:" in listing.content.decode()
    assert "mail sent" in listing.content.decode()
    entries = AuditLog.objects.filter(action__startswith="invitation.").order_by("pk")
    actions = list(entries.values_list("action", "actor"))
    assert actions == [("invitation.create", organiser.pk), ("invitation.mail", None)]
    assert AuditLog.objects.get(action="invitation.mail").after["mail"] == "sent"


@pytest.mark.database_tasks
def test_the_request_only_queues_the_mail_and_the_worker_sends_it(organiser_client, club):
    response = mail_invitation(organiser_client, club)
    assert response.status_code == 302
    assert mail.outbox == []  # nothing sent inside the request
    invitation = Invitation.objects.get()
    assert invitation.mail_status == "queued"
    queued = DBTaskResult.objects.get()
    assert queued.task_result.kwargs["invitation_id"] == invitation.pk
    assert "inv_" not in str(queued.args_kwargs)  # no secret waits in the queue
    waiting = english(organiser_client).get(reverse("accounts:invitation_list", args=[club.slug]))
    assert "mail waiting to be sent" in waiting.content.decode()
    run_queued()
    assert len(mail.outbox) == 1
    invitation.refresh_from_db()
    assert invitation.mail_status == "sent" and invitation.mail_at is not None
    run_queued()  # nothing left: a task run again sends nothing twice
    assert invitations.invitation_mail_send(invitation_id=invitation.pk, base_url="/") == "sent"
    assert len(mail.outbox) == 1


def test_a_mail_that_fails_is_recorded_shown_and_sent_again(
    organiser_client, club, organiser, monkeypatch
):
    def refuse(*args, **kwargs):
        raise smtplib.SMTPRecipientsRefused({"newcomer@example.jp": (550, b"no such mailbox")})

    monkeypatch.setattr(invitations.mail, "send_mail", refuse)
    mail_invitation(organiser_client, club)
    invitation = Invitation.objects.get()
    created_hash = invitation.token_hash
    assert invitation.mail_status == "failed"
    assert invitation.mail_error.startswith("SMTPRecipientsRefused")
    assert invitation.token_hash == created_hash  # the secret the failed mail carried is gone
    page = english(organiser_client).get(reverse("accounts:invitation_list", args=[club.slug]))
    html = page.content.decode()
    assert "the mail could not be sent" in html and "SMTPRecipientsRefused" in html
    again = reverse("accounts:invitation_mail_again", args=[club.slug, invitation.pk])
    assert f'action="{again}"' in html
    failed = AuditLog.objects.get(action="invitation.mail")
    assert failed.after["mail"] == "failed" and failed.actor is None

    monkeypatch.undo()
    response = english(organiser_client).post(again, follow=True)
    assert "is on its way again" in response.content.decode()
    invitation.refresh_from_db()
    assert invitation.mail_status == "sent" and invitation.mail_error == ""
    assert len(mail.outbox) == 1
    secret = LINK.search(mail.outbox[0].body).group(1)
    assert invitations.invitation_for_secret(secret) == invitation
    assert AuditLog.objects.filter(action="invitation.mail_again", actor=organiser).count() == 1


@pytest.mark.database_tasks
def test_a_link_cancelled_before_its_mail_goes_is_not_sent(organiser_client, club, organiser):
    mail_invitation(english(organiser_client), club)
    invitation = Invitation.objects.get()
    invitations.invitation_revoke(invitation=invitation, user=organiser)
    run_queued()
    assert mail.outbox == []
    invitation.refresh_from_db()
    assert invitation.mail_status == "failed" and "cancelled" in invitation.mail_error


def test_a_bad_address_names_the_field_and_nothing_is_made(organiser_client, club):
    response = mail_invitation(organiser_client, club, email="not an address")
    assert response.status_code == 200
    assert "email" in response.context["form"].errors
    assert "メールアドレス" in response.content.decode()
    assert not Invitation.objects.exists() and mail.outbox == []


def test_a_club_sends_a_bounded_number_of_invitation_mails_a_day(
    organiser_client, club, monkeypatch
):
    monkeypatch.setattr(invitations, "MAILS_PER_DAY", 2)
    for i in range(2):
        assert mail_invitation(organiser_client, club, email=f"n{i}@example.jp").status_code == 302
    refused = mail_invitation(organiser_client, club, email="n3@example.jp")
    assert refused.status_code == 200 and "email" in refused.context["form"].errors
    assert len(mail.outbox) == 2


def test_without_mail_the_form_has_no_address_field(organiser_client, club, settings):
    settings.PASSWORD_RESET_BY_MAIL = False
    page = organiser_client.get(reverse("accounts:invitation_list", args=[club.slug]))
    assert "email" not in page.context["form"].fields
    response = mail_invitation(organiser_client, club)
    assert response.status_code == 200 and LINK.search(response.content.decode())
    assert Invitation.objects.get().email == "" and mail.outbox == []
