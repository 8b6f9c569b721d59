"""雀帳's settlement engine: pure Python, integers only, no Django.

The public API, all of settlement.md:

    rules = rules_from_json("mame-no-kai")          # or PRESETS[...].rules, or Rules(...)
    result = settle_game(rules, Game(seats=(Seat("青木", 52000), ...), deposits=1000, rate="0.3"))
    day = settle_day(rules, [result, ...], attendees=["藤井"], shugi=[Shugi("馬場", 2)])

Scores are integers in tenths of 1,000 points; money is integer yen.

And all of hands.md, the hands of one game before it is settled:

    rules = hand_rules_from_json("tenhou")            # or HAND_PRESETS[...].rules, HandRules(...)
    result = play_game(rules, HandsGame(players=(...), hands=(Ron(...), Tsumo(...), Draw(...))))
    settle_game(club_rules, result.settlement_game())  # once result.ended is not None

or one hand at a time: `record, state = play_hand(rules, players, state, event)`.
"""

from .day import (
    DayPlayer,
    DayResult,
    PotPayout,
    Shugi,
    Transfer,
    deferred_debt,
    house_takes,
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
from .hand_presets import HAND_PRESETS, HandPreset
from .hand_rules import ChomboPayment, Extension, HandRules
from .hands import (
    Abortive,
    Chombo,
    Draw,
    Event,
    GameState,
    HandRecord,
    HandsGame,
    HandsResult,
    Pao,
    Ron,
    Tsumo,
    Win,
    game_end,
    play_game,
    play_hand,
    round_label,
)
from .hands_json import hand_rules_from_json, hands_json
from .parse import rules_from_json
from .presets import PRESETS, Preset
from .rules import BustBonus, ChipKind, ChomboRule, FloatingUma, RateTier, Rules, Yakitori
from .text import format_score, parse_integer

__all__ = [
    "HAND_PRESETS",
    "PRESETS",
    "Abortive",
    "Bust",
    "BustBonus",
    "ChipEvent",
    "ChipKind",
    "Chombo",
    "ChomboPayment",
    "ChomboRule",
    "DayPlayer",
    "DayResult",
    "Draw",
    "Event",
    "Extension",
    "FloatingUma",
    "Game",
    "GameResult",
    "GameState",
    "HandPreset",
    "HandRecord",
    "HandRules",
    "HandsGame",
    "HandsResult",
    "InputError",
    "Pao",
    "PlayerResult",
    "PotPayout",
    "Preset",
    "Problem",
    "RateTier",
    "Ron",
    "Rules",
    "ScoreParts",
    "Seat",
    "Shugi",
    "Transfer",
    "Tsumo",
    "Win",
    "Yakitori",
    "check_game",
    "deferred_debt",
    "format_score",
    "game_end",
    "hand_rules_from_json",
    "hands_json",
    "house_takes",
    "parse_integer",
    "play_game",
    "play_hand",
    "pot_payout",
    "round_label",
    "rules_from_json",
    "settle_day",
    "settle_game",
    "settle_transfers",
]
