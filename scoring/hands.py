"""A hanchan hand by hand (docs/hands.md): each hand's point changes, the honba and riichi-stick
counters, who deals next and when the game ends. What comes out is what settlement takes in.

    rules = HAND_PRESETS["tenhou"].rules            # or hand_rules_from_json(...), HandRules(...)
    result = play_game(rules, HandsGame(players=("青木", "馬場", "千葉", "土井"), hands=(
        Ron("馬場", (Win("青木", han=3, fu=40),), riichi=("青木", "千葉")),
        Tsumo(Win("千葉", han=1, fu=30)),
        Draw(tenpai=("青木",)),
    )))
    settle_game(club_rules, result.settlement_game())

`play_hand` is the same engine one hand at a time (a table mode records hands as they happen): it
takes the `GameState` after the previous hand and gives the hand's record and the next state. The
state is everything the engine remembers between hands, so the same state always leads to the same
decisions, whatever the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import errors
from .errors import Collector, InputError, Problem
from .game import Game, Seat
from .hand_points import (
    MANGAN,
    Payments,
    base_points,
    chombo_payments,
    draw_payments,
    pao_ron,
    pao_tsumo,
    ron_value,
    tsumo_shares,
)
from .hand_rules import NOT_WITH_THREE, HandRules

STICK = 1_000  # a riichi stick
WIND_NAMES = "東南西北"
FU_VALUES = (20, 25, *range(30, 120, 10))
ENDINGS = ("bust", "last-hand", "agari-yame", "tenpai-yame", "extension")


# --- what the table records ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pao:
    """責任払い: `player` fed the yaku `yaku` and answers for the yakuman."""

    player: str
    yaku: str


@dataclass(frozen=True, slots=True)
class Win:
    """One winner's hand: `han` and `fu` (fu may be left out from 5 han), or `yakuman` (a count)."""

    player: str
    han: int | None = None
    fu: int | None = None
    yakuman: int | None = None
    pao: Pao | None = None


@dataclass(frozen=True, slots=True)
class Ron:
    discarder: str
    winners: tuple[Win, ...]  # one, or two or three on the same discard, in any order
    riichi: tuple[str, ...] = ()  # whose riichi stick went on the table in this hand


@dataclass(frozen=True, slots=True)
class Tsumo:
    win: Win
    riichi: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Draw:
    """流局: the wall ran out. `nagashi`: who made nagashi mangan."""

    tenpai: tuple[str, ...] = ()
    nagashi: tuple[str, ...] = ()
    riichi: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Abortive:
    """途中流局 of `kind`; `discarder` is the player whose tile three players claimed (sanchahou)."""

    kind: str
    discarder: str | None = None
    riichi: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Chombo:
    player: str


Event = Ron | Tsumo | Draw | Abortive | Chombo


