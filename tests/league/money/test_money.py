"""The money layer (league.money) on the real database: days balance with the house, settling up
keeps every balance exact, deferred debts carry exactly the surcharge, reversals restore, and a
transfer marked paid twice at once is recorded once.

Balances are recomputed here independently, from the stored results and from the entries by the
table in league.money's docstring, and compared with what league.money derives.
"""

from __future__ import annotations

import datetime
import random
import threading
from collections import defaultdict
from collections.abc import Sequence

import pytest
from django.conf import settings
from django.db import connection
from django.utils import translation

import scoring
from league import money
from league.books import selectors as book_selectors
from league.core import errors
from league.core.errors import ServiceError
from league.models import AuditLog, Day, DayShugi, LedgerEntry, Member, Result
from league.models import rules as models_rules
from league.models.rules import club_has_money
from league.money import services as money_services
from league.recording import services
from league.recording.services import ChipInput
from league.rules import services as rules_services
from tests.support.clubs import make_club
from tests.support.money import DATE, NAMES, kagetsu_season, ledger_case_day, make_members, record
from tests.support.seasons import make_season


@pytest.fixture(autouse=True)
def english_messages():
    """These tests match the services' messages in English (the default language is Japanese)."""
    with translation.override("en"):
        yield


Party = int | None


# --- building days ---------------------------------------------------------------------------


def random_points(rng: random.Random, deposits: int) -> list[int]:
    while True:
        points = [rng.randrange(-150, 600) * 100 for _ in range(3)]
        last = 100_000 - deposits - sum(points)
        if -15_000 <= last <= 60_000:
            return [*points, last]


def random_day(rng: random.Random, club, members: Sequence[Member], date, kagetsu: bool) -> Day:
    """A few random games, attendees who only waited, and (花月杯) session shūgi."""
    rules = models_rules.rules_in_force(club, date).rules
    for _game in range(rng.randint(1, 4)):
        table = rng.sample(list(members), 4)
        deposits = rng.choice([0, 0, 1000, 2000])
        chips = []
        for _chip in range(0 if kagetsu else rng.randint(0, 2)):
            winner, other = rng.sample(table, 2)
            chips.append(
                ChipInput(rng.choice(list(rules.chips)), winner, rng.choice([None, other]))
            )
        record(
            club,
            date,
            list(zip(table, random_points(rng, deposits), strict=True)),
            rate="" if kagetsu else rng.choice(list(rules.rates)),
            deposits=deposits,
            chips=chips,
            chombo=[] if kagetsu or rng.random() < 0.6 else [rng.choice(table)],
        )
    waiting = [m for m in members if rng.random() < 0.3]
    day = money_services.day_attendees_add(club=club, user=None, date=date, members=waiting)
    if kagetsu:
        for _shugi in range(rng.randint(0, 2)):
            present = sorted(
                {r.member for r in Result.objects.filter(game__day=day, counted=True)}
                | set(day.attendees.all()),
                key=lambda m: m.pk,
            )
            money.shugi_add(
                day=day, user=None, winner=rng.choice(present), multiplier=rng.randint(1, 2)
            )
    return day


# --- balances, recomputed independently ------------------------------------------------------


def independent_day_totals(day: Day) -> tuple[dict[int, int], int]:
    """Each member's day total from the stored results, fees and shūgi (yen unit 1), and the house
    as what the club collects: fees, plus what the games' yen leave over (deposits)."""
    rules = models_rules.rules_in_force(day.club, day.date).rules
    assert rules.yen_unit == 1
    totals: dict[int, int] = defaultdict(int)
    house = 0
    for r in Result.objects.filter(game__day=day, counted=True):
        fee = rules.place_fees.get(r.rank, 0)
        totals[r.member_id] += (r.yen or 0) - fee
        house += fee - (r.yen or 0)
    present = set(totals) | set(day.attendees.values_list("pk", flat=True))
    for s in DayShugi.objects.filter(day=day, voided=False):
        amount = rules.session_shugi * s.multiplier
        for pk in present - {s.winner_id}:
            totals[pk] -= amount
            totals[s.winner_id] += amount
    for pk in present:
        totals.setdefault(pk, 0)
    return dict(totals), house


