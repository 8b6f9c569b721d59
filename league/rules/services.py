"""Rules versions and re-settling: a new version takes effect from a date, and an organiser
re-settles the games it governs (a game keeps the version it was settled under until then)."""

from __future__ import annotations

import datetime
import hashlib
import heapq
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import scoring
from league import limits
from league.books import services as books
from league.core import changes
from league.core.actions import action, as_action
from league.core.errors import NON_FIELD, ServiceError, problem_message
from league.core.locks import WriterGap, for_update, lock_club
from league.jobs import busy_jobs
from league.models import (
    ChipEvent,
    Club,
    Day,
    DayShugi,
    Game,
    Job,
    LedgerEntry,
    Member,
    ResettleRun,
    Result,
    RulesVersion,
    Season,
)
from league.models.audit import User, audit, audit_entry, audit_many, save_audited, stored_user
from league.models.members import lock_live_members
from league.recording.services import (
    BULK_CHUNK,
    GameInput,
    Preview,
    ResultRow,
    _revision_rows,
    game_input_from_stored,
    game_preview,
    names_of,
    seat_names,
    snapshot_of,
    write_results,
)
from scoring import errors as codes
from scoring.hand_options import FIELDS as HAND_OPTION_FIELDS
from scoring.hand_options import HandOptions, default_hand_options, hand_options_from_json


def rules_version_create_in(
    *,
    club: Club,
    user: User,
    effective_from: datetime.date,
    rules_json: object,
    preset: str = "",
    note: str = "",
    hand_options: object = None,
) -> RulesVersion:
    """Inside the caller's action (a new club's, the demo's): a new rules version. Old games keep their settlement until they are re-settled.
    `hand_options` (scoring.hand_options as JSON; a field left out, or None, takes the hand
    preset's value) are kept with it in full."""
    try:
        rules = scoring.rules_from_json(rules_json)
    except scoring.InputError as e:
        raise ServiceError({"rules_json": [problem_message(p) for p in e.problems]}) from None
    options = hand_options_checked(hand_options, preset, rules)
    errors = limits.column_problems(RulesVersion, preset=preset, note=note)
    if problems := limits.rules_problem_messages(rules):
        errors["rules_json"] = problems
    if (late := limits.date_problem(effective_from)) is not None:
        errors["effective_from"] = [late]
    if errors:
        raise ServiceError(errors)
    taken = ServiceError.one(
        "effective_from", _("A rules version already takes effect on this date.")
    )
    if RulesVersion.objects.filter(club=club, effective_from=effective_from).exists():
        raise taken
    try:
        version = _rules_version_insert(club, user, effective_from, rules, preset, note, options)
    except IntegrityError:  # a concurrent organiser took the date first
        raise taken from None
    return version


rules_version_create = as_action(rules_version_create_in)


def _rules_version_insert(
    club: Club,
    user: User,
    effective_from: datetime.date,
    rules: scoring.Rules,
    preset: str,
    note: str,
    options: HandOptions,
) -> RulesVersion:
    with transaction.atomic():  # a savepoint: a clash on the date is said, not raised
        lock_club(club.pk)  # first, as every writer of the club's games and money
        # The days it would govern keep the version their money is settled under now: a
        # back-dated version reaches recorded money only when it is applied (resettle_apply).
        later = (
            RulesVersion.objects.filter(club=club, effective_from__gt=effective_from)
            .order_by("effective_from")
            .values_list("effective_from", flat=True)
            .first()
        )
        days_keep_versions(club=club, user=user, start=effective_from, end=later)
        version = RulesVersion.objects.create(
            club=club,
            effective_from=effective_from,
            rules_json=rules.to_json(),
            preset=preset,
            note=note,
            hand_options_json=options.to_json(),
            created_by=stored_user(user),
        )
        audit(
            club=club,
            actor=user,
            action="rules.create",
            target=f"rules:{version.pk}",
            after={
                "effective_from": effective_from.isoformat(),
                "rules": version.rules_json,
                "hand_options": version.hand_options_json,
            },
        )
    return version


HAND_OPTION_MESSAGES = {
    "kazoe": gettext_lazy("Choose yakuman or sanbaiman."),
    "renhou": gettext_lazy("Choose none, mangan or yakuman."),
    "preset": gettext_lazy("Choose a hand preset for this number of players."),
    "abortive": gettext_lazy("Choose one of the listed choices."),
    "extension": gettext_lazy("Choose one of the listed choices."),
    "extension_target": gettext_lazy("Enter points in hundreds, for example 30,000."),
}


