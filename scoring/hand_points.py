"""The payment maths of one hand (docs/hands.md, "Arithmetic"): base points, ron and tsumo
payments, honba, pao. Integers only; every function here is pure and knows nothing of the game.

Payments are returned as `{payer seat: points}` (what each payer owes the winner).
"""

from __future__ import annotations

from .hand_rules import HandRules

MANGAN = 2_000
HANEMAN = 3_000
BAIMAN = 4_000
SANBAIMAN = 6_000
YAKUMAN = 8_000
KIRIAGE = 1_920  # 4 han 30 fu and 3 han 60 fu

Payments = dict[int, int]


def up100(points: int) -> int:
    """Rounded up to the next multiple of 100."""
    return -(-points // 100) * 100


def base_points(rules: HandRules, han: int | None, fu: int | None, yakuman: int | None) -> int:
    """The hand's base (基本点), limits applied; `yakuman` counts yakuman (k × 8,000)."""
    if yakuman is not None:
        return YAKUMAN * yakuman
    assert han is not None
    if han >= 13:
        return YAKUMAN if rules.kazoe == "yakuman" else SANBAIMAN
    if han >= 11:
        return SANBAIMAN
    if han >= 8:
        return BAIMAN
    if han >= 6:
        return HANEMAN
    if han == 5:
        return MANGAN
    assert fu is not None
    base = fu * 2 ** (han + 2)
    if base >= MANGAN or (rules.kiriage and base == KIRIAGE):
        return MANGAN
    return base


def ron_value(base: int, dealer_won: bool) -> int:
    """What the discarder pays for a ron, honba aside."""
    return up100((6 if dealer_won else 4) * base)


def tsumo_shares(rules: HandRules, base: int, winner: int, dealer: int, seats: int) -> Payments:
    """What each other seat pays for a tsumo, honba aside. With three players and `sanma_tsumo:
    split` each payer also covers half of the absent North's share (before rounding)."""
    dealer_won = winner == dealer
    absent = 2 * base if dealer_won else base  # what an absent non-dealer would have paid
    split = seats == 3 and rules.sanma_tsumo == "split"
    shares = {}
    for payer in range(seats):
        if payer == winner:
            continue
        own = 2 * base if dealer_won or payer == dealer else base
        shares[payer] = up100(own + absent // 2) if split else up100(own)
    return shares


def pao_tsumo(shares: Payments, honba_each: int, liable: int, pao: int, yakuman: int) -> Payments:
    """A tsumo with 責任払い: `liable` of the hand's `yakuman` yakuman are paid by `pao` alone,
    and so is every payer's honba."""
    out: Payments = dict.fromkeys(shares, 0)
    out[pao] = 0
    for payer, share in shares.items():
        part = share * liable // yakuman
        out[pao] += part + honba_each
        out[payer] += share - part
    return out


def pao_ron(
    rules: HandRules, value: int, honba: int, discarder: int, pao: int, liable: int, yakuman: int
) -> Payments:
    """A ron with 責任払い (the liable player is not the discarder): the liable part is shared
    half and half, the rest is the discarder's; the honba as `pao_ron_honba` says."""
    half = value * liable // yakuman // 2
    payments = {discarder: value - half, pao: half}
    if rules.pao_ron_honba == "discarder":
        payments[discarder] += honba
    elif rules.pao_ron_honba == "pao":
        payments[pao] += honba
    else:  # split: the discarder's even half rounded down to 100, the liable player the rest
        mine = honba // 2 // 100 * 100
        payments[discarder] += mine
        payments[pao] += honba - mine
    return payments


def draw_payments(rules: HandRules, tenpai: set[int], seats: int) -> list[int]:
    """ノーテン罰符: the pot split among the tenpai players, paid by the others."""
    deltas = [0] * seats
    if 0 < len(tenpai) < seats:
        gain = rules.draw_pot // len(tenpai)
        loss = rules.draw_pot // (seats - len(tenpai))
        for seat in range(seats):
            deltas[seat] = gain if seat in tenpai else -loss
    return deltas


def chombo_payments(rules: HandRules, offender: int, dealer: int, seats: int) -> list[int]:
    """What a chombo costs at the table (nothing with `record`)."""
    deltas = [0] * seats
    mode = rules.chombo.mode
    if mode == "record":
        return deltas
    for seat in range(seats):
        if seat == offender:
            continue
        if mode == "each":
            paid = rules.chombo.points
        else:  # reverse mangan: as a mangan tsumo by the others, paid by the offender alone
            paid = 2 * MANGAN if dealer in (seat, offender) else MANGAN
        deltas[seat] += paid
        deltas[offender] -= paid
    return deltas
