"""/api/clubs/<slug>/games: a game read, recorded (with an Idempotency-Key), replaced, patched or
voided, through the same services as the record form."""

from __future__ import annotations

import datetime
import hashlib
import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Annotated, Any

from django.db.models import Q
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _
from ninja import Header, Status
from ninja.errors import HttpError

import scoring
from league.api.auth import api_club, api_is_organiser, api_user, idempotency_scope
from league.api.base import (
    CHOOSE_PLAYER,
    GAME_CHANGED,
    GAME_VOID,
    IDEMPOTENCY_NAMESPACE,
    KEY_REUSED,
    NOT_AT_TABLE,
    READ,
    WRITE,
    ApiErrors,
    GameId,
    Slug,
    api,
)
from league.api.schemas import (
    ChipIn,
    GameEditIn,
    GameIn,
    GameOut,
    GamePatchIn,
    PlayerIn,
    VoidIn,
    _game_detail,
)
from league.club.directory import NO_SUCH_MEMBER, AmbiguousMember, MemberDirectory
from league.core.errors import NON_FIELD, ServiceError
from league.models import Club, Day, Game, Member, RulesVersion
from league.models import draw as draw_selectors
from league.recording import services
from league.recording.forms import BAD_NUMBER
from league.recording.services import ChipInput, GameInput, SeatInput


@api.get("/clubs/{slug}/games/{game_id}", response={200: GameOut, **READ})
def game_detail(request: HttpRequest, slug: Slug, game_id: GameId) -> dict[str, Any]:
    club = api_club(request, slug)
    if not api_is_organiser(request, club):  # a round held back (issue 42): as no game yet
        day = Game.objects.filter(club=club, pk=game_id).values_list("day", flat=True).first()
        if game_id in draw_selectors.held_games(Day(pk=day) if day else None):
            raise HttpError(404, _("No such game."))
    return _game_detail(club, game_id)


@api.post("/clubs/{slug}/games", response={200: GameOut, 201: GameOut, **WRITE})
def game_record(
    request: HttpRequest,
    slug: Slug,
    data: GameIn,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            max_length=200,
            description="The same key twice from the same token records one game: "
            "the second answer is that game with 200 instead of 201.",
        ),
    ] = None,
) -> Status[dict[str, Any]]:
    club = api_club(request, slug, organiser=True)
    key = _submission_key(idempotency_scope(request), idempotency_key)
    digest = _body_digest(data) if key is not None else ""
    if key is not None:
        existing = Game.objects.filter(club=club, submission_key=key).values(
            "pk", "submission_hash"
        )
        if existing:
            return Status(
                200, _replayed(club, existing[0]["pk"], existing[0]["submission_hash"], digest)
            )
    rate = data.rate if data.rate is not None else _default_rate(club, data.date, data.table)
    members = _Members(Member.objects.filter(club=club, is_active=True))
    game_input = _game_input(
        members,
        data.players,
        data.chips,
        date=data.date,
        table=data.table,
        rate=rate,
        deposits=data.deposits,
        key=key,
        digest=digest,
    )
    with _service_errors(data.players, club):
        game = services.game_record(
            club=club,
            user=api_user(request),
            data=game_input,
            confirm_duplicate=data.confirm_duplicate,
            confirm_rate=data.confirm_rate,
        )
    if game.submission_hash != digest:  # a concurrent request with the same key won the race
        return Status(200, _replayed(club, game.pk, game.submission_hash, digest))
    return Status(201, _game_detail(club, game.pk))