def hand_options_checked(obj: object, preset: str, rules: scoring.Rules) -> HandOptions:
    """The hand options sent, over the preset's, checked alone and then played over the hand
    preset (a draw pot that does not split, an extension a hanchan cannot have …); a
    ServiceError naming each bad field (`hand_kuitan` …, as the rules form names them)."""
    errors: dict[str, list[str]] = {}
    try:
        options = hand_options_from_json(
            obj, default_hand_options(preset, rules.players), rules.players
        )
    except scoring.InputError as e:
        for p in e.problems:
            name = p.field.removeprefix("hand_options").removeprefix(".")
            if not name:
                message = _("The hand options must be an object.")
            elif p.code == codes.UNKNOWN_FIELD:
                message = _("Unknown field.")
            elif p.code == codes.RANGE:
                message = _("Enter a number from %(low)s to %(high)s.") % {
                    "low": f"{p.params['low']:,}",
                    "high": f"{p.params['high']:,}",
                }
                if p.params.get("step", 1) > 1:
                    message += " " + _("In units of %(step)s.") % {"step": p.params["step"]}
            else:
                message = str(HAND_OPTION_MESSAGES.get(name, _("Must be true or false.")))
            errors.setdefault(f"hand_{name}" if name else "hand_options", []).append(message)
        raise ServiceError(errors) from None
    hand_preset = options.hand_preset(preset, rules.players)
    try:
        options.applied(replace(hand_preset.rules, start=rules.start), target=rules.return_points)
    except scoring.InputError as e:
        for p in e.problems:
            name = p.field.split(".", 1)[0]
            if p.field == "extension.target":
                name = "extension_target"
            elif p.field == "chombo.points":
                name = "chombo_points"
            if p.code == codes.INDIVISIBLE and "step" in p.params:
                message = _(
                    "Enter a multiple of %(step)s, so that every tenpai split is in hundreds."
                ) % {"step": f"{p.params['step']:,}"}
            else:
                try:
                    message = problem_message(p)
                except KeyError:
                    message = _("This does not fit the other hand rules.")
            field = f"hand_{name}" if name in HAND_OPTION_FIELDS else "hand_preset"
            errors.setdefault(field, []).append(message)
        raise ServiceError(errors) from None
    return options


@dataclass(frozen=True)
class ResettleChange:
    game: Game
    before: Sequence[Result]
    after: scoring.GameResult | None  # None: the game cannot be settled under the new rules
    problem: str = ""

    @property
    def changed(self) -> bool:
        if self.after is None:
            return False
        old = [(r.rank, r.score, r.chips, r.yen) for r in self.before]
        new = [(p.rank, p.score, p.chips, p.yen) for p in self.after.players]
        return old != new


def _games_governed_by(version: RulesVersion) -> Iterable[Game]:
    later = (
        RulesVersion.objects.filter(club=version.club, effective_from__gt=version.effective_from)
        .order_by("effective_from")
        .values_list("effective_from", flat=True)
        .first()
    )
    games = Game.objects.filter(club=version.club, date__gte=version.effective_from, voided=False)
    if later is not None:
        games = games.filter(date__lt=later)
    if version.pk is not None:  # an unsaved version (the rules form's check) governs none yet
        games = games.exclude(rules_version=version)
    return (
        games.select_related("club", "rules_version")
        .prefetch_related("results__member", "chip_events__winner", "chip_events__discarder")
        .order_by("date", "number", "pk")
    )


def _change(game: Game, version: RulesVersion) -> ResettleChange:
    data = game_input_from_stored(game)
    before = sorted(
        (r for r in game.results.all() if r.revision == game.revision), key=lambda r: r.seat
    )
    try:
        preview = game_preview(club=game.club, data=data, version=version, check_date=False)
    except ServiceError as e:
        problem = " ".join(m for ms in e.errors.values() for m in ms)
        return ResettleChange(game, before, None, problem)
    return ResettleChange(game, before, preview.result)


def resettle_preview(*, version: RulesVersion) -> list[ResettleChange]:
    """What re-settling the games in `version`'s date range under it would change."""
    return [_change(game, version) for game in _games_governed_by(version)]


