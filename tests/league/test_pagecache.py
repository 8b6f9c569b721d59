"""Kept pages (league/pagecache.py): a club page is served again to the same browser, after one
query, until anything is written; and never once it could differ from a fresh one."""

from __future__ import annotations

import datetime

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from league import money, pagecache
from league.core import writes
from league.models import Day, LedgerEntry, Member, Membership, PageVersion, Season
from tests.conftest import PASSWORD
from tests.league.test_pages import DATE, record


@pytest.fixture
def day_games(club, organiser, members):
    record(club, organiser, members[:4])
    return Day.objects.get(club=club, date=DATE)


@pytest.fixture
def season(club):
    return Season.objects.create(
        club=club, name="2026秋", start=datetime.date(2026, 9, 1), end=datetime.date(2026, 11, 30)
    )


def pages(club, season) -> dict[str, str]:
    return {
        "season standings": reverse("season_standings", args=[club.slug, season.pk]),
        "standings": reverse("standings", args=[club.slug]),
        "day page": reverse("day_detail", args=[club.slug, DATE]),
        "ledger": reverse("day_ledger", args=[club.slug, DATE]),
    }


def kept(client: Client, address: str, django_assert_num_queries) -> bytes:
    """The page, rendered (the first request also sets the CSRF cookie), then kept, then served
    kept: the last request sends one query and gets the same bytes."""
    client.get(address)
    rendered = client.get(address)
    assert rendered.status_code == 200
    with django_assert_num_queries(1):
        served = client.get(address)
    assert served.status_code == 200
    assert served.content == rendered.content
    assert served["Content-Type"] == rendered["Content-Type"]
    return served.content


def rendered_again(client: Client, address: str, django_assert_num_queries) -> bytes:
    """The page, not served kept: more than the one query of a kept page."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(address)
    assert len(queries) > 1, "served a kept page"
    return response.content


def lost_rotation(token: str, generation: int) -> None:
    """As if a write made elsewhere had not renewed the token: what only the other checks catch."""
    PageVersion.objects.update(token=token)
    writes._generation = generation


@pytest.mark.parametrize("name", ["season standings", "standings", "day page", "ledger"])
def test_each_page_is_kept_and_served_after_one_query(
    name, organiser_client, club, season, day_games, django_assert_num_queries
):
    page = kept(organiser_client, pages(club, season)[name], django_assert_num_queries)
    assert "青木" in page.decode()


def test_a_write_through_the_app_shows_on_every_page_at_once(
    organiser_client, club, season, organiser, members, day_games, django_assert_num_queries
):
    before = {
        name: kept(organiser_client, address, django_assert_num_queries)
        for name, address in pages(club, season).items()
    }
    Member.objects.filter(pk=members[0].pk).update(name="青木 改")  # any write, in this process
    for name, address in pages(club, season).items():
        after = rendered_again(organiser_client, address, django_assert_num_queries)
        assert "青木 改" in after.decode(), name
        assert after != before[name]


def test_a_write_by_another_process_shows_by_the_token(
    organiser_client, club, season, day_games, django_assert_num_queries
):
    """Another app server or the worker: its write renews the token in the database; this
    process's own count of writes has not moved."""
    address = pages(club, season)["standings"]
    kept(organiser_client, address, django_assert_num_queries)
    generation = writes.generation()
    PageVersion.objects.update(token="from-another-server")  # not counted as a write here
    assert writes.generation() == generation
    rendered_again(organiser_client, address, django_assert_num_queries)
    kept_again = organiser_client.get(address)
    assert kept_again.status_code == 200


def test_another_browser_of_the_same_user_is_not_served_the_first_ones_page(
    organiser, club, season, day_games, django_assert_num_queries
):
    first, second = Client(), Client()
    first.force_login(organiser)
    second.force_login(organiser)
    address = pages(club, season)["ledger"]
    kept(first, address, django_assert_num_queries)
    second.get(address)
    rendered_again(second, address, django_assert_num_queries)


def test_a_signed_out_session_is_not_served_its_kept_page(
    organiser_client, club, season, day_games, django_assert_num_queries
):
    address = pages(club, season)["ledger"]
    kept(organiser_client, address, django_assert_num_queries)
    stolen = Client()
    stolen.cookies = organiser_client.cookies  # the same cookies, copied before signing out
    token, generation = PageVersion.objects.get().token, writes.generation()
    session_key = organiser_client.cookies[settings.SESSION_COOKIE_NAME].value
    Session.objects.filter(session_key=session_key).delete()  # signed out on another server
    lost_rotation(token, generation)
    assert stolen.get(address).status_code == 404


