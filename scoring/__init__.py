"""雀帳's settlement engine: pure Python, integers only, no Django.

The public API, all of settlement.md:

    rules = rules_from_json("mame-no-kai")          # or PRESETS[...].rules, or Rules(...)
    result = settle_game(rules, Game(seats=(Seat("青木", 52000), ...), deposits=1000, rate="0.3"))
    day = settle_day(rules, [result, ...], attendees=["藤井"], shugi=[Shugi("馬場", 2)])

Scores are integers in tenths of 1,000 points; money is integer yen.
"""

from .day import (
    DayPlayer,
    DayResult,
    PotPayout,
    Shugi,
    Transfer,
    deferred_debt,
    pot_payout,
    settle_day,
    settle_transfers,
)
from .errors import InputError, Problem
from .game import (
    Bust,
    ChipEvent,
    Game,
    GameResult,
    PlayerResult,
    ScoreParts,
    Seat,
    check_game,
    settle_game,
)
from .parse import rules_from_json
from .presets import PRESETS, Preset
from .rules import BustBonus, ChipKind, ChomboRule, FloatingUma, RateTier, Rules, Yakitori
from .text import format_score, parse_integer

__all__ = [
    "PRESETS",
    "Bust",
    "BustBonus",
    "ChipEvent",
    "ChipKind",
    "ChomboRule",
    "DayPlayer",
    "DayResult",
    "FloatingUma",
    "Game",
    "GameResult",
    "InputError",
    "PlayerResult",
    "PotPayout",
    "Preset",
    "Problem",
    "RateTier",
    "Rules",
    "ScoreParts",
    "Seat",
    "Shugi",
    "Transfer",
    "Yakitori",
    "check_game",
    "deferred_debt",
    "format_score",
    "parse_integer",
    "pot_payout",
    "rules_from_json",
    "settle_day",
    "settle_game",
    "settle_transfers",
]
