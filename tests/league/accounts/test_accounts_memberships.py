"""One's account: password change and reset, the list of one's clubs, leaving a club; and the
club's memberships page, where organisers change roles and remove people but never the last
organiser."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from league.models import AuditLog, Member, Membership
from tests.support.clubs import PASSWORD, make_club, make_user

User = get_user_model()
NEW_PASSWORD = "riichi-ippatsu-2027"


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


# --- password change and reset ---------------------------------------------------------------


def test_password_change(organiser, organiser_client):
    page = organiser_client.get(reverse("accounts:password_change"))
    assert page.status_code == 200 and "パスワードを変更" in page.content.decode()
    wrong = organiser_client.post(
        reverse("accounts:password_change"),
        {"old_password": "nope", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert "old_password" in wrong.context["form"].errors
    response = organiser_client.post(
        reverse("accounts:password_change"),
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302 and response.url == reverse("accounts:password_change_done")
    organiser.refresh_from_db()
    assert organiser.check_password(NEW_PASSWORD)
    assert organiser_client.get(reverse("accounts:account")).status_code == 200  # still logged in


def test_password_change_needs_a_login(client, db):
    response = client.get(reverse("accounts:password_change"))
    assert response.status_code == 302 and response.url.startswith(reverse("accounts:login"))


def test_password_reset_by_mail(client, organiser):
    organiser.email = "organiser@example.jp"
    organiser.save()
    page = client.get(reverse("accounts:password_reset"))
    assert "パスワードをお忘れですか" in page.content.decode()
    response = client.post(reverse("accounts:password_reset"), {"email": "organiser@example.jp"})
    assert response.status_code == 302 and response.url == reverse("accounts:password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["organiser@example.jp"]
    assert "雀帳" in message.subject and "organiser" in message.body
    link = re.search(r"https?://[^/\s]+(/\S+)", message.body).group(1)

    form = client.get(link, follow=True)
    assert form.status_code == 200 and form.context["validlink"]
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done.status_code == 302 and done.url == reverse("accounts:password_reset_complete")
    fresh = Client()
    response = fresh.post(
        reverse("accounts:login"), {"username": "organiser", "password": NEW_PASSWORD}
    )
    assert response.status_code == 302
    assert fresh.get(reverse("accounts:account")).status_code == 200
    # The link works once.
    again = client.get(link, follow=True)
    assert not again.context["validlink"]
    assert "もう使えません" in again.content.decode()


def test_password_reset_for_an_unknown_address_sends_nothing_and_says_the_same(client, db):
    response = client.post(reverse("accounts:password_reset"), {"email": "nobody@example.jp"})
    assert response.status_code == 302 and response.url == reverse("accounts:password_reset_done")
    assert mail.outbox == []


def test_password_reset_mails_from_one_network_are_limited(organiser, db):
    from league.accounts.views import account as views

    for i in range(views.RESET_LIMIT + 1):
        get_user_model().objects.create_user(
            username=f"u{i}", password=PASSWORD, email=f"u{i}@example.jp"
        )
    client = Client(REMOTE_ADDR="203.0.113.5")
    for i in range(views.RESET_LIMIT):
        response = client.post(reverse("accounts:password_reset"), {"email": f"u{i}@example.jp"})
        assert response.status_code == 302
    assert len(mail.outbox) == views.RESET_LIMIT
    response = client.post(reverse("accounts:password_reset"), {"email": "u10@example.jp"})
    assert response.status_code == 429
    assert "多すぎます" in response.content.decode()
    assert len(mail.outbox) == views.RESET_LIMIT
    other = Client(REMOTE_ADDR="198.51.100.5")
    assert (
        other.post(reverse("accounts:password_reset"), {"email": "x@example.jp"}).status_code == 302
    )


def test_password_reset_mails_to_one_mailbox_are_limited_from_anywhere(organiser):
    from league.accounts.views import account as views

    organiser.email = "organiser@example.jp"
    organiser.save()
    address = reverse("accounts:password_reset")
    for i in range(views.RESET_MAILBOX_LIMIT):
        client = Client(REMOTE_ADDR=f"198.51.100.{i + 1}")
        assert client.post(address, {"email": "Organiser@example.jp"}).status_code == 302
    late = Client(REMOTE_ADDR="192.0.2.77")
    assert late.post(address, {"email": "organiser@example.jp"}).status_code == 429
    assert len(mail.outbox) == views.RESET_MAILBOX_LIMIT


def test_an_ipv6_network_counts_as_one_sender(organiser):
    from league.accounts.views import account as views

    address = reverse("accounts:password_reset")
    for i in range(views.RESET_LIMIT):
        client = Client(REMOTE_ADDR=f"2001:db8:1:2::{i + 1:x}")
        assert client.post(address, {"email": f"n{i}@example.jp"}).status_code == 302
    same_64 = Client(REMOTE_ADDR="2001:db8:1:2:ffff::1")
    assert same_64.post(address, {"email": "z@example.jp"}).status_code == 429
    next_64 = Client(REMOTE_ADDR="2001:db8:1:3::1")
    assert next_64.post(address, {"email": "z@example.jp"}).status_code == 302


def test_failed_logins_never_block_sign_ups_or_reset_mails(db):
    """Sign-ups, reset mails and failed logins are counted apart: failed logins typed with any
    name (even one that looks like another kind's key) refuse no sign-up and no reset mail."""
    from league import throttle

    ip = "203.0.113.9"
    for name in (ip, f"signup@{ip}", f"reset@{ip}"):
        for _i in range(throttle.PAIR_LIMIT + 1):
            throttle.record_failure(username=name, address=ip)
    password = "tsumo-pinfu-2026"
    data = {"username": "newcomer", "password1": password, "password2": password}
    assert Client(REMOTE_ADDR=ip).post(reverse("accounts:signup"), data).status_code == 302
    reset = Client(REMOTE_ADDR=ip).post(
        reverse("accounts:password_reset"), {"email": "no@example.jp"}
    )
    assert reset.status_code == 302


# --- the account page ------------------------------------------------------------------------


def test_the_account_page_lists_clubs_and_roles(organiser, club, other_club):
    Membership.objects.create(user=organiser, club=other_club, role=Membership.MEMBER)
    html = logged_in(organiser).get(reverse("accounts:account")).content.decode()
    assert "マメの会" in html and "金曜会" in html
    assert html.count("幹事") >= 1 and "メンバー" in html
    assert reverse("accounts:memberships", args=[club.slug]) in html
    assert reverse("accounts:memberships", args=[other_club.slug]) not in html  # a member there
    assert reverse("accounts:club_leave", args=[other_club.slug]) in html
    assert reverse("accounts:password_change") in html and reverse("accounts:club_new") in html


def test_without_a_mail_server_a_password_cannot_be_reset_by_mail(client, organiser, settings):
    """Production with no EMAIL_HOST: no reset link is ever written anywhere (not even to the
    server's log), the page says why, and the login page does not offer it."""
    settings.PASSWORD_RESET_BY_MAIL = False
    organiser.email = "org@example.jp"
    organiser.save()
    client.cookies["django_language"] = "ja"
    response = client.post(reverse("accounts:password_reset"), {"email": "org@example.jp"})
    assert response.status_code == 404
    assert "メールを送らない" in response.content.decode()
    assert mail.outbox == []
    assert (
        reverse("accounts:password_reset")
        not in client.get(reverse("accounts:login")).content.decode()
    )


def test_the_account_page_saves_an_e_mail_address(organiser, organiser_client):
    address = reverse("accounts:account")
    organiser_client.cookies["django_language"] = "ja"
    bad = organiser_client.post(address, {"email": "not an address", "password": PASSWORD})
    assert bad.status_code == 200 and "email" in bad.context["email_form"].errors
    assert "有効なメールアドレス" in bad.content.decode()
    organiser.refresh_from_db()
    assert organiser.email == ""
    response = organiser_client.post(
        address, {"email": "ｙａｍａｄａ＠ｅｘａｍｐｌｅ．ｊｐ", "password": PASSWORD}
    )
    assert response.status_code == 302
    organiser.refresh_from_db()
    assert organiser.email == "yamada@example.jp"  # typed full-width, kept half-width
    assert organiser_client.post(address, {"email": "", "password": PASSWORD}).status_code == 302
    organiser.refresh_from_db()
    assert organiser.email == ""


def test_the_account_page_needs_a_login(client, db):
    assert client.get(reverse("accounts:account")).status_code == 302


@pytest.mark.parametrize("clubs", [1, 6])
def test_account_page_queries_do_not_grow_with_clubs(db, clubs, django_assert_num_queries):
    user = make_user("many")
    for i in range(clubs):
        Membership.objects.create(user=user, club=make_club(f"club-{i}"), role=Membership.MEMBER)
    client = logged_in(user)
    # session, user, memberships with their clubs
    with django_assert_num_queries(3):
        assert client.get(reverse("accounts:account")).status_code == 200


# --- the memberships page --------------------------------------------------------------------


def test_the_memberships_page_lists_who_can_log_in(organiser_client, club, member_user):
    html = organiser_client.get(reverse("accounts:memberships", args=[club.slug])).content.decode()
    assert "organiser" in html and "member" in html and "ログインできる人" in html
    assert reverse("accounts:invitation_list", args=[club.slug]) in html


@pytest.mark.parametrize("people", [1, 8])
def test_memberships_page_queries_do_not_grow(
    organiser_client, club, people, django_assert_num_queries
):
    for i in range(people):
        user = make_user(f"person-{i}", club)
        Member.objects.create(club=club, name=f"プレイヤー{i}", user=user)
    # session, user, the club with the role, memberships with their users, linked players
    with django_assert_num_queries(5):
        assert (
            organiser_client.get(reverse("accounts:memberships", args=[club.slug])).status_code
            == 200
        )


def test_the_memberships_page_shows_linked_players_and_asks_before_removing(
    organiser_client, club, member_user, members
):
    members[0].user = member_user
    members[0].save()
    address = reverse("accounts:memberships", args=[club.slug])
    html = organiser_client.get(address).content.decode()
    assert "プレイヤー： 青木" in html
    membership = Membership.objects.get(user=member_user, club=club)
    assert f'href="?remove={membership.pk}"' in html
    # The organiser, the only one, has no remove link.
    mine = Membership.objects.get(club=club, role=Membership.ORGANISER)
    assert f'href="?remove={mine.pk}"' not in html
    confirm = organiser_client.get(address + f"?remove={membership.pk}").content.decode()
    assert "memberさんをクラブから外しますか" in confirm
    assert Membership.objects.filter(pk=membership.pk).exists()  # asking removes nothing
    other = organiser_client.get(address + "?remove=99999").content.decode()
    assert "外しますか" not in other


def test_an_organiser_changes_a_role_and_it_is_audited(
    organiser, organiser_client, club, member_user
):
    membership = Membership.objects.get(user=member_user, club=club)
    response = organiser_client.post(
        reverse("accounts:memberships", args=[club.slug]),
        {"membership": membership.pk, "role": "organiser", "action": "role"},
        follow=True,
    )
    assert "役割を変更しました" in " ".join(messages_of(response))
    membership.refresh_from_db()
    assert membership.role == Membership.ORGANISER
    entry = AuditLog.objects.get(club=club, action="membership.role")
    assert entry.actor == organiser and entry.after["role"] == "organiser"


def test_the_last_organiser_cannot_be_made_a_member(organiser, organiser_client, club):
    membership = Membership.objects.get(user=organiser, club=club)
    response = organiser_client.post(
        reverse("accounts:memberships", args=[club.slug]),
        {"membership": membership.pk, "role": "member", "action": "role"},
        follow=True,
    )
    assert "幹事が1人以上必要" in " ".join(messages_of(response))
    membership.refresh_from_db()
    assert membership.role == Membership.ORGANISER
    assert not AuditLog.objects.filter(action="membership.role").exists()


def test_the_last_organiser_cannot_be_removed(organiser, organiser_client, club):
    membership = Membership.objects.get(user=organiser, club=club)
    response = organiser_client.post(
        reverse("accounts:memberships", args=[club.slug]),
        {"membership": membership.pk, "action": "remove"},
        follow=True,
    )
    assert "幹事が1人以上必要" in " ".join(messages_of(response))
    assert Membership.objects.filter(pk=membership.pk).exists()


def test_with_two_organisers_one_can_step_down_and_loses_the_page(organiser, club):
    second = make_user("second", club, Membership.ORGANISER)
    client = logged_in(organiser)
    mine = Membership.objects.get(user=organiser, club=club)
    response = client.post(
        reverse("accounts:memberships", args=[club.slug]),
        {"membership": mine.pk, "role": "member", "action": "role"},
    )
    assert response.status_code == 302 and response.url == reverse("accounts:account")
    assert client.get(reverse("accounts:memberships", args=[club.slug])).status_code == 403
    # Now the second organiser is the last one.
    theirs = Membership.objects.get(user=second, club=club)
    logged_in(second).post(
        reverse("accounts:memberships", args=[club.slug]),
        {"membership": theirs.pk, "role": "member", "action": "role"},
    )
    theirs.refresh_from_db()
    assert theirs.role == Membership.ORGANISER


def test_a_removed_person_loses_the_club_and_their_player_records_are_unlinked(
    organiser, organiser_client, club, member_user, members
):
    linked = members[0]
    linked.user = member_user
    linked.save()
    membership = Membership.objects.get(user=member_user, club=club)
    response = organiser_client.post(
        reverse("accounts:memberships", args=[club.slug]),
        {"membership": membership.pk, "action": "remove"},
        follow=True,
    )
    assert "開けなくなりました" in " ".join(messages_of(response))
    assert not Membership.objects.filter(pk=membership.pk).exists()
    linked.refresh_from_db()
    assert linked.user is None
    assert Member.objects.filter(pk=linked.pk).exists()  # the player and their results stay
    removed = logged_in(member_user)
    assert removed.get(reverse("recording:club_home", args=[club.slug])).status_code == 404
    assert removed.get(reverse("standings:standings", args=[club.slug])).status_code == 404
    actions = set(AuditLog.objects.filter(club=club).values_list("action", "actor"))
    assert {("membership.delete", organiser.pk), ("member.unlink", organiser.pk)} <= actions


def test_a_membership_of_another_club_cannot_be_changed_from_this_one(
    organiser_client, club, stranger, other_club
):
    theirs = Membership.objects.get(user=stranger, club=other_club)
    for action in ("role", "remove"):
        response = organiser_client.post(
            reverse("accounts:memberships", args=[club.slug]),
            {"membership": theirs.pk, "role": "member", "action": action},
        )
        assert response.status_code == 404
    theirs.refresh_from_db()
    assert theirs.role == Membership.ORGANISER


def test_bad_posts_to_the_memberships_page_change_nothing(organiser_client, club, member_user):
    membership = Membership.objects.get(user=member_user, club=club)
    address = reverse("accounts:memberships", args=[club.slug])
    for data in (
        {},
        {"membership": "x", "action": "role", "role": "member"},
        {"membership": membership.pk, "action": "role", "role": "king"},
        {"membership": membership.pk, "action": "explode"},
    ):
        response = organiser_client.post(address, data)
        assert response.status_code == 302, data
    assert Membership.objects.get(pk=membership.pk).role == Membership.MEMBER


# --- leaving ---------------------------------------------------------------------------------


def test_a_member_leaves_a_club(member_user, member_client, club, members):
    members[1].user = member_user
    members[1].save()
    page = member_client.get(reverse("accounts:club_leave", args=[club.slug]))
    assert page.status_code == 200 and "退会しますか" in page.content.decode()
    response = member_client.post(reverse("accounts:club_leave", args=[club.slug]), follow=True)
    assert "退会しました" in " ".join(messages_of(response))
    assert not Membership.objects.filter(user=member_user, club=club).exists()
    members[1].refresh_from_db()
    assert members[1].user is None
    assert member_client.get(reverse("recording:club_home", args=[club.slug])).status_code == 404
    assert AuditLog.objects.filter(
        club=club, action="membership.delete", actor=member_user
    ).exists()


def test_the_last_organiser_cannot_leave(organiser, organiser_client, club):
    page = organiser_client.get(reverse("accounts:club_leave", args=[club.slug])).content.decode()
    assert "唯一の幹事" in page
    response = organiser_client.post(reverse("accounts:club_leave", args=[club.slug]), follow=True)
    assert "唯一の幹事" in " ".join(messages_of(response))
    assert Membership.objects.filter(user=organiser, club=club).exists()


# --- isolation of the club-scoped pages ------------------------------------------------------

CLUB_PAGES = ["accounts:memberships", "accounts:club_leave", "accounts:club_first_season"]
ORGANISER_PAGES = ["accounts:memberships", "accounts:club_first_season"]


@pytest.mark.parametrize("name", CLUB_PAGES)
def test_other_clubs_users_and_logged_out_visitors_get_404(client, stranger_client, club, name):
    address = reverse(name, args=[club.slug])
    for visitor in (client, stranger_client):
        assert visitor.get(address).status_code == 404
        assert visitor.post(address, {"action": "remove", "membership": 1}).status_code == 404


@pytest.mark.parametrize("name", ORGANISER_PAGES)
def test_members_are_refused_organiser_pages(member_client, club, name):
    address = reverse(name, args=[club.slug])
    assert member_client.get(address).status_code == 403
    assert member_client.post(address, {"name": "x"}).status_code == 403


def test_a_member_cannot_remove_the_organiser(member_client, organiser, club):
    theirs = Membership.objects.get(user=organiser, club=club)
    response = member_client.post(
        reverse("accounts:memberships", args=[club.slug]),
        {"membership": theirs.pk, "action": "remove"},
    )
    assert response.status_code == 403
    assert Membership.objects.filter(pk=theirs.pk).exists()


@pytest.mark.parametrize(
    "name",
    [
        "accounts:account",
        "accounts:password_change",
        "accounts:club_new",
        "accounts:slug_check",
        "accounts:club_new_example",
    ],
)
def test_account_pages_send_a_logged_out_visitor_to_log_in(client, db, name):
    response = client.get(reverse(name)) if name != "accounts:club_new_example" else None
    if response is None:
        response = client.post(reverse(name), {"rules_from": "preset:mame-no-kai"})
    assert response.status_code == 302 and response.url.startswith(reverse("accounts:login"))


@pytest.mark.parametrize("value", ["²", "١٢", "9" * 30, "-1", "x"])
def test_odd_ids_in_the_address_are_no_error(organiser_client, club, members, value):
    """Digits to str.isdigit that int() refuses, or too many for the database: never a 500."""
    page = organiser_client.get(
        reverse("accounts:memberships", args=[club.slug]) + f"?remove={value}"
    )
    assert page.status_code == 200
    toggle = organiser_client.post(
        reverse("club:member_new", args=[club.slug]) + f"?toggle={value}"
    )
    assert toggle.status_code == 404
