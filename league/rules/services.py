"""Rules versions and re-settling: a new version takes effect from a date, and an organiser
re-settles the games it governs (a game keeps the version it was settled under until then)."""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import scoring
from league import limits
from league.books import services as books
from league.core.errors import NON_FIELD, ServiceError, problem_message
from league.models import (
    Club,
    Day,
    DayShugi,
    Game,
    Result,
    RulesVersion,
)
from league.models.audit import User, audit, stored_user
from league.models.clubs import lock_club
from league.money import services as money_services
from league.recording.services import (
    Preview,
    _write_revision,
    game_input_from_stored,
    game_preview,
    game_snapshot,
)


def rules_version_create(
    *,
    club: Club,
    user: User,
    effective_from: datetime.date,
    rules_json: object,
    preset: str = "",
    note: str = "",
) -> RulesVersion:
    """A new rules version. Old games keep their settlement until they are re-settled."""
    try:
        rules = scoring.rules_from_json(rules_json)
    except scoring.InputError as e:
        raise ServiceError({"rules_json": [problem_message(p) for p in e.problems]}) from None
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
        version = _rules_version_insert(club, user, effective_from, rules, preset, note)
    except IntegrityError:  # a concurrent organiser took the date first
        raise taken from None
    return version


def _rules_version_insert(
    club: Club,
    user: User,
    effective_from: datetime.date,
    rules: scoring.Rules,
    preset: str,
    note: str,
) -> RulesVersion:
    with transaction.atomic():
        lock_club(club.pk)  # first, as every writer of the club's games and money
        # The days it would govern keep the version their money is settled under now: a
        # back-dated version reaches recorded money only when it is applied (resettle_apply).
        later = (
            RulesVersion.objects.filter(club=club, effective_from__gt=effective_from)
            .order_by("effective_from")
            .values_list("effective_from", flat=True)
            .first()
        )
        money_services.days_keep_versions(club=club, user=user, start=effective_from, end=later)
        version = RulesVersion.objects.create(
            club=club,
            effective_from=effective_from,
            rules_json=rules.to_json(),
            preset=preset,
            note=note,
            created_by=stored_user(user),
        )
        audit(
            club=club,
            actor=user,
            action="rules.create",
            target=f"rules:{version.pk}",
            after={"effective_from": effective_from.isoformat(), "rules": version.rules_json},
        )
    return version


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
        .order_by("date", "number")
    )


def resettle_preview(*, version: RulesVersion) -> list[ResettleChange]:
    """What re-settling the games in `version`'s date range under it would change."""
    changes = []
    for game in _games_governed_by(version):
        data = game_input_from_stored(game)
        before = sorted(
            (r for r in game.results.all() if r.revision == game.revision), key=lambda r: r.seat
        )
        try:
            preview = game_preview(club=game.club, data=data, version=version, check_date=False)
        except ServiceError as e:
            problem = " ".join(m for ms in e.errors.values() for m in ms)
            changes.append(ResettleChange(game, before, None, problem))
            continue
        changes.append(ResettleChange(game, before, preview.result))
    return changes


RESETTLE_CHANGED = gettext_lazy(
    "Someone re-settled or edited these games meanwhile: nothing was changed. Check the preview "
    "again."
)


def resettle_key(changes: Iterable[ResettleChange]) -> str:
    """The games a re-settle preview showed, at their revisions, as a SHA-256 digest (64
    characters however many games): applying checks they still are."""
    listed = ",".join(f"{c.game.pk}:{c.game.revision}" for c in changes)
    return hashlib.sha256(listed.encode()).hexdigest()


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


def _pin_days(version: RulesVersion, user: User) -> None:
    """The days in `version`'s dates whose games are all settled under it now: their day-level
    money (fees, shūgi, yen unit) is settled under it too (Day.rules_version), audited."""
    days = _days_in_dates(version)
    days = days.exclude(rules_version=version).exclude(
        pk__in=Game.objects.filter(club=version.club, voided=False)
        .exclude(rules_version=version)
        .values("day")
    )
    shugi_days = set(
        DayShugi.objects.filter(day__in=days, voided=False).values_list("day", flat=True)
    )
    for day in days.select_for_update().order_by("date"):
        if day.pk in shugi_days and not version.rules.session_shugi:
            continue  # its shūgi could not be settled: the day keeps its rules
        before = day.rules_version_id
        day.rules_version = version
        day.save(update_fields=["rules_version"])
        audit(
            club=version.club,
            actor=user,
            action="day.resettle",
            target=f"day:{day.pk}",
            before={"date": day.date.isoformat(), "rules_version": before},
            after={"date": day.date.isoformat(), "rules_version": version.pk},
        )


def resettle_apply(*, version: RulesVersion, user: User, expected: str | None = None) -> int:
    """Re-settle every game of `version`'s date range under it, and the money of its days;
    returns how many games moved. `expected` is resettle_key() of the preview the organiser
    saw: when a concurrent re-settle or edit changed those games, nothing is stored and the
    loser is told (ServiceError), never a server error."""
    moved = 0
    with transaction.atomic():
        # First, as every writer of the club's games (recording, edits, voids, imports, money):
        # one re-settle at a time, never waiting for a writer that waits for it.
        lock_club(version.club_id)
        changes = resettle_preview(version=version)
        if expected is not None and resettle_key(changes) != expected:
            raise ServiceError.one(NON_FIELD, str(RESETTLE_CHANGED))
        for change in changes:
            if change.after is None:
                continue
            current = Game.objects.select_for_update().get(pk=change.game.pk)
            if current.revision != change.game.revision:  # edited since the preview was read
                raise ServiceError.one(NON_FIELD, str(RESETTLE_CHANGED))
            game = current
            if game.voided:  # voided since the preview: it counts nowhere, leave it be
                continue
            before = game_snapshot(game)
            data = game_input_from_stored(change.game)
            game.revision += 1
            game.rules_version = version
            game.save()
            _write_revision(game, Preview(version, change.after), data)
            audit(
                club=version.club,
                actor=user,
                action="game.resettle",
                target=f"game:{game.pk}",
                before=before,
                after=game_snapshot(game),
                game=game,
            )
            moved += 1
        _pin_days(version, user)
        touched = {c.game.day_id for c in changes if c.after is not None}
        touched |= set(
            Day.objects.filter(club_id=version.club_id, rules_version=version).values_list(
                "pk", flat=True
            )
        )
        books.post(club_id=version.club_id, days=touched)
    return moved


def resettle_count(*, version: RulesVersion) -> int:
    """How many games re-settling under `version` would touch (one query, nothing settled)."""
    return _games_governed_by(version).count()  # type: ignore[attr-defined]


def resettle_day_count(*, version: RulesVersion) -> int:
    """How many days in `version`'s dates keep their money under another version (pinned when it
    was created, money_services.days_keep_versions, or by an earlier re-settle): re-settling
    under `version` would move them (one query)."""
    days = _days_in_dates(version)
    return days.filter(rules_version__isnull=False).exclude(rules_version=version).count()
