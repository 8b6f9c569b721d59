"""The JSON API under /api/: a club's seasons, days, standings, ledgers and games, for bots and
other clients. The schema is at /api/openapi.json.

Reads use the same selectors as the pages; writes go through the same services as the web form
(league.recording.services), so a game recorded here is validated, settled and audited exactly like one typed
on the page. Requests carry `Authorization: Bearer <token>` (league.api.auth); the club is always
in the URL and must be the token's, else 404 as on the web.

Errors: 401 without a live token, 404 for anything outside the token's club, 403 for a write by a
token whose user is no longer an organiser, 422 `{"errors": {field: [messages]}}` for bad input
(fields named as in the request: "players[1].points"), 409 when the game changed meanwhile.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from django import forms
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from ninja import Field, Header, NinjaAPI, Path, Query, Router, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from pydantic import AfterValidator, ConfigDict, StrictInt, StringConstraints

import scoring
from league import money
from league.api.auth import TokenAuth, api_club
from league.core.errors import NON_FIELD, ServiceError
from league.draw import selectors as draw_selectors
from league.models import ApiToken, Club, Day, Game, Member, RulesVersion, Season
from league.recording import selectors, services
from league.recording.forms import (
    BAD_NUMBER,
    MAX_CHOMBO,
    MAX_MULTIPLIER,
    NO_SUCH_MEMBER,
    MemberDirectory,
)
from league.recording.services import ChipInput, GameInput, SeatInput
from league.standings import stats

PAGE_SIZE = 20
MAX_PAGE = 100_000
MAX_ID = 2**63 - 1  # primary keys are 64-bit; a larger number can only be a 404
MAX_REVISION = 2**31 - 1
MAX_PLAYERS = 8  # the rules decide how many (3 or 4); more is refused before any work is done
MAX_CHIP_EVENTS = 50
# Idempotency-Key → Game.submission_key: uuid5(this, "<token id>:<key>"), so the same key sent
# by two tokens (two organisers, two bots) stays two games.
IDEMPOTENCY_NAMESPACE = uuid.UUID("6f0e1d52-3c55-4c1b-9a43-5a0d2b1b7e11")

GAME_CHANGED = gettext_lazy(
    "Someone else changed this game (it is now revision %(revision)s). Fetch it again and retry."
)
GAME_VOID = gettext_lazy("A void game cannot be changed.")
CHOOSE_PLAYER = gettext_lazy("Give the player's member_id or name.")
NOT_AT_TABLE = gettext_lazy("That player is not at this table.")
NO_SUCH_SEASON = gettext_lazy("No such season.")
NO_MONEY = gettext_lazy("This club does not keep money for this day.")
KEY_REUSED = gettext_lazy(
    "This Idempotency-Key was already used for a different game. Use a new key for a new game."
)
START_AFTER_END = gettext_lazy("The start cannot be after the end.")
TOO_BIG = gettext_lazy("The request body is too large (at most %(n)s bytes).")
NO_DRAW = gettext_lazy("No round has been drawn for this day.")


class ApiErrors(Exception):
    """A 4xx answer with `{"errors": {field: [messages]}}`."""

    def __init__(self, status: int, errors: dict[str, list[str]]):
        self.status = status
        self.errors = errors
        super().__init__(errors)


api = NinjaAPI(
    title="Janchō API",
    version="1",
    description=__doc__ or "",
    urls_namespace="api",
    auth=TokenAuth(),
    docs_url=None,  # the schema is enough; a docs page would load scripts from elsewhere
    default_router=Router(by_alias=True),  # chip events say "from", a Python keyword
)


@api.exception_handler(ApiErrors)
def _api_errors(request: HttpRequest, exc: ApiErrors) -> HttpResponse:
    return api.create_response(request, {"errors": exc.errors}, status=exc.status)


@api.exception_handler(AuthenticationError)
def _unauthorised(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    response = api.create_response(request, {"detail": str(exc)}, status=401)
    response["WWW-Authenticate"] = 'Bearer realm="api"'
    return response


@api.exception_handler(RequestDataTooBig)
def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    """A body over DATA_UPLOAD_MAX_MEMORY_SIZE: JSON like every other answer, not Django's 400."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    message = TOO_BIG % {"n": f"{limit:,}"}
    return api.create_response(request, {"errors": {NON_FIELD: [message]}}, status=413)


