"""Properties of the hand-by-hand engine over random valid games under every preset (docs/hands.md):
the points moved by a hand match the sticks it took and put; relabelling the players relabels the
result; the end of the game depends on the state alone."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import (
    HAND_PRESETS,
    Abortive,
    Chombo,
    Draw,
    GameState,
    HandsGame,
    Pao,
    Ron,
    Tsumo,
    Win,
    game_end,
    play_game,
    play_hand,
)
from scoring.hand_rules import NOT_WITH_THREE

SETTINGS = settings(
    max_examples=75,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
NAMES = ("青木", "馬場", "千葉", "土井")
PRESET_NAMES = sorted(HAND_PRESETS)


# --- strategies: valid hands ---------------------------------------------------------------------


@st.composite
def wins(draw, rules, player: str, players, tsumo: bool) -> Win:
    if draw(st.integers(0, 9)) == 0:  # a yakuman now and then, with pao when the rules have it
        yakuman = draw(st.integers(1, rules.yakuman_max))
        pao = None
        if rules.pao and draw(st.booleans()):
            liable = draw(st.sampled_from([p for p in players if p != player]))
            pao = Pao(liable, draw(st.sampled_from(rules.pao)))
        return Win(player, yakuman=yakuman, pao=pao)
    han = draw(st.sampled_from((1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 6, 8, 11, 13)))
    fus = [30, 40, 50, 60, 70, 80, 90, 100, 110]
    if han >= 2 and tsumo:
        fus.append(20)
    if han >= (3 if tsumo else 2):
        fus.append(25)
    if han >= 5 and draw(st.booleans()):
        return Win(player, han=han)
    return Win(player, han=han, fu=draw(st.sampled_from(sorted(fus))))


def subsets(items):
    return st.lists(st.sampled_from(items), unique=True) if items else st.just([])


@st.composite
def events(draw, rules, players, state: GameState):
    n = rules.players
    allowed = [
        p
        for p, points in zip(players, state.points, strict=True)
        if rules.riichi_min is None or points >= rules.riichi_min
    ]
    riichi = tuple(draw(subsets(allowed)))
    kinds = ["ron", "ron", "tsumo", "tsumo", "draw", "draw", "chombo"]
    abortive = [
        k for k, v in rules.abortive.items() if v != "none" and not (n == 3 and k in NOT_WITH_THREE)
    ]
    if abortive:
        kinds.append("abortive")
    kind = draw(st.sampled_from(kinds))
    if kind == "ron":
        discarder = draw(st.sampled_from(players))
        others = [p for p in players if p != discarder]
        most = {"atamahane": n - 1, "double": 2, "triple": 3}[rules.multi_ron]
        claim = draw(st.lists(st.sampled_from(others), min_size=1, max_size=most, unique=True))
        winners = tuple(draw(wins(rules, p, players, tsumo=False)) for p in claim)
        return Ron(discarder, winners, riichi)
    if kind == "tsumo":
        return Tsumo(draw(wins(rules, draw(st.sampled_from(players)), players, True)), riichi)
    if kind == "draw":
        tenpai = tuple(draw(subsets(list(players))))
        nagashi = ()
        if rules.nagashi != "none" and draw(st.integers(0, 4)) == 0:
            nagashi = tuple(draw(st.lists(st.sampled_from(players), min_size=1, unique=True)))
        return Draw(tenpai, nagashi, riichi)
    if kind == "abortive":
        what = draw(st.sampled_from(abortive))
        discarder = None
        if what == "sanchahou" and rules.abortive[what] == "dealer-claimed":
            discarder = draw(st.sampled_from(players))
        return Abortive(what, discarder, riichi)
    return Chombo(draw(st.sampled_from(players)))


@st.composite
def games(draw, max_hands: int = 18):
    """A preset, its players and a valid run of hands (it stops when the game ends)."""
    rules = HAND_PRESETS[draw(st.sampled_from(PRESET_NAMES))].rules
    players = NAMES[: rules.players]
    state = GameState.start(rules)
    hands = []
    for _ in range(draw(st.integers(1, max_hands))):
        if state.ended is not None:
            break
        event = draw(events(rules, players, state))
        _record, state = play_hand(rules, players, state, event)
        hands.append(event)
    return rules, players, tuple(hands)


# --- properties -------------------------------------------------------------------------------


def _taken(event, rules, sticks_before: int) -> int:
    """Sticks a hand takes off the table: all of them on a win (nagashi counts under `win`)."""
    put = len(getattr(event, "riichi", ()))
    if isinstance(event, (Ron, Tsumo)):
        return sticks_before + put
    if isinstance(event, Draw) and event.nagashi and rules.nagashi == "win":
        return sticks_before + put
    return 0


@SETTINGS
@given(games())
def test_each_hands_deltas_sum_to_the_sticks_taken_minus_the_sticks_put(game):
    rules, players, hands = game
    result = play_game(rules, HandsGame(players, hands))
    sticks_after = [h.sticks for h in result.hands[1:]] + [result.state.sticks]
    for event, record, after in zip(hands, result.hands, sticks_after, strict=True):
        put = len(getattr(event, "riichi", ()))
        taken = _taken(event, rules, record.sticks)
        assert sum(record.deltas) == 1000 * (taken - put)
        assert after == record.sticks + put - taken
        assert all(isinstance(d, int) and d % 100 == 0 for d in record.deltas)
    assert sum(result.state.points) + result.deposits == rules.players * rules.start


def _relabel(event, name):
    """The same event with every player's name passed through `name`."""
    names = lambda seq: tuple(name(p) for p in seq)  # noqa: E731

    def win(w: Win) -> Win:
        pao = None if w.pao is None else replace(w.pao, player=name(w.pao.player))
        return replace(w, player=name(w.player), pao=pao)

    if isinstance(event, Ron):
        return Ron(name(event.discarder), tuple(win(w) for w in event.winners), names(event.riichi))
    if isinstance(event, Tsumo):
        return Tsumo(win(event.win), names(event.riichi))
    if isinstance(event, Draw):
        return Draw(names(event.tenpai), names(event.nagashi), names(event.riichi))
    if isinstance(event, Abortive):
        discarder = None if event.discarder is None else name(event.discarder)
        return Abortive(event.kind, discarder, names(event.riichi))
    return Chombo(name(event.player))


