"""What the API reads and writes: pydantic schemas of the requests and answers, and the functions
that turn games and ledgers into answers."""

from __future__ import annotations

import datetime
from typing import Any

from django.utils.translation import gettext as _
from ninja import Field, Schema
from ninja.errors import HttpError
from pydantic import ConfigDict

from league import money
from league.api.base import (
    MAX_CHIP_EVENTS,
    MAX_ID,
    MAX_PLAYERS,
    MAX_REVISION,
    PlayerRef,
    Reason,
    Text20,
    Text30,
    Text50,
    TypedInteger,
)
from league.models import Club, Game
from league.recording import selectors
from league.recording.forms import (
    MAX_CHOMBO,
    MAX_MULTIPLIER,
)


class SeasonOut(Schema):
    id: int
    name: str
    start: datetime.date
    end: datetime.date
    min_games: int


class DayOut(Schema):
    date: datetime.date
    venue: str
    games: int = Field(description="Live games of that day (void ones left out, as on every page).")


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


CONFIRM_DUPLICATE = (
    "A game with the same date, members and points (in any seat order) as a live game of that "
    "day is refused with 409 and the earlier game's id and address (`duplicate_of`), unless "
    "this is true. Not part of the Idempotency-Key's body check."
)
CONFIRM_RATE = (
    "A game at a rate none of its day's other live games were played at (a second table that "
    "started at the rules' first rate on a 0.3 evening) is refused with 409, the errors under "
    "`confirm_rate` and the day's rates (`evening_rates`), unless this is true. On a "
    "correction, only a changed rate asks. Not part of the Idempotency-Key's body check."
)


class GameIn(StrictIn):
    date: datetime.date
    table: Text20 = ""
    rate: Text20 | None = Field(
        None,
        description="Omitted: the evening's rate, as on the form (the day's last game's at this "
        "table, else the day's last game's, else the rules' first); \"\": no money.",
    )
    deposits: TypedInteger | None = None
    players: list[PlayerIn] = Field(max_length=MAX_PLAYERS, description="From 起家 (East).")
    chips: list[ChipIn] = Field([], max_length=MAX_CHIP_EVENTS)
    confirm_duplicate: bool = Field(False, description=CONFIRM_DUPLICATE)
    confirm_rate: bool = Field(False, description=CONFIRM_RATE)


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
    confirm_duplicate: bool = Field(False, description=CONFIRM_DUPLICATE)
    confirm_rate: bool = Field(False, description=CONFIRM_RATE)


class VoidIn(StrictIn):
    reason: Reason
    revision: int | None = Field(None, ge=1, le=MAX_REVISION)


class DrawPlayerOut(Schema):
    member_id: int
    name: str
    wind: str | None = Field(description="東南西北 when the seats were drawn, else null.")


class DrawTableOut(Schema):
    label: str
    recorded: bool
    game_id: int | None
    players: list[DrawPlayerOut]


class NextTableOut(Schema):
    member_id: int
    name: str
    round: int
    table: str
    wind: str | None = Field(description="東南西北 when the seats were drawn, else null.")
    text: str = Field(description="In the request's language: 「次：第3回戦 B卓 西家」.")


class DrawOut(Schema):
    round: int
    revision: int
    seats_drawn: bool
    tables: list[DrawTableOut]
    sitting_out: list[DrawPlayerOut]
    next: list[NextTableOut] = Field(
        description="Each checked-in player's next table: the first round (of those drawn) in "
        "which they sit at a table not recorded yet. A player who sits out every round still "
        "to play, or has left, is not listed."
    )


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
    for p in ledger.players:
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
        "house": ledger.house,
        "house_outstanding": ledger.outstanding.get(None, 0),
        "settled": ledger.settled,
        "players": players,
        "transfers": transfers,
    }


# --- statistics (league.api.stats) ------------------------------------------------------------


class HeadToHeadOut(Schema):
    opponent_id: int
    opponent: str
    games: int
    avg_rank: int = Field(description="The member's average rank in these games, hundredths.")
    opponent_avg_rank: int = Field(description="The opponent's, hundredths.")
    above: int = Field(description="Games the member finished above (a shared rank is neither).")
    above_rate: int = Field(description="Hundredths of a percent.")
    net: int = Field(description="Σ (member's score − opponent's), tenths of 1,000 points.")


class SeatOut(Schema):
    seat: int = Field(description="0 = 起家 (the first dealer), 1 = 南家, 2 = 西家, 3 = 北家.")
    games: int
    avg_rank: int | None = Field(description="Hundredths of a rank; null without games.")
    average: int | None = Field(description="Hundredths of 1,000 points per game.")
    top_rate: int | None = Field(description="Hundredths of a percent.")


