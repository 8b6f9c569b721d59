"""The account page's password checks are throttled like the login (issue 39): the e-mail change
and the password change each took 40 wrong guesses without a refusal. Wrong passwords count with
the login's failures (league.throttle), and once over the limit the right one is refused too,
before it is checked, with nothing changed."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league import throttle
from league.models import LoginAttempt
from tests.support.clubs import PASSWORD

NEW = "riichi-tsumo-2027-new"


def email_post(client, password):
    return client.post(
        reverse("accounts:account"), {"email": "thief@example.com", "password": password}
    )


def change_post(client, password):
    return client.post(
        reverse("accounts:password_change"),
        {"old_password": password, "new_password1": NEW, "new_password2": NEW},
    )


@pytest.mark.parametrize(("post", "form"), [(email_post, "email_form"), (change_post, "form")])
def test_wrong_passwords_are_throttled_then_even_the_right_one_waits(
    organiser, organiser_client, post, form
):
    for _ in range(throttle.PAIR_LIMIT):
        wrong = post(organiser_client, "guess-wrong")
        assert wrong.status_code == 200
        assert not wrong.context[form].has_error(
            "password" if form == "email_form" else "old_password", "throttled"
        )
    assert LoginAttempt.objects.count() == throttle.PAIR_LIMIT
    refused = post(organiser_client, PASSWORD)
    assert refused.status_code == 200
    field = "password" if form == "email_form" else "old_password"
    assert refused.context[form].has_error(field, "throttled")
    organiser.refresh_from_db()
    assert organiser.email == "" and organiser.check_password(PASSWORD)


def test_a_right_password_is_not_counted(organiser, organiser_client):
    assert email_post(organiser_client, PASSWORD).status_code == 302
    assert change_post(organiser_client, PASSWORD).status_code == 302
    assert not LoginAttempt.objects.exists()