def entry_balance_effect(entry: LedgerEntry) -> dict[Party, int]:
    """The docstring table's "balances" column, written out again."""
    a = entry.amount
    if entry.kind == LedgerEntry.PAYMENT:  # same day, or paying a debt back
        return {entry.payer_id: a, entry.payee_id: -a} if entry.payer_id != entry.payee_id else {}
    if entry.kind == LedgerEntry.LOAN:
        return {entry.payer_id: a, entry.payee_id: -a}
    if entry.kind == LedgerEntry.DEFERRAL:
        return {entry.borrower_id: -entry.surcharge, entry.payee_id: entry.surcharge}
    return {}  # expense, prize: the pot only


def independent_balances(club) -> dict[Party, int]:
    balances: dict[Party, int] = defaultdict(int)
    for day in Day.objects.filter(club=club):
        totals, house = independent_day_totals(day)
        for pk, yen in totals.items():
            balances[pk] += yen
        balances[None] += house
    entries = {e.pk: e for e in LedgerEntry.objects.filter(club=club)}
    for e in entries.values():
        sign, original = (-1, entries[e.reverses_id]) if e.reverses_id else (1, e)
        for party, yen in entry_balance_effect(original).items():
            balances[party] += sign * yen
    return dict(balances)


def check_books(club) -> dict[Party, int]:
    """Every property that must hold whatever was recorded; returns the balances."""
    balances = independent_balances(club)
    assert sum(balances.values()) == 0
    # What the days still say is due, plus the open debts, explains every balance exactly.
    explained: dict[Party, int] = defaultdict(int)
    for day in Day.objects.filter(club=club):
        ledger = money.day_ledger(day=day)
        totals, house = independent_day_totals(day)
        assert {int(p.name): p.yen for p in ledger.players} == totals
        assert ledger.house == house
        assert sum(p.yen for p in ledger.players) + ledger.house == 0
        assert sum(ledger.outstanding.values()) == 0
        left = dict(ledger.outstanding)
        for t in ledger.transfers:
            assert t.yen > 0
            left[money.party(t.payer)] += t.yen
            left[money.party(t.payee)] -= t.yen
        assert not any(left.values()), "the transfers settle what is outstanding"
        for party, yen in ledger.outstanding.items():
            explained[party] += yen
    for debt in money.open_debts(club=club):
        assert 0 < debt.remaining <= debt.principal
        explained[debt.debtor.pk] -= debt.remaining
        explained[debt.creditor.pk if debt.creditor else None] += debt.remaining
    parties = set(balances) | set(explained)
    assert {p: balances.get(p, 0) for p in parties} == {p: explained.get(p, 0) for p in parties}
    for member in Member.objects.filter(club=club):
        statement = book_selectors.full_statement(member=member)
        assert statement.balance == balances.get(member.pk, 0), member.name
    return balances


# --- (a) totals balance to zero with the house -----------------------------------------------


@pytest.mark.parametrize("preset", ["mame-no-kai", "kagetsu-cup"])
@pytest.mark.parametrize("seed", range(4))
def test_random_days_balance_with_the_house(db, preset, seed):
    rng = random.Random(seed)
    club = make_club("c", preset)
    members = list(make_members(club).values())
    for i in range(3):
        random_day(
            rng, club, members, DATE + datetime.timedelta(days=7 * i), preset != "mame-no-kai"
        )
    check_books(club)


def _random_step(rng: random.Random, club, days: Sequence[Day], members: Sequence[Member]) -> str:
    """One random settling-up action; refusals by the services are fine, wrong books are not."""
    day = rng.choice(days)
    transfers = money.day_ledger(day=day).transfers
    action = rng.choice(["pay", "pay", "borrow", "defer", "repay", "reverse"])
    if action in ("pay", "borrow", "defer") and transfers:
        t = rng.choice(transfers)
        payer, payee = money.party(t.payer), money.party(t.payee)
        amount = rng.choice([None, rng.randint(1, t.yen)])
        if action == "pay" or payer is None:
            money.transfer_pay(day=day, user=None, payer=payer, payee=payee, amount=amount)
            return "pay"
        if action == "borrow":
            lender = rng.choice([m for m in members if m.pk not in (payer, payee)])
            money.transfer_borrow(
                day=day, user=None, payer=payer, payee=payee, lender=lender, amount=amount
            )
            return "borrow"
        money.transfer_defer(day=day, user=None, payer=payer, payee=payee, amount=amount)
        return "defer"
    if action == "repay":
        debts = money.open_debts(club=club)
        if debts:
            debt = rng.choice(debts)
            amount = rng.choice([None, rng.randint(1, debt.remaining)])
            money.debt_repay(debt_entry=debt.entry, user=None, amount=amount)
            return "repay"
    if action == "reverse":
        entries = list(LedgerEntry.objects.filter(club=club))
        if entries:
            try:
                money.entry_reverse(entry=rng.choice(entries), user=None, note="mistake")
            except ServiceError:
                return "refused"
            return "reverse"
    return "nothing"


