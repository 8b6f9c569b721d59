"""Invitations (league/accounts/invitations.py): an organiser makes a link and its QR code; whoever
opens it logs in or signs up and joins the club, as the player the link names or one they choose.
Expired, cancelled and used-up links are refused with a message; every step is audited."""

from __future__ import annotations

import datetime
import re

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from league.accounts import invitations
from league.models import AuditLog, Member, Membership
from league.models.invitations import Invitation
from tests.support.clubs import make_user
from tests.support.concurrency import race

LINK = re.compile(r"https?://[^\s<\"]+/join/(inv_[A-Za-z0-9_-]+)/")


def japanese(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ja"
    return client


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return japanese(client)


def make_link(client: Client, club, **data) -> str:
    post = {"role": "member", "days": "7", "max_uses": "1", "note": "", **data}
    response = client.post(reverse("accounts:invitation_list", args=[club.slug]), post)
    assert response.status_code == 200, response.content.decode()[:500]
    found = LINK.search(response.content.decode())
    assert found, "the new link is on the page"
    return found.group(1)


def join_url(secret: str) -> str:
    return reverse("accounts:invitation_join", args=[secret])


@pytest.fixture
def newcomer(db):
    return make_user("newcomer")


# --- making links ----------------------------------------------------------------------------


def test_an_organiser_makes_a_link_with_its_qr_code_shown_once(organiser_client, club, organiser):
    response = organiser_client.post(
        reverse("accounts:invitation_list", args=[club.slug]),
        {"role": "member", "days": "7", "max_uses": "５", "note": " LINEグループ "},
    )
    page = response.content.decode()
    secret = LINK.search(page).group(1)
    assert "<svg" in page and "<path" in page  # the QR code, drawn on the server
    assert response["Cache-Control"].startswith("max-age=0")
    assert response["Referrer-Policy"] == "same-origin"
    invitation = Invitation.objects.get()
    assert invitation.token_hash == invitations.hash_secret(secret)
    assert secret not in invitation.token_hash and invitation.prefix == secret[:10]
    assert (invitation.max_uses, invitation.note, invitation.role) == (5, "LINEグループ", "member")
    assert invitation.created_by == organiser
    week = timezone.now() + datetime.timedelta(days=7)
    assert abs((invitation.expires_at - week).total_seconds()) < 60
    entry = AuditLog.objects.get(action="invitation.create")
    assert (entry.actor, entry.after["max_uses"]) == (organiser, 5)
    # The list afterwards shows the link's first characters only.
    again = organiser_client.get(
        reverse("accounts:invitation_list", args=[club.slug])
    ).content.decode()
    assert invitation.prefix in again and secret not in again


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"max_uses": "0"}, "max_uses", "1から100までの数"),
        ({"max_uses": "101"}, "max_uses", "1から100までの数"),
        ({"max_uses": "abc"}, "max_uses", "整数"),
        ({"days": "3"}, "days", "正しく選択"),
        ({"role": "owner"}, "role", "正しく選択"),
        ({"note": "x" * 101}, "note", "100"),
    ],
)
def test_bad_input_names_its_field_in_japanese_and_stores_nothing(
    organiser_client, club, data, field, message
):
    post = {"role": "member", "days": "7", "max_uses": "1", "note": "", **data}
    response = japanese(organiser_client).post(
        reverse("accounts:invitation_list", args=[club.slug]), post
    )
    assert response.status_code == 200
    form = response.context["form"]
    assert field in form.errors, form.errors
    assert message in " ".join(form.errors[field])
    assert not Invitation.objects.exists()
    assert not AuditLog.objects.filter(action="invitation.create").exists()


def test_a_link_for_one_player_works_once_and_only_for_a_player_without_login(
    organiser_client, club, members, organiser
):
    make_link(organiser_client, club, member=str(members[0].pk), max_uses="10")
    assert Invitation.objects.get().max_uses == 1  # one record: one login
    members[1].user = make_user("baba")
    members[1].save()
    response = organiser_client.post(
        reverse("accounts:invitation_list", args=[club.slug]),
        {"role": "member", "days": "7", "max_uses": "1", "member": str(members[1].pk)},
    )
    assert "member" in response.context["form"].errors  # not offered: already has a login
    assert Invitation.objects.count() == 1