def test_an_expired_session_is_not_served(
    organiser_client, club, season, day_games, django_assert_num_queries
):
    address = pages(club, season)["day page"]
    kept(organiser_client, address, django_assert_num_queries)
    token, generation = PageVersion.objects.get().token, writes.generation()
    Session.objects.update(expire_date=timezone.now() - datetime.timedelta(seconds=1))
    lost_rotation(token, generation)
    assert organiser_client.get(address).status_code == 404


def test_a_password_changed_elsewhere_ends_the_kept_pages_of_old_sessions(
    organiser_client, organiser, club, season, day_games, django_assert_num_queries
):
    address = pages(club, season)["standings"]
    kept(organiser_client, address, django_assert_num_queries)
    token, generation = PageVersion.objects.get().token, writes.generation()
    user = get_user_model().objects.get(pk=organiser.pk)
    user.set_password(PASSWORD + " changed")
    user.save()
    lost_rotation(token, generation)
    assert organiser_client.get(address).status_code == 404  # signed out, as Django does


def test_an_organiser_made_a_member_is_not_served_the_organisers_page(
    organiser_client, organiser, club, season, day_games, django_assert_num_queries
):
    address = pages(club, season)["ledger"]
    kept(organiser_client, address, django_assert_num_queries)
    token, generation = PageVersion.objects.get().token, writes.generation()
    Membership.objects.filter(user=organiser).update(role=Membership.MEMBER)
    lost_rotation(token, generation)
    page = rendered_again(organiser_client, address, django_assert_num_queries).decode()
    assert reverse("record_start", args=[club.slug]) not in page


@pytest.mark.parametrize("change", ["left the club", "deactivated"])
def test_a_user_who_may_no_longer_see_the_club_is_not_served(
    change, member_client, member_user, club, season, day_games, django_assert_num_queries
):
    address = pages(club, season)["day page"]
    kept(member_client, address, django_assert_num_queries)
    token, generation = PageVersion.objects.get().token, writes.generation()
    if change == "left the club":
        Membership.objects.filter(user=member_user).delete()
    else:
        get_user_model().objects.filter(pk=member_user.pk).update(is_active=False)
    lost_rotation(token, generation)
    assert member_client.get(address).status_code == 404


def test_the_other_language_is_its_own_page(
    organiser_client, club, season, day_games, django_assert_num_queries
):
    address = pages(club, season)["day page"]
    japanese = kept(organiser_client, address, django_assert_num_queries)
    organiser_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    english = organiser_client.get(address).content
    assert english != japanese
    assert 'lang="en"' in english.decode()


def test_a_page_showing_a_message_is_not_kept_and_a_waiting_message_is_shown(
    organiser_client, club, members, day_games, django_assert_num_queries
):
    address = reverse("day_ledger", args=[club.slug, DATE])
    kept(organiser_client, address, django_assert_num_queries)
    ledger = money.day_ledger(day=Day.objects.get(club=club, date=DATE))
    transfer = ledger.transfers[0]
    response = organiser_client.post(
        reverse("transfer_settle", args=[club.slug, DATE]),
        {"action": "pay", "payer": transfer.payer, "payee": transfer.payee or "club"},
    )
    assert response.status_code == 302
    shown = organiser_client.get(address).content.decode()
    assert '<ul class="messages">' in shown and "支払済み：" in shown
    again = rendered_again(organiser_client, address, django_assert_num_queries).decode()
    assert "支払済み：" not in again  # the message was shown once, and was not kept
    assert kept(organiser_client, address, django_assert_num_queries).decode() == again


