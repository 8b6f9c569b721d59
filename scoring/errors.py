"""Bad input, described so that every caller can name the field.

A `Problem` carries a stable `code` (one of the constants below) so that the web app can show its
own translated message, plus an English `message` for the command line and logs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# Codes, reused by tests and by the Django side's translations.
TYPE = "type"  # wrong JSON type, e.g. a string where an integer belongs
REQUIRED = "required"
UNKNOWN_FIELD = "unknown_field"
CHOICE = "choice"  # not one of the allowed values
RANGE = "range"
MULTIPLE_OF_100 = "multiple_of_100"
PLAYER_COUNT = "player_count"
DUPLICATE_NAME = "duplicate_name"
SUM = "sum"
NOT_AT_TABLE = "not_at_table"
UNKNOWN_PRESET = "unknown_preset"
UNKNOWN_RATE = "unknown_rate"
UNKNOWN_CHIP = "unknown_chip"
SELF_DEAL_IN = "self_deal_in"
UMA_LENGTH = "uma_length"
UMA_SUM = "uma_sum"
UMA_ORDER = "uma_order"
INDIVISIBLE = "indivisible"
NO_SESSION_SHUGI = "no_session_shugi"
NO_UMA = "no_uma"  # floating uma: no list for this many floating players, and no default
BUSTS = "busts"  # 飛び: a busted player not listed, or a listed one not busted
NOT_IN_RULES = "not_in_rules"  # game input (busts, yakitori) that the rules do not call for
JSON = "json"
# The hand-by-hand engine (hands.md)
IMPOSSIBLE_HAND = "impossible_hand"  # han and fu that no hand can have (20 fu ron, 25 fu 1 han …)
TOO_MANY_WINNERS = "too_many_winners"
RIICHI_POINTS = "riichi_points"  # riichi with fewer points than the rules' riichi_min
GAME_ENDED = "game_ended"  # a hand recorded after the game ended


@dataclass(frozen=True, slots=True)
class Problem:
    field: str
    code: str
    message: str
    params: dict[str, Any] = field(default_factory=dict, compare=False)

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message

    def within(self, prefix: str) -> Problem:
        """The same problem, its field placed under `prefix` (e.g. "games[2]")."""
        if not prefix:
            return self
        path = f"{prefix}.{self.field}" if self.field else prefix
        return Problem(path, self.code, self.message, self.params)


class InputError(ValueError):
    """Raised with every problem found; nothing is settled when it is raised."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems: tuple[Problem, ...] = tuple(problems)
        if not self.problems:
            raise ValueError("InputError needs at least one problem")
        super().__init__("; ".join(str(p) for p in self.problems))

    def within(self, prefix: str) -> InputError:
        return InputError(p.within(prefix) for p in self.problems)


class Collector:
    """Gathers problems while a whole input is checked, so that all of them are reported at once."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, field: str, code: str, message: str, **params: Any) -> None:
        self.problems.append(Problem(field, code, message, params))

    def extend(self, error: InputError, prefix: str = "") -> None:
        self.problems.extend(p.within(prefix) for p in error.problems)

    def raise_if_any(self) -> None:
        if self.problems:
            raise InputError(self.problems)

    def __bool__(self) -> bool:
        return bool(self.problems)
