"""雀帳's data: clubs, members, versioned rules, seasons, days, games and their settled results.

Games are settled when they are written and the settlement is stored on `Result` rows, so that
rankings are database aggregates. Nothing is deleted: an edit adds a new revision of a game's
rows, a void marks the game, and both are in the append-only `AuditLog`.

One Django app, one migration history: the models are split into a module per concept (as pretix's
`base/models/` and Zulip's `zerver/models/`), and every one is importable from `league.models`.
Modules here import each other downwards only (clubs ← members, rules, seasons ← games ← audit,
money, memberships, online) and nothing of league above the models.
"""

from league.models.accounts import ApiToken, LoginAttempt, UsernameKey
from league.models.audit import AuditLog, AuditLogQuerySet
from league.models.books import (
    Account,
    Leg,
    OpenTransfer,
    Transaction,
)
from league.models.chat import ChatCode, ChatEvent, ChatLink, ChatPush, ChatUser
from league.models.clubs import Club
from league.models.draw import Attendance, DrawRoom, DrawRound, DrawSeat, DrawTable
from league.models.exports import ExportFile
from league.models.games import ChipEvent, Day, Game, Result
from league.models.hands import Hand, HandStat, HandStatTotal, TableGame
from league.models.imports import ImportBatch, ImportUpload
from league.models.invitations import Invitation
from league.models.jobs import Job
from league.models.members import Member
from league.models.memberships import Membership, MembershipQuerySet
from league.models.money import DayShugi, LedgerEntry, LedgerEntryQuerySet
from league.models.online import OnlineLog, OnlineName
from league.models.photos import ScorePhoto
from league.models.resettles import ResettleRun
from league.models.rules import RulesVersion
from league.models.seasons import Season
from league.models.stats import ClubChronicle, MemberGame, MemberRating, PairTotal, SeatTotal
from league.models.teams import (
    Adjustment,
    AdjustmentQuerySet,
    FinalSeat,
    Stage,
    StageEntry,
    Team,
    TeamMatch,
    TeamMember,
    TeamSlot,
)
from league.models.totals import MemberDay, MemberRateTotal, MemberTotal

__all__ = [
    "Account",
    "Adjustment",
    "AdjustmentQuerySet",
    "ApiToken",
    "Attendance",
    "AuditLog",
    "AuditLogQuerySet",
    "ChatCode",
    "ChatEvent",
    "ChatLink",
    "ChatPush",
    "ChatUser",
    "ChipEvent",
    "Club",
    "ClubChronicle",
    "Day",
    "DayShugi",
    "DrawRoom",
    "DrawRound",
    "DrawSeat",
    "DrawTable",
    "ExportFile",
    "FinalSeat",
    "Game",
    "Hand",
    "HandStat",
    "HandStatTotal",
    "ImportBatch",
    "ImportUpload",
    "Invitation",
    "Job",
    "LedgerEntry",
    "LedgerEntryQuerySet",
    "Leg",
    "LoginAttempt",
    "Member",
    "MemberDay",
    "MemberGame",
    "MemberRateTotal",
    "MemberRating",
    "MemberTotal",
    "Membership",
    "MembershipQuerySet",
    "OnlineLog",
    "OnlineName",
    "OpenTransfer",
    "PairTotal",
    "ResettleRun",
    "Result",
    "RulesVersion",
    "ScorePhoto",
    "Season",
    "SeatTotal",
    "Stage",
    "StageEntry",
    "TableGame",
    "Team",
    "TeamMatch",
    "TeamMember",
    "TeamSlot",
    "Transaction",
    "UsernameKey",
]
