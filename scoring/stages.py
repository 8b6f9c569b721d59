"""Events in stages: who goes through a cut, and what they carry into the next stage.

Pure integers, as the rest of the engine: totals in tenths of 1,000 points (as `Result.score`).
The Django side (an event's stages and their pages) is not built yet; this is its arithmetic.

- `ranked`: a stage's standings, best total first; equal totals share a position.
- `advance`: the top `count` by total. At the cut the rules' tie order decides: "seat" takes
  exactly `count`, tied entrants ordered by `order` (e.g. the place in the stage before, or
  the order of entry); "split" takes every entrant tied on the last place through.
- `share_count`: a cut by share: `percent` of the stage's entries, rounded up, at least 1.
- `carried`: what an entrant takes into the next stage: "all", "half" (an odd number of tenths
  rounded as the rules round), "none", or "bonus" (a fixed amount by place, `bonus[place-1]`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CARRY_MODES = ("all", "half", "none", "bonus")


@dataclass(frozen=True)
class Entrant:
    key: int  # a member or a team
    total: int  # tenths
    order: int = 0  # the tie order at a cut under "seat": lower goes first


def ranked(entrants: Sequence[Entrant]) -> list[tuple[int, Entrant]]:
    """(position, entrant), best total first; ties share a position and keep `order`."""
    rows = sorted(entrants, key=lambda e: (-e.total, e.order, e.key))
    out: list[tuple[int, Entrant]] = []
    for i, e in enumerate(rows, start=1):
        position = out[-1][0] if out and out[-1][1].total == e.total else i
        out.append((position, e))
    return out


def advance(entrants: Sequence[Entrant], count: int, ties: str = "seat") -> list[Entrant]:
    """Who goes through: the top `count` by total, the rules' tie order at the cut."""
    if count < 0:
        raise ValueError("count must not be negative")
    if ties not in ("seat", "split"):
        raise ValueError(f"unknown tie order {ties!r}")
    rows = [e for _p, e in ranked(entrants)]
    if count >= len(rows):
        return rows
    if count == 0:
        return []
    if ties == "seat":
        return rows[:count]
    last = rows[count - 1].total
    return [e for e in rows if e.total >= last]


def share_count(entries: int, percent: int) -> int:
    """How many go through a cut of the top `percent` (1-99) of `entries`: rounded up (25% of 21
    is 5.25, so 6), and at least 1."""
    if not 1 <= percent <= 99:
        raise ValueError("a share is a whole percent from 1 to 99")
    if entries < 0:
        raise ValueError("entries must not be negative")
    return max(1, -(-entries * percent // 100))


def _half(total: int, rounding: str, negative: str) -> int:
    """total / 2 in whole tenths; an odd total ends in .05, rounded as the rules round."""
    if total % 2 == 0:
        return total // 2
    down = abs(total) // 2  # the magnitude rounded toward zero
    # 切り捨て and 五捨六入 drop a 5, 原点基準 rounds toward zero; 切り上げ and 四捨五入 take
    # it up, and "none" (no rounding of its own) rounds the half away from zero.
    away = rounding not in ("kirisute", "toward-return", "gosha-rokunyu")
    if negative == "number-line" and total < 0:
        away = not away  # on the number line, "up" is toward zero for a negative total
    magnitude = down + 1 if away else down
    return magnitude if total > 0 else -magnitude


def carried(
    total: int,
    mode: str,
    *,
    place: int = 0,
    rounding: str = "none",
    negative: str = "magnitude",
    bonus: Sequence[int] = (),
) -> int:
    """What an entrant with `total` (placed `place`) carries into the next stage."""
    if mode == "all":
        return total
    if mode == "half":
        return _half(total, rounding, negative)
    if mode == "none":
        return 0
    if mode == "bonus":
        if place < 1:
            raise ValueError("a bonus by place needs the place")
        return bonus[place - 1] if place <= len(bonus) else 0
    raise ValueError(f"unknown carry mode {mode!r}")