@api.exception_handler(ValidationError)
def _validation_errors(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """Schema errors in the same shape as the services' (pydantic's messages, in English)."""
    errors: dict[str, list[str]] = {}
    for error in exc.errors:
        errors.setdefault(_request_field(error.get("loc", ())), []).append(str(error["msg"]))
    return api.create_response(request, {"errors": errors}, status=422)


def _request_field(loc: Sequence[Any]) -> str:
    """("body", "data", "players", 1, "points", "int") → "players[1].points"."""
    parts = list(loc)
    if parts and parts[0] in ("body", "query", "path", "header"):
        body = parts.pop(0) == "body"
        if body and parts and parts[0] == "data":
            parts.pop(0)
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif out and _is_type_tag(str(part)):
            break  # pydantic names the member of a union it tried; not a field
        else:
            out += f".{part}" if out else str(part)
    return out or NON_FIELD


def _is_type_tag(part: str) -> bool:
    return part in ("int", "str", "none", "bool", "date") or "[" in part or "-str" in part


# --- types -----------------------------------------------------------------------------------


def _plain_text(value: str) -> str:
    # PostgreSQL refuses NUL characters and no database can store lone surrogates: refuse both
    # here, as a 422, rather than fail inside the database.
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode()
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text") from None
    return value


def _text(max_length: int, min_length: int = 0) -> Any:
    return Annotated[
        str,
        StringConstraints(max_length=max_length, min_length=min_length),
        AfterValidator(_plain_text),
    ]


Text20 = _text(20)
Text30 = _text(30)
Text50 = _text(50)
Reason = _text(200, min_length=1)
Slug = Annotated[str, Path(pattern=r"^[-a-zA-Z0-9_]+$", max_length=50)]
GameId = Annotated[int, Path(ge=1, le=MAX_ID)]
# An integer, or a string as people type it ("25,000", "▲3,000", full-width digits).
TypedInteger = StrictInt | Text30
# The standings' sortable columns (stats.SORTS), ascending or "-" descending.
Sort = Literal[tuple(key for name in stats.SORTS for key in (name, "-" + name))]  # type: ignore[valid-type]
PlayerRef = Annotated[
    StrictInt | Text50,
    Field(description="A member id (integer) or a name or reading (string) of a seated player."),
]


# --- schemas: out ----------------------------------------------------------------------------


class Detail(Schema):
    detail: str


class Errors(Schema):
    errors: dict[str, list[str]]


class SeasonOut(Schema):
    id: int
    name: str
    start: datetime.date
    end: datetime.date
    min_games: int


class DayOut(Schema):
    date: datetime.date
    venue: str
    games: int = Field(description="Games recorded that day, void ones included.")


class DayPage(Schema):
    items: list[DayOut]
    count: int
    page: int
    pages: int


class ResultOut(Schema):
    seat: int = Field(description="0 is 起家 (East).")
    member_id: int
    name: str
    points: int
    chombo: int
    rank: int
    score: int = Field(description="Tenths of 1,000 points: 453 is +45.3.")
    chips: int
    yen: int | None
    busted_by_seat: int | None = Field(None, description="飛び賞: the seat of whoever busted them.")
    yakitori: bool = False


class GameSummaryOut(Schema):
    id: int
    date: datetime.date
    number: int
    table: str
    rate: str
    deposits: int
    revision: int
    rules_version: int
    voided: bool
    void_reason: str
    players: list[ResultOut] = Field(description="The current revision's settled rows.")


class ChipOut(Schema):
    kind: str
    winner: int = Field(description="Member id.")
    from_: int | None = Field(alias="from", description="Member id; null for a tsumo.")
    multiplier: int


class GameOut(GameSummaryOut):
    rules_effective_from: datetime.date
    chips: list[ChipOut]


class DayDetailOut(Schema):
    date: datetime.date
    venue: str
    games: list[GameSummaryOut]


class LedgerPlayerOut(Schema):
    member_id: int
    name: str
    games: int
    score: int
    chips: int
    game_yen: int
    fees: int
    shugi: int
    rounding: int
    yen: int = Field(description="The day's total: + receives, − pays.")
    outstanding: int = Field(description="What is still to settle after recorded payments.")


class TransferOut(Schema):
    payer_id: int | None = Field(description="Member id; null for the club.")
    payer: str
    payee_id: int | None = Field(description="Member id; null for the club.")
    payee: str
    yen: int


class LedgerOut(Schema):
    date: datetime.date
    house: int = Field(description="What the club receives from the day (negative: pays).")
    house_outstanding: int
    settled: bool
    players: list[LedgerPlayerOut]
    transfers: list[TransferOut] = Field(description="What still settles the day.")


class StandingOut(Schema):
    member_id: int
    name: str
    is_guest: bool
    qualified: bool
    position: int
    games: int
    total: int
    average: int = Field(description="Hundredths of 1,000 points per game.")
    avg_rank: int = Field(description="Hundredths of a rank.")
    first: int
    second: int
    third: int
    fourth: int
    first_rate: int = Field(description="Hundredths of a percent.")
    second_rate: int
    third_rate: int
    fourth_rate: int
    top_two_rate: int
    avoid_last_rate: int
    best: int
    busts: int
    chombo: int
    chips: int
    yen: int


class StandingsOut(Schema):
    season: int | None
    start: datetime.date | None
    end: datetime.date | None
    rate: str
    min_games: int
    sort: str
    rows: list[StandingOut]


# --- schemas: in -----------------------------------------------------------------------------


class StrictIn(Schema):
    """A request body: a field the schema does not know is a 422 (a misspelt "chip" for "chips"
    would otherwise drop the chips without a word)."""

    model_config = ConfigDict(extra="forbid")


class PlayerIn(StrictIn):
    member_id: int | None = Field(None, ge=1, le=MAX_ID)
    name: Text50 | None = Field(None, description="A member's name or reading.")
    points: TypedInteger
    chombo: int = Field(0, ge=0, le=MAX_CHOMBO)
    busted_by: int | None = Field(
        None,
        ge=0,
        le=3,
        description="飛び賞 to the buster: the seat (0 is 起家) of whoever busted this player.",
    )
    yakitori: bool = Field(False, description="焼き鳥: won no hand all game (rules with 焼き鳥).")


class ChipIn(StrictIn):
    kind: Text30
    winner: PlayerRef
    from_: PlayerRef | None = Field(None, alias="from", description="Omit for a tsumo.")
    multiplier: int = Field(1, ge=1, le=MAX_MULTIPLIER)


class GameIn(StrictIn):
    date: datetime.date
    table: Text20 = ""
    rate: Text20 | None = Field(
        None, description='Omitted: the rules\' first rate, as on the form; "": no money.'
    )
    deposits: TypedInteger | None = None
    players: list[PlayerIn] = Field(max_length=MAX_PLAYERS, description="From 起家 (East).")
    chips: list[ChipIn] = Field([], max_length=MAX_CHIP_EVENTS)


class GameEditIn(GameIn):
    date: datetime.date | None = None  # a game cannot move to another day
    revision: int = Field(ge=1, le=MAX_REVISION, description="The revision being edited.")


class GamePatchIn(StrictIn):
    revision: int = Field(ge=1, le=MAX_REVISION, description="The revision being edited.")
    table: Text20 | None = None
    rate: Text20 | None = None
    deposits: TypedInteger | None = None
    players: list[PlayerIn] | None = Field(None, max_length=MAX_PLAYERS)
    chips: list[ChipIn] | None = Field(None, max_length=MAX_CHIP_EVENTS)


class VoidIn(StrictIn):
    reason: Reason
    revision: int | None = Field(None, ge=1, le=MAX_REVISION)


READ: dict[int, Any] = {401: Detail, 404: Detail, 422: Errors}
WRITE: dict[int, Any] = {**READ, 400: Detail, 403: Detail, 409: Errors}  # 400: not JSON


# --- reads -----------------------------------------------------------------------------------


@api.get("/clubs/{slug}/seasons", response={200: list[SeasonOut], **READ})
def season_list(request: HttpRequest, slug: Slug) -> list[dict[str, Any]]:
    club = api_club(request, slug)
    seasons = Season.objects.filter(club=club).order_by("-start", "-id")
    return [
        {"id": s.pk, "name": s.name, "start": s.start, "end": s.end, "min_games": s.min_games}
        for s in seasons
    ]


@api.get("/clubs/{slug}/days", response={200: DayPage, **READ})
def day_list(
    request: HttpRequest, slug: Slug, page: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 1
) -> dict[str, Any]:
    """The club's days, newest first, 20 to a page."""
    club = api_club(request, slug)
    days = Day.objects.filter(club=club)
    count = days.count()
    start = (page - 1) * PAGE_SIZE
    rows = days.annotate(game_count=Count("games")).order_by("-date")[start : start + PAGE_SIZE]
    return {
        "items": [{"date": d.date, "venue": d.venue, "games": d.game_count} for d in rows],
        "count": count,
        "page": page,
        "pages": max(1, -(-count // PAGE_SIZE)),
    }


@api.get("/clubs/{slug}/days/{date}", response={200: DayDetailOut, **READ})
def day_detail(request: HttpRequest, slug: Slug, date: datetime.date) -> dict[str, Any]:
    club = api_club(request, slug)
    day = get_object_or_404(Day, club=club, date=date)
    games = selectors.day_games(day=day)
    return {"date": day.date, "venue": day.venue, "games": [_game_summary(g) for g in games]}


class DrawPlayerOut(Schema):
    member_id: int
    name: str
    wind: str | None = Field(description="東南西北 when the seats were drawn, else null.")


class DrawTableOut(Schema):
    label: str
    recorded: bool
    game_id: int | None
    players: list[DrawPlayerOut]


class DrawOut(Schema):
    round: int
    revision: int
    seats_drawn: bool
    tables: list[DrawTableOut]
    sitting_out: list[DrawPlayerOut]


@api.get("/clubs/{slug}/days/{date}/draw", response={200: DrawOut, **READ})
def day_draw(request: HttpRequest, slug: Slug, date: datetime.date) -> dict[str, Any]:
    """The day's current round of the table draw (for a bot to announce); 404 before any."""
    club = api_club(request, slug)
    rounds = draw_selectors.current_rounds(get_object_or_404(Day, club=club, date=date))
    current = draw_selectors.current_round(rounds)
    if current is None:
        raise HttpError(404, str(NO_DRAW))
    drawn = current.round.seats_drawn

    def player(m: Member, seat: int | None) -> dict[str, Any]:
        wind = draw_selectors.WINDS[seat] if drawn and seat is not None else None
        return {"member_id": m.pk, "name": m.name, "wind": wind}

    return {
        "round": current.round.number,
        "revision": current.round.revision,
        "seats_drawn": drawn,
        "tables": [
            {
                "label": tv.table.label,
                "recorded": tv.recorded,
                "game_id": tv.table.game_id,
                "players": [player(m, i) for i, m in enumerate(tv.players)],
            }
            for tv in current.tables
        ],
        "sitting_out": [player(m, None) for m in current.sitting_out],
    }


@api.get("/clubs/{slug}/days/{date}/ledger", response={200: LedgerOut, **READ})
def day_ledger(request: HttpRequest, slug: Slug, date: datetime.date) -> dict[str, Any]:
    """money.day_ledger; 404 when the club keeps no money (no rates, fees or shūgi)."""
    club = api_club(request, slug)
    day = get_object_or_404(Day.objects.select_related("club"), club=club, date=date)
    try:
        ledger = money.day_ledger(day=day)
    except ServiceError:  # no rules in force on that day: nothing to settle
        raise HttpError(404, str(NO_MONEY)) from None
    if not ledger.has_money:
        raise HttpError(404, str(NO_MONEY))
    return _ledger_out(club, ledger)


@api.get("/clubs/{slug}/standings", response={200: StandingsOut, **READ})
def standings(
    request: HttpRequest,
    slug: Slug,
    season: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    start: datetime.date | None = None,
    end: datetime.date | None = None,
    rate: Annotated[Text20 | None, Query()] = None,
    sort: Sort = "position",
) -> dict[str, Any]:
    """stats.standings: a season's bounds and minimum games, or any date range and rate.

    `sort` is a column, ascending, or with "-" in front descending; ties go by the total.
    """
    club = api_club(request, slug)
    min_games = 0
    found = None
    if season is not None:
        found = Season.objects.filter(club=club, pk=season).first()
        if found is None:
            raise ApiErrors(422, {"season": [str(NO_SUCH_SEASON)]})
        start, end, min_games = start or found.start, end or found.end, found.min_games
    if start is not None and end is not None and start > end:
        raise ApiErrors(422, {"start": [str(START_AFTER_END)]})
    rows = stats.standings(
        club=club,
        start=start,
        end=end,
        rate=rate,
        min_games=min_games,
        order=sort,
        seasons=[found] if found else (),
    )
    return {
        "season": season,
        "start": start,
        "end": end,
        "rate": rate or "",
        "min_games": min_games,
        "sort": sort,
        "rows": [{**row, "member_id": row["member"]} for row in rows],
    }


@api.get("/clubs/{slug}/games/{game_id}", response={200: GameOut, **READ})
def game_detail(request: HttpRequest, slug: Slug, game_id: GameId) -> dict[str, Any]:
    club = api_club(request, slug)
    return _game_detail(club, game_id)


# --- writes ----------------------------------------------------------------------------------


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
    token: ApiToken = request.auth  # type: ignore[attr-defined]
    key = _submission_key(token, idempotency_key)
    digest = _body_digest(data) if key is not None else ""
    if key is not None:
        existing = Game.objects.filter(club=club, submission_key=key).values(
            "pk", "submission_hash"
        )
        if existing:
            return Status(
                200, _replayed(club, existing[0]["pk"], existing[0]["submission_hash"], digest)
            )
    rate = data.rate if data.rate is not None else _default_rate(club, data.date)
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
    with _service_errors(data.players):
        game = services.game_record(club=club, user=token.user, data=game_input)
    if game.submission_hash != digest:  # a concurrent request with the same key won the race
        return Status(200, _replayed(club, game.pk, game.submission_hash, digest))
    return Status(201, _game_detail(club, game.pk))


def _body_digest(data: GameIn) -> str:
    """SHA-256 of the body as parsed (key order and spacing do not matter), kept with the key."""
    canonical = json.dumps(data.model_dump(by_alias=True, mode="json"), sort_keys=True)
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
    rate = data.rate if data.rate is not None else _first_rate(game.rules_version.rules)
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
    return _edit(request, club, game, game_input, data.revision, data.players)


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
    return _edit(request, club, game, game_input, data.revision, data.players)


@api.post("/clubs/{slug}/games/{game_id}/void", response={200: GameOut, **WRITE})
def game_void(request: HttpRequest, slug: Slug, game_id: GameId, data: VoidIn) -> dict[str, Any]:
    """Void a game: it stays, marked void, and counts nowhere. `revision` guards like an edit."""
    club, game = _game_to_change(request, slug, game_id, data.revision)
    token: ApiToken = request.auth  # type: ignore[attr-defined]
    try:
        services.game_void(
            game=game, user=token.user, reason=data.reason, expected_revision=data.revision
        )
    except ServiceError as e:
        raise _conflict_or_invalid(e, game, None) from None
    return _game_detail(club, game.pk)


# --- helpers: games out ----------------------------------------------------------------------


def _game_summary(game: Game) -> dict[str, Any]:
    return {
        "id": game.pk,
        "date": game.date,
        "number": game.number,
        "table": game.table,
        "rate": game.rate,
        "deposits": game.deposits,
        "revision": game.revision,
        "rules_version": game.rules_version_id,
        "voided": game.voided,
        "void_reason": game.void_reason,
        "players": [
            {
                "seat": r.seat,
                "member_id": r.member_id,
                "name": r.member.name,
                "points": r.points,
                "chombo": r.chombo,
                "rank": r.rank,
                "score": r.score,
                "chips": r.chips,
                "yen": r.yen,
                "busted_by_seat": r.busted_by_seat,
                "yakitori": r.yakitori,
            }
            for r in game.current_results  # type: ignore[attr-defined]
        ],
    }


def _game_detail(club: Club, game_id: int) -> dict[str, Any]:
    game = selectors.club_game(club=club, game_id=game_id)
    if game is None:
        raise HttpError(404, _("No such game."))
    chips = [
        {"kind": c.kind, "winner": c.winner_id, "from": c.discarder_id, "multiplier": c.multiplier}
        for c in game.current_chip_events  # type: ignore[attr-defined]
    ]
    return {
        **_game_summary(game),
        "rules_effective_from": game.rules_version.effective_from,
        "chips": chips,
    }


def _ledger_out(club: Club, ledger: money.DayLedger) -> dict[str, Any]:
    def name(party: int | None) -> str:
        member = ledger.member(party)
        return club.name if member is None else member.name

    players = []
    for p in ledger.result.players:
        party = int(p.name)
        players.append(
            {
                "member_id": party,
                "name": name(party),
                "games": p.games,
                "score": p.score,
                "chips": p.chips,
                "game_yen": p.game_yen,
                "fees": p.fees,
                "shugi": p.shugi,
                "rounding": p.rounding,
                "yen": p.yen,
                "outstanding": ledger.outstanding.get(party, 0),
            }
        )
    transfers = []
    for t in ledger.transfers:
        payer = None if t.payer is None else int(t.payer)
        payee = None if t.payee is None else int(t.payee)
        transfers.append(
            {
                "payer_id": payer,
                "payer": name(payer),
                "payee_id": payee,
                "payee": name(payee),
                "yen": t.yen,
            }
        )
    return {
        "date": ledger.day.date,
        "house": ledger.result.house,
        "house_outstanding": ledger.outstanding.get(None, 0),
        "settled": ledger.settled,
        "players": players,
        "transfers": transfers,
    }


# --- helpers: games in -----------------------------------------------------------------------


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
        except forms.ValidationError as e:
            return None, " ".join(e.messages)
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


def _default_rate(club: Club, date: datetime.date) -> str:
    version = RulesVersion.in_force(club, date)
    return _first_rate(version.rules) if version is not None else ""


def _submission_key(token: ApiToken, key: str | None) -> uuid.UUID | None:
    if key is None or not key.strip():
        return None
    return uuid.uuid5(IDEMPOTENCY_NAMESPACE, f"{token.pk}:{key}")


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
) -> dict[str, Any]:
    token: ApiToken = request.auth  # type: ignore[attr-defined]
    try:
        services.game_edit(game=game, user=token.user, data=data, expected_revision=revision)
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


@contextmanager
def _service_errors(players: Sequence[PlayerIn] | None) -> Iterator[None]:
    try:
        yield
    except ServiceError as e:
        raise ApiErrors(422, _request_errors(e, players)) from None


def _request_errors(
    error: ServiceError, players: Sequence[PlayerIn] | None
) -> dict[str, list[str]]:
    """A service's form field names as the request's: "member_2" → "players[2].member_id"."""
    out: dict[str, list[str]] = {}
    for field_name, messages in error.errors.items():
        out.setdefault(_request_name(field_name, players), []).extend(messages)
    return out


def _request_name(field_name: str, players: Sequence[PlayerIn] | None) -> str:
    head, _sep, index = field_name.rpartition("_")
    if head in ("member", "points") and index.isdigit():
        i = int(index)
        player = players[i] if players is not None and i < len(players) else None
        return _player_field(i, player) if head == "member" else f"players[{i}].points"
    # "points": the sum of the points is off; "chombo": who is at the table.
    return {"points": "players", "chombo": "players"}.get(field_name, field_name)
