"""Links and tokens do not outlive their maker (issue 26, item 4). An organiser demoted in the
admin, or whose account is deactivated, loses the invitation links they made, as one demoted on
the club's own page does; a token of someone removed from the club stops working and does not
come back when they are added again."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from league.accounts import invitations
from league.accounts import services as accounts
from league.accounts import tokens as api_auth
from league.models import ApiToken, AuditLog, Membership
from league.models.invitations import Invitation
from tests.support.api import call, url
from tests.support.clubs import make_user


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def join_url(secret: str) -> str:
    return reverse("accounts:invitation_join", args=[secret])


@pytest.fixture
def admin_client(db) -> Client:
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-root-12345")
    return logged_in(admin)


@pytest.fixture
def rogue(club):
    return make_user("rogue", club, Membership.ORGANISER)


def links_of(club, rogue) -> dict[str, str]:
    """An organiser link, a group link and a link for one player, all made by `rogue`."""
    _, back = invitations.invitation_create(club=club, user=rogue, role="organiser", days=30)
    _, group = invitations.invitation_create(club=club, user=rogue, max_uses=50)
    return {"organiser": back, "group": group}


def assert_links_dead(club, rogue, secrets: dict[str, str]) -> None:
    for secret in secrets.values():
        response = logged_in(make_user(f"friend-{uuid.uuid4().hex[:12]}")).get(join_url(secret))
        assert response.status_code == 410, secret
        found = invitations.invitation_for_secret(secret)
        assert found is not None and invitations.state(found) == invitations.REVOKED
    if rogue.is_active:
        response = logged_in(rogue).post(join_url(secrets["organiser"]))
        assert response.status_code == 410


def test_an_organiser_demoted_in_the_admin_loses_their_links(club, organiser, rogue, admin_client):
    secrets = links_of(club, rogue)
    _, theirs = invitations.invitation_create(club=club, user=organiser)
    membership = Membership.objects.get(club=club, user=rogue)
    change = reverse("admin:league_membership_change", args=[membership.pk])
    response = admin_client.post(
        change, {"user": rogue.pk, "club": club.pk, "role": Membership.MEMBER}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Membership.objects.get(pk=membership.pk).role == Membership.MEMBER
    assert_links_dead(club, rogue, secrets)
    assert Membership.objects.get(pk=membership.pk).role == Membership.MEMBER
    # Cancelled for good and in the audit log, as on the club's own page.
    assert not Invitation.objects.filter(created_by=rogue, revoked_at__isnull=True).exists()
    assert AuditLog.objects.filter(club=club, action="invitation.revoke").count() == 2
    assert logged_in(make_user("other")).get(join_url(theirs)).status_code == 200


def test_an_organiser_whose_account_is_deactivated_loses_their_links(
    club, organiser, rogue, admin_client
):
    secrets = links_of(club, rogue)
    change = reverse("admin:auth_user_change", args=[rogue.pk])
    response = admin_client.post(
        change,
        {
            "username": rogue.username,
            "password": rogue.password,
            "is_active": "",
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    rogue.refresh_from_db()
    assert not rogue.is_active
    assert_links_dead(club, rogue, secrets)
    # Back again, their links stay cancelled.
    rogue.is_active = True
    rogue.save()
    assert_links_dead(club, rogue, secrets)


def test_a_link_is_refused_at_use_when_its_maker_no_longer_organises(
    club, organiser, rogue, organiser_client
):
    """Whatever path changed the role (a bulk update, the shell): checked when the link is used,
    and the organisers' list shows the links as cancelled."""
    secrets = links_of(club, rogue)
    invitations.invitation_create(club=club, user=organiser)
    Membership.objects.filter(club=club, user=rogue).update(role=Membership.MEMBER)
    Invitation.objects.update(revoked_at=None)  # even were the cancelling undone
    assert_links_dead(club, rogue, secrets)
    rows = organiser_client.get(reverse("accounts:invitation_list", args=[club.slug])).context[
        "invitations"
    ]
    assert sorted((row.created_by_id, row.status) for row in rows) == sorted(
        [(rogue.pk, "revoked"), (rogue.pk, "revoked"), (organiser.pk, "ok")]
    )


@pytest.mark.parametrize("how", ["service", "model"])
def test_a_removed_members_token_stops_working_and_does_not_come_back(club, organiser, how):
    bot_owner = make_user("bot-owner", club, Membership.ORGANISER)
    _, secret = api_auth.token_create(club=club, user=bot_owner, name="LINE bot")
    assert call("GET", url(club, "standings"), secret).status_code == 200
    membership = Membership.objects.get(club=club, user=bot_owner)
    if how == "service":
        accounts.membership_remove(membership=membership, actor=organiser)
    else:  # the admin, the shell
        membership.delete()
    assert call("GET", url(club, "standings"), secret).status_code in (401, 404)
    accounts.membership_add(club=club, user=bot_owner, role=Membership.ORGANISER, actor=organiser)
    assert call("GET", url(club, "standings"), secret).status_code == 401
    assert ApiToken.objects.get().revoked_at is not None
    assert AuditLog.objects.filter(club=club, action="token.revoke").count() == 1
    # A new token of theirs works: only the old one is gone.
    _, fresh = api_auth.token_create(club=club, user=bot_owner, name="LINE bot 2")
    assert call("GET", url(club, "standings"), secret).status_code == 401
    assert call("GET", url(club, "standings"), fresh).status_code == 200


def test_a_deactivated_users_token_stays_revoked_when_reactivated(club, organiser):
    bot_owner = make_user("bot-owner", club, Membership.ORGANISER)
    _, secret = api_auth.token_create(club=club, user=bot_owner, name="LINE bot")
    bot_owner.is_active = False
    bot_owner.save()
    bot_owner.is_active = True
    bot_owner.save()
    assert call("GET", url(club, "standings"), secret).status_code == 401