def test_the_members_page_offers_invite_and_preselects_the_player(organiser_client, club, members):
    members[0].user = make_user("aoki")  # who has a login is not offered an invitation
    members[0].save(update_fields=["user"])
    page = organiser_client.get(reverse("club:member_list", args=[club.slug])).content.decode()
    assert reverse("accounts:invitation_list", args=[club.slug]) in page
    invite = reverse("accounts:invitation_list", args=[club.slug]) + "?member="
    for member in members:
        assert (f'href="{invite}{member.pk}"' in page) == (member.user is None), member.name
    address = reverse("accounts:invitation_list", args=[club.slug]) + f"?member={members[2].pk}"
    page = organiser_client.get(address).content.decode()
    assert f'<option value="{members[2].pk}" selected>' in page
    assert organiser_client.get(address[:-1] + "x").status_code == 200  # garbage: none chosen


def test_an_organiser_cancels_a_link_and_it_stops_working(
    organiser_client, club, organiser, newcomer
):
    secret = make_link(organiser_client, club)
    invitation = Invitation.objects.get()
    response = organiser_client.post(
        reverse("accounts:invitation_revoke", args=[club.slug, invitation.pk]), follow=True
    )
    assert "無効にしました" in response.content.decode()
    invitation.refresh_from_db()
    assert invitation.revoked_at is not None and invitation.revoked_by == organiser
    assert AuditLog.objects.filter(action="invitation.revoke", actor=organiser).count() == 1
    page = logged_in(newcomer).get(join_url(secret))
    assert page.status_code == 410
    assert "このリンクは取り消されました" in page.content.decode()
    # Cancelling twice says so and writes nothing more.
    response = organiser_client.post(
        reverse("accounts:invitation_revoke", args=[club.slug, invitation.pk]), follow=True
    )
    assert "すでに取り消されています" in response.content.decode()
    assert AuditLog.objects.filter(action="invitation.revoke").count() == 1


def test_organiser_pages_refuse_members_strangers_and_visitors(
    club, organiser, member_client, stranger_client
):
    invitation, _ = invitations.invitation_create(club=club, user=organiser)
    listing = reverse("accounts:invitation_list", args=[club.slug])
    revoke = reverse("accounts:invitation_revoke", args=[club.slug, invitation.pk])
    assert member_client.get(listing).status_code == 403
    assert member_client.post(revoke).status_code == 403
    for client in (stranger_client, Client()):
        assert client.get(listing).status_code == 404
        assert client.post(revoke).status_code == 404
    invitation.refresh_from_db()
    assert invitation.revoked_at is None


def test_another_clubs_invitation_cannot_be_cancelled_from_this_club(
    organiser_client, club, other_club, stranger
):
    theirs, _ = invitations.invitation_create(club=other_club, user=stranger)
    response = organiser_client.post(
        reverse("accounts:invitation_revoke", args=[club.slug, theirs.pk])
    )
    assert response.status_code == 404
    theirs.refresh_from_db()
    assert theirs.revoked_at is None


def test_the_invitation_list_is_a_constant_number_of_queries(
    organiser_client, club, organiser, members, django_assert_num_queries
):
    address = reverse("accounts:invitation_list", args=[club.slug])
    invitations.invitation_create(club=club, user=organiser, member=members[0])
    organiser_client.get(address)
    with CaptureQueriesContext(connection) as one:
        organiser_client.get(address)
    for member in members[1:]:
        invitations.invitation_create(club=club, user=organiser, member=member)
    for _ in range(10):
        invitations.invitation_create(club=club, user=organiser, max_uses=3)
    with django_assert_num_queries(len(one.captured_queries)):
        page = organiser_client.get(address).content.decode()
    assert page.count("<code>inv_") == 15


# --- using a link ----------------------------------------------------------------------------