def _body_digest(data: GameIn) -> str:
    """SHA-256 of the body as parsed (key order and spacing do not matter), kept with the key."""
    # confirm_duplicate and confirm_rate answer a 409: the same game sent again with them is the
    # same body.
    body = data.model_dump(
        by_alias=True, mode="json", exclude={"confirm_duplicate", "confirm_rate"}
    )
    canonical = json.dumps(body, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _replayed(club: Club, game_id: int, stored: str, digest: str) -> dict[str, Any]:
    """The game recorded under an Idempotency-Key, if this body is the one it was recorded with.

    Games recorded before bodies were hashed have no digest: they are replayed as before.
    """
    if stored and stored != digest:
        raise ApiErrors(422, {"Idempotency-Key": [str(KEY_REUSED)]})
    return _game_detail(club, game_id)


@api.put("/clubs/{slug}/games/{game_id}", response={200: GameOut, **WRITE})
def game_replace(
    request: HttpRequest, slug: Slug, game_id: GameId, data: GameEditIn
) -> dict[str, Any]:
    """Correct a game with all of it: fields left out take their defaults, as when recording."""
    club, game = _game_to_change(request, slug, game_id, data.revision)
    rate = data.rate if data.rate is not None else _default_rate(club, game.date, data.table, game)
    members = _Members(_members_for_edit(club, game))
    game_input = _game_input(
        members,
        data.players,
        data.chips,
        date=data.date or game.date,
        table=data.table,
        rate=rate,
        deposits=data.deposits,
    )
    return _edit(request, club, game, game_input, data.revision, data.players, data)


@api.patch("/clubs/{slug}/games/{game_id}", response={200: GameOut, **WRITE})
def game_update(
    request: HttpRequest, slug: Slug, game_id: GameId, data: GamePatchIn
) -> dict[str, Any]:
    """Correct part of a game: fields left out keep their stored values."""
    club, game = _game_to_change(request, slug, game_id, data.revision)
    stored = services.game_input_from_stored(game)
    members = _Members(_members_for_edit(club, game))
    seats = _seats(members, data.players) if data.players is not None else list(stored.seats)
    chips = _chip_inputs(data.chips, seats) if data.chips is not None else list(stored.chips)
    deposits = stored.deposits if data.deposits is None else _integer("deposits", data.deposits)
    game_input = GameInput(
        date=game.date,
        seats=seats,
        table=(stored.table if data.table is None else data.table).strip(),
        deposits=deposits,
        rate=stored.rate if data.rate is None else data.rate,
        chips=chips,
    )
    return _edit(request, club, game, game_input, data.revision, data.players, data)


@api.post("/clubs/{slug}/games/{game_id}/void", response={200: GameOut, **WRITE})
def game_void(request: HttpRequest, slug: Slug, game_id: GameId, data: VoidIn) -> dict[str, Any]:
    """Void a game: it stays, marked void, and counts nowhere. `revision` guards like an edit."""
    club, game = _game_to_change(request, slug, game_id, data.revision)
    try:
        services.game_void(
            game=game, user=api_user(request), reason=data.reason, expected_revision=data.revision
        )
    except ServiceError as e:
        raise _conflict_or_invalid(e, game, None) from None
    return _game_detail(club, game.pk)


class _Members:
    """The members a request may seat, found as the form finds them: by id, name or reading."""

    def __init__(self, members: Iterable[Member]):
        self.directory = MemberDirectory(members)

    def find(self, player: PlayerIn) -> tuple[Member | None, str | None]:
        """(member, None) or (None, why not). Another club's id is "no such member" too."""
        if player.member_id is not None:
            member = self.directory.by_id.get(player.member_id)
            return (member, None) if member else (None, str(NO_SUCH_MEMBER))
        if not player.name or not player.name.strip():
            return None, str(CHOOSE_PLAYER)
        try:
            member = self.directory.find(player.name)
        except AmbiguousMember as e:
            return None, e.message
        if member is None:
            return None, self.directory.unknown_message(player.name)
        return member, None


def _player_field(i: int, player: PlayerIn | None) -> str:
    """Where a player's identity problem belongs: the field the request used."""
    if player is not None and player.member_id is None and player.name is not None:
        return f"players[{i}].name"
    return f"players[{i}].member_id"


def _integer(field_name: str, value: int | str | None) -> int:
    """An integer, or a string as people type it, through the form's parser; blank is 0."""
    if value is None or isinstance(value, int):
        return value or 0
    if not value.strip():
        return 0
    try:
        return scoring.parse_integer(value)
    except ValueError:
        raise ApiErrors(422, {field_name: [str(BAD_NUMBER)]}) from None


def _seats(members: _Members, players: Sequence[PlayerIn]) -> list[SeatInput]:
    errors: dict[str, list[str]] = {}
    seats = []
    for i, player in enumerate(players):
        member, problem = members.find(player)
        if problem:
            errors[_player_field(i, player)] = [problem]
        try:
            points = _integer(f"players[{i}].points", player.points)
        except ApiErrors as e:
            errors.update(e.errors)
            continue
        if member is not None:
            seats.append(
                SeatInput(member, points, player.chombo, player.busted_by, player.yakitori)
            )
    if errors:
        raise ApiErrors(422, errors)
    return seats


def _chip_inputs(chips: Sequence[ChipIn], seats: Sequence[SeatInput]) -> list[ChipInput]:
    seated = _Members(s.member for s in seats)
    errors: dict[str, list[str]] = {}
    out = []
    for j, chip in enumerate(chips):
        winner = _seated(seated, chip.winner)
        discarder = _seated(seated, chip.from_) if chip.from_ is not None else None
        if winner is None:
            errors[f"chips[{j}].winner"] = [str(NOT_AT_TABLE)]
        if chip.from_ is not None and discarder is None:
            errors[f"chips[{j}].from"] = [str(NOT_AT_TABLE)]
        if winner is not None and (chip.from_ is None or discarder is not None):
            out.append(ChipInput(chip.kind, winner, discarder, chip.multiplier))
    if errors:
        raise ApiErrors(422, errors)
    return out


def _seated(seated: _Members, ref: int | str) -> Member | None:
    if isinstance(ref, int):
        return seated.directory.by_id.get(ref)
    member, _problem = seated.find(PlayerIn(name=ref, points=0))
    return member


def _game_input(
    members: _Members,
    players: Sequence[PlayerIn],
    chips: Sequence[ChipIn],
    *,
    date: datetime.date,
    table: str,
    rate: str,
    deposits: int | str | None,
    key: uuid.UUID | None = None,
    digest: str = "",
) -> GameInput:
    errors: dict[str, list[str]] = {}
    seats: list[SeatInput] = []
    chip_inputs: list[ChipInput] = []
    amount = 0
    try:
        seats = _seats(members, players)
        chip_inputs = _chip_inputs(chips, seats)
    except ApiErrors as e:
        errors.update(e.errors)
    try:
        amount = _integer("deposits", deposits)
    except ApiErrors as e:
        errors.update(e.errors)
    if errors:
        raise ApiErrors(422, errors)
    return GameInput(
        date=date,
        seats=seats,
        table=table.strip(),
        deposits=amount,
        rate=rate,
        chips=chip_inputs,
        submission_key=key,
        submission_hash=digest,
    )


def _first_rate(rules: scoring.Rules) -> str:
    """The form's initial rate: the rules' first tier, or none when the club plays for no money."""
    return next(iter(rules.rates), "")


def _default_rate(
    club: Club, date: datetime.date, table: str = "", game: Game | None = None
) -> str:
    """The rate of a game sent without one: the evening's, as the form starts a new game
    (services.evening_rate; on a correction, of the day's other games), else the rules' first."""
    evening = services.evening_rate(club=club, date=date, table=table or None, exclude=game)
    if evening is not None:
        return evening
    if game is not None:
        return _first_rate(game.rules_version.rules)
    version = RulesVersion.in_force(club, date)
    return _first_rate(version.rules) if version is not None else ""


def _submission_key(scope: str, key: str | None) -> uuid.UUID | None:
    if key is None or not key.strip():
        return None
    return uuid.uuid5(IDEMPOTENCY_NAMESPACE, f"{scope}:{key}")


def _members_for_edit(club: Club, game: Game) -> list[Member]:
    """As on the edit form: the active members, and whoever already sits at this game."""
    seated = [r.member_id for r in game.results.all() if r.revision == game.revision]
    return list(Member.objects.filter(Q(is_active=True) | Q(pk__in=seated), club=club))


def _game_to_change(
    request: HttpRequest, slug: str, game_id: int, revision: int | None
) -> tuple[Club, Game]:
    """The organiser's club and its game, checked to be unchanged since `revision` and not void."""
    club = api_club(request, slug, organiser=True)
    game = (
        Game.objects.filter(club=club, pk=game_id)
        .select_related("rules_version")
        .prefetch_related("results__member", "chip_events__winner", "chip_events__discarder")
        .first()
    )
    if game is None:
        raise HttpError(404, _("No such game."))
    game.club = club  # the services read game.club; this saves a query
    if revision is not None and revision != game.revision:
        raise ApiErrors(409, {"revision": [GAME_CHANGED % {"revision": game.revision}]})
    if game.voided:
        raise ApiErrors(409, {NON_FIELD: [str(GAME_VOID)]})
    return club, game


def _edit(
    request: HttpRequest,
    club: Club,
    game: Game,
    data: GameInput,
    revision: int,
    players: Sequence[PlayerIn] | None,
    confirms: GameEditIn | GamePatchIn,
) -> dict[str, Any]:
    try:
        services.game_edit(
            game=game,
            user=api_user(request),
            data=data,
            expected_revision=revision,
            confirm_duplicate=confirms.confirm_duplicate,
            confirm_rate=confirms.confirm_rate,
        )
    except services.DuplicateGame as e:
        raise _duplicate(club, e) from None
    except services.RateDiffers as e:
        raise rate_conflict(e) from None
    except ServiceError as e:
        raise _conflict_or_invalid(e, game, players) from None
    return _game_detail(club, game.pk)


def _conflict_or_invalid(
    error: ServiceError, game: Game, players: Sequence[PlayerIn] | None
) -> ApiErrors:
    """409 when the game changed between our check and the service's lock, else 422."""
    now = Game.objects.filter(pk=game.pk).values("revision", "voided").get()
    if now["revision"] != game.revision:
        return ApiErrors(409, {"revision": [GAME_CHANGED % {"revision": now["revision"]}]})
    if now["voided"]:
        return ApiErrors(409, {NON_FIELD: [str(GAME_VOID)]})
    return ApiErrors(422, _request_errors(error, players))


def _duplicate(club: Club, error: services.DuplicateGame) -> ApiErrors:
    """409 naming the live game of the day this one repeats."""
    earlier = error.earlier
    return ApiErrors(
        409,
        {services.CONFIRM_DUPLICATE: error.errors[services.CONFIRM_DUPLICATE]},
        {
            "duplicate_of": {
                "id": earlier.pk,
                "url": reverse("api:game_detail", args=[club.slug, earlier.pk]),
                "page": reverse("recording:game_detail", args=[club.slug, earlier.pk]),
            }
        },
    )


def rate_conflict(error: services.RateDiffers) -> ApiErrors:
    """409 naming the rates of the day's other games (services.check_rate), as _duplicate names
    the game repeated: the body again with "confirm_rate": true saves it."""
    return ApiErrors(
        409,
        {services.CONFIRM_RATE: error.errors[services.CONFIRM_RATE]},
        {"evening_rates": error.evening},
    )


@contextmanager
def _service_errors(players: Sequence[PlayerIn] | None, club: Club | None = None) -> Iterator[None]:
    try:
        yield
    except services.DuplicateGame as e:
        assert club is not None
        raise _duplicate(club, e) from None
    except services.RateDiffers as e:
        raise rate_conflict(e) from None
    except ServiceError as e:
        raise ApiErrors(422, _request_errors(e, players)) from None


def _request_errors(
    error: ServiceError, players: Sequence[PlayerIn] | None
) -> dict[str, list[str]]:
    """A service's errors by the request's paths: the same as the domain's (players[2].points),
    but for who a player is, which is at the field the request named them by (member_id or
    name), and for the points' sum and the chombo's seat, about the players as a whole."""
    out: dict[str, list[str]] = {}
    for path, messages in error.errors.items():
        out.setdefault(_request_name(path, players), []).extend(messages)
    return out


def _request_name(path: str, players: Sequence[PlayerIn] | None) -> str:
    head, _sep, rest = path.partition(".")
    if head.startswith("players[") and head.endswith("]") and rest == "name":
        i = int(head[len("players[") : -1])
        return _player_field(i, players[i] if players is not None and i < len(players) else None)
    return {"points": "players", "chombo": "players"}.get(path, path)