def resettle_changes(*, version: RulesVersion, chunk: int = 500) -> Iterator[ResettleChange]:
    """resettle_preview's changes one at a time, read `chunk` games at a time (their results
    prefetched per chunk): a summary of years of games in bounded memory."""
    games = _games_governed_by(version)
    yield from (_change(game, version) for game in games.iterator(chunk_size=chunk))  # type: ignore[attr-defined]


RESETTLE_CHANGED = gettext_lazy(
    "Someone re-settled or edited these games meanwhile: nothing was changed. Check the preview "
    "again."
)


def resettle_key(changes: Iterable[ResettleChange]) -> str:
    """The games a re-settle preview showed, at their revisions, as a SHA-256 digest (64
    characters however many games): applying checks they still are."""
    return _key((c.game.pk, c.game.revision) for c in changes)


def _key(games: Iterable[tuple[int, int]]) -> str:
    listed = ",".join(f"{pk}:{revision}" for pk, revision in games)
    return hashlib.sha256(listed.encode()).hexdigest()


def resettle_key_now(*, version: RulesVersion) -> str:
    """resettle_key of the games `version` would re-settle now, from one query of their ids and
    revisions (nothing settled): what a confirmation compares with the preview's."""
    games = _games_governed_by(version).prefetch_related(None)  # type: ignore[attr-defined]
    return _key(games.values_list("pk", "revision").iterator(chunk_size=5_000))


def _days_in_dates(version: RulesVersion) -> QuerySet[Day]:
    """The club's days from `version`'s first date up to the next version's (one query finds it)."""
    later = (
        RulesVersion.objects.filter(club=version.club, effective_from__gt=version.effective_from)
        .order_by("effective_from")
        .values_list("effective_from", flat=True)
        .first()
    )
    days = Day.objects.filter(club=version.club, date__gte=version.effective_from)
    if later is not None:
        days = days.filter(date__lt=later)
    return days


def days_keep_versions(
    *, club: Club, user: User, start: datetime.date, end: datetime.date | None
) -> int:
    """Before a rules version governing [start, end) is stored, inside the transaction that
    stores it and holding the club's lock (lock_club): every day in those dates whose money
    has no version of its own (Day.rules_version) gets the one day_version settles it under now,
    whatever it holds (counted games, shūgi, attendance, ledger entries); audited as
    `day.rules_kept`. So a back-dated version moves no recorded money, paid or not, even when
    the day's only game is voided later: the version reaches a day only when it is applied
    (resettle_apply), after its preview showed the day. Days holding nothing (a voided game
    alone) are left to follow the games recorded on them. Returns how many days were pinned.

    The same choice as books.day_version, without loading the results: a game that is not void
    counts its current revision."""
    days = Day.objects.filter(club=club, date__gte=start, rules_version__isnull=True)
    if end is not None:
        days = days.filter(date__lt=end)
    first_game: dict[int, int] = {}
    games = Game.objects.filter(day__in=days, voided=False).order_by("day_id", "number")
    for day_id, version_id in games.values_list("day_id", "rules_version_id").iterator():
        first_game.setdefault(day_id, version_id)
    holding = set(first_game)
    holding |= set(
        DayShugi.objects.filter(day__in=days, voided=False).values_list("day_id", flat=True)
    )
    holding |= set(
        Day.attendees.through.objects.filter(day__in=days).values_list("day_id", flat=True)
    )
    holding |= set(LedgerEntry.objects.filter(day__in=days).values_list("day_id", flat=True))
    versions = books.club_versions(club.pk)
    pinned = 0
    for day in for_update(days.filter(pk__in=holding)).order_by("date"):
        version = books.version_on(versions, day.date)
        version_id = first_game.get(day.pk) or (version.pk if version is not None else None)
        if version_id is None:  # no rules at all on its date: the day has no money to keep
            continue
        day.rules_version_id = version_id
        day.save(update_fields=["rules_version"])
        audit(
            club=club,
            actor=user,
            action="day.rules_kept",
            target=f"day:{day.pk}",
            before={"date": day.date.isoformat(), "rules_version": None},
            after={"date": day.date.isoformat(), "rules_version": version_id},
        )
        pinned += 1
    return pinned


