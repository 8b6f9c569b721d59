"""/api/clubs/<slug>/tables: a hanchan recorded hand by hand (league.table), as the table mode on
the phone does it: start it, put each hand at its index (with an Idempotency-Key), undo the last,
save the ended game; and /games/<id>/hands to read or correct a saved game's hands.

Hands are docs/hands.md's hand objects with players named by member id (as strings). The server
plays every hand with the engine: points sent by a client are never read.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Annotated, Any

from django.contrib import messages
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from ninja import Field, Header, Path, Schema, Status
from ninja.errors import AuthorizationError, HttpError

from league.api.auth import (
    SessionCaller,
    api_club,
    api_is_organiser,
    api_user,
    idempotency_scope,
)
from league.api.base import (
    IDEMPOTENCY_NAMESPACE,
    MAX_ID,
    MAX_REVISION,
    READ,
    WRITE,
    ApiErrors,
    GameId,
    Slug,
    Text20,
    api,
)
from league.api.games import rate_conflict
from league.api.schemas import CONFIRM_RATE, GameOut, _game_detail
from league.core.errors import NON_FIELD, ServiceError
from league.models import Club, Game, Member, RulesVersion, TableGame
from league.recording import services as recording
from league.table import services
from league.table.services import HandConflict

MAX_HANDS = 200  # far beyond any hanchan (a West round with many renchan stays under 60)
TableKey = Annotated[uuid.UUID, Path(description="The table game's key.")]
HandIndex = Annotated[int, Path(ge=0, lt=MAX_HANDS, description="0 is the game's first hand.")]
KEY_NEEDED = gettext_lazy("Send an Idempotency-Key with each hand.")
HAND_DESCRIPTION = (
    "docs/hands.md's hand object, players named by member id as strings, e.g. "
    '{"result": "ron", "from": "12", "winners": [{"player": "10", "han": 3, "fu": 40}], '
    '"riichi": ["10"]}.'
)
MARKS_DESCRIPTION = (
    "Per winner (member id as a string): ippatsu, called (true/false), ura, aka (counts), yaku "
    "(names). They give the chips where the club's chips have them, and the statistics."
)


class TableIn(Schema):
    date: datetime.date = Field(description="The day.")
    table: Text20 = ""
    rate: Text20 | None = Field(
        None,
        description="One of the club's rates. Left out: the evening's, as on the record form "
        "(the day's last game's at this table, else the day's last game's, else the first).",
    )
    players: list[Annotated[int, Field(ge=1, le=MAX_ID)]] = Field(
        max_length=8, description="Member ids from 起家 (East)."
    )
    confirm_rate: bool = Field(False, description=CONFIRM_RATE)


class HandIn(Schema):
    event: dict[str, Any] = Field(description=HAND_DESCRIPTION)
    marks: dict[str, Any] = Field(default_factory=dict, description=MARKS_DESCRIPTION)


class HandOut(Schema):
    index: int
    key: str
    event: dict[str, Any]
    marks: dict[str, Any]
    round: str
    honba: int
    sticks: int = Field(description="Riichi sticks on the table when the hand began.")
    dealer: int = Field(description="The dealer's seat.")
    deltas: list[int]
    scores: list[int]
    recorded_by: str = Field(
        "",
        description="Who entered the hand: the name of their member in the club, else their "
        "login's name; empty when unknown.",
    )


class TableOut(Schema):
    key: str
    saved_game: int | None = Field(description="The game's id once saved.")
    next_index: int
    points: list[int] = Field(description="Each seat's points now.")
    round: str
    honba: int
    sticks: int
    dealer: int
    ended: str | None = Field(description="How the game ended, or null while it goes on.")
    hands: list[HandOut]


class HandConflictOut(Schema):
    errors: dict[str, list[str]]
    state: TableOut = Field(description="The table as the server has it: the other phone's hand.")


class HandsEditIn(Schema):
    revision: int = Field(ge=1, le=MAX_REVISION, description="The game's revision being edited.")
    hands: list[HandIn] = Field(min_length=1, max_length=MAX_HANDS)


def _errors(e: ServiceError) -> dict[str, list[str]]:
    return {k: [str(m) for m in v] for k, v in e.errors.items()}


def _key(request: HttpRequest, key: str | None) -> uuid.UUID | None:
    scope = idempotency_scope(request)
    return uuid.uuid5(IDEMPOTENCY_NAMESPACE, f"{scope}:table:{key}") if key else None


def _table(club: Club, key: uuid.UUID) -> TableGame:
    tg = get_object_or_404(TableGame.objects.select_related("rules_version"), club=club, key=key)
    tg.club = club
    return tg


NOT_SCORER = gettext_lazy(
    "Only the organisers, the evening's scorers and the players at the table can score it."
)


def _scoring(request: HttpRequest, club: Club, tg: TableGame) -> None:
    """403 unless the caller may enter this table's hands (league.table.services.may_score)."""
    user = api_user(request)
    if not services.may_score_table(tg=tg, user=user, organiser=api_is_organiser(request, club)):
        raise AuthorizationError(message=str(NOT_SCORER))