def test_a_logged_out_visitor_is_sent_to_log_in_and_back(club, organiser):
    _, secret = invitations.invitation_create(club=club, user=organiser)
    response = japanese(Client()).get(join_url(secret))
    page = response.content.decode()
    assert response.status_code == 200
    assert club.name in page and "ログインして参加" in page
    assert f"{reverse('accounts:login')}?next=%2Fjoin%2F{secret}%2F" in page
    assert response["Referrer-Policy"] == "same-origin"
    # Logging in with that next= comes back to the link.
    make_user("someone")
    login = Client().post(
        f"{reverse('accounts:login')}?next={join_url(secret)}",
        {"username": "someone", "password": "correct horse battery", "next": join_url(secret)},
    )
    assert login.status_code == 302 and login["Location"] == join_url(secret)


def test_an_unknown_link_is_404(client, db):
    assert client.get(join_url("inv_nothing")).status_code == 404
    assert client.get(join_url("x" * 500)).status_code == 404


def test_a_newcomer_picks_their_name_and_joins_as_that_player(
    club, organiser, members, newcomer, organiser_client
):
    secret = make_link(organiser_client, club)
    client = logged_in(newcomer)
    page = client.get(join_url(secret)).content.decode()
    for member in members:
        assert member.name in page  # the players without a login are offered
    response = client.post(join_url(secret), {"who": str(members[1].pk)})
    assert response.status_code == 302
    assert response["Location"] == reverse("recording:club_home", args=[club.slug])
    members[1].refresh_from_db()
    assert members[1].user == newcomer
    membership = Membership.objects.get(club=club, user=newcomer)
    assert membership.role == Membership.MEMBER
    invitation = Invitation.objects.get()
    assert invitation.uses == 1
    use = AuditLog.objects.get(action="invitation.use")
    assert (use.actor, use.after["member"], use.after["role"]) == (
        newcomer,
        members[1].pk,
        "member",
    )
    assert AuditLog.objects.filter(action="member.link", target=f"member:{members[1].pk}").exists()
    assert AuditLog.objects.filter(action="membership.create").exists()
    # The club now opens for them; the link, allowed once, is used up for the next person.
    assert client.get(reverse("recording:club_home", args=[club.slug])).status_code == 200
    other = logged_in(make_user("late"))
    late = other.get(join_url(secret))
    assert late.status_code == 410 and "すでに使われています" in late.content.decode()
    assert other.post(join_url(secret), {"who": str(members[2].pk)}).status_code == 410
    assert not Membership.objects.filter(user__username="late").exists()


def test_a_newcomer_not_on_the_list_is_added_under_the_name_they_give(
    club, organiser, members, newcomer, organiser_client
):
    secret = make_link(organiser_client, club)
    client = logged_in(newcomer)
    blank = client.post(join_url(secret), {"who": "new", "name": "  "})
    assert "名前を入力してください" in blank.content.decode()
    # A name whose record has a login already is someone else's: refused under the name.
    members[0].user = make_user("aoki")
    members[0].save(update_fields=["user"])
    clash = client.post(join_url(secret), {"who": "new", "name": members[0].name})
    assert "すでにログインがあります" in clash.content.decode()
    assert not Membership.objects.filter(user=newcomer).exists()
    assert Invitation.objects.get().uses == 0
    response = client.post(join_url(secret), {"who": "new", "name": "ｶﾜﾉ 大輔"})
    assert response.status_code == 302
    joined = Member.objects.get(club=club, user=newcomer)
    assert joined.name == "カワノ 大輔"  # names are kept in their usual width
    assert Invitation.objects.get().uses == 1


def test_a_typed_name_of_a_player_without_login_selects_that_record(
    club, organiser, newcomer, organiser_client
):
    """林直子 typed for 林 直子 (no login yet) is that record, not a refused new player."""
    hayashi = Member.objects.create(club=club, name="林 直子")
    secret = make_link(organiser_client, club)
    client = logged_in(newcomer)
    response = client.post(join_url(secret), {"who": "new", "name": "林直子"})
    assert response.status_code == 302, response.content.decode()[:2000]
    hayashi.refresh_from_db()
    assert hayashi.user == newcomer
    assert Member.objects.filter(club=club).count() == 1
    use = AuditLog.objects.get(action="invitation.use")
    assert use.after["member"] == hayashi.pk