def _pin_days(
    version: RulesVersion, user: User, dates: Sequence[datetime.date] | None = None
) -> set[int]:
    """The days in `version`'s dates (of `dates` only, when given: a step's day) whose games are
    all settled under it now: their day-level money (fees, shūgi, yen unit) is settled under it
    too (Day.rules_version), audited. Returns the days it moved."""
    days = _days_in_dates(version)
    others = Game.objects.filter(club=version.club, voided=False)
    if dates is not None:  # a step's day: its rows alone, not the club's whole history
        days = days.filter(date__in=dates)
        others = others.filter(date__in=dates)
    days = days.exclude(rules_version=version).exclude(
        pk__in=others.exclude(rules_version=version).values("day")
    )
    shugi_days = set(
        DayShugi.objects.filter(day__in=days, voided=False).values_list("day", flat=True)
    )
    moved: set[int] = set()
    for day in for_update(days).order_by("date"):
        if day.pk in shugi_days and not version.rules.session_shugi:
            continue  # its shūgi could not be settled: the day keeps its rules
        moved.add(day.pk)
        save_audited(
            day,
            {"rules_version": version},
            club=version.club,
            actor=user,
            action="day.resettle",
            target=f"day:{day.pk}",
            before={"date": day.date.isoformat(), "rules_version": day.rules_version_id},
            after={"date": day.date.isoformat(), "rules_version": version.pk},
        )
    return moved


@dataclass
class ResettleProgress:
    """How far resettle_apply has got: games looked at, moved and left (cannot be settled)."""

    total: int = 0
    done: int = 0
    moved: int = 0
    failed: int = 0


def _resettle_steps(version: RulesVersion) -> list[datetime.date]:
    """The dates of the games `version` would re-settle, in order: a transaction each, whatever
    the day's number of games. One query."""
    return list(
        _games_governed_by(version)  # type: ignore[attr-defined]
        .order_by()
        .values_list("date", flat=True)
        .distinct()
        .order_by("date")
    )


def resettle_apply(
    *,
    version: RulesVersion,
    user: User,
    expected: str | None = None,
    progress: Callable[[ResettleProgress], None] | None = None,
) -> int:
    """Re-settle every game of `version`'s date range under it, and the money of its days;
    returns how many games moved. `expected` is resettle_key() of the preview the organiser
    saw: when a concurrent re-settle or edit changed those games, nothing is stored and the
    loser is told (ServiceError), never a server error.

    In short transactions of a day each (_resettle_steps): each is one action taking the club's
    lock first (as every writer of its games, so it cannot deadlock with recording or edits),
    then its day's games', which are settled by the engine and move as new revisions under the
    rules in bulk (_resettle_batch: a few statements whatever its size), each audited; a day
    whose games have all moved moves its money (Day.rules_version) in the same action, and the
    kept totals and the day's books move once a step. The club's lock is held for one day's
    step, never for the whole re-settle: a game recorded at the table meanwhile waits for one
    day's transaction at most. A stop between steps leaves every day either moved or as it was,
    under its own rules version; applying again carries on with the rest. `progress` is called
    inside each step's transaction, so that what it writes (the job's counts) commits with the
    step's games, and never runs ahead of them."""
    state = ResettleProgress(total=resettle_count(version=version))
    if expected is not None and resettle_key_now(version=version) != expected:
        raise ServiceError.one(NON_FIELD, str(RESETTLE_CHANGED))
    # The first step also pins the days without a game to move (attendance or shūgi alone, a
    # voided game): with no game at all, it is the only step.
    steps: list[datetime.date | None] = [*_resettle_steps(version)] or [None]
    gap = WriterGap()
    for n, date in enumerate(steps):
        dates = [] if date is None else [date]
        if n:
            gap()  # on SQLite, a game recorded meanwhile gets the write lock (WriterGap)
        with action():  # one short transaction a step, durable
            # First, as every writer of the club's games (recording, edits, voids, imports,
            # money): never waiting for a writer that waits for it.
            lock_club(version.club_id)
            # The step's day read again under the lock: a game recorded on it since the steps
            # were cut moves with it.
            games = list(_games_governed_by(version).filter(date__in=dates))  # type: ignore[attr-defined]
            # The kept totals, the head-to-head rows and the rating move once a step, not once
            # a game, as the step's action ends (league.core.changes).
            moved = _resettle_batch(games, version, user, state)
            # A later step pins the day's own rows alone, not the club's whole history.
            pinned = _pin_days(version, user, dates if n else None)
            # The books of the step's days, and of days that moved without a game of it.
            days = frozenset({g.day_id for g in moved} | pinned)
            changes.record(changes.DaysChanged(version.club_id, days))
            if progress is not None:  # committed with the step: progress is the committed data
                state.total = max(state.total, state.done)
                progress(state)
    return state.moved


