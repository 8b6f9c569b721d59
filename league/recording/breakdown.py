"""A settled game, step by step per player, so that an organiser can check every number by hand.

The engine gives each player's score parts (scoring.ScoreParts); this turns them into the rows of
a small table: one column per seat, one row per step (final points, points as settled when 箱下
counts as 0, the rounded points, the return, uma, oka, deposits, what the top absorbs, chombo,
飛び賞, 焼き鳥, then the score, chips and yen). A step that is zero for everybody is left out,
except the ones every game has.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _

import scoring
from league.core import format as jancho

# (part, label, how it is written, shown even when all zero)
STEPS: tuple[tuple[str, Any, Callable[[int], str], bool], ...] = (
    ("settled_points", _("Points as settled (below zero counts as 0)"), jancho.points, False),
    ("rounded", _("Rounded (in 1,000 points)"), jancho.score, True),
    ("returned", _("Return"), jancho.score, True),
    ("uma", _("Uma"), jancho.score, True),
    ("oka", _("Oka"), jancho.score, False),
    ("deposits", _("Deposits"), jancho.score, False),
    ("adjustment", _("Rounding and below-zero points the top absorbs"), jancho.score, False),
    ("chombo", _("Chombo"), jancho.score, False),
    ("bust_bonus", _("Bust bonus (飛び賞)"), jancho.score, False),
    ("yakitori", _("Yakitori (焼き鳥)"), jancho.score, False),
)


@dataclass(frozen=True)
class Row:
    label: str
    cells: list[str]
    total: bool = False  # the score row, drawn as the sum of the rows above


@dataclass(frozen=True)
class Breakdown:
    headers: list[str]  # one per seat: "東 青木"
    rows: list[Row]


def breakdown(
    result: scoring.GameResult, names: Sequence[str], winds: Sequence[Any]
) -> Breakdown | None:
    """The table for `result` (players in seat order; `names` and `winds` by seat). None when the
    result carries no parts (a stored result read back without settling)."""
    players = result.players
    if any(p.parts is None for p in players):
        return None
    rows = [Row(str(_("Final points")), [jancho.points(p.points) for p in players])]
    for part, label, show, always in STEPS:
        values = [getattr(p.parts, part) for p in players]
        if part == "settled_points":
            if values == [p.points for p in players]:
                continue
        elif not always and not any(values):
            continue
        rows.append(Row(str(label), [show(v) for v in values]))
    rows.append(Row(str(_("Score")), [jancho.score(p.score) for p in players], total=True))
    if any(p.chips for p in players):
        rows.append(Row(str(_("Chips")), [jancho.count(p.chips) for p in players]))
    if result.rate is not None:
        rows.append(Row(str(_("Yen")), [jancho.yen(p.yen) for p in players]))
    headers = [f"{wind} {name}" for wind, name in zip(winds, names, strict=True)]
    return Breakdown(headers, rows)
