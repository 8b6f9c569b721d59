"""点数係: a hanchan recorded hand by hand on one phone at the table.

The phone sends each hand (docs/hands.md's hand object, players named by member primary key) with
an idempotency key and its index in the game; the server plays it with the engine
(scoring.play_hand) and keeps it. A hand sent twice is kept once; a second phone sending the same
hand index with the same hand is merged into it, with another hand refused. The points the phone
shows are never read: everything is worked out again here from the hands.

When the engine ends the game, `table_game_save` settles the final points, deposits, chombo and
the chips the hands imply through the ordinary recording service (league.recording), links the
game and keeps each player's hand statistics (HandStat) at write time.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db import IntegrityError
from django.db.models import Q
from django.utils.translation import gettext as _

import scoring
from league import limits
from league.core import changes, names
from league.core.actions import action
from league.core.errors import NON_FIELD, ServiceError, problem_message
from league.core.locks import for_update, lock_club
from league.models import Day, Game, Hand, HandStat, Member, OnlineLog, RulesVersion, TableGame
from league.models.audit import User, audit
from league.models.clubs import Club
from league.models.hands import recorder_annotations, recorder_name, renamed_event
from league.models.rules import rules_in_force
from league.recording import services as recording
from league.recording.services import ChipInput, GameInput, SeatInput
from scoring import calculator
from scoring import errors as codes
from scoring.game import busted
from scoring.hand_points import base_points, ron_value, tsumo_shares
from scoring.hands import STICK
from scoring.hands_json import hand_rules_from_json, hands_game_from_json

MARK_FIELDS = ("ippatsu", "ura", "aka", "called", "yaku")
MAX_DORA = 20  # far beyond any hand: 裏ドラ and 赤 counted per winning hand
# Chip kinds of the club's rules (settlement.md's `chips`) that the hands imply, by the mark.
CHIP_MARKS = {
    "ippatsu": ("ippatsu",),
    "yakuman": ("yakuman",),
    "ura": ("uradora", "ura"),
    "aka": ("akadora", "aka"),
}


# --- the rules -------------------------------------------------------------------------------


def hand_rules_for(version: RulesVersion) -> scoring.HandRules:
    """The hand rules a club plays by: the hand preset it picked, else the one of the same name
    as its settlement preset (docs/hands.md: the club presets share their names), else Tenhou's
    (3 players: `tenhou-3p`), with the club's starting points and every hand option of the
    version (切り上げ満貫, 数え役満, 途中流局, 西入 to the return points …)."""
    rules = version.rules
    options = version.hand_options
    preset = options.hand_preset(version.preset, rules.players)
    return options.applied(replace(preset.rules, start=rules.start), target=rules.return_points)


def club_options_for(version: RulesVersion) -> calculator.ClubOptions:
    """The point calculator's club options (喰いタン, 赤ドラ, 後付け, 人和) of a rules version."""
    options = version.hand_options
    return calculator.ClubOptions(
        kuitan=options.kuitan, aka=options.aka, atozuke=options.atozuke, renhou=options.renhou
    )


# --- reading a game back ---------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """The live hands of a table game as the engine plays them."""

    rules: scoring.HandRules
    players: tuple[str, ...]  # member pks as strings, seat order
    hands: list[Hand]
    records: list[scoring.HandRecord]
    state: scoring.GameState
    chombo: tuple[str, ...]


def live_hands(tg: TableGame) -> list[Hand]:
    return list(
        Hand.objects.filter(table_game=tg, live=True)
        .annotate(**recorder_annotations())
        .order_by("index")
    )


def _players(tg: TableGame) -> tuple[str, ...]:
    return tuple(str(pk) for pk in tg.seats)


def play(tg: TableGame, hands: Sequence[Hand] | None = None) -> Played:
    """Play the stored hands again with the engine (they were checked when stored)."""
    hands = list(live_hands(tg) if hands is None else hands)
    rules = hand_rules_from_json(tg.hand_rules)
    players = _players(tg)
    game = hands_game_from_json({"players": list(players), "hands": [h.event for h in hands]})
    result = scoring.play_game(rules, game)
    return Played(rules, players, hands, list(result.hands), result.state, result.chombo)


def state_json(tg: TableGame, played: Played | None = None) -> dict[str, Any]:
    """What the phone shows: the table now and every live hand."""
    played = played or play(tg)
    st = played.state
    n = played.rules.players
    return {
        "key": str(tg.key),
        "saved_game": tg.game_id,
        "next_index": len(played.hands),
        "points": list(st.points),
        "round": scoring.round_label(played.rules, min(st.hand, played.rules.very_last_hand)),
        "honba": st.honba,
        "sticks": st.sticks,
        "dealer": st.hand % n,
        "ended": st.ended,
        "hands": [
            {
                "index": h.index,
                "key": str(h.key),
                "event": h.event,
                "marks": h.marks,
                "round": r.round,
                "honba": r.honba,
                "sticks": r.sticks,
                "dealer": r.dealer,
                "deltas": list(r.deltas),
                "scores": list(r.scores),
                "recorded_by": recorder_name(h),
            }
            for h, r in zip(played.hands, played.records, strict=True)
        ],
    }


# --- starting --------------------------------------------------------------------------------