def _resettle_batch(
    games: list[Game],
    version: RulesVersion,
    user: User,
    state: ResettleProgress,
) -> list[Game]:
    """Inside a step's transaction, under the club's lock: `games` (read with their rows by
    _games_governed_by) locked, settled under `version` by the engine, and the ones it can
    settle written as new revisions in bulk: the games, their rows, their kept totals and
    their audit entries ("game.resettle", one per game) in a few statements whatever the
    step's size. Returns the games looked at (moved or not), in order."""
    if not games:
        return []
    ids = [g.pk for g in games]
    # The step's games locked, in id order (as an edit locks one); one edited or voided since
    # the step read it (it waited for our lock) is read again.
    locked = {
        pk: (revision, voided)
        for pk, revision, voided in for_update(Game.objects)
        .filter(pk__in=ids)
        .order_by("pk")
        .values_list("pk", "revision", "voided")
    }
    stale = {g.pk for g in games if locked.get(g.pk) != (g.revision, False)}
    fresh: dict[int, Game] = {}
    if stale:
        fresh = {g.pk: g for g in _games_governed_by(version).filter(pk__in=stale)}  # type: ignore[attr-defined]
    looked: list[Game] = []
    settled: list[tuple[Game, ResettleChange, GameInput]] = []
    for game in games:
        looked.append(game)
        state.done += 1
        current = fresh.get(game.pk) if game.pk in stale else game
        if current is not None:
            change = _change(current, version)
            if change.after is None:
                state.failed += 1
            else:
                settled.append((current, change, game_input_from_stored(current)))
    if not settled:
        return looked
    _write_resettled(settled, version, user)
    state.moved += len(settled)
    return looked


def _write_resettled(
    settled: Sequence[tuple[Game, ResettleChange, GameInput]], version: RulesVersion, user: User
) -> None:
    """The settled games as new revisions, as recording's _write_revision writes one, in bulk."""
    lock_live_members(
        {s.member.pk for _g, _c, data in settled for s in data.seats}
        | {c.winner.pk for _g, _c, data in settled for c in data.chips}
        | {c.discarder.pk for _g, _c, data in settled for c in data.chips if c.discarder}
    )
    ids = [game.pk for game, _c, _d in settled]
    removed = list(Result.objects.filter(game_id__in=ids, counted=True))
    Result.objects.filter(game_id__in=ids, counted=True).update(counted=False)
    befores = []
    now = timezone.now()
    for game, _change, _data in settled:
        current = sorted(
            (r for r in game.results.all() if r.revision == game.revision), key=lambda r: r.seat
        )
        befores.append(
            snapshot_of(
                game,
                current,
                [c for c in game.chip_events.all() if c.revision == game.revision],
                names_of(current),
            )
        )
        game.revision += 1
        game.rules_version = version
        game.updated_at = now
    # Every game moves one revision on, to the same version at the same time: one UPDATE (the
    # games are locked at the revisions read), not bulk_update's CASE per game and field.
    for start in range(0, len(ids), BULK_CHUNK):
        Game.objects.filter(pk__in=ids[start : start + BULK_CHUNK]).update(
            revision=F("revision") + 1, rules_version=version, updated_at=now
        )
    results: list[ResultRow] = []
    chips: list[ChipEvent] = []
    entries = []
    for (game, change, data), before in zip(settled, befores, strict=True):
        assert change.after is not None
        game_results, game_chips = _revision_rows(game, Preview(version, change.after), data)
        results += game_results
        chips += game_chips
        entries.append(
            audit_entry(
                club=version.club,
                actor=user,
                action="game.resettle",
                target=f"game:{game.pk}",
                before=before,
                after=snapshot_of(game, game_results, game_chips, seat_names(data)),
                game=game,
            )
        )
    write_results(results)
    ChipEvent.objects.bulk_create(chips, batch_size=BULK_CHUNK)
    added = [r for r in results if r.counted]
    changes.record(changes.ResultsChanged(version.club_id, removed, added))
    audit_many(entries)


