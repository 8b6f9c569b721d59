"""The re-settle preview on a phone: its tables of the largest movements and the days' money fit
inside their cards, so the new score is read without swiping sideways. Screenshot:
test-artifacts/screenshots/resettle-preview.png."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

import pytest
from django.urls import reverse

import scoring
from league.models import Member, Membership
from league.recording import services
from league.rules import services as rules_services
from tests.support.clubs import make_club, make_user

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.django_db(transaction=True)

LONG_NAMES = ["長谷川 由美子", "佐々木 美穂", "高橋 真由美", "松本 和也"]


@pytest.fixture
def preview(live_server) -> str:
    """Games under マメの会's rules, then a version with a steeper uma from before them."""
    club = make_club("mame", "mame-no-kai", "マメの会")
    organiser = make_user("organiser", club, Membership.ORGANISER)
    players = [Member.objects.create(club=club, name=n) for n in LONG_NAMES]
    for day in range(3):
        seats = [
            services.SeatInput(m, p)
            for m, p in zip(players, (52000, 31000, 19000, -2000), strict=True)
        ]
        services.game_record(
            club=club,
            user=organiser,
            data=services.GameInput(
                date=datetime.date(2026, 10, 1 + day), seats=seats, table="A", rate="0.3"
            ),
        )
    rules = {**scoring.PRESETS["mame-no-kai"].rules.to_json(), "uma": [30, 10, -10, -30]}
    version = rules_services.rules_version_create(
        club=club, user=organiser, effective_from=datetime.date(2026, 9, 1), rules_json=rules
    )
    return f"{live_server.url}{reverse('rules:rules_resettle', args=[club.slug, version.pk])}"


def test_the_largest_movements_fit_their_card(phone: Page, log_in, screenshot, preview):
    log_in("organiser")
    assert phone.goto(preview).status == 200
    assert phone.locator("table[data-resettle-largest] tbody tr").count() > 0
    wide = phone.evaluate(
        """() => [...document.querySelectorAll('table[data-resettle-largest]')]
          .map(t => t.closest('.table-wrap'))
          .filter(w => w.scrollWidth > w.clientWidth + 1).length"""
    )
    assert wide == 0
    screenshot("resettle-preview")