def table_start(
    *,
    club: Club,
    user: User,
    key: uuid.UUID,
    date: datetime.date,
    members: Sequence[Member],
    table: str = "",
    rate: str = "",
    draw_table: int | None = None,
    confirm_rate: bool = False,
) -> TableGame:
    """Start a table game (the same `key` twice: the same game) with the rules in force. A rate
    none of the day's other games were played at is asked here, where it is chosen
    (recording.check_rate: RateDiffers unless `confirm_rate`), not after the hanchan."""
    existing = TableGame.objects.filter(club=club, key=key).first()
    if existing is not None:
        return existing
    table = names.clean_label(table)  # as a game's (recording.GameInput): 「Ａ」 is 「A」
    errors = limits.column_problems(TableGame, table=table, rate=rate, draw_table=draw_table)
    if (problem := limits.date_problem(date)) is not None:
        errors["date"] = [problem]
    if errors:
        raise ServiceError(errors)
    version = rules_in_force(club, date)
    rules = version.rules
    if len(members) != rules.players:
        raise ServiceError.one(NON_FIELD, _("Choose %(count)s players.") % {"count": rules.players})
    seen: set[int] = set()
    for i, member in enumerate(members):
        if member.club_id != club.pk or member.merged_into_id is not None:
            raise ServiceError.one(f"players[{i}].name", _("Choose a member of this club."))
        if member.pk in seen:
            raise ServiceError.one(f"players[{i}].name", _("The same player is in two seats."))
        seen.add(member.pk)
    if rules.rates and rate not in rules.rates:
        raise ServiceError.one("rate", _("Choose one of the club's rates."))
    if not rules.rates:
        rate = ""
    # On the dates of a seated fixed-table final, its players, said at the start rather than at
    # the save (issue 39): the save checks the same (recording.check_final_table).
    recording.check_final_table(
        club=club,
        data=GameInput(date=date, seats=[SeatInput(m, 0) for m in members]),
    )
    recording.check_rate(club=club, date=date, rate=rate, confirmed=confirm_rate)
    hand_rules = hand_rules_for(version)
    try:
        with action():
            lock_club(club.pk)
            tg = TableGame.objects.create(
                club=club,
                key=key,
                date=date,
                table=table,
                rate=rate,
                rules_version=version,
                hand_rules=hand_rules.to_json(),
                seats=[m.pk for m in members],
                draw_table=draw_table,
                created_by=user if getattr(user, "pk", None) else None,
            )
            audit(
                club=club,
                actor=user,
                action="table.start",
                target=f"table_game:{tg.pk}",
                after={"key": str(key), "date": date.isoformat(), "seats": tg.seats},
            )
            return tg
    except IntegrityError:
        existing = TableGame.objects.filter(club=club, key=key).first()
        if existing is None:
            raise
        return existing


# --- who scores ------------------------------------------------------------------------------


def may_score(
    *, club: Club, user: User, date: datetime.date, seats: Sequence[int], organiser: bool
) -> bool:
    """Whether `user` may enter the hands of a table of `club` on `date` seating `seats` (member
    ids): an organiser; a member whose login is linked to one of the seated players; a member
    the organiser named as a scorer of that evening (Day.scorers). Everyone else in the club
    may watch. One query at most."""
    if organiser or getattr(user, "is_superuser", False):
        return True
    if not getattr(user, "pk", None):
        return False
    seated = Q(pk__in=list(seats))
    named = Q(days_scoring__club=club, days_scoring__date=date)
    return Member.objects.filter(seated | named, club=club, user=user).exists()


def may_score_table(*, tg: TableGame, user: User, organiser: bool) -> bool:
    return may_score(club=tg.club, user=user, date=tg.date, seats=tg.seats, organiser=organiser)


def scorer_choices(club: Club) -> list[Member]:
    """The members who can be named scorers: those with a login."""
    members = Member.objects.filter(club=club, merged_into=None, user__isnull=False, is_active=True)
    return sorted(members, key=lambda m: m.kana or m.name)


def scorers_of(*, club: Club, date: datetime.date) -> list[Member]:
    return list(Member.objects.filter(days_scoring__club=club, days_scoring__date=date))


def scorers_set(
    *, club: Club, user: User, date: datetime.date, members: Sequence[Member]
) -> list[Member]:
    """Name the evening's scorers (replacing those named before), audited."""
    if (problem := limits.date_problem(date)) is not None:
        raise ServiceError.one("date", problem)
    for member in members:
        if member.club_id != club.pk or member.user_id is None:
            raise ServiceError.one("scorers", _("Choose members who can log in."))
    with action():
        lock_club(club.pk)
        day, _created = Day.objects.get_or_create(club=club, date=date)
        before = sorted(day.scorers.values_list("pk", flat=True))
        after = sorted(m.pk for m in members)
        if before != after:
            day.scorers.set(members)
            audit(
                club=club,
                actor=user,
                action="day.scorers",
                target=f"day:{day.pk}",
                before={"scorers": before},
                after={"scorers": after},
            )
    return list(members)


# --- one hand --------------------------------------------------------------------------------


class HandConflict(ServiceError):
    """Another phone recorded a different hand at this index: refused, nothing stored."""