class PlayerStatsOut(Schema):
    member_id: int
    season: int | None
    head_to_head: list[HeadToHeadOut]
    seats: list[SeatOut]


class ClubSeatsOut(Schema):
    season: int | None
    seats: list[SeatOut]


class RatingOut(Schema):
    member_id: int
    name: str
    games: int
    ranked: bool = Field(description="Whether the member has the club's minimum games.")
    mu: int = Field(description="μ in millionths (openskill PlackettLuce, default parameters).")
    sigma: int = Field(description="σ in millionths.")
    ordinal: int = Field(description="μ − 3σ in millionths: the ranking's order.")


class RatingsOut(Schema):
    min_games: int
    rows: list[RatingOut]


class RatingGameOut(Schema):
    game_id: int
    date: datetime.date
    number: int
    n: int = Field(description="The member's n-th counted game.")
    rank: int
    expected: int = Field(description="The expected place before the game, hundredths.")
    mu: int
    sigma: int


class RatingHistoryOut(Schema):
    member_id: int
    games: list[RatingGameOut]


# --- teams, fixtures and stages (league.teams) --------------------------------------------------


class TeamMemberOut(Schema):
    member_id: int
    name: str
    captain: bool
    games: int
    total: int = Field(description="Season total in tenths of 1,000 points, adjustments in.")


class TeamOut(Schema):
    id: int
    name: str
    short_name: str
    colour: str
    position: int
    games: int
    scores: int = Field(description="The members' season totals, in tenths.")
    adjust: int = Field(description="Adjustments outside any game, in tenths.")
    total: int
    match_points: int | None = Field(
        description="Where the season ranks teams by match points: the team's; else null."
    )
    members: list[TeamMemberOut]


class TeamsOut(Schema):
    season: int
    teams: list[TeamOut]


class SlotOut(Schema):
    seat: int = Field(description="0 = 東 (the first dealer)")
    team_id: int
    member_id: int | None
    member: str | None
    substitute: bool


class FixtureOut(Schema):
    id: int
    round: int
    date: datetime.date
    table: str
    game_id: int | None
    slots: list[SlotOut]


class FixturesOut(Schema):
    season: int
    date: datetime.date | None
    matches: list[FixtureOut]


class StageRowOut(Schema):
    id: int = Field(description="The member's or the team's id, as `entrants` says.")
    name: str
    position: int
    games: int
    carried: int
    score: int
    total: int
    through: bool


class FinalSeatOut(Schema):
    member_id: int
    name: str
    wind: str = Field(description="The seat of the table's first hanchan: 東 is 起家.")
    place: int = Field(description="The order they went through in, from 1.")


class FinalTableOut(Schema):
    label: str
    drawn: bool = Field(description="The seats were drawn; else by place.")
    games: int = Field(description="Hanchan played at the table.")
    seats: list[FinalSeatOut]


class StageOut(Schema):
    number: int
    name: str
    first_day: datetime.date
    last_day: datetime.date
    entrants: str
    advance: int | None = Field(description="How many go through; None for a share or the last.")
    advance_share: int | None = Field(
        description="The cut as a whole percent of the stage's entries (rounded up, at least 1)"
        " instead of a number; None for a number or the last stage."
    )
    through_count: int | None = Field(
        description="How many the cut sends on: the number, or the share of the entries now"
        " (a later stage's entries, or in the first stage everyone with a game in it); None for"
        " the last stage."
    )
    carry: str
    bonus: list[int]
    ties: str
    fixed_table: bool
    seating: str = Field(description="A fixed table's seats: by place (order) or drawn (draw).")
    closed: bool
    rows: list[StageRowOut]
    tables: list[FinalTableOut] = Field(
        description="A fixed-table stage of members: its final tables as seated now."
    )


class StagesOut(Schema):
    season: int
    stages: list[StageOut]


class StandingsOut(Schema):
    season: int | None
    kind: str = Field(
        "",
        description="The season's kind: individual, team (a team league) or event (in stages);"
        " empty without a season.",
    )
    start: datetime.date | None
    end: datetime.date | None
    rate: str
    min_games: int
    sort: str
    rows: list[StandingOut] = Field(
        description="Each player's standing; empty for an event in stages, whose standings are"
        " `stage`'s."
    )
    stage: StageOut | None = Field(
        None,
        description="An event in stages: its current stage (the first not closed, else the"
        " last) and its standings, carry-over included: the order of its season page and its"
        " Excel file.",
    )
