"""Issue 21, items 4, 5 and 7: closing the day follows the club's habit (paid by default, deferring
chosen row by row, one tap for a settled day), My page's box is right for every member however
many payment lines the day has, and the money pages' headings and signs say one thing."""

from __future__ import annotations

import itertools
import re

import pytest
from django.urls import reverse

from league import money
from league.books import selectors as book_selectors
from league.core import clock
from league.models import LedgerEntry, Member, Membership
from league.mypage import signs
from tests.support.clubs import make_user
from tests.support.money import ledger_case_day

pytestmark = pytest.mark.django_db


@pytest.fixture
def m(members) -> dict[str, Member]:
    return {x.name: x for x in members}


@pytest.fixture
def day(club, m):
    return ledger_case_day(club, m, clock.today())


def url(name: str, club, *args) -> str:
    return reverse(name, args=[club.slug, *args])


def close_form(response) -> dict[str, str]:
    """What the close screen's form sends as it is shown (its initial choices)."""
    form = response.context["form"]
    data = {"expected": form.initial["expected"]}
    for name in form.transfer_fields:
        data[name] = form.fields[name].initial
    return data


# --- item 4: closing the day -----------------------------------------------------------------


def test_closing_as_shown_marks_every_transfer_paid_without_surcharge(organiser_client, club, day):
    shown = organiser_client.get(url("money:day_close", club, clock.today()))
    page = shown.content.decode()
    transfers = money.day_ledger(day=day).transfers
    assert len(transfers) >= 3
    # Every row's "paid" is checked; "defer" (with its surcharge) is there to choose, row by row.
    assert len(re.findall(r'value="pay"[^>]*checked', page)) == len(transfers)
    assert not re.findall(r'value="defer"[^>]*checked', page)
    response = organiser_client.post(url("money:day_close", club, clock.today()), close_form(shown))
    assert response.status_code == 302
    kinds = set(LedgerEntry.objects.values_list("kind", flat=True))
    assert kinds == {LedgerEntry.PAYMENT}
    assert not LedgerEntry.objects.filter(surcharge__gt=0).exists()
    day.refresh_from_db()
    assert day.closed_at is not None


def test_one_row_deferred_is_the_only_surcharge(organiser_client, club, day):
    shown = organiser_client.get(url("money:day_close", club, clock.today()))
    data = close_form(shown)
    deferred = next(n for n in data if n.startswith("t-") and not n.startswith("t-club"))
    data[deferred] = "defer"
    assert (
        organiser_client.post(url("money:day_close", club, clock.today()), data).status_code == 302
    )
    assert LedgerEntry.objects.filter(kind=LedgerEntry.DEFERRAL).count() == 1
    assert LedgerEntry.objects.filter(surcharge__gt=0).count() == 1


def test_a_day_settled_row_by_row_closes_with_one_tap(organiser_client, club, day):
    ledger = money.day_ledger(day=day)
    for t in ledger.transfers:
        money.transfer_pay(
            day=day, user=None, payer=money.party(t.payer), payee=money.party(t.payee)
        )
    page = organiser_client.get(url("money:day_ledger", club, clock.today())).content.decode()
    assert "data-close-now" in page  # the button is still there once everything is marked
    assert "未精算" not in page.split('id="to-settle">')[1].split("</h2>")[0]
    entries = LedgerEntry.objects.count()
    tap = organiser_client.post(url("money:day_close", club, clock.today()), {"expected": ""})
    assert tap.status_code == 302
    day.refresh_from_db()
    assert day.closed_at is not None and LedgerEntry.objects.count() == entries
    closed = organiser_client.get(url("money:day_ledger", club, clock.today())).content.decode()
    heading = closed.split('id="to-settle">')[1].split("</h2>")[0]
    assert "締め済み" in heading and "未精算" not in heading
    assert "data-close-now" not in closed


def test_a_member_sees_no_close_button(member_client, club, day):
    ledger = money.day_ledger(day=day)
    for t in ledger.transfers:
        money.transfer_pay(
            day=day, user=None, payer=money.party(t.payer), payee=money.party(t.payee)
        )
    assert (
        "data-close-now"
        not in member_client.get(url("money:day_ledger", club, clock.today())).content.decode()
    )


# --- item 5: My page with many payment lines -------------------------------------------------


def my_box(client, club):
    response = client.get(url("mypage:my_page", club))
    assert response.status_code == 200
    return response.context["settlement"], response.content.decode()


def assert_box_is_the_ledger(client, club, member: Member, day) -> None:
    ledger = money.day_ledger(day=day)
    me = str(member.pk)
    settlement, page = my_box(client, club)
    assert settlement is not None and settlement.day.pk == day.pk, member.name
    total = next((p.yen for p in ledger.players if p.name == me), None)
    assert settlement.total == total, member.name
    expected = [(t.payer == me, t.yen) for t in ledger.transfers if me in (t.payer, t.payee)]
    assert [(t.pays, t.yen) for t in settlement.transfers] == expected, member.name
    owes_later = [
        d
        for d in money.open_debts(club=club)
        if d.entry.day_id == day.pk and member.pk in (d.debtor.pk, d.creditor_id)
    ]
    assert len(settlement.debts) == len(owes_later), member.name
    nothing = "支払い・受け取りはありません" in page
    assert nothing == (not expected and not owes_later), member.name