# --- what the engine keeps and gives ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything the engine keeps between hands."""

    points: tuple[int, ...]  # in seat order from 起家
    hand: int = 0  # r: 0 = 東1
    honba: int = 0
    sticks: int = 0  # riichi sticks on the table
    ended: str | None = None  # one of ENDINGS once the game is over

    @classmethod
    def start(cls, rules: HandRules, start: int | None = None) -> GameState:
        return cls(points=(rules.start if start is None else start,) * rules.players)


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand as it was played (its label and the counters when it began) and what it changed."""

    round: str  # 東1 …
    honba: int
    sticks: int  # on the table when the hand began, before this hand's riichi
    dealer: int  # seat
    deltas: tuple[int, ...]  # per seat, riichi sticks included
    scores: tuple[int, ...]  # per seat, after the hand


@dataclass(frozen=True, slots=True)
class HandsGame:
    players: tuple[str, ...]  # seat order from 起家
    hands: tuple[Event, ...]
    start: int | None = None  # None: the rules' start


@dataclass(frozen=True, slots=True)
class HandsResult:
    players: tuple[str, ...]
    hands: tuple[HandRecord, ...]
    state: GameState  # after the last hand
    chombo: tuple[str, ...]  # one name per chombo, in order

    @property
    def ended(self) -> str | None:
        """How the game ended, or None while it is in progress (then it is not to be settled)."""
        return self.state.ended

    @property
    def deposits(self) -> int:
        return STICK * self.state.sticks

    @property
    def seats(self) -> tuple[Seat, ...]:
        return tuple(Seat(n, p) for n, p in zip(self.players, self.state.points, strict=True))

    def settlement_game(self) -> Game:
        """The game as settlement takes it in: final points, deposits, chombo."""
        return Game(seats=self.seats, deposits=self.deposits, chombo=self.chombo)


def round_label(rules: HandRules, hand: int) -> str:
    """東1 … 南4 (3 players: 東1 … 南3), then 西 and 北 in an extension."""
    return f"{WIND_NAMES[hand // rules.players]}{hand % rules.players + 1}"


# --- one game --------------------------------------------------------------------------------


def play_game(rules: HandRules, game: HandsGame) -> HandsResult:
    """Every hand of `game` in order. Raises InputError naming the field (`hands[3].winners[0].fu`)
    for the first hand that cannot be played, or for bad players or start."""
    c = Collector()
    _check_players(c, rules, game.players)
    start = game.start
    if start is not None and (not _is_int(start) or start <= 0 or start % 100):
        c.add("start", errors.MULTIPLE_OF_100, "must be a positive multiple of 100")
    c.raise_if_any()
    state = GameState.start(rules, start)
    records = []
    chombo = []
    for i, event in enumerate(game.hands):
        try:
            record, state = play_hand(rules, game.players, state, event)
        except InputError as e:
            raise e.within(f"hands[{i}]") from None
        records.append(record)
        if isinstance(event, Chombo):
            chombo.append(event.player)
    return HandsResult(tuple(game.players), tuple(records), state, tuple(chombo))


def _check_players(c: Collector, rules: HandRules, players: Sequence[str]) -> None:
    if not isinstance(players, (list, tuple)):
        c.add("players", errors.TYPE, "must be a list of names")
        return
    if len(players) != rules.players:
        c.add(
            "players",
            errors.PLAYER_COUNT,
            f"needs exactly {rules.players} names (got {len(players)})",
            expected=rules.players,
            got=len(players),
        )
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name:
            c.add(f"players[{i}]", errors.TYPE, "must be a non-empty string")
        elif name in players[:i]:
            c.add(f"players[{i}]", errors.DUPLICATE_NAME, f"{name!r} is listed twice")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --- one hand --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Outcome:
    deltas: list[int]
    sticks: int  # on the table after the hand
    dealer_stays: bool
    won: bool  # a win (ron, tsumo, nagashi under `win`): honba back to 0 when the deal passes
    stop: str | None = None  # the stop this hand allows the last dealer: agari-yame, tenpai-yame
    void: bool = False  # chombo: the hand is replayed, nothing moves


def play_hand(
    rules: HandRules, players: Sequence[str], state: GameState, event: Event
) -> tuple[HandRecord, GameState]:
    """One hand played from `state`. Raises InputError (fields relative to the hand)."""
    if state.ended is not None:
        raise InputError(
            [Problem("", errors.GAME_ENDED, f"the game has already ended ({state.ended})")]
        )
    table = _Table(rules, tuple(players), state)
    outcome = table.outcome(event)
    points = tuple(p + d for p, d in zip(state.points, outcome.deltas, strict=True))
    record = HandRecord(
        round=round_label(rules, state.hand),
        honba=state.honba,
        sticks=state.sticks,
        dealer=table.dealer,
        deltas=tuple(outcome.deltas),
        scores=points,
    )
    if outcome.void:
        hand, honba = state.hand, state.honba
    elif outcome.dealer_stays:
        hand, honba = state.hand, state.honba + 1
    else:
        hand, honba = state.hand + 1, 0 if outcome.won else state.honba + 1
    ended = game_end(rules, points, state.hand, outcome.dealer_stays, outcome.stop)
    return record, GameState(points, hand, honba, outcome.sticks, ended)


def game_end(
    rules: HandRules, points: Sequence[int], hand: int, dealer_stays: bool, stop: str | None
) -> str | None:
    """How the game ends after hand `hand` left `points`, or None if it goes on (hands.md, "When
    the game ends"). `stop`: the stop the hand allows if the dealer stays (agari-yame after a dealer
    win, tenpai-yame after a draw with the dealer tenpai). Depends on nothing else."""
    n = rules.players
    if rules.bust == "below-zero" and min(points) < 0:
        return "bust"
    if rules.bust == "at-zero" and min(points) <= 0:
        return "bust"
    last = rules.last_hand
    if hand < last:
        return None
    ext = rules.extension
    if ext is None or hand >= rules.very_last_hand:
        would_end = True
    else:
        reached = max(points) >= ext.target
        would_end = reached and (hand == last or ext.sudden_death or (hand - last) % n == 0)
    if dealer_stays:
        dealer = hand % n
        allowed = {"agari-yame": rules.agari_yame, "tenpai-yame": rules.tenpai_yame}.get(stop or "")
        first = max(range(n), key=lambda seat: (points[seat], -seat))  # ties: the earlier seat
        if (
            allowed
            and would_end
            and first == dealer
            and (ext is None or points[dealer] >= ext.target)
        ):
            return stop
        return None
    if would_end:
        return "last-hand" if hand == last else "extension"
    return None


class _Table:
    """Checks one event against the table and works out its outcome."""

    def __init__(self, rules: HandRules, players: tuple[str, ...], state: GameState):
        self.rules = rules
        self.players = players
        self.state = state
        self.n = rules.players
        self.dealer = state.hand % self.n
        self.c = Collector()

    # -- checks ---------------------------------------------------------------------------

    def seat(self, name: object, path: str) -> int | None:
        if isinstance(name, str) and name in self.players:
            return self.players.index(name)
        if isinstance(name, str) and name:
            self.c.add(path, errors.NOT_AT_TABLE, f"{name!r} is not at the table", name=name)
        else:
            self.c.add(path, errors.TYPE, "must be a player's name")
        return None

    def seats(self, names: object, path: str) -> list[int]:
        if not isinstance(names, (list, tuple)):
            self.c.add(path, errors.TYPE, "must be a list of names")
            return []
        found: list[int] = []
        for i, name in enumerate(names):
            seat = self.seat(name, f"{path}[{i}]")
            if seat is None:
                continue
            if seat in found:
                self.c.add(path, errors.DUPLICATE_NAME, f"lists {name!r} twice", name=name)
            else:
                found.append(seat)
        return found

    def riichi(self, names: object) -> list[int]:
        seats = self.seats(names, "riichi")
        low = self.rules.riichi_min
        for seat in seats:
            if low is not None and self.state.points[seat] < low:
                self.c.add(
                    "riichi",
                    errors.RIICHI_POINTS,
                    f"{self.players[seat]!r} had {self.state.points[seat]} points; riichi needs "
                    f"at least {low}",
                    name=self.players[seat],
                )
        return seats

    def win(self, win: Win, path: str, player_field: str, tsumo: bool) -> tuple[int | None, int]:
        """The winner's seat and the hand's base points (0 when the hand is bad)."""
        at = f"{path}." if path else ""
        seat = self.seat(win.player, f"{at}{player_field}")
        han, fu, yakuman = win.han, win.fu, win.yakuman
        before = len(self.c.problems)
        if yakuman is not None:
            if han is not None or fu is not None:
                self.c.add(f"{at}yakuman", errors.REQUIRED, "give han and fu, or yakuman, not both")
            elif not _is_int(yakuman) or not 1 <= yakuman <= self.rules.yakuman_max:
                top = self.rules.yakuman_max
                self.c.add(f"{at}yakuman", errors.RANGE, f"must be from 1 to {top}", high=top)
        else:
            self._han_fu(han, fu, at, tsumo)
        self._pao(win, seat, at)
        if len(self.c.problems) > before:
            return seat, 0
        return seat, base_points(self.rules, han, fu, yakuman)

    def _han_fu(self, han: object, fu: object, at: str, tsumo: bool) -> None:
        c = self.c
        if han is None:
            c.add(f"{at}han", errors.REQUIRED, "is required (or yakuman)")
            return
        if not _is_int(han) or han < 1:  # type: ignore[operator]
            c.add(f"{at}han", errors.RANGE, "must be an integer of at least 1", low=1)
            return
        if fu is None:
            if han < 5:  # type: ignore[operator]
                c.add(f"{at}fu", errors.REQUIRED, f"is required below 5 han (got {han} han)")
            return
        if not _is_int(fu) or fu not in FU_VALUES:
            shown = ", ".join(str(f) for f in FU_VALUES)
            c.add(f"{at}fu", errors.CHOICE, f"must be one of {shown}", allowed=list(FU_VALUES))
            return
        impossible = None
        if fu == 20 and not tsumo:
            impossible = "20 fu on a ron cannot happen (a closed ron has at least 30 fu)"
        elif fu == 20 and han < 2:  # type: ignore[operator]
            impossible = "20 fu needs at least 2 han (pinfu tsumo)"
        elif fu == 25 and han < 2:  # type: ignore[operator]
            impossible = "25 fu needs at least 2 han"
        elif fu == 25 and tsumo and han < 3:  # type: ignore[operator]
            impossible = "25 fu on a tsumo needs at least 3 han (chiitoitsu + menzen tsumo)"
        if impossible:
            c.add(f"{at}fu", errors.IMPOSSIBLE_HAND, impossible, han=han, fu=fu)

    def _pao(self, win: Win, winner: int | None, at: str) -> None:
        pao = win.pao
        if pao is None:
            return
        path = f"{at}pao"
        if win.yakuman is None:
            self.c.add(path, errors.NOT_IN_RULES, "pao is only for a hand given as yakuman")
        if not self.rules.pao:
            self.c.add(f"{path}.yaku", errors.NOT_IN_RULES, "these rules have no pao")
        elif pao.yaku not in self.rules.pao:
            shown = ", ".join(self.rules.pao)
            self.c.add(f"{path}.yaku", errors.CHOICE, f"must be one of {shown} (the rules' pao)")
        liable = self.seat(pao.player, f"{path}.player")
        if liable is not None and liable == winner:
            self.c.add(f"{path}.player", errors.SELF_DEAL_IN, "the winner cannot be liable")

    def done(self) -> None:
        self.c.raise_if_any()

    # -- outcomes -------------------------------------------------------------------------

    def outcome(self, event: Event) -> _Outcome:
        if isinstance(event, Ron):
            return self.ron(event)
        if isinstance(event, Tsumo):
            return self.tsumo(event)
        if isinstance(event, Draw):
            return self.draw(event)
        if isinstance(event, Abortive):
            return self.abortive(event)
        if isinstance(event, Chombo):
            return self.chombo(event)
        raise InputError([Problem("result", errors.CHOICE, "must be a hand's result")])

    def _put_riichi(self, names: object) -> tuple[list[int], int]:
        """Deltas with this hand's riichi sticks paid, and the sticks on the table now."""
        deltas = [0] * self.n
        riichi = self.riichi(names)
        for seat in riichi:
            deltas[seat] -= STICK
        return deltas, self.state.sticks + len(riichi)

    def _pay(self, deltas: list[int], winner: int, payments: Payments) -> None:
        for payer, points in payments.items():
            deltas[payer] -= points
            deltas[winner] += points

    def _liable(self, win: Win) -> tuple[int, int] | None:
        """The liable seat and how many of the hand's yakuman it answers for."""
        if win.pao is None:
            return None
        share = win.yakuman if self.rules.pao_scope == "hand" else 1
        return self.players.index(win.pao.player), share  # type: ignore[return-value]

    def ron(self, event: Ron) -> _Outcome:
        rules, n, h = self.rules, self.n, self.state.honba
        discarder = self.seat(event.discarder, "from")
        deltas, sticks = self._put_riichi(event.riichi)
        winners = event.winners
        if not isinstance(winners, (list, tuple)) or not winners:
            self.c.add("winners", errors.REQUIRED, "needs at least one winner")
            winners = ()
        claims = []
        for i, win in enumerate(winners):
            seat, base = self.win(win, f"winners[{i}]", "player", tsumo=False)
            if seat is None:
                continue
            if seat == discarder:
                self.c.add(
                    f"winners[{i}].player",
                    errors.SELF_DEAL_IN,
                    f"{win.player!r} cannot win on their own discard",
                )
            elif any(seat == s for s, _w, _b in claims):
                self.c.add("winners", errors.DUPLICATE_NAME, f"lists {win.player!r} twice")
            else:
                claims.append((seat, win, base))
        most = {"atamahane": n - 1, "double": 2, "triple": 3}[rules.multi_ron]
        if len(winners) > most:
            self.c.add(
                "winners",
                errors.TOO_MANY_WINNERS,
                f"at most {most} winners under multi_ron: {rules.multi_ron}"
                + (" (three claims: record an abortive sanchahou)" if most == 2 else ""),
                most=most,
            )
        self.done()
        assert discarder is not None
        claims.sort(key=lambda claim: (claim[0] - discarder) % n)  # 上家取り / 頭ハネ order
        paid = claims[:1] if rules.multi_ron == "atamahane" else claims
        for i, (seat, win, base) in enumerate(paid):
            value = ron_value(base, seat == self.dealer)
            honba = rules.honba_ron * h if i == 0 or rules.multi_ron_honba == "each" else 0
            liable = self._liable(win)
            if liable is not None and liable[0] != discarder:
                payments = pao_ron(
                    rules, value, honba, discarder, liable[0], liable[1], win.yakuman
                )
            else:
                payments = {discarder: value + honba}
            self._pay(deltas, seat, payments)
        deltas[paid[0][0]] += STICK * sticks
        winning = [seat for seat, _w, _b in paid]
        if rules.multi_ron_renchan == "any":
            stays = self.dealer in winning
        else:
            stays = winning[0] == self.dealer
        return _Outcome(deltas, 0, stays, won=True, stop="agari-yame")

    def tsumo(self, event: Tsumo) -> _Outcome:
        rules = self.rules
        deltas, sticks = self._put_riichi(event.riichi)
        winner, base = self.win(event.win, "", "winner", tsumo=True)
        self.done()
        assert winner is not None
        shares = tsumo_shares(rules, base, winner, self.dealer, self.n)
        honba = rules.honba_tsumo * self.state.honba
        liable = self._liable(event.win)
        if liable is not None:
            payments = pao_tsumo(shares, honba, liable[1], liable[0], event.win.yakuman)  # type: ignore[arg-type]
        else:
            payments = {payer: share + honba for payer, share in shares.items()}
        self._pay(deltas, winner, payments)
        deltas[winner] += STICK * sticks
        return _Outcome(deltas, 0, winner == self.dealer, won=True, stop="agari-yame")

    def draw(self, event: Draw) -> _Outcome:
        rules, n = self.rules, self.n
        deltas, sticks = self._put_riichi(event.riichi)
        tenpai = set(self.seats(event.tenpai, "tenpai"))
        nagashi = self.seats(event.nagashi, "nagashi")
        if nagashi and rules.nagashi == "none":
            self.c.add("nagashi", errors.NOT_IN_RULES, "these rules have no nagashi mangan")
        self.done()
        if nagashi and rules.nagashi == "win":  # a tsumo win for each nagashi player
            honba = rules.honba_tsumo * self.state.honba
            for seat in nagashi:
                shares = tsumo_shares(rules, MANGAN, seat, self.dealer, n)
                self._pay(deltas, seat, {p: share + honba for p, share in shares.items()})
            first = min(nagashi, key=lambda seat: (seat - self.dealer) % n)
            deltas[first] += STICK * sticks
            return _Outcome(deltas, 0, self.dealer in nagashi, won=True, stop="agari-yame")
        if nagashi:  # `draw`: the mangan payments replace the tenpai payments
            for seat in nagashi:
                self._pay(deltas, seat, tsumo_shares(rules, MANGAN, seat, self.dealer, n))
        else:
            for seat, change in enumerate(draw_payments(rules, tenpai, n)):
                deltas[seat] += change
        keeps = self.dealer in tenpai and (
            rules.draw_renchan == "tenpai"
            or (rules.draw_renchan == "tenpai-from-south" and self.state.hand >= n)
        )
        return _Outcome(deltas, sticks, keeps, won=False, stop="tenpai-yame")

    def abortive(self, event: Abortive) -> _Outcome:
        rules = self.rules
        deltas, sticks = self._put_riichi(event.riichi)
        kind = event.kind
        rule = rules.abortive.get(kind) if isinstance(kind, str) else None
        stays = False
        if rule is None:
            shown = ", ".join(rules.abortive)
            self.c.add("kind", errors.CHOICE, f"must be one of {shown}")
        elif rule == "none":
            self.c.add(
                "kind", errors.NOT_IN_RULES, f"{kind} is not an abortive draw in these rules"
            )
        elif self.n == 3 and kind in NOT_WITH_THREE:
            self.c.add("kind", errors.NOT_IN_RULES, f"{kind} cannot happen with 3 players")
        if event.discarder is not None and kind != "sanchahou":
            self.c.add("from", errors.NOT_IN_RULES, "only a sanchahou (三家和) names a discarder")
        elif event.discarder is not None:
            discarder = self.seat(event.discarder, "from")
            stays = rule == "renchan" or (rule == "dealer-claimed" and discarder != self.dealer)
        elif rule == "dealer-claimed":
            self.c.add(
                "from", errors.REQUIRED, "is required: whether the dealer deals again depends on it"
            )
        else:
            stays = rule == "renchan"
        self.done()
        return _Outcome(deltas, sticks, stays, won=False)

    def chombo(self, event: Chombo) -> _Outcome:
        offender = self.seat(event.player, "player")
        self.done()
        assert offender is not None
        deltas = chombo_payments(self.rules, offender, self.dealer, self.n)
        return _Outcome(deltas, self.state.sticks, True, won=False, void=True)