def test_the_only_choice_new_player_is_selected(club, organiser, newcomer, organiser_client):
    secret = make_link(organiser_client, club)
    page = logged_in(newcomer).get(join_url(secret)).content.decode()
    radios = re.findall(r"<input[^>]*name=\"who\"[^>]*>", page)
    assert len(radios) == 1 and 'value="new"' in radios[0] and "checked" in radios[0]


def test_a_link_for_one_player_links_them_without_asking(
    club, organiser, members, newcomer, organiser_client
):
    secret = make_link(organiser_client, club, member=str(members[3].pk))
    client = logged_in(newcomer)
    page = client.get(join_url(secret)).content.decode()
    assert "土井として参加します" in page and 'name="who"' not in page
    assert client.post(join_url(secret)).status_code == 302
    members[3].refresh_from_db()
    assert members[3].user == newcomer


def test_an_organiser_link_makes_an_organiser_and_promotes_a_member(
    club, organiser, member_user, organiser_client
):
    secret = make_link(organiser_client, club, role="organiser", max_uses="2")
    assert Invitation.objects.get().max_uses == 1  # a link that makes an organiser: one use
    client = logged_in(member_user)
    assert client.post(join_url(secret)).status_code == 302
    assert Membership.objects.get(club=club, user=member_user).role == Membership.ORGANISER
    assert AuditLog.objects.filter(action="membership.role").exists()
    # A new organiser who does not play is not asked for a name.
    helper = make_user("helper")
    assert logged_in(helper).post(join_url(secret)).status_code == 410  # used
    secret = make_link(organiser_client, club, role="organiser")
    assert logged_in(helper).post(join_url(secret)).status_code == 302
    assert Membership.objects.get(club=club, user=helper).role == Membership.ORGANISER
    assert not Member.objects.filter(user=helper).exists()


@pytest.mark.parametrize("how", ["removed", "demoted", "left"])
def test_an_organiser_who_stops_being_one_loses_their_links(club, organiser, how):
    """A link made by an organiser who is removed, made a member or leaves is cancelled (audited),
    so that it cannot bring them, or anyone, back as an organiser."""
    from league.accounts import services as accounts

    rogue = make_user("rogue", club, Membership.ORGANISER)
    _, back = invitations.invitation_create(club=club, user=rogue, role="organiser", days=30)
    _, group = invitations.invitation_create(club=club, user=rogue, max_uses=50)
    _, theirs = invitations.invitation_create(club=club, user=organiser)
    membership = Membership.objects.get(club=club, user=rogue)
    if how == "removed":
        accounts.membership_remove(membership=membership, actor=organiser)
    elif how == "demoted":
        accounts.membership_set_role(membership=membership, role="member", actor=organiser)
    else:
        accounts.membership_leave(club=club, user=rogue)
    assert Invitation.objects.filter(created_by=rogue, revoked_at__isnull=True).count() == 0
    assert AuditLog.objects.filter(action="invitation.revoke").count() == 2
    response = logged_in(rogue).post(join_url(back))
    assert response.status_code == 410 and "取り消されました" in response.content.decode()
    role = Membership.objects.filter(club=club, user=rogue).values_list("role", flat=True).first()
    assert role in (None, Membership.MEMBER)
    assert logged_in(make_user("friend")).get(join_url(group)).status_code == 410
    assert logged_in(make_user("other")).get(join_url(theirs)).status_code == 200  # not theirs


def test_someone_already_in_the_club_is_told_and_nothing_is_used(
    club, organiser, members, member_user, organiser_client
):
    members[0].user = member_user
    members[0].save()
    secret = make_link(organiser_client, club, max_uses="3")
    client = logged_in(member_user)
    assert "すでにこのクラブのメンバーです" in client.get(join_url(secret)).content.decode()
    response = client.post(join_url(secret))
    assert "すでにこのクラブのメンバーです" in response.content.decode()
    assert Invitation.objects.get().uses == 0


