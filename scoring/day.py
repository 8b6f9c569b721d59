"""Settling a day: the payment ledger (settlement.md, "Settling a day").

The club ("house") is a party like any player; in a `Transfer` it is `None`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import errors
from .errors import Collector, InputError
from .game import GameResult, round_half_away
from .rules import Rules


@dataclass(frozen=True, slots=True)
class Shugi:
    """A session-wide shūgi event: every other attendee pays the winner."""

    winner: str
    multiplier: int = 1


@dataclass(frozen=True, slots=True)
class Transfer:
    payer: str | None  # None: the club
    payee: str | None
    yen: int


@dataclass(frozen=True, slots=True)
class DayPlayer:
    name: str
    games: int
    score: int  # tenths, summed over the day's games
    chips: int
    game_yen: int  # points and chips at each game's rate
    fees: int  # place fees paid to the club (negative or 0)
    shugi: int  # session shūgi received minus paid
    rounding: int  # what rounding to the yen unit changed
    yen: int  # the day's total: game_yen + fees + shugi + rounding


@dataclass(frozen=True, slots=True)
class DayResult:
    """A settled day. It refuses to exist unless it balances to zero and the transfers settle it."""

    players: tuple[DayPlayer, ...]
    house: int  # what the club receives (negative: pays)
    transfers: tuple[Transfer, ...]

    def __post_init__(self) -> None:
        for p in self.players:
            if p.yen != p.game_yen + p.fees + p.shugi + p.rounding:
                raise ValueError(f"{p.name}'s parts do not add up to the total")
        if sum(p.yen for p in self.players) + self.house != 0:
            raise ValueError("the day does not balance with the house")
        balance: dict[str | None, int] = {p.name: p.yen for p in self.players}
        balance[None] = self.house
        for t in self.transfers:
            if t.yen <= 0:
                raise ValueError("a transfer must move a positive amount")
            balance[t.payer] += t.yen
            balance[t.payee] -= t.yen
        if any(balance.values()):
            raise ValueError("the transfers do not settle every balance")


def settle_transfers(balances: Iterable[tuple[str | None, int]]) -> tuple[Transfer, ...]:
    """Who pays whom: repeatedly the largest debtor pays the largest creditor.

    `balances` are (party, yen) with positive = is owed; they must sum to zero. At most
    parties − 1 transfers; ties are broken by the order the parties come in, so the same input
    always gives the same transfers.
    """
    parties = [(party, yen) for party, yen in balances if yen]
    if sum(yen for _, yen in parties):
        raise ValueError("balances must sum to zero")
    left = [yen for _, yen in parties]
    out: list[Transfer] = []
    while True:
        debtor = min(range(len(left)), key=lambda i: (left[i], i), default=None)
        creditor = min(range(len(left)), key=lambda i: (-left[i], i), default=None)
        if debtor is None or creditor is None or left[debtor] >= 0:
            return tuple(out)
        amount = min(-left[debtor], left[creditor])
        out.append(Transfer(parties[debtor][0], parties[creditor][0], amount))
        left[debtor] += amount
        left[creditor] -= amount


def settle_day(
    rules: Rules,
    games: Sequence[GameResult],
    *,
    attendees: Sequence[str] = (),
    shugi: Sequence[Shugi] = (),
) -> DayResult:
    """The day's ledger from its settled games, the attendees who waited, and session shūgi.

    Players appear in the order they first appear in the games, then the other attendees.
    """
    names: list[str] = []
    for g in games:
        names.extend(p.name for p in g.players if p.name not in names)
    names.extend(a for a in attendees if a not in names)
    _check_shugi(rules, shugi, set(names))

    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    played, score, chips, game_yen, fees, received = ([0] * n for _ in range(6))
    for g in games:
        for p in g.players:
            i = index[p.name]
            played[i] += 1
            score[i] += p.score
            chips[i] += p.chips
            game_yen[i] += p.yen or 0
            fees[i] -= rules.place_fees.get(p.rank, 0)
    for ev in shugi:
        amount = rules.session_shugi * ev.multiplier
        w = index[ev.winner]
        for i in range(n):
            if i != w:
                received[i] -= amount
                received[w] += amount

    players = []
    for i, name in enumerate(names):
        raw = game_yen[i] + fees[i] + received[i]
        total = round_half_away(raw, rules.yen_unit) * rules.yen_unit
        players.append(
            DayPlayer(
                name=name,
                games=played[i],
                score=score[i],
                chips=chips[i],
                game_yen=game_yen[i],
                fees=fees[i],
                shugi=received[i],
                rounding=total - raw,
                yen=total,
            )
        )
    house = -sum(p.yen for p in players)
    transfers = settle_transfers([*((p.name, p.yen) for p in players), (None, house)])
    return DayResult(players=tuple(players), house=house, transfers=transfers)


def house_takes(day: DayResult, names: Iterable[str]) -> DayResult:
    """The day with these players' money taken by the house: the fill-ins (黒子) of an event,
    staff whose games count for nobody. Their lines leave the day; the house receives (or pays)
    what they won or lost, so the day still balances and the others are settled as before."""
    gone = set(names) & {p.name for p in day.players}
    if not gone:
        return day
    players = tuple(p for p in day.players if p.name not in gone)
    house = -sum(p.yen for p in players)
    transfers = settle_transfers([*((p.name, p.yen) for p in players), (None, house)])
    return DayResult(players=players, house=house, transfers=transfers)


def _check_shugi(rules: Rules, shugi: Sequence[Shugi], present: set[str]) -> None:
    c = Collector()
    if shugi and not rules.session_shugi:
        c.add("shugi", errors.NO_SESSION_SHUGI, "the rules have no session shūgi")
    for i, ev in enumerate(shugi):
        if ev.winner not in present:
            c.add(f"shugi[{i}].winner", errors.NOT_AT_TABLE, f"{ev.winner!r} is not an attendee")
        m = ev.multiplier
        if not isinstance(m, int) or isinstance(m, bool) or not 1 <= m <= 100:
            c.add(f"shugi[{i}].multiplier", errors.RANGE, "must be an integer from 1 to 100")
    c.raise_if_any()


def deferred_debt(rules: Rules, yen: int) -> int:
    """A deferred payment with the club's surcharge added, rounded up to the yen unit.

    マメの会 rule 4: 負け分の1割を追加して後日払う (+10%).
    """
    if yen < 0:
        raise ValueError("a debt is a positive amount")
    unit = rules.yen_unit
    numerator = yen * (100 + rules.surcharge_percent)
    return -(-numerator // (100 * unit)) * unit


@dataclass(frozen=True, slots=True)
class PotPayout:
    venue: int  # paid to the venue first
    prize: int  # to the champion, up to the cap
    remainder: int  # kept by the club

    def __post_init__(self) -> None:
        if min(self.venue, self.prize, self.remainder) < 0:
            raise ValueError("a payout part cannot be negative")


def pot_payout(rules: Rules, pot: int, venue_cost: int) -> PotPayout:
    """花月杯: the pot pays the venue first; what remains, up to the cap, goes to the champion."""
    if pot < 0 or venue_cost < 0:
        raise InputError([errors.Problem("pot", errors.RANGE, "amounts cannot be negative")])
    venue = min(pot, venue_cost)
    left = pot - venue
    prize = left if rules.prize_cap is None else min(left, rules.prize_cap)
    return PotPayout(venue=venue, prize=prize, remainder=left - prize)
