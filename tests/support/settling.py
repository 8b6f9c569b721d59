"""A game settled by the engine (scoring.settle_game) in the engine's tests: its scores, or the
problems it is refused with."""

from __future__ import annotations

import pytest

from scoring import Game, InputError, Rules, settle_game


def scores(rules: Rules, g: Game) -> list[int]:
    return [p.score for p in settle_game(rules, g).players]


def refused(rules: Rules, g: Game) -> set[tuple[str, str]]:
    """The (field, code) of every problem the game is refused with (it must be refused)."""
    with pytest.raises(InputError) as caught:
        settle_game(rules, g)
    return {(p.field, p.code) for p in caught.value.problems}