def resettle_count(*, version: RulesVersion) -> int:
    """How many games re-settling under `version` would touch (one query, nothing settled)."""
    return _games_governed_by(version).count()  # type: ignore[attr-defined]


def resettle_day_count(*, version: RulesVersion) -> int:
    """How many days in `version`'s dates keep their money under another version (pinned when it
    was created, days_keep_versions, or by an earlier re-settle): re-settling
    under `version` would move them (one query)."""
    days = _days_in_dates(version)
    return days.filter(rules_version__isnull=False).exclude(rules_version=version).count()


# --- the re-settle's summarised preview --------------------------------------------------------


@dataclass
class ResettleLine:
    """Counts and totals of a season's or a day's games under the new rules (score in tenths,
    summed over players as the absolute change)."""

    label: str
    date: datetime.date | None = None
    games: int = 0
    changing: int = 0
    failing: int = 0
    score_moved: int = 0
    yen_moved: int = 0

    def add(self, change: ResettleChange, score: int, yen: int) -> None:
        self.games += 1
        self.changing += change.changed
        self.failing += change.after is None
        self.score_moved += score
        self.yen_moved += yen


@dataclass(frozen=True)
class ResettleMove:
    """One of the largest movements: a player's score in a game, before and after."""

    game: Game
    name: str
    score_before: int
    score_after: int
    yen_before: int | None
    yen_after: int | None

    @property
    def score_change(self) -> int:
        return self.score_after - self.score_before


@dataclass(frozen=True)
class _Moved:
    """What resettle_days reads of a change: the game's pk and its new result."""

    game: Any
    after: scoring.GameResult | None


@dataclass
class ResettleSummary:
    """What re-settling under a version would change, summed up: counts and totals per season
    and per day that moves, the largest movements, the games that cannot be settled."""

    key: str = ""  # resettle_key of every game, for the confirmation
    games: int = 0
    changing: int = 0
    failing: int = 0
    seasons: list[ResettleLine] = field(default_factory=list)
    days: list[ResettleLine] = field(default_factory=list)  # the days with a change or a failure
    largest: list[ResettleMove] = field(default_factory=list)
    failures: list[ResettleChange] = field(default_factory=list)
    moved: list[_Moved] = field(default_factory=list)  # for the day money (resettle_days)


LARGEST = 10
SHOWN_FAILURES = 20


def resettle_summary(*, version: RulesVersion) -> ResettleSummary:
    """The summary of re-settling under `version`: every game settled, a chunk of games at a
    time, and only counts, the LARGEST movements and the first failures kept."""
    summary = ResettleSummary()
    seasons = list(Season.objects.filter(club=version.club).order_by("start"))
    by_season = {s.pk: ResettleLine(s.name) for s in seasons}
    by_day: dict[datetime.date, ResettleLine] = {}
    listed: list[tuple[int, int]] = []
    largest: list[tuple[int, int, ResettleMove]] = []  # a heap of (|change|, order, move)
    order = itertools.count()
    for change in resettle_changes(version=version):
        game = change.game
        listed.append((game.pk, game.revision))
        score = yen = 0
        if change.after is not None:
            for before, after in zip(change.before, change.after.players, strict=False):
                score += abs(after.score - before.score)
                yen += abs((after.yen or 0) - (before.yen or 0))
                if after.score != before.score:
                    move = ResettleMove(
                        game, before.member.name, before.score, after.score, before.yen, after.yen
                    )
                    item = (abs(move.score_change), -next(order), move)
                    if len(largest) < LARGEST:
                        heapq.heappush(largest, item)
                    elif item[:2] > largest[0][:2]:
                        heapq.heapreplace(largest, item)
            if change.changed:
                summary.moved.append(_Moved(_Pk(game.pk), change.after))
        elif len(summary.failures) < SHOWN_FAILURES:
            summary.failures.append(change)
        summary.games += 1
        summary.changing += change.changed
        summary.failing += change.after is None
        day = by_day.setdefault(game.date, ResettleLine(f"{game.date:%Y/%m/%d}", game.date))
        day.add(change, score, yen)
        for season in seasons:
            if season.start <= game.date <= season.end:
                by_season[season.pk].add(change, score, yen)
    summary.key = _key(listed)
    summary.seasons = [line for line in by_season.values() if line.games]
    summary.days = [line for line in by_day.values() if line.changing or line.failing]
    summary.largest = [move for _size, _order, move in sorted(largest, reverse=True)]
    return summary