def _clean_marks(
    marks: object, event: dict[str, Any], players: Sequence[str], rules: scoring.HandRules
) -> dict[str, Any]:
    """Per winner: ippatsu, called (booleans), ura, aka (counts), yaku (names). Only a winner the
    rules pay has marks (頭ハネ: the first claimant from the discarder), and only a winner who
    declared riichi in the hand has 一発 or 裏; other marks are refused, naming the mark."""
    if marks in (None, {}):
        return {}
    if not isinstance(marks, dict):
        raise ServiceError.one("marks", _("The marks must be an object by winner."))
    winners = set(_winners(event))
    paid = paid_winners(event, players, rules)
    riichi = event.get("riichi") or []
    riichi = set(map(str, riichi)) if isinstance(riichi, list) else set()
    out: dict[str, Any] = {}
    for who, mark in marks.items():
        if who not in winners or not isinstance(mark, dict):
            raise ServiceError.one(f"marks.{who}", _("Marks are only for a winner of the hand."))
        if mark and who not in paid:
            raise ServiceError.one(
                f"marks.{who}",
                _(
                    "Under head bump only the first winner from the discarder is paid: "
                    "marks are only for that winner."
                ),
            )
        for name in ("ippatsu", "ura"):
            if mark.get(name) and who not in riichi:
                raise ServiceError.one(
                    f"marks.{who}.{name}",
                    _("%(mark)s needs the winner's riichi in this hand.")
                    % {"mark": _("Ippatsu") if name == "ippatsu" else _("Ura")},
                )
        clean: dict[str, Any] = {}
        for name, value in mark.items():
            if name not in MARK_FIELDS:
                raise ServiceError.one(f"marks.{who}.{name}", _("Unknown field."))
            if name in ("ippatsu", "called"):
                if not isinstance(value, bool):
                    raise ServiceError.one(f"marks.{who}.{name}", _("Must be true or false."))
                if value:
                    clean[name] = True
            elif name == "yaku":
                if not isinstance(value, list) or not all(
                    isinstance(y, str) and 0 < len(y) <= 30 for y in value
                ):
                    raise ServiceError.one(f"marks.{who}.yaku", _("Must be a list of names."))
                if any(names.control_characters(y) for y in value):  # a newline, U+202E
                    raise ServiceError.one(
                        f"marks.{who}.yaku",
                        limits.TEXT_CONTROL
                        % {
                            "chars": ", ".join(
                                c for y in value for c in names.control_characters(y)
                            )
                        },
                    )
                if value:
                    clean["yaku"] = list(value)[:30]
            else:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ServiceError.one(f"marks.{who}.{name}", _("Must be a whole number."))
                if not 0 <= value <= MAX_DORA:
                    raise ServiceError.one(
                        f"marks.{who}.{name}",
                        _("Must be from 0 to %(high)s.") % {"high": MAX_DORA},
                    )
                if value:
                    clean[name] = value
        if clean:
            out[who] = clean
    return out


def paid_winners(
    event: dict[str, Any], players: Sequence[str], rules: scoring.HandRules
) -> list[str]:
    """The winners the rules pay, as the engine settles the hand: the tsumo winner, every ron
    winner, or under head bump (頭ハネ) only the first claimant in turn from the discarder."""
    winners = _winners(event)
    if event.get("result") != "ron" or rules.multi_ron != "atamahane" or len(winners) < 2:
        return winners
    n = len(players)
    order = {p: i for i, p in enumerate(players)}
    discarder = order.get(str(event.get("from")))
    if discarder is None or not all(w in order for w in winners):
        return winners  # the engine refuses the hand
    return [min(winners, key=lambda p: (order[p] - discarder) % n)]


def _winners(event: dict[str, Any]) -> list[str]:
    if event.get("result") == "ron" and isinstance(event.get("winners"), list):
        return [str(w.get("player")) for w in event["winners"] if isinstance(w, dict)]
    if event.get("result") == "tsumo":
        return [str(event.get("winner"))]
    return []


def hand_problem_message(problem: scoring.Problem) -> str:
    """The engine's problem with a hand in the user's language (table mode and online logs)."""
    return _hand_message(problem)


def _hand_message(problem: scoring.Problem) -> str:
    p = problem.params
    messages = {
        codes.IMPOSSIBLE_HAND: lambda: (
            _("No hand has %(han)s han %(fu)s fu here.") % {"han": p.get("han"), "fu": p.get("fu")}
        ),
        codes.TOO_MANY_WINNERS: lambda: (
            _("At most %(most)s players can win on one discard.") % {"most": p.get("most")}
        ),
        codes.RIICHI_POINTS: lambda: _("Not enough points to declare riichi."),
        codes.GAME_ENDED: lambda: _("The game has already ended."),
        codes.NOT_IN_RULES: lambda: _("The club's rules do not have this."),
    }
    make = messages.get(problem.code)
    if make:
        return make()
    try:
        return problem_message(problem)
    except (KeyError, TypeError, ValueError):  # a problem without the parameters the form's has
        return _("This value is not allowed here: %(field)s.") % {"field": problem.field}


