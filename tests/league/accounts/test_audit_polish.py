"""Membership and role changes are audited on every path, the admin included (league/models/memberships.py),
and the error pages are the site's own, in Japanese or English, with DEBUG off."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from league.models import AuditLog, Membership
from tests.support.clubs import make_club, make_user
from tests.support.security import InlineCode


@pytest.fixture
def root(db):
    return get_user_model().objects.create_superuser("root", "root@example.jp", "pw-root-123")


@pytest.fixture
def admin_client(root) -> Client:
    client = Client()
    client.force_login(root)
    return client


def membership_audit(club) -> list[tuple[str, object, object, object]]:
    rows = AuditLog.objects.filter(club=club, action__startswith="membership.").order_by("pk")
    return [(r.action, r.actor and r.actor.username, r.before, r.after) for r in rows]


# --- memberships -----------------------------------------------------------------------------


def test_the_admin_adding_and_changing_a_membership_is_audited(admin_client, club, root):
    user = make_user("aoki")
    add = reverse("admin:league_membership_add")
    response = admin_client.post(add, {"user": user.pk, "club": club.pk, "role": "member"})
    assert response.status_code == 302
    membership = Membership.objects.get(user=user)
    change = reverse("admin:league_membership_change", args=[membership.pk])
    response = admin_client.post(change, {"user": user.pk, "club": club.pk, "role": "organiser"})
    assert response.status_code == 302
    state = {"user": "aoki", "user_id": user.pk}
    assert membership_audit(club) == [
        ("membership.create", "root", None, {**state, "role": "member"}),
        ("membership.role", "root", {**state, "role": "member"}, {**state, "role": "organiser"}),
    ]
    assert AuditLog.objects.get(action="membership.role").target == f"membership:{membership.pk}"


def test_saving_a_membership_unchanged_writes_nothing(admin_client, club):
    membership = Membership.objects.create(user=make_user("aoki"), club=club)
    change = reverse("admin:league_membership_change", args=[membership.pk])
    admin_client.post(change, {"user": membership.user_id, "club": club.pk, "role": "member"})
    assert [a[0] for a in membership_audit(club)] == ["membership.create"]


def test_moving_a_membership_to_another_club_is_audited_in_both(admin_client, club, other_club):
    membership = Membership.objects.create(user=make_user("aoki"), club=club)
    change = reverse("admin:league_membership_change", args=[membership.pk])
    admin_client.post(change, {"user": membership.user_id, "club": other_club.pk, "role": "member"})
    assert [a[:2] for a in membership_audit(club)] == [
        ("membership.create", None),
        ("membership.delete", "root"),
    ]
    assert [a[:2] for a in membership_audit(other_club)] == [("membership.create", "root")]


def test_code_paths_are_audited_too_bulk_ones_included(club, organiser):
    user = make_user("aoki", club)  # conftest: Membership.objects.create
    Membership.objects.filter(user=user).update(role=Membership.ORGANISER)
    membership = Membership.objects.get(user=user)
    membership.role = Membership.MEMBER
    membership.save(actor=organiser)
    Membership.objects.filter(user=user).delete()
    assert [(a[0], a[1]) for a in membership_audit(club) if a[2] or a[3]][-4:] == [
        ("membership.create", None),
        ("membership.role", None),
        ("membership.role", "organiser"),
        ("membership.delete", None),
    ]
    assert not Membership.objects.filter(user=user).exists()


def test_bulk_created_memberships_are_audited(club):
    users = [make_user(f"u{i}") for i in range(3)]
    Membership.objects.bulk_create(Membership(user=u, club=club) for u in users)
    assert [a[0] for a in membership_audit(club)] == ["membership.create"] * 3


def test_a_club_created_with_its_first_organiser_has_that_in_its_log(db):
    club = make_club("new")
    make_user("first", club, Membership.ORGANISER)
    assert [a[0] for a in membership_audit(club)] == ["membership.create"]


# --- error pages -----------------------------------------------------------------------------


def page(client: Client, url: str, language: str | None = None):
    if language:
        client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = language
    return client.get(url)


def assert_site_page(response, status: int, text: str, lang: str) -> None:
    assert response.status_code == status
    body = response.content.decode()
    assert text in body, body[:500]
    assert f'<html lang="{lang}">' in body
    assert "app.css" in body  # the site's look, not Django's plain page
    parser = InlineCode()
    parser.feed(body)
    assert parser.problems == []


@pytest.mark.parametrize(
    ("language", "text"), [(None, "ページが見つかりません"), ("en", "Page not found")]
)
def test_the_404_page_is_the_sites_in_the_chosen_language(member_client, settings, language, text):
    settings.DEBUG = False
    response = page(member_client, "/c/no-such-club/", language)
    assert_site_page(response, 404, text, language or "ja")


@pytest.mark.parametrize(("language", "text"), [(None, "権限がありません"), ("en", "Not allowed")])
def test_the_403_page_is_the_sites_in_the_chosen_language(
    member_client, club, settings, language, text
):
    settings.DEBUG = False
    response = page(member_client, reverse("rules:rules_new", args=[club.slug]), language)
    assert_site_page(response, 403, text, language or "ja")


@pytest.mark.parametrize(
    ("language", "text"), [(None, "エラーが発生しました"), ("en", "Something went wrong")]
)
def test_the_500_page_is_the_sites_in_the_chosen_language(db, settings, language, text):
    settings.DEBUG = False
    settings.ROOT_URLCONF = "tests.support.error_urls"
    client = Client(raise_request_exception=False)
    response = page(client, "/boom/", language)
    assert_site_page(response, 500, text, language or "ja")
    assert "RuntimeError" not in response.content.decode()
