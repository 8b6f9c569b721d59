"""The JSON API under /api/: a club's seasons, days, standings, ledgers and games, for bots and
other clients. The schema is at /api/openapi.json.

Reads use the same selectors as the pages; writes go through the same services as the web form
(league.recording.services), so a game recorded here is validated, settled and audited exactly like one typed
on the page. Requests carry `Authorization: Bearer <token>` (league.api.auth); the club is always
in the URL and must be the token's, else 404 as on the web. The site's own pages (table mode on
the phone) call the same operations with the browser's login session and its CSRF token
(`X-CSRFToken`); a write without it is a 403.

Errors: 401 without a live token, 404 for anything outside the token's club, 403 for a write by a
token whose user is no longer an organiser, 422 `{"errors": {field: [messages]}}` for bad input
(fields named as in the request: "players[1].points"; the point calculator, which stores nothing,
answers its bad input 400 in the same shape), 409 when the game changed meanwhile, or when a new or corrected game repeats a live game of
its day (same members and points): the answer names it (`duplicate_of`) and the body's
`"confirm_duplicate": true` saves it anyway; 409 too when the game's rate is none of its day's
other games' (`evening_rates`): `"confirm_rate": true` saves it at that rate.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy
from ninja import Field, NinjaAPI, Path, Router, Schema
from ninja.errors import AuthenticationError, HttpError, ValidationError
from pydantic import AfterValidator, StrictInt, StringConstraints

from league.api.auth import SessionAuth, TokenAuth, api_club, api_is_organiser
from league.core.errors import NON_FIELD
from league.models import Club
from league.models.draw import held_round
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
HELD_BACK = gettext_lazy(
    "The results of this round are held back until every table of the round is recorded."
)


def api_results_club(request: HttpRequest, slug: str) -> Club:
    """api_club for the club's results over many days (standings, statistics, ratings, stages):
    while a round is held back (league.access.results_page), a 404 with HELD_BACK for a caller
    who is not an organiser. The session's club knows it already; a token's costs one query."""
    club = api_club(request, slug)
    held = club.held if hasattr(club, "held") else held_round(club.pk)
    if held is not None and not api_is_organiser(request, club):
        raise HttpError(404, str(HELD_BACK))
    return club


class ApiErrors(Exception):
    """A 4xx answer with `{"errors": {field: [messages]}}`."""

    def __init__(
        self, status: int, errors: dict[str, list[str]], extra: dict[str, Any] | None = None
    ):
        self.status = status
        self.errors = errors
        self.extra = extra or {}  # more keys of the answer (a duplicate's earlier game)
        super().__init__(errors)


class JanchoApi(NinjaAPI):
    def get_openapi_operation_id(self, operation: Any) -> str:
        """Each operation's id as it was when the API was one module (league.api): clients that
        generated code from the schema keep their names however the resources are split."""
        return f"league_api_{operation.view_func.__name__}"


api = JanchoApi(
    title="Janchō API",
    version="1",
    description=__doc__ or "",
    urls_namespace="api",
    auth=[TokenAuth(), SessionAuth()],
    docs_url=None,  # the schema is enough; a docs page would load scripts from elsewhere
    default_router=Router(by_alias=True),  # chip events say "from", a Python keyword
)


@api.exception_handler(ApiErrors)
def _api_errors(request: HttpRequest, exc: ApiErrors) -> HttpResponse:
    return api.create_response(request, {"errors": exc.errors, **exc.extra}, status=exc.status)


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


# Operations (by url_name) whose bad input is a 400, as their description says: the calculator
# stores nothing, and answers a wrong type as it answers tiles it cannot read.
BAD_REQUEST_OPERATIONS = frozenset({"calculator"})


@api.exception_handler(ValidationError)
def _validation_errors(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """Schema errors in the same shape as the services' (pydantic's messages, in English)."""
    errors: dict[str, list[str]] = {}
    for error in exc.errors:
        errors.setdefault(_request_field(error.get("loc", ())), []).append(str(error["msg"]))
    match = getattr(request, "resolver_match", None)
    status = 400 if match is not None and match.url_name in BAD_REQUEST_OPERATIONS else 422
    return api.create_response(request, {"errors": errors}, status=status)


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


class Detail(Schema):
    detail: str


class Errors(Schema):
    errors: dict[str, list[str]]


class EarlierGame(Schema):
    id: int
    url: str = Field(description="The earlier game in the API.")
    page: str = Field(description="The earlier game's page on the site.")


class Conflict(Schema):
    errors: dict[str, list[str]]
    duplicate_of: EarlierGame | None = Field(
        None,
        description="When the game repeats a live game of its day: that game. Send the body "
        'again with "confirm_duplicate": true to save it anyway.',
    )
    evening_rates: list[str] | None = Field(
        None,
        description="When the game's rate is none of its day's other live games' rates: those "
        'rates. Send the body again with "confirm_rate": true to save it at its rate.',
    )


READ: dict[int, Any] = {401: Detail, 404: Detail, 422: Errors}


WRITE: dict[int, Any] = {**READ, 400: Detail, 403: Detail, 409: Conflict}  # 400: not JSON