def _engine_error(e: scoring.InputError) -> ServiceError:
    """The engine's problems with a hand, each field named relative to the hand ("winners[0].fu")."""
    fields: dict[str, list[str]] = {}
    for problem in e.problems:
        name = problem.field.removeprefix("hands[0]").removeprefix(".") or NON_FIELD
        messages = fields.setdefault(name, [])
        if (message := _hand_message(problem)) not in messages:
            messages.append(message)
    return ServiceError(fields)


def hand_name(round_label: str, honba: int) -> str:
    """A hand as the players say it: 南3局 1本場 (東1局 with no honba)."""
    if honba:
        return _("Hand %(round)s, %(honba)s honba") % {"round": round_label, "honba": honba}
    return _("Hand %(round)s") % {"round": round_label}


def _lock(tg: TableGame) -> TableGame:
    lock_club(tg.club_id)
    return for_update(TableGame.objects).get(pk=tg.pk)


def hand_record(
    *,
    tg: TableGame,
    user: User,
    index: int,
    key: uuid.UUID,
    event: Any,
    marks: Any = None,
) -> tuple[Hand, bool]:
    """Record hand `index` of a running table game; (the hand, whether it is new). The same
    `key` again returns the hand it recorded. A hand at an index already recorded is the same
    hand when its event and marks are equal (another phone at the table: merged), else a
    HandConflict. An index past the next one is refused."""
    if not isinstance(event, dict):
        raise ServiceError.one("event", _("The hand must be an object."))
    marks = _clean_marks(marks, event, _players(tg), hand_rules_from_json(tg.hand_rules))
    with action():
        tg = _lock(tg)
        same = Hand.objects.filter(table_game=tg, key=key).first()
        if same is not None:
            return same, False
        if tg.game_id is not None:
            raise ServiceError.one(NON_FIELD, _("This game has been saved already."))
        hands = live_hands(tg)
        if index < len(hands):
            there = hands[index]
            if there.event == event and there.marks == marks:
                return there, False
            raise HandConflict.one(
                "index",
                _(
                    "%(hand)s was recorded differently on another phone: keep the table's "
                    "hand, or enter this one again."
                )
                % {"hand": hand_name(there.round, there.honba)},
            )
        if index > len(hands):
            raise ServiceError.one(
                "index",
                _("Hands before hand %(number)s are missing.") % {"number": index + 1},
            )
        played = play(tg, hands)
        try:
            game = hands_game_from_json({"players": list(played.players), "hands": [event]})
            record, state = scoring.play_hand(
                played.rules, played.players, played.state, game.hands[0]
            )
        except scoring.InputError as e:
            raise _engine_error(e) from None
        hand = _hand(tg, index, key, event, marks, record, state.ended or "", user)
        hand.save(force_insert=True)
        audit(
            club=tg.club,
            actor=user,
            action="hand.record",
            target=f"table_game:{tg.pk}",
            after={"index": index, "event": event, "marks": marks, "scores": hand.scores},
        )
        return hand, True


def _hand(
    tg: TableGame,
    index: int,
    key: uuid.UUID,
    event: Any,
    marks: Any,
    record: scoring.HandRecord,
    ended: str,
    user: User,
    revision: int = 1,
) -> Hand:
    """The row (not saved) of the hand at `index` of `tg`, as the engine played it (`record`);
    `ended` the game's end where this hand ends it."""
    return Hand(
        table_game=tg,
        index=index,
        revision=revision,
        key=key,
        event=event,
        marks=marks,
        round=record.round,
        honba=record.honba,
        sticks=record.sticks,
        dealer=record.dealer,
        deltas=list(record.deltas),
        scores=list(record.scores),
        ended=ended,
        recorded_by=user if getattr(user, "pk", None) else None,
    )


def hand_undo(*, tg: TableGame, user: User, index: int) -> bool:
    """Undo the last hand (kept, no longer live). Undoing a hand already undone does nothing
    (a retried request); only the last hand can be undone."""
    with action():
        tg = _lock(tg)
        if tg.game_id is not None:
            raise ServiceError.one(NON_FIELD, _("This game has been saved already."))
        hands = live_hands(tg)
        if index >= len(hands):
            return False
        if index != len(hands) - 1:
            raise ServiceError.one("index", _("Only the last hand can be undone."))
        hand = hands[-1]
        hand.live = False
        hand.save(update_fields=["live"])
        audit(
            club=tg.club,
            actor=user,
            action="hand.undo",
            target=f"table_game:{tg.pk}",
            before={"index": index, "event": hand.event, "marks": hand.marks},
        )
        return True


# --- saving the game -------------------------------------------------------------------------


def game_input(tg: TableGame, played: Played, members: dict[int, Member]) -> GameInput:
    """The ended game as the recording service takes it: final points, the sticks left as
    deposits, chombo, the chips its hands imply (where the club's chips have them), 焼き鳥 and
    飛び賞 from the last hand."""
    if played.state.ended is None:
        raise ServiceError.one(NON_FIELD, _("The game has not ended yet."))
    seats = [members[pk] for pk in tg.seats]
    implied = hands_imply(
        rules=tg.rules_version.rules,
        hand_rules=played.rules,
        hands=[(h.event, h.marks) for h in played.hands],
        seats=seats,
        points=played.state.points,
        ended=played.state.ended,
    )
    counts = {p: played.chombo.count(p) for p in played.players}
    return GameInput(
        date=tg.date,
        table=tg.table,
        rate=tg.rate,
        deposits=STICK * played.state.sticks,
        seats=[
            SeatInput(
                member=m,
                points=played.state.points[i],
                chombo=counts[str(m.pk)],
                yakitori=implied.yakitori[i],
                busted_by=implied.busted_by[i],
            )
            for i, m in enumerate(seats)
        ],
        chips=implied.chips,
        submission_key=tg.key,
    )