@dataclass(frozen=True)
class _Pk:
    pk: int


# --- a re-settle's day money ----------------------------------------------------------------


@dataclass(frozen=True)
class ResettleDay:
    """A day's money now and after a re-settle under another rules version (nothing stored): the
    preview settles both from the day's records, as posting it would.

    With entries recorded (payments, debts), a change is not applied to them: the difference
    shows up as new open transfers of the day, to be settled or closed like any other."""

    day: Day
    members: dict[int, Member]
    has_entries: bool
    now: scoring.DayResult
    after: scoring.DayResult | None  # None: the day cannot be settled under the new rules
    problem: str = ""

    def rows(self) -> list[tuple[Member, int, int]]:
        """(member, day total now, after) for every player of the day."""
        before = {int(p.name): p.yen for p in self.now.players}
        after = {int(p.name): p.yen for p in self.after.players} if self.after else {}
        return [
            (self.members[pk], before.get(pk, 0), after.get(pk, before.get(pk, 0)))
            for pk in dict.fromkeys([*before, *after])
        ]

    @property
    def house_after(self) -> int:
        return self.after.house if self.after else self.now.house

    @property
    def changed(self) -> bool:
        if self.after is None:
            return False
        return any(now != new for _m, now, new in self.rows()) or (
            self.house_after != self.now.house
        )


def resettle_days(*, version: RulesVersion, changes: Sequence[Any]) -> list[ResettleDay]:
    """The day-level money (fees, shūgi, yen unit and the games' yen) a re-settle under
    `version` would change, day by day, in a constant number of queries. `changes` are
    resettle_summary's `moved`."""
    club = version.club
    days = books.days_loaded(_days_in_dates(version).exclude(rules_version=version))
    versions = books.club_versions(club.pk)
    with_entries = set(
        LedgerEntry.objects.filter(day__in=[d.day.pk for d in days]).values_list(
            "day_id", flat=True
        )
    )
    members = {m.pk: m for m in Member.objects.filter(club=club)}
    moved = {c.game.pk: c.after for c in changes if c.after is not None}
    out = []
    for inputs in days:
        day = inputs.day
        now = books.settle(inputs, versions)
        try:
            after = books.settle_under(inputs, version.rules, moved)
        except scoring.InputError as e:
            problem = "; ".join(p.message for p in e.problems)
            out.append(ResettleDay(day, members, day.pk in with_entries, now, None, problem))
            continue
        item = ResettleDay(day, members, day.pk in with_entries, now, after)
        if item.changed:
            out.append(item)
    return out


def resettle_running(*, club_id: int) -> ResettleRun | None:
    """The club's re-settle waiting for a worker or running (not stopped), if any: one query of
    its recent jobs and one of their task results."""
    busy = busy_jobs(Job.objects.filter(club_id=club_id, kind=Job.RESETTLE))
    if not busy:
        return None
    return ResettleRun.objects.select_related("version", "job").filter(job=busy[0].job).first()


def resettle_queue(*, version: RulesVersion, user: User) -> ResettleRun:
    """A re-settle under `version` confirmed by its organiser, for a worker to run
    (league.rules.tasks.resettle_run), with its job; audited as who asked for it, and when. One
    re-settle of a club at a time: while one waits or runs, it is the one returned."""
    with transaction.atomic():  # a savepoint inside the caller's action (resettle_start)
        lock_club(version.club_id)
        running = resettle_running(club_id=version.club_id)
        if running is not None:
            return running
        games = resettle_count(version=version)
        job = Job.objects.create(
            club=version.club, user=stored_user(user), kind=Job.RESETTLE, total=games
        )
        run = ResettleRun.objects.create(
            club=version.club, version=version, user=stored_user(user), job=job
        )
        audit(
            club=version.club,
            actor=user,
            action="rules.resettle",
            target=f"rules:{version.pk}",
            after={"games": games, "run": run.pk},
        )
    return run