def test_a_link_for_another_player_is_refused_to_someone_already_linked(
    club, organiser, members, member_user, organiser_client
):
    members[0].user = member_user
    members[0].save()
    secret = make_link(organiser_client, club, member=str(members[1].pk))
    response = logged_in(member_user).post(join_url(secret))
    assert "青木" in response.content.decode() and "馬場" in response.content.decode()
    members[1].refresh_from_db()
    assert members[1].user is None
    assert Invitation.objects.get().uses == 0


def test_an_expired_link_is_refused_with_a_clear_message(club, organiser, members, newcomer):
    _, secret = invitations.invitation_create(club=club, user=organiser)
    Invitation.objects.update(expires_at=timezone.now() - datetime.timedelta(seconds=1))
    client = logged_in(newcomer)
    page = client.get(join_url(secret))
    assert page.status_code == 410 and "期限が切れています" in page.content.decode()
    assert client.post(join_url(secret), {"who": str(members[0].pk)}).status_code == 410
    assert not Membership.objects.filter(user=newcomer).exists()
    members[0].refresh_from_db()
    assert members[0].user is None


def test_a_player_chosen_meanwhile_by_someone_else_is_refused(club, organiser, members, newcomer):
    _, secret = invitations.invitation_create(club=club, user=organiser, max_uses=2)
    client = logged_in(newcomer)
    client.get(join_url(secret))
    members[0].user = make_user("quick")
    members[0].save()
    response = client.post(join_url(secret), {"who": str(members[0].pk)})
    assert response.status_code == 200  # the choice is no longer offered: a field error
    assert "who" in response.context["form"].errors
    assert not Membership.objects.filter(user=newcomer).exists()


def test_a_merged_player_link_joins_the_surviving_record(club, organiser, members, newcomer):
    _, secret = invitations.invitation_create(club=club, user=organiser, member=members[0])
    members[0].merged_into = members[1]
    members[0].is_active = False
    members[0].save()
    assert logged_in(newcomer).post(join_url(secret)).status_code == 302
    members[1].refresh_from_db()
    members[0].refresh_from_db()
    assert members[1].user == newcomer and members[0].user is None


@pytest.mark.skipif(connection.vendor != "postgresql", reason="races are real on PostgreSQL only")
@pytest.mark.django_db(transaction=True)
def test_a_one_use_link_used_by_two_people_at_once_lets_one_in(club, organiser, members):
    _, secret = invitations.invitation_create(club=club, user=organiser)
    clients = [logged_in(make_user(f"racer{i}")) for i in range(4)]
    statuses = race(
        [
            lambda c=c, m=m: c.post(join_url(secret), {"who": str(m.pk)}).status_code
            for c, m in zip(clients, members, strict=False)
        ]
    )
    assert statuses.count(302) == 1  # the others are refused, before or inside the lock
    assert Invitation.objects.get().uses == 1
    assert Membership.objects.filter(club=club, user__username__startswith="racer").count() == 1
    assert Member.objects.filter(club=club, user__username__startswith="racer").count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="races are real on PostgreSQL only")
@pytest.mark.django_db(transaction=True)
def test_an_invitation_used_while_its_player_is_merged_lands_on_the_survivor(
    club, organiser, members
):
    """The merge and the use lock the player, then the invitation: one waits for the other, and
    the login ends on the record that stays (or the use is refused), never on the merged one."""
    from league.club.services import member_merge

    for round_ in range(3):
        gone, keep = Member.objects.create(club=club, name=f"ゲスト{round_}"), members[round_]
        _, secret = invitations.invitation_create(club=club, user=organiser, member=gone)
        user = make_user(f"guest{round_}")

        def use(user=user, secret=secret):
            try:
                return invitations.invitation_use(secret=secret, user=user)
            except invitations.ServiceError as e:
                return e

        def merge(keep=keep, gone=gone):
            return member_merge(keep=keep, gone=gone, user=organiser)

        race([use, merge])
        gone.refresh_from_db()
        keep.refresh_from_db()
        assert gone.merged_into == keep and gone.user is None
        if Membership.objects.filter(club=club, user=user).exists():
            assert keep.user == user
        assert not Member.objects.filter(user=user).exclude(pk=keep.pk).exists()