@dataclass(frozen=True)
class Implied:
    """What a game's hands say for its settlement: chips, 焼き鳥 and 飛び賞 (per seat)."""

    chips: list[ChipInput]
    yakitori: list[bool]
    busted_by: list[int | None]


def hands_imply(
    *,
    rules: scoring.Rules,
    hand_rules: scoring.HandRules,
    hands: Sequence[tuple[dict[str, Any], dict[str, Any]]],
    seats: Sequence[Member],
    points: Sequence[int],
    ended: str | None,
) -> Implied:
    """From the hands (events with players named by member pk, and their winners' marks): the
    chips of the club's kinds the marks imply (一発, 役満, 裏ドラ, 赤ドラ), 焼き鳥 for a seat that won
    no hand where the club counts it, and, for a game ended on a bust under a 飛び賞 to the
    buster, who busted each busted player: the last hand's winner (the tsumo winner, or the
    winner of the busted player's discard; the first in turn from the discarder when two won)."""
    by_key = {str(m.pk): m for m in seats}
    won = {who for event, _marks in hands for who in _winners(event)}
    keys = [str(m.pk) for m in seats]
    chips = _chips(hands, tuple(keys), hand_rules, rules.chips, by_key)
    yakitori = [rules.yakitori is not None and k not in won for k in keys]
    busted_by: list[int | None] = [None] * len(seats)
    bust = rules.bust_bonus
    if bust is not None and bust.to == "buster" and ended == "bust" and hands:
        last = hands[-1][0]
        buster: str | None = None
        if last.get("result") == "tsumo":
            buster = str(last["winner"])
        elif last.get("result") == "ron":
            buster = _stick_taker(last, tuple(keys), len(keys), hand_rules)
        for i, k in enumerate(keys):
            if buster is None or not busted(rules, points[i]):
                continue
            if last.get("result") == "ron" and str(last.get("from")) != k:
                continue  # busted without dealing in: not this hand's doing
            if k != buster:
                busted_by[i] = keys.index(buster)
    return Implied(chips, yakitori, busted_by)


def hand_chips(played: Played, club_chips: Any, by_key: dict[str, Member]) -> list[ChipInput]:
    """The chips a played game's hands imply (_chips)."""
    hands = [(hand.event, hand.marks) for hand in played.hands]
    return _chips(hands, played.players, played.rules, club_chips, by_key)


def _chips(
    hands: Sequence[tuple[dict[str, Any], dict[str, Any]]],
    players: Sequence[str],
    hand_rules: scoring.HandRules,
    club_chips: Any,
    by_key: dict[str, Member],
) -> list[ChipInput]:
    """The chips the hands imply, where the club's chips have the kind: only a winner the rules
    pay (頭ハネ: the first claimant) gets a winner's chips, and 一発 and 裏 only with the
    winner's riichi in the hand. The one rule for table mode and the online import."""
    chips: list[ChipInput] = []
    for event, marks in hands:
        paid = paid_winners(event, players, hand_rules)
        riichi = set(map(str, event.get("riichi", [])))
        discarder = by_key.get(str(event.get("from"))) if event["result"] == "ron" else None
        for who, win in _wins(event):
            if who not in paid:
                continue  # 頭ハネ: a claimant the rules do not pay gets no winner's chips
            mark = marks.get(who, {})
            counts = {
                "ippatsu": 1 if mark.get("ippatsu") and who in riichi else 0,
                "yakuman": win.get("yakuman") or 0,
                "ura": mark.get("ura", 0) if who in riichi else 0,
                "aka": mark.get("aka", 0),
            }
            for name, count in counts.items():
                kind = next((k for k in CHIP_MARKS[name] if k in club_chips), None)
                if kind and count:
                    chips.append(ChipInput(kind, by_key[who], discarder, count))
    return chips


