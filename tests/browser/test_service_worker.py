"""The service worker on a phone: table mode's page installs it, it precaches the app shell
named by the server (league.table.offline), and with the signal gone the table's page and its
files still load from its cache."""

from __future__ import annotations

import uuid

import pytest

from league.core.clock import today
from league.models import Member, Membership
from league.table import offline, services
from tests.support.clubs import MEMBER_NAMES, make_club, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_table_mode_keeps_its_page_and_files_offline(phone, live_server, log_in, screenshot):
    club = make_club("mame", "mame-no-kai", "マメの会")
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES[:4]]
    organiser = make_user("organiser", club, Membership.ORGANISER)
    tg = services.table_start(
        club=club,
        user=organiser,
        key=uuid.uuid4(),
        date=today(),
        members=members,
        table="A",
        rate="0.5",
    )
    log_in("organiser")
    url = f"{live_server.url}/c/{club.slug}/table/{tg.key}/"
    phone.goto(url)
    phone.evaluate("navigator.serviceWorker.ready.then(() => true)")  # installed
    cached = phone.evaluate(
        """async () => {
            const names = await caches.keys();
            const out = {};
            for (const name of names) {
                const cache = await caches.open(name);
                out[name] = (await cache.keys()).map(r => new URL(r.url).pathname);
            }
            return out;
        }"""
    )
    assert len(cached) == 1, cached
    ((name, paths),) = cached.items()
    assert name == offline.precache()["cache"]
    assert set(offline.precache()["shell"]) <= set(paths)

    # The worker controls the page once it is reloaded; the reload (online) keeps the table's
    # page in the cache, and offline the same page comes back from there.
    phone.reload()
    phone.wait_for_function("navigator.serviceWorker.controller !== null")
    phone.context.set_offline(True)
    phone.reload()
    assert phone.locator("[data-seat='0']").count() == 1
    screenshot("service-worker-offline-table")
    phone.context.set_offline(False)
