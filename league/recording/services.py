"""Recording a game: preview, record (one or a whole import in bulk), edit and void.

Each write validates and raises `ServiceError` (field → messages, nothing stored), or changes the
database and writes the audit log inside one transaction.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.db import IntegrityError, transaction
from django.db.models import Exists, Max, OuterRef
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

import scoring
from league import limits
from league.club import services as club_services
from league.core import changes, names
from league.core.actions import action, as_action
from league.core.clock import TOKYO
from league.core.errors import NON_FIELD, ServiceError, service_error
from league.core.locks import for_update, lock_club
from league.models import (
    ChipEvent,
    Club,
    Day,
    Game,
    Hand,
    HandStat,
    ImportBatch,
    Member,
    OnlineLog,
    Result,
    RulesVersion,
    TableGame,
)
from league.models.audit import User, audit, audit_entry, audit_many, save_audited, stored_user
from league.models.draw import DrawRound, DrawSeat, DrawTable
from league.models.hands import renamed_event
from league.models.members import MERGED_MEMBER, lock_live_members
from league.models.rules import rules_in_force
from league.teams import services as teams

# --- inputs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatInput:
    member: Member
    points: int
    chombo: int = 0
    busted_by: int | None = None  # 飛び賞: the seat (0 = 起家) of whoever busted this player
    yakitori: bool = False  # 焼き鳥: won no hand all game


@dataclass(frozen=True)
class ChipInput:
    kind: str
    winner: Member
    discarder: Member | None = None  # None: tsumo
    multiplier: int = 1


@dataclass(frozen=True)
class GameInput:
    """A game as the organiser entered it (seat order from 起家)."""

    date: datetime.date
    seats: Sequence[SeatInput]
    table: str = ""
    deposits: int = 0
    rate: str = ""
    chips: Sequence[ChipInput] = ()
    submission_key: uuid.UUID | None = None
    submission_hash: str = ""  # the API's digest of the request body sent with the key

    def __post_init__(self) -> None:
        # The table in NFKC: 「Ａ」 and 「A」 are one table.
        object.__setattr__(self, "table", names.clean_label(self.table))


@dataclass(frozen=True)
class Preview:
    rules_version: RulesVersion
    result: scoring.GameResult
    members: Sequence[Member] = field(default_factory=list)  # seat order, for display


# --- duplicates ------------------------------------------------------------------------------

CONFIRM_DUPLICATE = "confirm_duplicate"  # the form field and the API's body field


class DuplicateGame(ServiceError):
    """The game repeats a live game of its day: the same members with the same points, in any
    seat order. Saved only when the organiser confirms it (`confirm_duplicate`)."""

    def __init__(self, earlier: Game):
        self.earlier = earlier
        super().__init__({CONFIRM_DUPLICATE: [duplicate_message(earlier)]})


def game_name(game: Game) -> str:
    """The game as the day page names it: 「第4半荘（B卓、21:04 保存）」."""
    saved = game.recorded_at.astimezone(TOKYO).strftime("%H:%M")
    if game.table:
        return _("Game %(number)s (table %(table)s, saved %(time)s)") % {
            "number": game.number,
            "table": game.table,
            "time": saved,
        }
    return _("Game %(number)s (saved %(time)s)") % {"number": game.number, "time": saved}


def duplicate_message(game: Game) -> str:
    return _("Same as %(game)s.") % {"game": game_name(game)}


def _result_key(seats: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """(member, points) pairs in any seat order: what makes two games the same."""
    return tuple(sorted(seats))


def duplicate_of(*, club: Club, data: GameInput, exclude: Game | None = None) -> Game | None:
    """The earliest live game of `data`'s day with the same members and the same points, in any
    seat order (`exclude`: the game being edited), else None. Two queries at most."""
    wanted = _result_key((s.member.pk, s.points) for s in data.seats)
    rows = Result.objects.filter(club_id=club.pk, date=data.date, counted=True)
    if exclude is not None:
        rows = rows.exclude(game_id=exclude.pk)
    by_game: dict[int, list[tuple[int, int]]] = {}
    for game_id, member_id, points in rows.values_list("game_id", "member_id", "points"):
        by_game.setdefault(game_id, []).append((member_id, points))
    same = [g for g, seats in by_game.items() if _result_key(seats) == wanted]
    if not same:
        return None
    return Game.objects.filter(pk__in=same, voided=False).order_by("number").first()


def _check_duplicate(
    club: Club, data: GameInput, confirmed: bool, exclude: Game | None = None
) -> None:
    if confirmed:
        return
    earlier = duplicate_of(club=club, data=data, exclude=exclude)
    if earlier is not None:
        raise DuplicateGame(earlier)


# --- the evening's rate ----------------------------------------------------------------------

CONFIRM_RATE = "confirm_rate"  # the form field and the API's body field


class RateDiffers(ServiceError):
    """The game's rate is none of those the day's other live games were played at (a second
    table started at the rules' first rate on a 0.3 evening). Saved only when the organiser
    confirms it (`confirm_rate`)."""

    def __init__(self, rate: str, evening: Sequence[str]):
        self.rate = rate
        self.evening = list(evening)
        super().__init__({CONFIRM_RATE: [rate_message(rate, evening)]})


def rate_message(rate: str, evening: Sequence[str]) -> str:
    return _("Today's other games were played at rate %(rates)s, this one at %(rate)s.") % {
        "rates": pgettext("list separator", ", ").join(r or "—" for r in evening),
        "rate": rate or "—",
    }


def evening_rates(*, club: Club, date: datetime.date, exclude: Game | None = None) -> list[str]:
    """The rates the day's live games (other than `exclude`) were played at, sorted. One query."""
    games = Game.objects.filter(club_id=club.pk, date=date, voided=False)
    if exclude is not None:
        games = games.exclude(pk=exclude.pk)
    return sorted(set(games.values_list("rate", flat=True)))


def rate_differs(
    *, club: Club, date: datetime.date, rate: str, exclude: Game | None = None
) -> list[str]:
    """The evening's rates when `rate` is none of them (what the preview points out and saving
    asks about), else []: the first game of a day, and a game at a rate the evening already
    has (a second rate once confirmed), ask nothing. One query."""
    rates = evening_rates(club=club, date=date, exclude=exclude)
    return rates if rates and rate not in rates else []


def check_rate(
    *,
    club: Club,
    date: datetime.date,
    rate: str,
    confirmed: bool,
    exclude: Game | None = None,
) -> None:
    """The one rule of the evening's rate: RateDiffers unless `confirmed` or the rate is one the
    day's other live games were played at (rate_differs). Raised by the record and edit actions
    (and table mode's start, where its rate is chosen), as DuplicateGame is."""
    if confirmed:
        return
    evening = rate_differs(club=club, date=date, rate=rate, exclude=exclude)
    if evening:
        raise RateDiffers(rate, evening)


def evening_rate(
    *, club: Club, date: datetime.date, table: str | None = None, exclude: Game | None = None
) -> str | None:
    """The rate a new game of the day starts at: that of the day's last live game at `table`
    when the table has one today (an evening that plays two rates keeps each table's), else of
    the day's last live game, whatever its table (the second table starts at the first's rate);
    None before the day's first game (then the rules' first rate). `exclude`: a game being
    corrected. One query."""
    rows = Game.objects.filter(club_id=club.pk, date=date, voided=False)
    if exclude is not None:
        rows = rows.exclude(pk=exclude.pk)
    games = list(rows.order_by("-number").values_list("table", "rate"))
    if table is not None:
        table = names.clean_label(table)
        at_table = [rate for t, rate in games if t == table]
        if at_table:
            return at_table[0]
    return games[0][1] if games else None


# --- the audit log ---------------------------------------------------------------------------


def game_snapshot(game: Game) -> dict[str, Any]:
    """A game's current state as plain JSON, for the audit log's before/after."""
    results = list(
        Result.objects.filter(game=game, revision=game.revision).select_related("member")
    )
    chips = ChipEvent.objects.filter(game=game, revision=game.revision).order_by("id")
    return snapshot_of(game, results, list(chips), names_of(results))


def names_of(results: Iterable[Result]) -> dict[int, str]:
    """The names of results' members (each with its member loaded), for snapshot_of."""
    return {r.member_id: r.member.name for r in results}


def seat_names(data: GameInput) -> dict[int, str]:
    """The names of a game input's seated members, for snapshot_of."""
    return {s.member.pk: s.member.name for s in data.seats}


def snapshot_of(
    game: Game,
    results: Sequence[Result | ResultRow],
    chips: Sequence[ChipEvent],
    names: dict[int, str],
) -> dict[str, Any]:
    """game_snapshot from rows at hand (results in seat order, chips in creation order; `names`
    by member id)."""
    return {
        "date": game.date.isoformat(),
        "table": game.table,
        "number": game.number,
        "rate": game.rate,
        "deposits": game.deposits,
        "rules_version": game.rules_version_id,
        "revision": game.revision,
        "voided": game.voided,
        "void_reason": game.void_reason,
        "players": [
            {
                "member": r.member_id,
                "name": names[r.member_id],
                "seat": r.seat,
                "points": r.points,
                "chombo": r.chombo,
                "rank": r.rank,
                "score": r.score,
                "chips": r.chips,
                "yen": r.yen,
                **({"busted_by_seat": r.busted_by_seat} if r.busted_by_seat is not None else {}),
                **({"yakitori": True} if r.yakitori else {}),
            }
            for r in results
        ],
        "chip_events": [
            {
                "kind": c.kind,
                "winner": c.winner_id,
                "from": c.discarder_id,
                "multiplier": c.multiplier,
            }
            for c in chips
        ],
    }


# --- settling --------------------------------------------------------------------------------


def _to_scoring(data: GameInput) -> scoring.Game:
    """Members are named by their primary key inside the engine: names there must be unique."""
    return scoring.Game(
        seats=tuple(scoring.Seat(str(s.member.pk), s.points) for s in data.seats),
        deposits=data.deposits,
        chombo=tuple(str(s.member.pk) for s in data.seats for _ in range(s.chombo)),
        chips=tuple(
            scoring.ChipEvent(
                c.kind,
                str(c.winner.pk),
                str(c.discarder.pk) if c.discarder else None,
                c.multiplier,
            )
            for c in data.chips
        ),
        rate=data.rate or None,
        busts=_busts(data),
        yakitori=tuple(str(s.member.pk) for s in data.seats if s.yakitori),
    )


def _busts(data: GameInput) -> tuple[scoring.Bust, ...] | None:
    """Who busted whom, as the engine names players; None when the game says nothing of it (the
    engine then finds busted players itself where the bonus goes to the top). A seat number out
    of range is the engine's "not at the table" (named by the field busts)."""
    given = [(s, s.busted_by) for s in data.seats if s.busted_by is not None]
    if not given:
        return None
    seats = data.seats
    return tuple(
        scoring.Bust(
            str(s.member.pk), str(seats[by].member.pk) if 0 <= by < len(seats) else f"seat {by}"
        )
        for s, by in given
    )


def game_settled_again(*, game: Game) -> scoring.GameResult | None:
    """A stored game settled again under its own rules version, for its score parts (the game
    page explains each score with them). `game` comes from selectors.club_game (its current
    results and chip events loaded); None if it cannot be settled (it could when it was stored)."""
    data = _stored_input(
        game,
        game.current_results,  # type: ignore[attr-defined]
        game.current_chip_events,  # type: ignore[attr-defined]
    )
    try:
        return scoring.settle_game(game.rules_version.rules, _to_scoring(data))
    except scoring.InputError:
        return None


def _check_members(club: Club, data: GameInput) -> None:
    errors: dict[str, list[str]] = {}
    seen: set[int] = set()
    for i, seat in enumerate(data.seats):
        if seat.member.club_id != club.pk:
            errors[f"players[{i}].name"] = [_("Choose a member of this club.")]
        elif seat.member.merged_into_id is not None:
            into = Member.objects.filter(pk=seat.member.merged_into_id).first()
            errors[f"players[{i}].name"] = [
                str(MERGED_MEMBER % {"name": seat.member.name, "into": into.name if into else ""})
            ]
        elif seat.member.pk in seen:
            errors[f"players[{i}].name"] = [_("The same player is in two seats.")]
        seen.add(seat.member.pk)
    for chip in data.chips:
        for m in (chip.winner, chip.discarder):
            if m is not None and m.club_id != club.pk:
                errors["chips"] = [_("Choose a member of this club.")]
    if errors:
        raise ServiceError(errors)


def check_members(*, club: Club, data: GameInput) -> None:
    """game_preview's check of the seated members, without settling (an import's games, settled
    on upload, with the names the organiser chose since then)."""
    _check_members(club, data)


def _check_storable(data: GameInput, *, check_date: bool) -> None:
    """The date within bounds and every text fitting its column (limits), else a ServiceError."""
    errors = limits.column_problems(Game, table=data.table, rate=data.rate)
    problem = limits.date_problem(data.date) if check_date else None
    if problem is not None:
        errors["date"] = [problem]
    for chip in data.chips:
        kind = limits.column_problems(ChipEvent, kind=chip.kind)
        if kind:
            errors["chips"] = kind["kind"]
    if errors:
        raise ServiceError(errors)


def game_preview(
    *, club: Club, data: GameInput, version: RulesVersion | None = None, check_date: bool = True
) -> Preview:
    """Settle without storing anything: what the organiser confirms before saving.

    `check_date=False` for a game already stored (an edit, a re-settle): its date is not new.
    """
    _check_storable(data, check_date=check_date)
    _check_members(club, data)
    version = version or rules_in_force(club, data.date)
    try:
        result = scoring.settle_game(version.rules, _to_scoring(data))
    except scoring.InputError as e:
        raise service_error(e) from None
    return Preview(version, result, [s.member for s in data.seats])


def check_final_table(*, club: Club, data: GameInput) -> None:
    """On the dates of a seated fixed-table final, a game with a finalist is one final table's,
    its players exactly the table's (league.teams.services.final_table_errors): else a
    ServiceError naming the seats. One query."""
    teams.final_table_check(club_id=club.pk, date=data.date, members=[s.member for s in data.seats])


def final_tables_of(*, club: Club, dates: Iterable[datetime.date]) -> list[Any]:
    """The seated final tables over `dates` (league.teams.services.final_tables), for checking
    many games with final_table_problems. One query."""
    return teams.final_tables(club_id=club.pk, dates=dates)


def final_table_problems(finals: Sequence[Any], data: GameInput) -> dict[str, list[str]]:
    """check_final_table's errors for one game, over final_tables_of's tables."""
    return teams.final_table_errors(finals, data.date, [s.member for s in data.seats])


def _write_revision(game: Game, preview: Preview, data: GameInput) -> None:
    """Store a settled revision's rows; the rows of earlier revisions stop counting, and the
    kept totals (league.standings.services) move with them in the same transaction."""
    _lock_live_members(data)
    removed = list(Result.objects.filter(game=game, counted=True))
    Result.objects.filter(game=game, counted=True).update(counted=False)
    results, chips = _revision_rows(game, preview, data)
    write_results(results)
    ChipEvent.objects.bulk_create(chips)
    added = [r for r in results if r.counted]
    changes.record(changes.ResultsChanged(game.club_id, removed, added))


def _lock_live_members(data: GameInput) -> None:
    """The seated members (and chip parties) locked and checked: lock_live_members."""
    ids = {s.member.pk for s in data.seats} | {c.winner.pk for c in data.chips}
    lock_live_members(ids | {c.discarder.pk for c in data.chips if c.discarder is not None})


class ResultRow(NamedTuple):
    """A new revision's Result as its column values, not a model instance (making and then
    reading tens of thousands of instances was a tenth of an import's time). Written by
    write_results; the kept totals (league.standings) and snapshot_of read it as a Result."""

    game_id: int
    revision: int
    member_id: int
    seat: int
    points: int
    chombo: int
    rank: int
    score: int
    chips: int
    yen: int | None
    last: bool
    busted_by_seat: int | None
    busts_caused: int
    yakitori: bool
    club_id: int
    date: datetime.date
    rate: str
    counted: bool


def write_results(rows: Sequence[ResultRow]) -> None:
    """Insert new revisions' results (inside the caller's transaction), BULK_CHUNK a statement.
    Each instance is made from its values in the order of Result's columns (ResultRow's fields,
    after the id: tests/league/recording pins it), as Django makes the rows it reads (Model's
    positional fast path): by keyword it took three times as long, a tenth of an import."""
    Result.objects.bulk_create([Result(None, *row) for row in rows], batch_size=BULK_CHUNK)


def _revision_rows(
    game: Game, preview: Preview, data: GameInput
) -> tuple[list[ResultRow], list[ChipEvent]]:
    """A settled revision's rows, not saved yet."""
    bottom = max(p.rank for p in preview.result.players)
    results = [
        ResultRow(
            game_id=game.pk,
            revision=game.revision,
            member_id=seat.member.pk,
            seat=i,
            points=settled.points,
            chombo=settled.chombo,
            rank=settled.rank,
            score=settled.score,
            chips=settled.chips,
            yen=settled.yen,
            last=settled.rank == bottom > 1,
            busted_by_seat=seat.busted_by,
            busts_caused=sum(other.busted_by == i for other in data.seats),
            yakitori=seat.yakitori,
            club_id=game.club_id,
            date=game.date,
            rate=game.rate,
            counted=not game.voided,
        )
        for i, (seat, settled) in enumerate(zip(data.seats, preview.result.players, strict=True))
    ]
    chips = [
        ChipEvent(
            game=game,
            revision=game.revision,
            kind=c.kind,
            winner=c.winner,
            discarder=c.discarder,
            multiplier=c.multiplier,
        )
        for c in data.chips
    ]
    return results, chips


def game_record_in(
    *,
    club: Club,
    user: User,
    data: GameInput,
    draw_table: int | None = None,
    confirm_duplicate: bool = False,
    confirm_rate: bool = False,
    team_match: int | None = None,
    source: str = "",
) -> Game:
    """Record a new game, inside the caller's action (game_record's, or another action that
    records a game with its own rows: table mode's save, an online log, the chat, the demo). The same `submission_key` twice records one game and returns it.
    `source`: where it came from when not this app's pages or API (「LINE」), kept as the audit
    entry's reason.

    A game repeating a live game of its day (duplicate_of) raises DuplicateGame, nothing stored,
    unless `confirm_duplicate`: checked again under the day's lock. So does a game at a rate none
    of the day's other live games has (check_rate) raise RateDiffers, unless `confirm_rate`.

    Recorded from any path, a game whose players are those of a table of its day's draw not yet
    recorded is that table's game (`draw_table`, the card it was recorded from, first): the
    card stops offering to record it. Recorded from a team match table (`team_match`) with its
    named players in its seats, the game is that table's (league.teams.services.match_link_game)."""
    existing = _game_by_submission(club, data.submission_key)
    if existing is not None:
        return existing
    preview = game_preview(club=club, data=data)
    try:
        with transaction.atomic():  # a savepoint: a twin's submission key is caught below
            lock_club(club.pk)  # first: one global lock order (league.core.locks.lock_club)
            day, _created = Day.objects.get_or_create(club=club, date=data.date)
            for_update(Day.objects).filter(pk=day.pk).first()  # one writer per day
            # A concurrent twin of this request may have committed while we waited for the lock.
            existing = _game_by_submission(club, data.submission_key)
            if existing is not None:
                return existing
            check_final_table(club=club, data=data)
            _check_duplicate(club, data, confirm_duplicate)
            check_rate(club=club, date=data.date, rate=data.rate, confirmed=confirm_rate)
            number = (day.games.aggregate(n=Max("number"))["n"] or 0) + 1
            game = Game.objects.create(
                club=club,
                day=day,
                date=data.date,
                table=data.table,
                number=number,
                rate=data.rate,
                deposits=data.deposits,
                rules_version=preview.rules_version,
                submission_key=data.submission_key,
                submission_hash=data.submission_hash,
                recorded_by=stored_user(user),
            )
            if team_match is not None:  # first: a team league's own game (its totals)
                players = [s.member.pk for s in data.seats]
                teams.match_link_game(
                    club=club, user=user, match_id=team_match, game=game, players=players
                )
            _write_revision(game, preview, data)
            changes.record(changes.DaysChanged(club.pk, frozenset([day.pk])))
            audit(
                club=club,
                actor=user,
                action="game.create",
                target=f"game:{game.pk}",
                after=game_snapshot(game),
                game=game,
                reason=source,
            )
            _link_to_draw(club, user, game, prefer=draw_table)
            return game
    except IntegrityError:
        # A concurrent request with the same submission key won the race: return its game.
        existing = _game_by_submission(club, data.submission_key)
        if existing is not None:
            return existing
        raise


game_record = as_action(game_record_in)


@dataclass(frozen=True)
class NewPlayers:
    """Players a form adds while saving a game: new guests by seat (the seat's member in the
    GameInput is an unsaved stand-in, primary key -1 - seat, as a preview has it) and inactive
    members brought back. They are kept only together with the game they were added for."""

    guests: Mapping[int, str] = field(default_factory=dict)
    reactivate: Sequence[Member] = ()


def _with_new_players(*, club: Club, user: User, data: GameInput, new: NewPlayers) -> GameInput:
    """Inside the caller's transaction, after the club's lock: create the guests, bring back the
    members, and put the guests in their seats (and chips) in place of the stand-ins."""
    for member in new.reactivate:
        club_services.member_set_active_in(member=member, user=user, active=True)
    made: dict[int, Member] = {}
    for seat, name in new.guests.items():
        try:
            guest = club_services.member_create(club=club, user=user, name=name, is_guest=True)
        except ServiceError as e:
            raise ServiceError(
                {f"players[{seat}].name": [m for ms in e.errors.values() for m in ms]}
            ) from e
        made[-1 - seat] = guest
    if not made:
        return data

    def real(member: Member) -> Member:
        return made.get(member.pk, member) if member.pk is not None else member

    return dataclasses.replace(
        data,
        seats=[dataclasses.replace(s, member=real(s.member)) for s in data.seats],
        chips=[
            dataclasses.replace(
                c, winner=real(c.winner), discarder=c.discarder and real(c.discarder)
            )
            for c in data.chips
        ],
    )


def _saved_with_new_players(
    *, club: Club, user: User, data: GameInput, new: NewPlayers, write: Callable[[GameInput], Game]
) -> Game:
    """One durable transaction: the club's lock, the new players, then the game's write."""
    try:
        with action():
            lock_club(club.pk)  # before the reactivated members' rows: the one lock order
            return write(_with_new_players(club=club, user=user, data=data, new=new))
    except (DuplicateGame, RateDiffers):
        raise
    except ServiceError:
        # A twin of this submission (a double tap) adding the same new guest waited for the
        # other's guest and then found the name taken: the game it was saving is recorded.
        twin = _game_by_submission(club, data.submission_key)
        if twin is None:
            raise
        return twin


def game_save_new(
    *,
    club: Club,
    user: User,
    data: GameInput,
    new: NewPlayers,
    draw_table: int | None = None,
    confirm_duplicate: bool = False,
    confirm_rate: bool = False,
    team_match: int | None = None,
) -> Game:
    """The record form's action: game_record with the players the form adds (NewPlayers)."""
    return _saved_with_new_players(
        club=club,
        user=user,
        data=data,
        new=new,
        write=lambda d: game_record_in(
            club=club,
            user=user,
            data=d,
            draw_table=draw_table,
            confirm_duplicate=confirm_duplicate,
            confirm_rate=confirm_rate,
            team_match=team_match,
        ),
    )


def game_save_edit(
    *,
    game: Game,
    user: User,
    data: GameInput,
    new: NewPlayers,
    expected_revision: int | None = None,
    confirm_duplicate: bool = False,
    confirm_rate: bool = False,
) -> Game:
    """The edit form's action: game_edit with the players the form adds (NewPlayers)."""
    return _saved_with_new_players(
        club=game.club,
        user=user,
        data=data,
        new=new,
        write=lambda d: game_edit_in(
            game=game,
            user=user,
            data=d,
            expected_revision=expected_revision,
            confirm_duplicate=confirm_duplicate,
            confirm_rate=confirm_rate,
        ),
    )


BULK_CHUNK = 1_000


def games_record_bulk(
    *,
    club: Club,
    user: User,
    games: Sequence[tuple[GameInput, Preview]],
    batch: ImportBatch | None = None,
) -> list[Game]:
    """Record many new games at once (an import), each as game_record would: the same rows, the
    same numbering per day, the same "game.create" audit entry. Each preview must be
    game_preview's of its data (the same validation as game_record's); games are numbered in
    the order given. Inserts in chunks in one transaction: all of them or none. No submission
    keys (a bulk is claimed as a whole by its caller). No rate question (check_rate): a
    workbook's rates are the club's record of what was played, several on one day included.
    `batch`: the import the games belong to."""
    if not games:
        return []
    with transaction.atomic():  # a savepoint inside the import's action (plan_apply, import_stored)
        lock_club(club.pk)  # first: one global lock order (league.core.locks.lock_club)
        dates = sorted({data.date for data, _preview in games})
        Day.objects.bulk_create(
            [Day(club=club, date=d) for d in dates], ignore_conflicts=True, batch_size=BULK_CHUNK
        )
        # One writer per day, as in game_record; locked in a fixed order.
        days = {
            d.date: d
            for d in for_update(Day.objects).filter(club=club, date__in=dates).order_by("pk")
        }
        # As game_record: the players locked, none merged into another record meanwhile.
        lock_live_members(
            {s.member.pk for data, _preview in games for s in data.seats}
            | {c.winner.pk for data, _preview in games for c in data.chips}
            | {c.discarder.pk for data, _preview in games for c in data.chips if c.discarder}
        )
        finals = final_tables_of(club=club, dates=dates)  # as game_record checks
        for data, _preview in games:
            problems = final_table_problems(finals, data)
            if problems:
                raise ServiceError(problems)
        numbers = dict(
            Game.objects.filter(day__in=list(days.values()))
            .order_by()
            .values_list("day_id")
            .annotate(n=Max("number"))
        )
        recorder = stored_user(user)
        new_games = []
        for data, preview in games:
            day = days[data.date]
            numbers[day.pk] = numbers.get(day.pk, 0) + 1
            new_games.append(
                Game(
                    club=club,
                    day=day,
                    date=data.date,
                    table=data.table,
                    number=numbers[day.pk],
                    rate=data.rate,
                    deposits=data.deposits,
                    rules_version=preview.rules_version,
                    recorded_by=recorder,
                    import_batch=batch,
                )
            )
        Game.objects.bulk_create(new_games, batch_size=BULK_CHUNK)  # sets the pks
        results: list[ResultRow] = []
        chip_events: list[ChipEvent] = []
        entries = []
        for game, (data, preview) in zip(new_games, games, strict=True):
            game_results, game_chips = _revision_rows(game, preview, data)
            results += game_results
            chip_events += game_chips
            entries.append(
                audit_entry(
                    club=club,
                    actor=user,
                    action="game.create",
                    target=f"game:{game.pk}",
                    after=snapshot_of(game, game_results, game_chips, seat_names(data)),
                    game=game,
                )
            )
        write_results(results)
        ChipEvent.objects.bulk_create(chip_events, batch_size=BULK_CHUNK)
        audit_many(entries)
        added = [r for r in results if r.counted]
        changes.record(changes.ResultsChanged(new_games[0].club_id, added=added))
        changes.record(changes.DaysChanged(club.pk, frozenset(d.pk for d in days.values())))
    return new_games


def _game_by_submission(club: Club, key: uuid.UUID | None) -> Game | None:
    if key is None:
        return None
    return Game.objects.filter(club=club, submission_key=key).first()


def game_check_revision(*, game: Game, expected_revision: int | None) -> None:
    """ServiceError when the game is no longer at the revision the form was opened on: said at
    the preview already, not only when saving."""
    if expected_revision is not None and game.revision != expected_revision:
        raise ServiceError.one(
            NON_FIELD,
            _("Someone else changed this game while you were editing it. Check it and try again."),
        )


def _locked(game: Game, expected_revision: int | None) -> Game:
    """Inside a transaction: the club's row first (lock_club), then the game's, at the revision
    the organiser saw."""
    lock_club(game.club_id)
    # Whether it was recorded hand by hand (league.table) comes with the lock, in the same query.
    by_hands = Exists(TableGame.objects.filter(game=OuterRef("pk")))
    current = for_update(Game.objects).annotate(by_hands=by_hands).get(pk=game.pk)
    game_check_revision(game=current, expected_revision=expected_revision)
    return current


def game_edit_in(
    *,
    game: Game,
    user: User,
    data: GameInput,
    expected_revision: int | None = None,
    confirm_duplicate: bool = False,
    confirm_rate: bool = False,
    from_hands: bool = False,
) -> Game:
    """Inside the caller's action, correct a game: it is re-settled under its own rules version as a new revision. An edit
    of its players or points that makes it repeat another live game of its day raises
    DuplicateGame unless confirmed (a game saved as a confirmed duplicate keeps its table, rate
    and chips editable without asking again); a change of its rate to one the day's other live
    games do not have raises RateDiffers unless `confirm_rate`. A game recorded hand by hand is corrected by its
    hands (league.table, `from_hands`), never by its final points alone."""
    if data.date != game.date:
        raise ServiceError.one("date", _("A game cannot move to another day."))
    with transaction.atomic():  # a savepoint inside the caller's action
        game = _locked(game, expected_revision)
        if game.voided:
            raise ServiceError.one(NON_FIELD, _("A void game cannot be edited."))
        online = False
        if not from_hands and game.by_hands:  # type: ignore[attr-defined]
            online = OnlineLog.objects.filter(game=game).exists()
            if not online:
                raise ServiceError.one(
                    NON_FIELD, _("This game was recorded hand by hand: correct its hands.")
                )
            _online_points_kept(game, data)
        # Settled under the version the game has now (a re-settle may have moved it).
        preview = game_preview(
            club=game.club, data=data, version=game.rules_version, check_date=False
        )
        before = game_snapshot(game)
        if {p["member"] for p in before["players"]} != {s.member.pk for s in data.seats}:
            check_final_table(club=game.club, data=data)  # new players: a final's still hold
        if _result_key((p["member"], p["points"]) for p in before["players"]) != _result_key(
            (s.member.pk, s.points) for s in data.seats
        ):  # players or points changed: the edit may make it repeat another game
            _check_duplicate(game.club, data, confirm_duplicate, exclude=game)
        if data.rate != game.rate:  # a new rate: one the day's other games do not have asks
            check_rate(
                club=game.club, date=game.date, rate=data.rate, confirmed=confirm_rate, exclude=game
            )
        game.revision += 1
        game.table = data.table
        game.rate = data.rate
        game.deposits = data.deposits
        game.save()
        _write_revision(game, preview, data)
        if online:
            _online_hands_follow(game, data)
        changes.record(changes.DaysChanged(game.club_id, frozenset([game.day_id])))
        audit(
            club=game.club,
            actor=user,
            action="game.edit",
            target=f"game:{game.pk}",
            before=before,
            after=game_snapshot(game),
            game=game,
        )
    return game


game_edit = as_action(game_edit_in)


def _online_points_kept(game: Game, data: GameInput) -> None:
    """An online game's points are its log's: an edit may change who played (a name mapped to
    the wrong member), the table, rate or chips, never the points."""
    points = list(
        Result.objects.filter(game=game, revision=game.revision)
        .order_by("seat")
        .values_list("points", flat=True)
    )
    if points != [s.points for s in data.seats] or data.deposits != game.deposits:
        raise ServiceError.one(
            NON_FIELD,
            _("An online game's points come from its log: only its players can be corrected."),
        )


def _online_hands_follow(game: Game, data: GameInput) -> None:
    """The hands kept with an online game follow its edit: written again at the new revision
    with the players as edited (the old rows stay, not live), and so are its hand statistics."""
    tg = TableGame.objects.get(game=game)
    members = [s.member for s in data.seats]
    names = {str(old): str(m.pk) for old, m in zip(tg.seats, members, strict=True)}
    old = list(Hand.objects.filter(table_game=tg, live=True).order_by("index"))
    Hand.objects.filter(pk__in=[h.pk for h in old]).update(live=False)
    Hand.objects.bulk_create(
        [
            Hand(
                table_game=tg,
                index=h.index,
                revision=game.revision,
                key=uuid.uuid4(),
                event=renamed_event(h.event, names),
                marks={names.get(k, k): v for k, v in h.marks.items()},
                round=h.round,
                honba=h.honba,
                sticks=h.sticks,
                dealer=h.dealer,
                deltas=h.deltas,
                scores=h.scores,
                ended=h.ended,
                recorded_by=h.recorded_by,
            )
            for h in old
        ]
    )
    tg.seats = [m.pk for m in members]
    tg.save(update_fields=["seats"])
    old = list(HandStat.objects.filter(game=game, counted=True))
    HandStat.objects.filter(pk__in=[s.pk for s in old]).update(counted=False)
    new = [copy.copy(stat) for stat in old]  # the old rows stay as they were, for the totals
    for stat in new:
        stat.pk = None
        stat.revision = game.revision
        stat.member_id = int(names.get(str(stat.member_id), stat.member_id))
        stat.date = game.date
    HandStat.objects.bulk_create(new)
    changes.record(changes.HandStatsChanged(added=new, removed=old))


def game_void_in(
    *, game: Game, user: User, reason: str, expected_revision: int | None = None
) -> Game:
    """Inside the caller's action, void a game: it stays visible, struck through, and counts
    nowhere."""
    reason = reason.strip()
    if not reason:
        raise ServiceError.one("reason", _("Give a reason for voiding the game."))
    if problems := limits.column_problems(Game, void_reason=reason):
        raise ServiceError({"reason": problems["void_reason"]})
    with transaction.atomic():  # a savepoint inside the caller's action
        game = _locked(game, expected_revision)
        if game.voided:
            raise ServiceError.one(NON_FIELD, _("This game is already void."))
        before = game_snapshot(game)
        game.voided = True
        game.void_reason = reason
        game.save()
        games_uncount_in(club_id=game.club_id, game_ids=[game.pk], day_ids=[game.day_id])
        audit(
            club=game.club,
            actor=user,
            action="game.void",
            target=f"game:{game.pk}",
            before=before,
            after=game_snapshot(game),
            game=game,
            reason=reason,
        )
    return game


game_void = as_action(game_void_in)


def games_uncount_in(*, club_id: int, game_ids: Sequence[int], day_ids: Iterable[int]) -> None:
    """Inside the caller's action (a game's void, an import's), take voided games out of
    everything kept: their results and hand statistics stop counting, the kept totals and
    statistics move back, and their days' books are posted again."""
    removed = list(Result.objects.filter(game_id__in=game_ids, counted=True))
    Result.objects.filter(game_id__in=game_ids, counted=True).update(counted=False)
    changes.record(changes.ResultsChanged(club_id, removed=removed))
    uncounted = list(HandStat.objects.filter(game_id__in=game_ids, counted=True))
    HandStat.objects.filter(pk__in=[s.pk for s in uncounted]).update(counted=False)
    changes.record(changes.HandStatsChanged(removed=uncounted))
    changes.record(changes.DaysChanged(club_id, frozenset(day_ids)))


def game_input_from_stored(game: Game, revision: int | None = None) -> GameInput:
    """A stored game back as input (to edit it or re-settle it)."""
    revision = revision or game.revision
    return _stored_input(
        game,
        [r for r in game.results.all() if r.revision == revision],
        [c for c in game.chip_events.all() if c.revision == revision],
    )


def _stored_input(game: Game, results: Iterable[Result], chips: Iterable[ChipEvent]) -> GameInput:
    """A game's stored rows of one revision (its results in any order, its chip events) as
    the input that settles it."""
    return GameInput(
        date=game.date,
        table=game.table,
        deposits=game.deposits,
        rate=game.rate,
        seats=[_seat_input(r) for r in sorted(results, key=lambda r: r.seat)],
        chips=[ChipInput(c.kind, c.winner, c.discarder, c.multiplier) for c in chips],
    )


def _seat_input(r: Result) -> SeatInput:
    return SeatInput(r.member, r.points, r.chombo, r.busted_by_seat, r.yakitori)


# --- rules versions and re-settling ----------------------------------------------------------


# --- members ---------------------------------------------------------------------------------


# --- seasons, member status, attendance ------------------------------------------------------


def _link_to_draw(
    club: Club, user: User, game: Game, prefer: int | None = None
) -> DrawTable | None:
    """Inside game_record's transaction: the table of the game's day's draw with the game's
    players and no game yet (at its round's latest revision; `prefer` first, then the earliest
    round) becomes the game's, and the game takes the table's name."""
    if DrawTable.objects.filter(game=game).exists():
        return None
    latest = dict(
        DrawRound.objects.filter(day_id=game.day_id)
        .values("number")
        .annotate(top=Max("revision"))
        .values_list("number", "top")
    )
    if not latest:
        return None
    players = set(game.results.filter(revision=game.revision).values_list("member_id", flat=True))
    free = (
        for_update(DrawTable.objects)
        .filter(round__day_id=game.day_id, game=None)
        .select_related("round")
        .order_by("round__number", "position")
    )
    seats: dict[int, set[int]] = {}
    for table_id, member_id in DrawSeat.objects.filter(
        round__day_id=game.day_id, table__isnull=False
    ).values_list("table_id", "member_id"):
        seats.setdefault(table_id, set()).add(member_id)
    matching = [
        t
        for t in free
        if latest.get(t.round.number) == t.round.revision and seats.get(t.pk) == players
    ]
    if not matching:
        return None
    table = next((t for t in matching if t.pk == prefer), matching[0])
    table.game = game
    table.save(update_fields=["game"])
    before = game.table
    if game.table != table.label:
        game.table = table.label
        game.save(update_fields=["table"])
    audit(
        club=club,
        actor=user,
        action="draw.recorded",
        target=f"draw_table:{table.pk}",
        game=game,
        before={"table": before},
        after={"table": table.label, "game": game.pk, "round": table.round.number},
    )
    return table


def table_link_game(*, club: Club, user: User, table_id: int, game: Game) -> DrawTable | None:
    """Mark a drawn table as recorded by `game` (recorded from its card). Nothing happens when
    the table is not the game's day's or its players are not the game's."""
    with action():
        lock_club(club.pk)
        table = (
            for_update(DrawTable.objects)
            .filter(pk=table_id, round__day_id=game.day_id, round__day__club=club, game=None)
            .first()
        )
        if table is None:
            return None
        players = set(DrawSeat.objects.filter(table=table).values_list("member_id", flat=True))
        recorded = set(
            game.results.filter(revision=game.revision).values_list("member_id", flat=True)
        )
        if players != recorded:
            return None
        save_audited(
            table,
            {"game": game},
            club=club,
            actor=user,
            action="draw.recorded",
            target=f"draw_table:{table.pk}",
            game=game,
            after={"table": table.label, "game": game.pk},
        )
    return table
