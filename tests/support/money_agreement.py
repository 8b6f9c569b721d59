"""Random sequences of money actions, for the tests that hold money's views equal."""

from __future__ import annotations

import datetime

import scoring
from league import money
from league.models import Club, Day, Game, LedgerEntry, Member, RulesVersion
from league.recording import services
from league.recording.services import GameInput, SeatInput
from league.rules import services as rules_services

DATES = [datetime.date(2026, 11, d) for d in (1, 8, 15)]


RULES = {"preset": "mame-no-kai", "place_fees": {"4": 500}, "yen_unit": 10}


NAMES = ["青木", "馬場", "千葉", "土井", "江藤"]


def _points(seed: int, deposits: int) -> list[int]:
    a = (seed % 500) * 100 - 10_000
    b = (seed // 7 % 400) * 100
    c = (seed // 13 % 300) * 100
    return [a, b, c, 100_000 - deposits - a - b - c]


class Runner:
    def __init__(self, club: Club, members: list[Member], user) -> None:
        self.club, self.members, self.user = club, members, user

    def days(self) -> list[Day]:
        return list(Day.objects.filter(club=self.club).order_by("date"))

    def run(self, op: str, a: int, b: int, c: int) -> None:
        getattr(self, op)(a, b, c)

    def game(self, a: int, b: int, c: int) -> None:
        date = DATES[a % len(DATES)]
        start = b % len(self.members)
        table = [self.members[(start + i * (1 + c % 2)) % len(self.members)] for i in range(4)]
        if len(set(table)) < 4:
            table = self.members[:4]
        deposits = (c % 3) * 1000
        seats = [
            SeatInput(m, p, 1 if i == c % 7 else 0)
            for i, (m, p) in enumerate(zip(table, _points(b, deposits), strict=True))
        ]
        data = GameInput(
            date=date, seats=seats, rate=["0.2", "0.3", "0.5"][c % 3], deposits=deposits
        )
        services.game_record(club=self.club, user=self.user, data=data)

    def _transfer(self, a: int, b: int) -> tuple[Day, scoring.Transfer] | None:
        days = self.days()
        if not days:
            return None
        day = days[a % len(days)]
        ledger = money.day_ledger(day=day)
        if not ledger.transfers:
            return None
        return day, ledger.transfers[b % len(ledger.transfers)]

    def _amount(self, t: scoring.Transfer, c: int) -> int | None:
        return None if c % 3 == 0 else 1 + c % t.yen

    def pay(self, a: int, b: int, c: int) -> None:
        if found := self._transfer(a, b):
            day, t = found
            money.transfer_pay(
                day=day,
                user=self.user,
                payer=money.party(t.payer),
                payee=money.party(t.payee),
                amount=self._amount(t, c),
            )

    def loan(self, a: int, b: int, c: int) -> None:
        if (found := self._transfer(a, b)) and found[1].payer is not None:
            day, t = found
            payer, payee = money.party(t.payer), money.party(t.payee)
            lenders = [m for m in self.members if m.pk not in (payer, payee)]
            money.transfer_borrow(
                day=day,
                user=self.user,
                payer=payer,
                payee=payee,
                lender=lenders[c % len(lenders)],
                amount=self._amount(t, c),
            )

    def defer(self, a: int, b: int, c: int) -> None:
        if (found := self._transfer(a, b)) and found[1].payer is not None:
            day, t = found
            money.transfer_defer(
                day=day,
                user=self.user,
                payer=money.party(t.payer),
                payee=money.party(t.payee),
                amount=self._amount(t, c),
            )

    def repay(self, a: int, b: int, c: int) -> None:
        debts = money.open_debts(club=self.club)
        if debts:
            debt = debts[a % len(debts)]
            amount = None if c % 2 == 0 else 1 + c % debt.remaining
            money.debt_repay(debt_entry=debt.entry, user=self.user, amount=amount)

    def _entry(self, a: int) -> LedgerEntry | None:
        entries = list(
            LedgerEntry.objects.filter(
                club=self.club, reverses__isnull=True, reversed_by__isnull=True
            )
            .exclude(kind=LedgerEntry.REVERSAL)
            .order_by("id")
        )
        return entries[a % len(entries)] if entries else None

    def reverse(self, a: int, b: int, c: int) -> None:
        if entry := self._entry(a):
            money.entry_reverse(entry=entry, user=self.user, note="間違い")

    def undo(self, a: int, b: int, c: int) -> None:
        if entry := self._entry(a):
            money.entry_undo(entry=entry, user=self.user)

    def void(self, a: int, b: int, c: int) -> None:
        games = list(Game.objects.filter(club=self.club, voided=False).order_by("id"))
        if games:
            services.game_void(game=games[a % len(games)], user=self.user, reason="二重入力")

    def close(self, a: int, b: int, c: int) -> None:
        days = self.days()
        if not days:
            return
        day = days[a % len(days)]
        ledger = money.day_ledger(day=day)
        defer = [
            (money.party(t.payer), money.party(t.payee))
            for i, t in enumerate(ledger.transfers)
            if (b >> i) & 1
        ]
        money.day_close(
            day=day, user=self.user, defer=defer, expected=money.transfers_key(ledger.transfers)
        )
        day.refresh_from_db()
        assert day.closed_at is not None
        assert not money.day_ledger(day=day).transfers  # closed: nothing left open

    def version(self, a: int, b: int, c: int) -> None:
        """A back-dated rules version, not applied: nothing recorded may move."""
        date = DATES[a % len(DATES)] - datetime.timedelta(days=1 + b % 3)
        rules = {**RULES, "place_fees": {"4": 1000 + 100 * (c % 5), "3": 200}, "yen_unit": 100}
        if c % 4 == 0:
            rules = {"preset": "takabari-kenko"}  # no money at all
        before = {d.pk: money.day_ledger(day=d).outstanding for d in self.days()}
        rules_services.rules_version_create(
            club=self.club, user=self.user, effective_from=date, rules_json=rules
        )
        after = {d.pk: money.day_ledger(day=d).outstanding for d in self.days()}
        assert after == before

    def resettle(self, a: int, b: int, c: int) -> None:
        versions = list(RulesVersion.objects.filter(club=self.club).order_by("effective_from"))
        version = versions[a % len(versions)]
        changes = rules_services.resettle_preview(version=version)
        rules_services.resettle_apply(
            version=version, user=self.user, expected=rules_services.resettle_key(changes)
        )