def _wins(event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    if event.get("result") == "ron":
        return [(str(w["player"]), w) for w in event["winners"]]
    if event.get("result") == "tsumo":
        return [(str(event["winner"]), event)]
    return []


def seat_members(tg: TableGame) -> dict[int, Member]:
    return {m.pk: m for m in Member.objects.filter(pk__in=tg.seats)}


def table_preview(*, tg: TableGame) -> tuple[GameInput, recording.Preview, Played]:
    played = play(tg)
    data = game_input(tg, played, seat_members(tg))
    preview = recording.game_preview(club=tg.club, data=data, version=tg.rules_version)
    return data, preview, played


def table_game_save(*, tg: TableGame, user: User) -> Game:
    """Settle and record the ended game (once: its key is the game's submission key) and keep its
    hand statistics."""
    if tg.game_id is not None:
        return tg.game  # type: ignore[return-value]
    caller = tg
    with action():
        tg = _lock(tg)
        if tg.game_id is not None:
            caller.game = tg.game
            return tg.game  # type: ignore[return-value]
        data, _preview, played = table_preview(tg=tg)
        # The rate was asked about when the table started (table_start): by now a hanchan was
        # played at it, the table's record, and the finish does not ask again.
        game = recording.game_record_in(
            club=tg.club, user=user, data=data, draw_table=tg.draw_table, confirm_rate=True
        )
        tg.game = caller.game = game
        tg.save(update_fields=["game"])
        added = HandStat.objects.bulk_create(hand_stats(tg, played, game))
        changes.record(changes.HandStatsChanged(added=added))
        audit(
            club=tg.club,
            actor=user,
            action="table.save",
            target=f"table_game:{tg.pk}",
            game=game,
            after={"game": game.pk, "hands": len(played.hands)},
        )
    return game


def table_game_edit(
    *, tg: TableGame, user: User, hands: Sequence[dict[str, Any]], expected_revision: int
) -> Game:
    """Correct a saved hand-by-hand game: its hands are written again (the old ones stay, not
    live) and the game is re-settled from them as a new revision, with its statistics."""
    if not isinstance(hands, list) or not hands:
        raise ServiceError.one("hands", _("Give the game's hands."))
    with action():
        tg = _lock(tg)
        game = tg.game
        if game is None:
            raise ServiceError.one(NON_FIELD, _("This game has not been saved yet."))
        recording.game_check_revision(game=game, expected_revision=expected_revision)
        if OnlineLog.objects.filter(game=game).exists():
            raise ServiceError.one(
                NON_FIELD,
                _("An online game's points come from its log: only its players can be corrected."),
            )
        rules = hand_rules_from_json(tg.hand_rules)
        players = _players(tg)
        events, marks = [], []
        for i, hand in enumerate(hands):
            if not isinstance(hand, dict) or not isinstance(hand.get("event"), dict):
                raise ServiceError.one(f"hands[{i}]", _("The hand must be an object."))
            events.append(hand["event"])
            marks.append(_clean_marks(hand.get("marks"), hand["event"], players, rules))
        try:
            result = scoring.play_game(
                rules, hands_game_from_json({"players": list(players), "hands": events})
            )
        except scoring.InputError as e:
            raise _engine_error(e) from None
        old = live_hands(tg)
        Hand.objects.filter(pk__in=[h.pk for h in old]).update(live=False)
        revision = game.revision + 1
        new = Hand.objects.bulk_create(
            [
                _hand(
                    tg,
                    i,
                    uuid.uuid4(),
                    event,
                    mark,
                    r,
                    (result.state.ended or "") if i == len(events) - 1 else "",
                    user,
                    revision,
                )
                for i, (event, mark, r) in enumerate(zip(events, marks, result.hands, strict=True))
            ]
        )
        played = Played(rules, players, new, list(result.hands), result.state, result.chombo)
        data = game_input(tg, played, seat_members(tg))
        game = recording.game_edit_in(
            game=game, user=user, data=data, expected_revision=expected_revision, from_hands=True
        )
        old = list(HandStat.objects.filter(game=game, counted=True))
        HandStat.objects.filter(pk__in=[s.pk for s in old]).update(counted=False)
        added = HandStat.objects.bulk_create(hand_stats(tg, played, game))
        changes.record(changes.HandStatsChanged(added=added, removed=old))
    return game


# --- a game played elsewhere, kept hand by hand ----------------------------------------------


def renamed(event: Any, names: dict[str, str]) -> Any:
    """A hand object with every player named by `names` (e.g. online name → member pk)."""
    return renamed_event(event, names)


def played_game_keep(
    *,
    game: Game,
    user: User,
    key: uuid.UUID,
    members: Sequence[Member],
    rules: scoring.HandRules,
    events: Sequence[dict[str, Any]],
    marks: Sequence[dict[str, Any]] = (),
) -> TableGame:
    """Keep the hands of a game recorded otherwise (an online log, league.online) with it: a table
    game linked to `game`, its hands as the engine plays them (players named by member pk, as at
    the table) and each player's hand statistics, so that per-hand statistics count it. Inside
    the caller's transaction; the engine must agree with the game's points (the caller checked
    the log), else nothing is kept."""
    players = tuple(str(m.pk) for m in members)
    result = scoring.play_game(
        rules, hands_game_from_json({"players": list(players), "hands": list(events)})
    )
    if [r.points for r in game.results.filter(counted=True).order_by("seat")] != list(
        result.state.points
    ):
        raise ServiceError.one(NON_FIELD, _("The hands disagree with the game's points."))
    tg = TableGame.objects.create(
        club_id=game.club_id,
        key=key,
        date=game.date,
        table=game.table,
        rate=game.rate,
        rules_version=game.rules_version,
        hand_rules=rules.to_json(),
        seats=[m.pk for m in members],
        game=game,
        created_by=user if getattr(user, "pk", None) else None,
    )
    last = len(events) - 1
    hands = Hand.objects.bulk_create(
        [
            _hand(
                tg,
                i,
                uuid.uuid5(key, str(i)),
                dict(event),
                _clean_marks(marks[i], event, players, rules) if i < len(marks) else {},
                r,
                (result.state.ended or "") if i == last else "",
                user,
                game.revision,
            )
            for i, (event, r) in enumerate(zip(events, result.hands, strict=True))
        ]
    )
    tg.club = game.club
    played = Played(rules, players, hands, list(result.hands), result.state, result.chombo)
    added = HandStat.objects.bulk_create(hand_stats(tg, played, game))
    changes.record(changes.HandStatsChanged(added=added))
    return tg


# --- statistics at write time ----------------------------------------------------------------


def hand_stats(tg: TableGame, played: Played, game: Game) -> list[HandStat]:
    """Each player's hand statistics in this revision of the game (docs/hands.md's stats)."""
    n = played.rules.players
    players = played.players
    rows = {
        p: HandStat(
            game=game,
            revision=game.revision,
            member_id=int(p),
            club_id=tg.club_id,
            date=game.date,
            counted=not game.voided,
            yaku={},
        )
        for p in players
    }
    for hand, record in zip(played.hands, played.records, strict=True):
        event = hand.event
        result = event["result"]
        if result == "chombo":
            continue  # the hand is replayed
        riichi = set(event.get("riichi", []))
        for p in players:
            rows[p].hands += 1
            if p in riichi:
                rows[p].riichi += 1
        if result == "draw":
            tenpai = set(event.get("tenpai", []))
            for p in players:
                rows[p].draws += 1
                if p in tenpai:
                    rows[p].draw_tenpai += 1
            continue
        wins = _wins(event)
        if not wins:
            continue
        taker = _stick_taker(event, players, n, played.rules)
        paid = [w for w in wins if result == "tsumo" or played.rules.multi_ron != "atamahane"]
        if result == "ron" and played.rules.multi_ron == "atamahane":
            paid = [w for w in wins if w[0] == taker]
        for who, win in paid:
            row = rows[who]
            seat = players.index(who)
            value = record.deltas[seat] + (1000 if who in riichi else 0)
            if who == taker:
                value -= 1000 * (record.sticks + len(riichi))
            row.wins += 1
            row.win_points += value
            mark = hand.marks.get(who, {})
            row.called_wins += bool(mark.get("called"))
            row.ippatsu += bool(mark.get("ippatsu"))
            if win.get("yakuman"):
                row.yakuman += 1
            for yaku in mark.get("yaku", []):
                row.yaku[yaku] = row.yaku.get(yaku, 0) + 1
        if result == "ron":
            loser = str(event["from"])
            seat = players.index(loser)
            rows[loser].deal_ins += 1
            rows[loser].deal_in_points += -record.deltas[seat] - (1000 if loser in riichi else 0)
    return list(rows.values())


def _stick_taker(
    event: dict[str, Any], players: tuple[str, ...], n: int, rules: scoring.HandRules
) -> str:
    """Who took the sticks: the tsumo winner, or the first ron winner in turn from the discarder."""
    wins = _wins(event)
    if event["result"] == "tsumo":
        return wins[0][0]
    discarder = players.index(str(event["from"]))
    return min((w[0] for w in wins), key=lambda p: (players.index(p) - discarder) % n)


# --- the point calculator --------------------------------------------------------------------

CALC_FLAGS = (
    "tsumo",
    "riichi",
    "double_riichi",
    "ippatsu",
    "rinshan",
    "chankan",
    "haitei",
    "tenhou",
    "chiihou",
    "renhou",
)
MAX_TILES_TEXT = 40  # 14 tiles and their suits: "123456789m12345p" is far below this


def _tiles_text(value: object, name: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_TILES_TEXT:
        raise ServiceError.one(name, _("Choose the tiles."))
    return value


def _points(value: int) -> str:
    return f"{value:,}"


def payment_text(
    rules: scoring.HandRules, valued: calculator.Valued, *, dealer: bool, tsumo: bool
) -> str:
    """What the hand is paid, honba and sticks aside: "5,200", "1,300・2,600", "2,600 all"."""
    base = base_points(rules, valued.han, valued.fu, valued.yakuman)
    if not tsumo:
        return _("Ron %(points)s") % {"points": _points(ron_value(base, dealer))}
    shares = tsumo_shares(rules, base, 0, 0 if dealer else 1, rules.players)
    if dealer:
        return _("Tsumo %(points)s all") % {"points": _points(shares[1])}
    others = sorted({v for k, v in shares.items() if k != 1})
    return _("Tsumo %(others)s / dealer %(dealer)s") % {
        "others": "・".join(_points(v) for v in others),
        "dealer": _points(shares[1]),
    }


def _calculator_message(problem: scoring.Problem) -> str:
    field = problem.field
    if field == "win":
        return _("The winning tile is not in the hand.")
    if field.startswith("melds"):
        return _("A call (chi, pon, kan) has the wrong tiles.")
    if "not a winning hand" in problem.message:
        return _("This is not a winning hand (not complete, or no yaku).")
    if field == "kita":
        return _("北抜き is only at a 3-player table, 0 to 4.")
    if field == "renhou" and "club" in problem.message:
        return _("人和 is not a yaku under the club's rules.")
    if field in ("tenhou", "chiihou", "renhou"):
        return _(
            "天和 is the dealer's tsumo, 地和 a non-dealer's tsumo and 人和 a non-dealer's ron, "
            "each with no call; only one of them."
        )
    return _("The tiles cannot be read.")


def hand_value(*, tg: TableGame, data: Any) -> dict[str, Any]:
    """The point calculator for the phone, under the game's hand rules (kept when it started)
    and the options of its rules version."""
    rules = hand_rules_from_json(tg.hand_rules)
    return value_for(rules=rules, club=club_options_for(tg.rules_version), data=data)


def club_hand_value(*, version: RulesVersion, data: Any) -> dict[str, Any]:
    """The point calculator under a club's rules version (the API's): its hand rules and
    options."""
    return value_for(rules=hand_rules_for(version), club=club_options_for(version), data=data)


def value_for(
    *, rules: scoring.HandRules, club: calculator.ClubOptions, data: Any
) -> dict[str, Any]:
    """A winning hand's tiles (Tenhou's one-line notation, the winning tile among them) to its
    han and fu (or yakuman), yaku, dora counts and what it is paid, honba and sticks aside
    (scoring.calculator, with the `mahjong` package). ServiceError naming the field."""
    if not isinstance(data, dict):
        raise ServiceError.one(NON_FIELD, _("Send the hand as a JSON object."))
    tiles = _tiles_text(data.get("tiles"), "tiles")
    win = _tiles_text(data.get("win"), "win")
    melds = data.get("melds") or []
    if not isinstance(melds, list) or len(melds) > 4:
        raise ServiceError.one("melds", _("A call (chi, pon, kan) has the wrong tiles."))
    called = []
    for i, m in enumerate(melds):
        if not isinstance(m, dict) or m.get("kind") not in calculator.MELD_KINDS:
            raise ServiceError.one(f"melds[{i}]", _("A call (chi, pon, kan) has the wrong tiles."))
        called.append(calculator.CalledMeld(m["kind"], _tiles_text(m.get("tiles"), f"melds[{i}]")))
    indicators: dict[str, tuple[str, ...]] = {}
    for name in ("dora", "ura"):
        value = data.get(name) or []
        if not isinstance(value, list) or len(value) > 10:
            raise ServiceError.one(name, _("The tiles cannot be read."))
        indicators[name] = tuple(_tiles_text(t, name) for t in value)
    flags = {}
    for name in CALC_FLAGS:
        value = data.get(name, False)
        if not isinstance(value, bool):
            raise ServiceError.one(name, _("Must be true or false."))
        flags[name] = value
    winds = {}
    for name in ("seat_wind", "round_wind"):
        value = data.get(name, "east")
        if not isinstance(value, str) or value not in calculator.WINDS:
            raise ServiceError.one(
                name, _("This value is not allowed here: %(field)s.") % {"field": name}
            )
        winds[name] = value
    kita = data.get("kita", 0)
    if isinstance(kita, bool) or not isinstance(kita, int) or not 0 <= kita <= 4:
        raise ServiceError.one("kita", _("北抜き is only at a 3-player table, 0 to 4."))
    haitei = flags.pop("haitei")
    hand = calculator.WinningHand(
        kita=kita,
        tiles=tiles,
        win=win,
        melds=tuple(called),
        dora=indicators["dora"],
        ura=indicators["ura"] if flags["riichi"] or flags["double_riichi"] else (),
        haitei=haitei and flags["tsumo"],
        houtei=haitei and not flags["tsumo"],
        **flags,
        **winds,
    )
    try:
        valued = calculator.value_hand(rules, club, hand)
    except scoring.InputError as e:
        raise ServiceError.one(e.problems[0].field, _calculator_message(e.problems[0])) from None
    dealer = winds["seat_wind"] == "east"
    return {
        "han": valued.han,
        "fu": valued.fu,
        "yakuman": valued.yakuman,
        "yaku": valued.yaku_names,
        "aka": valued.dora_count("aka"),
        "ura": valued.dora_count("ura"),
        "pao": valued.pao_yaku,
        "payment": payment_text(rules, valued, dealer=dealer, tsumo=flags["tsumo"]),
        "check_atozuke": valued.check_atozuke,
        **payment_points(rules, valued, dealer=dealer, tsumo=flags["tsumo"]),
    }


def payment_points(
    rules: scoring.HandRules, valued: calculator.Valued, *, dealer: bool, tsumo: bool
) -> dict[str, int | None]:
    """payment_text's figures: `points` the winner receives in all, and who pays them: `ron`
    (the discarder), or `tsumo_dealer` (a non-dealer's tsumo) and `tsumo_others` (each
    non-dealer)."""
    base = base_points(rules, valued.han, valued.fu, valued.yakuman)
    out: dict[str, int | None] = {"ron": None, "tsumo_dealer": None, "tsumo_others": None}
    if not tsumo:
        out["ron"] = ron_value(base, dealer)
        return {"points": out["ron"], **out}
    winner = 0 if dealer else 1
    shares = tsumo_shares(rules, base, winner, 0, rules.players)
    if not dealer:
        out["tsumo_dealer"] = shares[0]
    out["tsumo_others"] = max(v for k, v in shares.items() if k != 0)
    return {"points": sum(shares.values()), **out}