@SETTINGS
@given(games(), st.integers(1, 3))
def test_rotating_the_names_around_the_table_rotates_the_result(game, k):
    """Seat i is played by the name of seat i + k: every hand and the final points are the same
    seat by seat, and each name's numbers are those of the seat it now sits in."""
    rules, players, hands = game
    n = len(players)
    rotated = tuple(players[(i + k) % n] for i in range(n))
    name = dict(zip(players, rotated, strict=True)).__getitem__
    before = play_game(rules, HandsGame(players, hands))
    after = play_game(rules, HandsGame(rotated, tuple(_relabel(e, name) for e in hands)))
    assert after.hands == before.hands  # per seat
    assert after.state == before.state
    assert after.chombo == tuple(name(p) for p in before.chombo)
    for seat_before, seat_after in zip(before.seats, after.seats, strict=True):
        assert (name(seat_before.name), seat_before.points) == (seat_after.name, seat_after.points)


@SETTINGS
@given(games(), st.data())
def test_the_next_hand_and_the_end_depend_only_on_the_state(game, data):
    """A game rebuilt from its state alone (no history) plays the next hand the same way, and the
    end of the game is what `game_end` decides from that hand's points and counters."""
    rules, players, hands = game
    state = play_game(rules, HandsGame(players, hands)).state
    if state.ended is not None:
        return
    event = data.draw(events(rules, players, state))
    fresh = GameState(state.points, state.hand, state.honba, state.sticks)
    record, after = play_hand(rules, players, state, event)
    assert play_hand(rules, players, fresh, event) == (record, after)
    stays = isinstance(event, Chombo) or after.hand == state.hand
    assert after.ended == game_end(rules, record.scores, state.hand, stays, _stop(event, rules))


def _stop(event, rules):
    """The stop a hand allows a last dealer who deals again (hands.md, step 4)."""
    if isinstance(event, (Ron, Tsumo)):
        return "agari-yame"
    if isinstance(event, Draw):
        return "agari-yame" if event.nagashi and rules.nagashi == "win" else "tenpai-yame"
    return None


@settings(SETTINGS, max_examples=80)
@given(
    st.sampled_from(PRESET_NAMES),
    st.lists(st.integers(-200, 800).map(lambda p: p * 100), min_size=4, max_size=4),
    st.integers(0, 20),
    st.booleans(),
    st.sampled_from((None, "agari-yame", "tenpai-yame")),
)
def test_game_end_follows_the_order_of_the_checks(name, points, hand, stays, stop):
    """Only a bust ends a game before its last hand; a dealer who deals again ends it only by a
    stop; once the deal passes at the very last hand, the game is over."""
    rules = HAND_PRESETS[name].rules
    points = tuple(points[: rules.players])
    hand = min(hand, rules.very_last_hand)
    ended = game_end(rules, points, hand, stays, stop)
    busted = rules.bust != "none" and min(points) <= (-100 if rules.bust == "below-zero" else 0)
    assert (ended == "bust") == busted
    if busted:
        return
    if hand < rules.last_hand:
        assert ended is None
    if stays:
        assert ended in (None, stop)
    else:
        assert ended in (None, "last-hand" if hand == rules.last_hand else "extension")
        if hand == rules.very_last_hand:
            assert ended is not None
