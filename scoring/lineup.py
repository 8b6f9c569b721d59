"""Who should play a team's slot next: the draw's fairness inside a team.

Pure integers, as the rest of the engine. The Django side (league.teams.selectors) reads each
roster player's figures; this orders them. An individual day's draw (league.draw) keeps sit-outs
fair and avoids repeated pairs; at a team match the captain chooses, so the same two rules are a
suggestion:

1. fewest games so far (sit-out fairness: team match games of the season, counting the slots
   already named on the day);
2. among those, fewest meetings this season with the players already named at the table
   (repeat-avoidance, the draw's `season_pairs` for one table);
3. then the one who sat out longest (the earliest last round played; never played first);
4. then the roster's order.

`suggest` also says which rule decided, for the page to show why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

FEWEST_GAMES = "games"
FEWEST_MEETINGS = "met"
LONGEST_OUT = "rest"
ROSTER_ORDER = "roster"
ONLY_ONE = "only"


@dataclass(frozen=True)
class Candidate:
    key: int  # a member
    games: int  # games so far (and slots named on the day)
    met: int = 0  # meetings this season with the players already named at the table
    last: int = 0  # the last round played, 0 for none
    order: int = 0  # place on the roster


def _key(c: Candidate) -> tuple[int, int, int, int]:
    return (c.games, c.met, c.last, c.order)


def suggest(candidates: Sequence[Candidate]) -> tuple[int, str] | None:
    """The candidate to suggest and the rule that put them before the next one; None when there
    is nobody."""
    if not candidates:
        return None
    ranked = sorted(candidates, key=_key)
    best = ranked[0]
    if len(ranked) == 1:
        return best.key, ONLY_ONE
    runner = ranked[1]
    rules = (FEWEST_GAMES, FEWEST_MEETINGS, LONGEST_OUT, ROSTER_ORDER)
    for rule, a, b in zip(rules, _key(best), _key(runner), strict=True):
        if a != b:
            return best.key, rule
    return best.key, ROSTER_ORDER