def test_my_page_is_right_for_every_member_after_ten_payments_and_undos(client, club, m, day):
    organiser = make_user("closer", club, Membership.ORGANISER)
    # Ten payment lines and their undos, then part payments that stay: far more than the five
    # latest statement lines My page once looked at.
    for _ in range(5):
        t = money.day_ledger(day=day).transfers[0]
        paid = money.transfer_pay(
            day=day, user=organiser, payer=money.party(t.payer), payee=money.party(t.payee)
        )
        money.entry_undo(entry=paid, user=organiser)
    for t in money.day_ledger(day=day).transfers[:2]:
        money.transfer_pay(
            day=day,
            user=organiser,
            payer=money.party(t.payer),
            payee=money.party(t.payee),
            amount=t.yen - 100,
        )
    assert LedgerEntry.objects.filter(day=day).count() >= 12
    players = [m[n] for n in ("青木", "馬場", "千葉", "土井", "江藤")]
    for member in players:
        user = make_user(f"u{member.pk}", club)
        member.user = user
        member.save(update_fields=["user"])
        client.force_login(user)
        assert_box_is_the_ledger(client, club, member, day)

    # Closed with one row deferred: the debtor's box says what they pay later, not "nothing".
    client.force_login(organiser)
    shown = client.get(url("money:day_close", club, clock.today()))
    data = close_form(shown)
    deferred = next(n for n in data if n.startswith("t-") and not n.startswith("t-club"))
    data[deferred] = "defer"
    assert client.post(url("money:day_close", club, clock.today()), data).status_code == 302
    debtor = Member.objects.get(pk=int(deferred.split("-")[1]))
    for member in players:
        client.force_login(member.user)
        assert_box_is_the_ledger(client, club, member, day)
    client.force_login(debtor.user)
    settlement, page = my_box(client, club)
    assert settlement.closed and settlement.debts and "後日" in page


# --- item 7: signs ---------------------------------------------------------------------------


def test_receiving_is_plus_and_paying_is_minus_in_a_members_own_view(club, m, day):
    t = next(t for t in money.day_ledger(day=day).transfers if t.payee is not None)
    paid = money.transfer_pay(
        day=day, user=None, payer=money.party(t.payer), payee=money.party(t.payee)
    )
    assert signs.flow(paid, int(t.payee)) == t.yen  # received: +
    assert signs.flow(paid, int(t.payer)) == -t.yen  # paid: ▲
    statement = book_selectors.full_statement(member=Member.objects.get(pk=int(t.payee)))
    line = next(x for x in statement.lines if x.entry == paid)
    assert line.yen == -t.yen  # the balance (what they are owed) goes down …
    assert signs.line_yen(line, int(t.payee)) == t.yen  # … and the line says what they received


def test_the_statements_change_has_the_sign_of_the_balance_change(member_client, club, m, day):
    """Issue 37: a received payment takes the balance down (1,752 → 477), and its 増減 reads
    ▲1,275, on the page (each row's change is its balance less the row before's)."""
    t = next(t for t in money.day_ledger(day=day).transfers if t.payee is not None)
    money.transfer_pay(day=day, user=None, payer=money.party(t.payer), payee=money.party(t.payee))
    page = member_client.get(url("money:member_statement", club, int(t.payee))).content.decode()
    payer = Member.objects.get(pk=int(t.payer)).name
    row = page.split(f"{payer}から受け取り")[1].split("</tr>")[0]
    change = row.split('data-label="増減">')[1].split("</td>")[0]
    assert change == f"▲{t.yen:,}"  # received: the balance (what they are owed) goes down
    body = page.split('<table class="statement stack">')[1].split("</tbody>")[0]
    cells = [
        (r.split('data-label="増減">')[1].split("</td>")[0], r.split('data-label="残高">')[1])
        for r in body.split("<tr")[1:]
        if 'data-label="増減">' in r
    ]
    assert len(cells) >= 2

    def number(text: str) -> int:
        text = text.split("</td>")[0].strip()
        return (
            -int(text[1:].replace(",", ""))
            if text.startswith("▲")
            else int(text.replace(",", "") or 0)
        )

    balances = [number(b) for _c, b in cells]
    changes = [number(c) for c, _b in cells]
    assert changes[1:] == [b - a for a, b in itertools.pairwise(balances)]


def test_a_day_counts_its_live_games_everywhere(organiser_client, club, m, day, organiser):
    from league.models import Game
    from league.recording import services

    game = Game.objects.filter(day=day).order_by("number").last()
    services.game_void(game=game, user=organiser, reason="entered twice")
    home = organiser_client.get(url("recording:club_home", club)).content.decode()
    assert '<span class="muted">1半荘</span>' in home  # of 2 recorded, 1 live
    assert '<span class="muted">2半荘</span>' not in home