@api.post("/clubs/{slug}/tables", response={200: TableOut, 201: TableOut, **WRITE})
def table_start(
    request: HttpRequest,
    slug: Slug,
    data: TableIn,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            max_length=200,
            description="The same key twice from the same token (or login) starts one table game.",
        ),
    ] = None,
) -> Status[dict[str, Any]]:
    """Start a table game with the players from 起家 and the rules in force on the date: by an
    organiser, the evening's named scorer, or a member seated among the players."""
    club = api_club(request, slug)
    date = data.date
    key = _key(request, idempotency_key) or uuid.uuid4()
    existing = TableGame.objects.filter(club=club, key=key).first()
    if existing is not None:
        return Status(200, services.state_json(existing))
    found = {m.pk: m for m in Member.objects.filter(club=club, pk__in=data.players)}
    missing = [i for i, pk in enumerate(data.players) if pk not in found]
    if missing:
        raise ApiErrors(
            422, {f"players[{i}]": [str(gettext_lazy("No such member."))] for i in missing}
        )
    if not services.may_score(
        club=club,
        user=api_user(request),
        date=date,
        seats=data.players,
        organiser=api_is_organiser(request, club),
    ):
        raise AuthorizationError(message=str(NOT_SCORER))
    version = RulesVersion.in_force(club, date)
    rate = data.rate
    if rate is None and version is not None:
        rate = recording.evening_rate(club=club, date=date, table=data.table)
        if rate is None or rate not in version.rules.rates:
            rate = next(iter(version.rules.rates), "")
    try:
        tg = services.table_start(
            club=club,
            user=api_user(request),
            key=key,
            date=date,
            members=[found[pk] for pk in data.players],
            table=data.table,
            rate=rate or "",
            confirm_rate=data.confirm_rate,
        )
    except recording.RateDiffers as e:
        raise rate_conflict(e) from None
    except ServiceError as e:
        raise ApiErrors(422, _errors(e)) from None
    return Status(201, services.state_json(tg))


@api.get("/clubs/{slug}/tables/{table_key}", response={200: TableOut, **READ})
def table_detail(request: HttpRequest, slug: Slug, table_key: TableKey) -> dict[str, Any]:
    club = api_club(request, slug)
    return services.state_json(_table(club, table_key))