@pytest.mark.parametrize("preset", ["mame-no-kai", "kagetsu-cup"])
@pytest.mark.parametrize("seed", range(3))
def test_random_settling_up_keeps_every_balance_exact(db, preset, seed):
    rng = random.Random(100 + seed)
    club = make_club("c", preset)
    members = list(make_members(club).values())
    days = [
        random_day(
            rng, club, members, DATE + datetime.timedelta(days=7 * i), preset != "mame-no-kai"
        )
        for i in range(3)
    ]
    before = check_books(club)
    done = [_random_step(rng, club, days, members) for _step in range(40)]
    assert {"pay", "repay", "reverse"} <= set(done) and ({"borrow", "defer"} & set(done))
    after = check_books(club)
    # Money moved between people and the club; what the games said each one won or lost did not.
    assert sum(after.values()) == sum(before.values()) == 0


def test_the_ledger_case_day_has_its_known_totals(db):
    club = make_club("c")
    m = make_members(club)
    ledger = money.day_ledger(day=ledger_case_day(club, m))
    by_name = {ledger.members[int(p.name)].name: p.yen for p in ledger.players}
    assert by_name == {"青木": 2040, "馬場": 1140, "千葉": -1650, "土井": -1860, "江藤": 300}
    assert ledger.house == 30
    check_books(club)


# --- (b) a deferred debt carries exactly the surcharge ---------------------------------------


def _transfer(ledger: money.DayLedger, payer: Member, payee: Member | None) -> scoring.Transfer:
    want = (str(payer.pk), None if payee is None else str(payee.pk))
    return next(t for t in ledger.transfers if (t.payer, t.payee) == want)