def test_the_ledger_is_kept_only_until_its_undo_button_goes(
    organiser_client, organiser, club, day_games, django_assert_num_queries, monkeypatch
):
    day = Day.objects.get(club=club, date=DATE)
    transfer = money.day_ledger(day=day).transfers[0]
    money.transfer_pay(
        day=day,
        payer=money.party(transfer.payer),
        payee=money.party(transfer.payee),
        user=organiser,
    )
    address = reverse("day_ledger", args=[club.slug, DATE])
    page = kept(organiser_client, address, django_assert_num_queries)
    entry = LedgerEntry.objects.get(kind=LedgerEntry.PAYMENT)
    undo = reverse("entry_undo", args=[club.slug, entry.pk])
    assert undo in page.decode()
    later = money.undo_deadline(entry) + datetime.timedelta(seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    after = rendered_again(organiser_client, address, django_assert_num_queries)
    assert undo not in after.decode()


def test_a_page_is_not_kept_past_its_age(
    organiser_client, club, season, day_games, django_assert_num_queries, monkeypatch
):
    address = pages(club, season)["standings"]
    kept(organiser_client, address, django_assert_num_queries)
    later = timezone.now() + datetime.timedelta(seconds=settings.PAGE_CACHE_SECONDS)
    monkeypatch.setattr(timezone, "now", lambda: later)
    rendered_again(organiser_client, address, django_assert_num_queries)


def test_nothing_is_kept_when_turned_off(
    organiser_client, club, season, day_games, django_assert_num_queries, settings
):
    settings.PAGE_CACHE = False
    address = pages(club, season)["standings"]
    organiser_client.get(address)
    organiser_client.get(address)
    rendered_again(organiser_client, address, django_assert_num_queries)
    assert not pagecache.store.pages


def test_the_store_stays_within_its_bounds(
    organiser_client, club, season, day_games, django_assert_num_queries, settings
):
    settings.PAGE_CACHE_PAGES = 2
    for n in range(5):
        address = pages(club, season)["standings"] + f"?sort=-points&n={n}"
        organiser_client.get(address)
        organiser_client.get(address)
    assert len(pagecache.store.pages) <= 2
    assert pagecache.store.size == sum(len(p.content) for p in pagecache.store.pages.values())


@pytest.mark.parametrize(
    ("sql", "counts"),
    [
        ('INSERT INTO "league_game" ("x") VALUES (1)', True),
        ('  update "league_member" SET "name" = 1', True),
        ('DELETE FROM "league_result" WHERE 1', True),
        ("UPDATE some_table SET x = 1", True),  # no quoted name: counted, to be safe
        ('SELECT * FROM "league_game"', False),
        ('UPDATE "django_session" SET "session_data" = 1', False),
        ('DELETE FROM "django_session" WHERE 1', False),
        ('UPDATE "league_pageversion" SET token = 1', False),
        ('SAVEPOINT "s1"', False),
        ('RELEASE SAVEPOINT "s1"', False),
        ('(SELECT "a" FROM "league_game") UNION (SELECT "a" FROM "league_day")', False),
        ('WITH x AS (SELECT 1) UPDATE "league_game" SET "x" = 1', True),  # not a read: counts
        ('/* note */ UPDATE "league_game" SET "x" = 1', True),
        ('TRUNCATE "league_game"', True),
        ("", False),
    ],
)
def test_which_statements_make_kept_pages_old(db, sql, counts):
    connection.ensure_connection()
    assert writes.changes_pages(sql) is counts


@pytest.mark.django_db(transaction=True)
def test_the_token_is_renewed_when_a_write_commits_and_not_when_it_rolls_back(club):
    token = PageVersion.objects.get().token
    with transaction.atomic():
        Member.objects.create(club=club, name="新人")
        assert PageVersion.objects.get().token == token  # not before the commit
    committed = PageVersion.objects.get().token
    assert committed != token
    with pytest.raises(RuntimeError), transaction.atomic():
        Member.objects.create(club=club, name="消える")
        raise RuntimeError
    assert PageVersion.objects.get().token == committed
    Member.objects.filter(name="新人").update(name="新人さん")  # outside a transaction
    assert PageVersion.objects.get().token != committed


@pytest.mark.django_db(transaction=True)
def test_the_renewal_runs_first_and_even_if_another_callback_fails(club):
    token = PageVersion.objects.get().token
    generation = writes.generation()
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        transaction.on_commit(lambda: 1 / 0)  # registered before the write
        Member.objects.create(club=club, name="新人")
    assert PageVersion.objects.get().token != token
    assert writes.generation() >= generation + 2  # at the write, and again at the commit


@pytest.mark.django_db(transaction=True)
def test_a_savepoint_rolled_back_does_not_lose_the_renewal_of_later_writes(club):
    token = PageVersion.objects.get().token
    with transaction.atomic():
        with pytest.raises(RuntimeError), transaction.atomic():
            Member.objects.create(club=club, name="消える")  # the callback registered here...
            raise RuntimeError  # ...goes with the savepoint
        Member.objects.create(club=club, name="残る")
    assert PageVersion.objects.get().token != token
