"""The API tokens page: an organiser creates a token (its secret shown once, only a hash stored)
and revokes it; nobody else gets in; both are in the audit log."""

from __future__ import annotations

import hashlib
import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league.accounts import tokens as api_auth
from league.models import ApiToken, AuditLog
from tests.support.clubs import make_user


def list_url(club) -> str:
    return reverse("tokens:token_list", args=[club.slug])


def revoke_url(token: ApiToken) -> str:
    return reverse("tokens:token_revoke", args=[token.club.slug, token.pk])


def api_works(club, secret: str) -> bool:
    response = Client().get(
        f"/api/clubs/{club.slug}/seasons", headers={"Authorization": f"Bearer {secret}"}
    )
    return response.status_code == 200


def secret_on(response) -> str:
    """The secret shown on the page after creating a token."""
    html = response.content.decode()
    start = html.index(api_auth.SECRET_PREFIX, html.index('id="token-secret"'))
    return html[start : html.index("<", start)]


@pytest.fixture
def token(club, organiser) -> ApiToken:
    return api_auth.token_create(club=club, user=organiser, name="LINE bot")[0]


# --- creating --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_page_lists_the_clubs_tokens(club, organiser_client, token) -> None:
    response = organiser_client.get(list_url(club))
    assert response.status_code == 200
    html = response.content.decode()
    assert "LINE bot" in html and token.prefix in html and token.key_hash not in html
    assert 'id="token-secret"' not in html


@pytest.mark.django_db
def test_create_shows_the_secret_once_and_stores_only_its_hash(
    club, organiser, organiser_client
) -> None:
    response = organiser_client.post(list_url(club), {"name": "  Discord   bot "})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    secret = secret_on(response)
    token = ApiToken.objects.get()
    assert (token.name, token.user, token.club, token.revoked_at) == (
        "Discord bot",
        organiser,
        club,
        None,
    )
    assert token.key_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert secret.startswith(token.prefix) and len(token.prefix) == 12
    assert len(secret) > 40
    assert api_works(club, secret)
    # Shown once: the next visit lists the token but not its secret.
    assert secret not in organiser_client.get(list_url(club)).content.decode()


@pytest.mark.django_db
def test_the_secret_is_nowhere_in_the_database(club, organiser_client) -> None:
    secret = secret_on(organiser_client.post(list_url(club), {"name": "bot"}))
    dump = io.StringIO()
    call_command("dumpdata", stdout=dump)
    assert ApiToken.objects.get().key_hash in dump.getvalue()
    assert secret not in dump.getvalue()
    assert secret[len(api_auth.SECRET_PREFIX) :] not in dump.getvalue()


@pytest.mark.django_db
def test_create_is_in_the_audit_log(club, organiser, organiser_client) -> None:
    organiser_client.post(list_url(club), {"name": "bot"})
    token = ApiToken.objects.get()
    log = AuditLog.objects.get(action="token.create")
    assert (log.club, log.actor, log.target) == (club, organiser, f"token:{token.pk}")
    assert log.after == {"name": "bot", "prefix": token.prefix, "user": organiser.pk}


@pytest.mark.django_db
def test_a_blank_name_is_refused(club, organiser_client) -> None:
    response = organiser_client.post(list_url(club), {"name": "   "})
    assert response.status_code == 200
    assert response.context["form"].errors["name"]
    assert not ApiToken.objects.exists()
    assert not AuditLog.objects.exclude(action__startswith="membership.").exists()


@pytest.mark.django_db
def test_token_names_are_escaped(club, organiser) -> None:
    api_auth.token_create(club=club, user=organiser, name="<script>alert(1)</script>")
    client = Client()
    client.force_login(organiser)
    html = client.get(list_url(club)).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.mark.django_db
def test_each_token_is_different(club, organiser) -> None:
    secrets = {api_auth.token_create(club=club, user=organiser, name="bot")[1] for _ in range(5)}
    assert len(secrets) == 5
    assert ApiToken.objects.values("key_hash").distinct().count() == 5


@pytest.mark.django_db
def test_the_list_takes_the_same_queries_for_more_tokens(club, organiser, organiser_client):
    api_auth.token_create(club=club, user=organiser, name="one")

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert organiser_client.get(list_url(club)).status_code == 200
        return len(captured)

    few = queries()
    for n in range(8):
        other = make_user(f"organiser{n}", club, "organiser")
        api_auth.token_create(club=club, user=other, name=f"bot {n}")
    assert queries() == few


# --- revoking --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_revoke(club, organiser, organiser_client) -> None:
    secret = secret_on(organiser_client.post(list_url(club), {"name": "bot"}))
    token = ApiToken.objects.get()
    response = organiser_client.post(revoke_url(token))
    assert response.status_code == 302 and response["Location"] == list_url(club)
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert not api_works(club, secret)
    log = AuditLog.objects.get(action="token.revoke")
    assert (log.actor, log.target, log.after["revoked"]) == (organiser, f"token:{token.pk}", True)
    html = organiser_client.get(list_url(club)).content.decode()
    assert revoke_url(token) not in html  # no button for a revoked token


@pytest.mark.django_db
def test_revoking_twice_changes_nothing(club, organiser_client, token) -> None:
    organiser_client.post(revoke_url(token))
    token.refresh_from_db()
    revoked_at = token.revoked_at
    response = organiser_client.post(revoke_url(token))
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at == revoked_at
    assert AuditLog.objects.filter(action="token.revoke").count() == 1


@pytest.mark.django_db
def test_an_organiser_may_revoke_another_organisers_token(club, organiser_client) -> None:
    other = make_user("other", club, "organiser")
    token = api_auth.token_create(club=club, user=other, name="theirs")[0]
    assert organiser_client.post(revoke_url(token)).status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None


@pytest.mark.django_db
def test_another_clubs_token_cannot_be_revoked_through_this_club(
    club, other_club, stranger, organiser_client
) -> None:
    theirs = api_auth.token_create(club=other_club, user=stranger, name="theirs")[0]
    path = reverse("tokens:token_revoke", args=[club.slug, theirs.pk])
    assert organiser_client.post(path).status_code == 404
    theirs.refresh_from_db()
    assert theirs.revoked_at is None


# --- who gets in -----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("who", "status"), [("member", 403), ("stranger", 404), ("logged_out", 404)]
)
def test_a_member_is_forbidden_and_a_stranger_or_logged_out_user_gets_404(
    club, token, member_client, stranger_client, who, status
) -> None:
    client = {"member": member_client, "stranger": stranger_client}.get(who) or Client()
    assert client.get(list_url(club)).status_code == status
    assert client.post(list_url(club), {"name": "mine"}).status_code == status
    assert client.post(revoke_url(token)).status_code == status
    assert ApiToken.objects.count() == 1
    token.refresh_from_db()
    assert token.revoked_at is None


@pytest.mark.django_db
def test_wrong_methods_are_405(club, organiser_client, token) -> None:
    assert organiser_client.put(list_url(club)).status_code == 405
    assert organiser_client.delete(list_url(club)).status_code == 405
    assert organiser_client.get(revoke_url(token)).status_code == 405
    token.refresh_from_db()
    assert token.revoked_at is None


@pytest.mark.django_db
def test_a_superuser_may_manage_any_clubs_tokens(club, token) -> None:
    admin = make_user("admin")
    admin.is_superuser = True
    admin.save()
    client = Client()
    client.force_login(admin)
    assert client.get(list_url(club)).status_code == 200
    assert client.post(revoke_url(token)).status_code == 302