def test_deferring_1140_yen_at_mame_no_kai_owes_1254(db):
    club = make_club("c")
    m = make_members(club)
    day = ledger_case_day(club, m)
    assert _transfer(money.day_ledger(day=day), m["千葉"], m["馬場"]).yen == 1140
    entry = money.transfer_defer(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
    assert (entry.kind, entry.amount, entry.surcharge) == (LedgerEntry.DEFERRAL, 1140, 114)
    assert (entry.borrower, entry.payee, entry.payer) == (m["千葉"], m["馬場"], None)
    [debt] = money.open_debts(club=club)
    assert (debt.debtor, debt.creditor, debt.principal, debt.remaining) == (
        m["千葉"],
        m["馬場"],
        1254,
        1254,
    )
    # The day is settled between them; 千葉 now owes 馬場 the debt, surcharge included.
    assert all(
        {t.payer, t.payee} != {str(m["千葉"].pk), str(m["馬場"].pk)}
        for t in money.day_ledger(day=day).transfers
    )
    balances = check_books(club)
    assert balances[m["馬場"].pk] == 1140 + 114
    assert book_selectors.full_statement(member=m["千葉"]).balance == -1650 - 114


def test_deferring_with_a_yen_unit_of_100_rounds_the_debt_up(db):
    club = make_club("c")
    rules_services.rules_version_create(
        club=club,
        user=None,
        effective_from=datetime.date(2026, 1, 1),
        rules_json={"preset": "mame-no-kai", "yen_unit": 100},
    )
    m = make_members(club)
    day = ledger_case_day(club, m)
    ledger = money.day_ledger(day=day)
    assert {ledger.members[int(p.name)].name: p.yen for p in ledger.players} == {
        "青木": 2000,
        "馬場": 1100,
        "千葉": -1700,
        "土井": -1900,
        "江藤": 300,
    }
    assert _transfer(ledger, m["土井"], m["青木"]).yen == 1900
    entry = money.transfer_defer(
        day=day, user=None, payer=m["土井"].pk, payee=m["青木"].pk, amount=1140
    )
    assert (entry.amount, entry.surcharge) == (1140, 160)  # 1,254 rounded up to 1,300
    assert [d.principal for d in money.open_debts(club=club)] == [1300]
    assert _transfer(money.day_ledger(day=day), m["土井"], m["青木"]).yen == 1900 - 1140


def test_a_loan_carries_no_surcharge(db):
    club = make_club("c")
    m = make_members(club)
    day = ledger_case_day(club, m)
    entry = money.transfer_borrow(
        day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk, lender=m["藤井"]
    )
    assert (entry.kind, entry.payer, entry.borrower, entry.surcharge) == (
        LedgerEntry.LOAN,
        m["藤井"],
        m["千葉"],
        0,
    )
    [debt] = money.open_debts(club=club)
    assert (debt.debtor, debt.creditor, debt.principal) == (m["千葉"], m["藤井"], 1140)
    balances = check_books(club)
    assert balances[m["藤井"].pk] == 1140 and balances[m["馬場"].pk] == 0


def test_a_transfer_no_longer_due_and_bad_amounts_are_refused(db):
    club = make_club("c")
    m = make_members(club)
    day = ledger_case_day(club, m)
    with pytest.raises(ServiceError) as e:
        money.transfer_pay(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk, amount=1141)
    assert "amount" in e.value.errors
    with pytest.raises(ServiceError) as e:
        money.transfer_pay(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk, amount=0)
    assert "amount" in e.value.errors
    money.transfer_pay(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
    with pytest.raises(ServiceError) as e:
        money.transfer_pay(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
    assert errors.NON_FIELD in e.value.errors
    with pytest.raises(ServiceError) as e:
        money.transfer_borrow(
            day=day, user=None, payer=m["土井"].pk, payee=m["青木"].pk, lender=m["土井"]
        )
    assert "lender" in e.value.errors
    assert LedgerEntry.objects.count() == 1


# --- (c) a reversal restores exactly ---------------------------------------------------------


def _state(club, day: Day) -> tuple[object, ...]:
    balances = {
        m.pk: book_selectors.full_statement(member=m).balance
        for m in Member.objects.filter(club=club)
    }
    debts = sorted((d.entry.pk, d.remaining) for d in money.open_debts(club=club))
    return money.day_ledger(day=day).transfers, balances, debts


def test_a_reversed_payment_restores_balances_and_transfers(db):
    club = make_club("c")
    m = make_members(club)
    day = ledger_case_day(club, m)
    before = _state(club, day)
    payment = money.transfer_pay(
        day=day, user=None, payer=m["土井"].pk, payee=m["青木"].pk, amount=1000
    )
    assert _state(club, day) != before
    reversal = money.entry_reverse(entry=payment, user=None, note="wrong player")
    assert (reversal.kind, reversal.reverses, reversal.amount, reversal.day) == (
        LedgerEntry.REVERSAL,
        payment,
        1000,
        day,
    )
    assert _state(club, day) == before
    check_books(club)
    with pytest.raises(ServiceError, match="already reversed"):
        money.entry_reverse(entry=payment, user=None, note="again")
    with pytest.raises(ServiceError, match="cannot itself be reversed"):
        money.entry_reverse(entry=reversal, user=None, note="undo the undo")
    assert LedgerEntry.objects.count() == 2


def test_a_reversal_needs_a_reason(db):
    club = make_club("c")
    m = make_members(club)
    day = ledger_case_day(club, m)
    payment = money.transfer_pay(day=day, user=None, payer=m["土井"].pk, payee=m["青木"].pk)
    with pytest.raises(ServiceError) as e:
        money.entry_reverse(entry=payment, user=None, note="  ")
    assert "note" in e.value.errors


def test_a_debt_with_live_repayments_is_reversed_after_them(db):
    club = make_club("c")
    m = make_members(club)
    day = ledger_case_day(club, m)
    before = _state(club, day)
    deferral = money.transfer_defer(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
    repayment = money.debt_repay(debt_entry=deferral, user=None, amount=500)
    with pytest.raises(ServiceError, match="repayments"):
        money.entry_reverse(entry=deferral, user=None, note="not deferred after all")
    money.entry_reverse(entry=repayment, user=None, note="counted twice")
    assert [d.remaining for d in money.open_debts(club=club)] == [1254]
    money.entry_reverse(entry=deferral, user=None, note="not deferred after all")
    assert _state(club, day) == before
    assert _transfer(money.day_ledger(day=day), m["千葉"], m["馬場"]).yen == 1140
    check_books(club)


def test_every_entry_and_reversal_is_in_the_audit_log(db):
    club = make_club("c")
    m = make_members(club)
    day = ledger_case_day(club, m)
    paid = money.transfer_pay(day=day, user=None, payer=m["土井"].pk, payee=m["青木"].pk)
    deferral = money.transfer_defer(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
    money.debt_repay(debt_entry=deferral, user=None, amount=254)
    money.entry_reverse(entry=paid, user=None, note="wrong day")
    logged = list(AuditLog.objects.filter(action__startswith="ledger.").order_by("id"))
    assert [a.action for a in logged] == [
        "ledger.payment",
        "ledger.deferral",
        "ledger.repayment",
        "ledger.reversal",
    ]
    assert logged[1].after["surcharge"] == 114 and logged[1].after["borrower"] == m["千葉"].pk
    assert logged[3].after["reverses"] == paid.pk and logged[3].after["note"] == "wrong day"


# --- (d) concurrent "mark paid" records once -------------------------------------------------


POSTGRESQL = "postgresql" in settings.DATABASES["default"]["ENGINE"]


@pytest.mark.skipif(not POSTGRESQL, reason="row locks need PostgreSQL; CI runs it there too")
@pytest.mark.django_db(transaction=True)
def test_concurrent_mark_paid_of_one_transfer_records_it_once():
    club = make_club("c")
    m = make_members(club)
    day = ledger_case_day(club, m)
    payer, payee = m["千葉"].pk, m["馬場"].pk
    threads_n = 8
    barrier = threading.Barrier(threads_n)
    outcomes: list[str] = []
    lock = threading.Lock()

    def mark_paid() -> None:
        try:
            barrier.wait()
            money.transfer_pay(day=Day.objects.get(pk=day.pk), user=None, payer=payer, payee=payee)
            outcome = "paid"
        except ServiceError:
            outcome = "refused"
        except Exception as e:  # anything else shows in the assertion below
            outcome = repr(e)
        finally:
            connection.close()
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=mark_paid) for _ in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["paid"] + ["refused"] * (threads_n - 1)
    assert LedgerEntry.objects.filter(kind=LedgerEntry.PAYMENT).count() == 1
    assert AuditLog.objects.filter(action="ledger.payment").count() == 1


# --- (e) open debts: age and what is left ----------------------------------------------------


def test_open_debts_age_and_remaining_after_partial_repayments(db):
    club = make_club("c")
    m = make_members(club)
    day = ledger_case_day(club, m)
    deferral = money.transfer_defer(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
    loan = money.transfer_borrow(
        day=day, user=None, payer=m["土井"].pk, payee=m["青木"].pk, lender=m["藤井"]
    )
    money.debt_repay(debt_entry=deferral, user=None, amount=254)
    money.debt_repay(debt_entry=deferral, user=None, amount=500)
    money.debt_repay(debt_entry=loan, user=None, amount=60)
    debts = {d.entry.pk: d for d in money.open_debts(club=club)}
    assert (debts[deferral.pk].principal, debts[deferral.pk].repaid) == (1254, 754)
    assert debts[deferral.pk].remaining == 500
    assert (debts[loan.pk].principal, debts[loan.pk].remaining) == (1860, 1800)
    for debt in debts.values():
        assert debt.since == DATE
        assert debt.age_days(DATE + datetime.timedelta(days=30)) == 30
        assert debt.age_days(DATE) == 0
    with pytest.raises(ServiceError) as e:
        money.debt_repay(debt_entry=deferral, user=None, amount=501)
    assert "amount" in e.value.errors
    money.debt_repay(debt_entry=deferral, user=None)  # the rest
    assert [d.entry for d in money.open_debts(club=club)] == [loan]
    with pytest.raises(ServiceError, match="already paid"):
        money.debt_repay(debt_entry=deferral, user=None)
    check_books(club)


def test_open_debts_is_one_query(db, django_assert_num_queries):
    club = make_club("c")
    m = make_members(club)
    for i in range(3):
        day = ledger_case_day(club, m, DATE + datetime.timedelta(days=i))
        entry = money.transfer_defer(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
        money.debt_repay(debt_entry=entry, user=None, amount=100)
    with django_assert_num_queries(1):
        debts = money.open_debts(club=club)
        assert [(d.debtor.name, d.creditor.name, d.since) for d in debts] == [
            ("千葉", "馬場", DATE + datetime.timedelta(days=i)) for i in range(3)
        ]


# --- (f) entries are immutable ---------------------------------------------------------------


def test_ledger_entries_cannot_be_changed_or_deleted(db):
    club = make_club("c")
    m = make_members(club)
    day = ledger_case_day(club, m)
    entry = money.transfer_pay(day=day, user=None, payer=m["土井"].pk, payee=m["青木"].pk)
    entry.amount = 1
    with pytest.raises(PermissionError):
        entry.save()
    with pytest.raises(PermissionError):
        entry.delete()
    with pytest.raises(PermissionError):
        LedgerEntry.objects.filter(pk=entry.pk).update(amount=1)
    with pytest.raises(PermissionError):
        LedgerEntry.objects.filter(pk=entry.pk).delete()
    assert LedgerEntry.objects.get(pk=entry.pk).amount == 1860


# --- (g) statements ---------------------------------------------------------------------------


def test_statement_running_balance_adds_up_its_lines(db):
    rng = random.Random(7)
    club = make_club("c")
    members = list(make_members(club).values())
    days = [
        random_day(rng, club, members, DATE + datetime.timedelta(days=i), False) for i in range(3)
    ]
    for _step in range(25):
        _random_step(rng, club, days, members)
    balances = independent_balances(club)
    for member in members:
        statement = book_selectors.full_statement(member=member)
        running = 0
        for line in statement.lines:
            running += line.yen
            assert line.balance == running
        assert statement.balance == running == balances.get(member.pk, 0)
        assert [line.date for line in statement.lines] == sorted(
            line.date for line in statement.lines
        )
        day_lines = [line for line in statement.lines if line.what == "day"]
        assert all(line.parts is not None for line in day_lines)


def test_statement_lines_of_a_deferral(db):
    club = make_club("c")
    m = make_members(club)
    day = ledger_case_day(club, m)
    money.transfer_pay(day=day, user=None, payer=m["千葉"].pk, payee=m["江藤"].pk, amount=300)
    money.transfer_defer(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
    lines = book_selectors.full_statement(member=m["千葉"]).lines
    assert [(line.what, line.yen, line.balance) for line in lines] == [
        ("day", -1650, -1650),
        ("payment", 300, -1350),
        ("deferral", -114, -1464),
    ]
    assert lines[0].parts.game_yen == -1650 and lines[0].parts.games == 2
    [debt] = book_selectors.full_statement(member=m["馬場"]).debts
    assert debt.remaining == 1254


def _days_of_games(club, m: dict[str, Member], n: int) -> None:
    for i in range(n):
        day = ledger_case_day(club, m, DATE - datetime.timedelta(days=i))
        money.transfer_defer(day=day, user=None, payer=m["千葉"].pk, payee=m["馬場"].pk)
        money.transfer_pay(day=day, user=None, payer=m["土井"].pk, payee=m["青木"].pk)


def test_statement_query_count_does_not_grow_with_days(db, django_assert_num_queries):
    small, big = make_club("small"), make_club("big")
    ms, mb = make_members(small), make_members(big)
    _days_of_games(small, ms, 2)
    _days_of_games(big, mb, 20)
    member = Member.objects.select_related("club").get(pk=ms["千葉"].pk)
    # the lines summed, their entries, parties, days and days' games; the open accounts
    with django_assert_num_queries(6) as captured:
        assert len(book_selectors.full_statement(member=member).lines) == 2 * 2
    member = Member.objects.select_related("club").get(pk=mb["千葉"].pk)
    with django_assert_num_queries(len(captured.captured_queries)):
        assert len(book_selectors.full_statement(member=member).lines) == 20 * 2


# --- the club pot ----------------------------------------------------------------------------


def test_house_totals_are_the_place_fees(db):
    club, _m, season = kagetsu_season(3)
    days = book_selectors.house_totals(club=club, start=season.start, end=season.end)
    assert [d.house for d in days] == [2000, 2000, 2000]
    pot = money.season_pot(season=season)
    assert pot.has_pot and pot.income == pot.balance == 6000 and pot.payouts == []
    assert pot.champion.name == "青木"


def test_pot_pays_the_venue_then_the_champion_up_to_the_cap(db):
    club, m, season = kagetsu_season(10)  # 20,000 yen
    entries = money.pot_pay_out(season=season, user=None, venue_cost=5000)
    assert [(e.kind, e.amount, e.payer, e.payee, e.day) for e in entries] == [
        (LedgerEntry.EXPENSE, 5000, None, None, None),
        (LedgerEntry.PRIZE, 10_000, None, m["青木"], None),
    ]
    pot = money.season_pot(season=season)
    assert (pot.income, pot.paid_out, pot.balance) == (20_000, 15_000, 5000)
    assert [
        a.action for a in AuditLog.objects.filter(action__in=["ledger.expense", "ledger.prize"])
    ] == [
        "ledger.expense",
        "ledger.prize",
    ]
    with pytest.raises(ServiceError, match="already paid out"):
        money.pot_pay_out(season=season, user=None, venue_cost=0)
    # The prize is a gift from the pot: it settles nothing, so no balance moves.
    check_books(club)


def test_a_reversed_payout_can_be_paid_again(db):
    _club, _m, season = kagetsu_season(3)
    expense, prize = money.pot_pay_out(season=season, user=None, venue_cost=5000)
    assert prize.amount == 1000
    money.entry_reverse(entry=prize, user=None, note="wrong venue cost")
    money.entry_reverse(entry=expense, user=None, note="wrong venue cost")
    assert money.season_pot(season=season).balance == 6000
    [expense] = money.pot_pay_out(season=season, user=None, venue_cost=6500)
    assert (expense.kind, expense.amount) == (LedgerEntry.EXPENSE, 6000)  # nothing left for a prize


def test_pot_payout_refusals(db):
    club, _m, season = kagetsu_season(1, min_games=3)  # nobody has 3 games
    assert money.season_pot(season=season).champion is None
    with pytest.raises(ServiceError, match="champion"):
        money.pot_pay_out(season=season, user=None, venue_cost=0)
    with pytest.raises(ServiceError) as e:
        money.pot_pay_out(season=season, user=None, venue_cost=-1)
    assert "venue_cost" in e.value.errors
    empty = make_season(
        club=club,
        name="empty",
        start=DATE - datetime.timedelta(days=90),
        end=DATE - datetime.timedelta(days=60),
    )
    with pytest.raises(ServiceError, match="nothing to pay out"):
        money.pot_pay_out(season=empty, user=None, venue_cost=5000)
    running = make_season(
        club=club, name="now", start=DATE, end=DATE + datetime.timedelta(days=400)
    )
    with pytest.raises(ServiceError, match="not over"):
        money.pot_pay_out(season=running, user=None, venue_cost=0)
    assert not LedgerEntry.objects.exists()


def test_a_club_without_place_fees_or_a_cap_has_no_pot(db):
    club = make_club("c")
    m = make_members(club)
    ledger_case_day(club, m)
    season = make_season(club=club, name="s", start=DATE, end=DATE)
    pot = money.season_pot(season=season)
    assert not pot.has_pot and pot.income == 30
    with pytest.raises(ServiceError, match="no pot"):
        money.pot_pay_out(season=season, user=None, venue_cost=0)


def test_club_has_money(db):
    assert club_has_money(club=make_club("a", "mame-no-kai"))
    assert club_has_money(club=make_club("b", "kagetsu-cup"))
    assert not club_has_money(club=make_club("c", "takabari-kenko"))


def test_season_pot_query_count_does_not_grow(db, django_assert_num_queries):
    _club, _m, small = kagetsu_season(2)
    with django_assert_num_queries(5) as captured:
        assert money.season_pot(season=small).income == 4000
    _club, _m, big = kagetsu_season(15, slug="big")
    with django_assert_num_queries(len(captured.captured_queries)):
        assert money.season_pot(season=big).income == 30_000


# --- a day's money keeps its rules version (issue 26, item 2) ----------------------------------

KAGETSU_LATER = {
    **scoring.PRESETS["kagetsu-cup"].rules.to_json(),
    "session_shugi": 20000,
    "place_fees": {"4": 5000},
}


def _fresh_ledger(day: Day) -> money.DayLedger:
    """The day's ledger as a page shows it (the day read again, as each request does)."""
    return money.day_ledger(day=Day.objects.get(pk=day.pk))


def _paid_kagetsu_day(holds: str) -> tuple[Day, dict[str, Member]]:
    """花月杯's day of five with a shūgi for 青木, every transfer paid. `holds`: "game" (one
    counted game), "voided" (its only game voided before paying) or "attendance" (no game)."""
    club = make_club("k", "kagetsu-cup")
    m = make_members(club)
    four = [m[n] for n in NAMES[:4]]
    if holds != "attendance":
        record(club, DATE, list(zip(four, (45000, 31000, 19000, 5000), strict=True)))
    day = money.day_attendees_add(club=club, user=None, date=DATE, members=[*four, m["江藤"]])
    money.shugi_add(day=day, user=None, winner=m["青木"])
    if holds == "voided":
        services.game_void(game=day.games.get(), user=None, reason="二重入力")
    for t in money.day_ledger(day=day).transfers:
        money.transfer_pay(
            day=day, user=None, payer=money.party(t.payer), payee=money.party(t.payee)
        )
    return day, m


@pytest.mark.parametrize("holds", ["game", "voided", "attendance"])
def test_a_back_dated_version_moves_no_money_of_a_paid_day(db, holds):
    day, m = _paid_kagetsu_day(holds)
    before = money.day_ledger(day=day)
    assert before.settled
    shugi = {m["青木"].pk: 8000} | {m[n].pk: -2000 for n in NAMES[1:5]}
    assert {p: y for p, y in before.outstanding.items() if p} == dict.fromkeys(shugi, 0)
    rules_services.rules_version_create(
        club=day.club,
        user=None,
        effective_from=DATE - datetime.timedelta(days=30),
        rules_json=KAGETSU_LATER,
    )
    after = _fresh_ledger(day)
    assert after.rules.session_shugi == 2000
    assert (after.players, after.house) == (before.players, before.house)
    assert after.settled, after.transfers  # no new transfer due on a paid day
    assert money.day_rules(day=Day.objects.get(pk=day.pk)) == before.rules


def test_voiding_a_days_only_game_after_a_back_dated_version_keeps_the_days_version(db):
    """The day's version is the one its money had when the back-dated version came: voiding its
    only game later does not hand the day's shūgi to the new version."""
    day, m = _paid_kagetsu_day("game")
    rules_services.rules_version_create(
        club=day.club,
        user=None,
        effective_from=DATE - datetime.timedelta(days=30),
        rules_json=KAGETSU_LATER,
    )
    services.game_void(game=day.games.get(), user=None, reason="二重入力")
    ledger = _fresh_ledger(day)
    assert ledger.rules.session_shugi == 2000
    players = {money.party(p.name): p.yen for p in ledger.players}
    assert players[m["青木"].pk] == 4 * 2000  # the old shūgi, no longer the game's fees


def test_applying_the_back_dated_version_moves_the_days_money_as_the_preview_said(db):
    """Re-settling is how a new version reaches recorded money: the preview shows the day, and
    applying it moves the day (new transfers due, since the day was paid)."""
    day, _members = _paid_kagetsu_day("voided")
    version = rules_services.rules_version_create(
        club=day.club,
        user=None,
        effective_from=DATE - datetime.timedelta(days=30),
        rules_json=KAGETSU_LATER,
    )
    changes = rules_services.resettle_preview(version=version)
    assert [d.day.pk for d in rules_services.resettle_days(version=version, changes=changes)] == [
        day.pk
    ]
    rules_services.resettle_apply(
        version=version, user=None, expected=rules_services.resettle_key(changes)
    )
    ledger = _fresh_ledger(day)
    assert ledger.rules.session_shugi == 20000
    assert not ledger.settled