@api.put(
    "/clubs/{slug}/tables/{table_key}/hands/{index}",
    response={200: TableOut, 201: TableOut, **WRITE, 409: HandConflictOut},
)
def hand_put(
    request: HttpRequest,
    slug: Slug,
    table_key: TableKey,
    index: HandIndex,
    data: HandIn,
    idempotency_key: Annotated[
        str,
        Header(
            alias="Idempotency-Key",
            min_length=1,
            max_length=200,
            description="The same key again returns the hand it recorded (200). Another hand "
            "already at this index is a 409 (another phone at the table); the same hand there "
            "is merged into it (200).",
        ),
    ],
) -> Status[dict[str, Any]]:
    """Record hand `index` of a running table game; the table after it. By the table's scorers:
    an organiser, a player seated at it, or the evening's named scorer (else 403)."""
    club = api_club(request, slug)
    tg = _table(club, table_key)
    _scoring(request, club, tg)
    key = _key(request, idempotency_key)
    if key is None:
        raise ApiErrors(422, {"Idempotency-Key": [str(KEY_NEEDED)]})
    try:
        _hand, created = services.hand_record(
            tg=tg, user=api_user(request), index=index, key=key, event=data.event, marks=data.marks
        )
    except HandConflict as e:
        raise ApiErrors(409, _errors(e), {"state": services.state_json(tg)}) from None
    except ServiceError as e:
        raise ApiErrors(422, _errors(e)) from None
    return Status(201 if created else 200, services.state_json(tg))


@api.delete("/clubs/{slug}/tables/{table_key}/hands/{index}", response={200: TableOut, **WRITE})
def hand_undo(
    request: HttpRequest, slug: Slug, table_key: TableKey, index: HandIndex
) -> dict[str, Any]:
    """Undo the last hand (kept in the history, no longer counted); again: nothing happens."""
    club = api_club(request, slug)
    tg = _table(club, table_key)
    _scoring(request, club, tg)
    try:
        services.hand_undo(tg=tg, user=api_user(request), index=index)
    except ServiceError as e:
        raise ApiErrors(409, _errors(e)) from None
    return services.state_json(tg)


@api.post("/clubs/{slug}/tables/{table_key}/game", response={200: GameOut, **WRITE})
def table_save(request: HttpRequest, slug: Slug, table_key: TableKey) -> dict[str, Any]:
    """Settle and save the ended game (once: again returns the same game)."""
    club = api_club(request, slug)
    tg = _table(club, table_key)
    _scoring(request, club, tg)
    try:
        game = services.table_game_save(tg=tg, user=api_user(request))
    except ServiceError as e:
        raise ApiErrors(422, _errors(e)) from None
    return _game_detail(club, game.pk)


def _game_table(club: Club, game_id: int) -> TableGame:
    game = get_object_or_404(Game, club=club, pk=game_id)
    tg = TableGame.objects.filter(game=game).select_related("rules_version", "game").first()
    if tg is None:
        raise HttpError(404, str(gettext_lazy("This game was not recorded hand by hand.")))
    tg.club = club
    return tg


@api.get("/clubs/{slug}/games/{game_id}/hands", response={200: list[HandOut], **READ})
def game_hands(request: HttpRequest, slug: Slug, game_id: GameId) -> list[dict[str, Any]]:
    """The hands of the game's current revision."""
    club = api_club(request, slug)
    tg = _game_table(club, game_id)
    return services.state_json(tg)["hands"]  # type: ignore[no-any-return]


@api.put("/clubs/{slug}/games/{game_id}/hands", response={200: GameOut, **WRITE})
def game_hands_edit(
    request: HttpRequest, slug: Slug, game_id: GameId, data: HandsEditIn
) -> dict[str, Any]:
    """Correct a saved game by its hands: re-settled from them as a new revision."""
    club = api_club(request, slug, organiser=True)
    tg = _game_table(club, game_id)
    game = tg.game
    assert game is not None
    if game.voided:
        raise ApiErrors(409, {NON_FIELD: [str(gettext_lazy("A void game cannot be changed."))]})
    if game.revision != data.revision:
        raise ApiErrors(
            409,
            {
                "revision": [
                    str(gettext_lazy("Someone else changed this game. Fetch it again and retry."))
                ]
            },
        )
    try:
        game = services.table_game_edit(
            tg=tg,
            user=api_user(request),
            hands=[h.model_dump() for h in data.hands],
            expected_revision=data.revision,
        )
    except ServiceError as e:
        raise ApiErrors(422, _errors(e)) from None
    if isinstance(request.auth, SessionCaller):  # type: ignore[attr-defined]
        # The score display's save: said on the game's page, which the phone opens next.
        messages.success(request, _("Game %(number)s updated.") % {"number": game.number})
    return _game_detail(club, game.pk)
