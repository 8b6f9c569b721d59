"""Online games (issue 23, item 6): a Tenhou log (tenhou.net/6 JSON, or mjlog XML; 雀魂 logs
converted to Tenhou's JSON) recorded into the club's season.

The log is read and checked by the engine (scoring.online: every hand recomputed, the log's own
points compared) each time it is sent: at the check and again at the record, so nothing the
browser sends back is trusted. The game is then recorded by the recording service (settled by the
club's rules in force on its date, into the same season, ledger and statistics), under the club
lock, and audited; its log id and fingerprint are recorded once per club, and the online names
the organiser mapped are remembered for the next log.
"""

from __future__ import annotations

import datetime
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db import IntegrityError
from django.db.models import Q
from django.utils.translation import gettext as _

import scoring
from league.core.actions import action
from league.core.errors import ServiceError
from league.core.locks import lock_club
from league.models import Club, Game, Member, OnlineLog, OnlineName, RulesVersion
from league.models.audit import User, audit, stored_user
from league.recording import services as recording
from league.table import services as table
from scoring import online
from scoring.hands_json import hand_rules_from_json

LOG = "log"  # the form field every problem of the log is shown on
NON_FIELD_MEMBERS = "members"
# The game's table, stored as data (like a table the organiser types), the same in every language.
ONLINE_TABLE = "オンライン"
SHARED_NAME = re.compile(r" \([東南西北]\)$")  # scoring.online names shared nicknames by seat
TENHOU_ID = re.compile(r"^(\d{10})gm-[0-9a-f]{4}-\d{4}-[0-9a-f]{8}$")


@dataclass(frozen=True)
class ReadLog:
    """A log read and checked: the game as the site played it, and the engine's hands."""

    game: online.OnlineGame
    hands: dict[str, Any]  # `python -m scoring hands` output

    @property
    def points(self) -> list[int]:
        return [p["points"] for p in self.hands["final"]["players"]]

    @property
    def deposits(self) -> int:
        return int(self.hands["final"]["deposits"])

    @property
    def played_on(self) -> datetime.date | None:
        """The date in Tenhou's log id (2019021004gm-…: 2019-02-10), when there is one."""
        m = TENHOU_ID.match(self.game.log_id)
        if m is None:
            return None
        try:
            return datetime.datetime.strptime(m.group(1)[:8], "%Y%m%d").date()
        except ValueError:
            return None


def _message(problem: scoring.Problem) -> str:
    p = problem.params
    if problem.code == online.LOG_MISMATCH and "hand" in p:
        return _(
            "The log's points disagree with the recomputed hands at %(hand)s: the log has "
            "%(log)s, the rules give %(engine)s. Nothing was recorded."
        ) % {"hand": p["hand"], "log": p["log"], "engine": p["engine"]}
    if problem.code == online.LOG_MISMATCH and "log" in p:
        return _(
            "The log's final result (%(log)s) disagrees with the recomputed game (%(engine)s). "
            "Nothing was recorded."
        ) % {"log": p["log"], "engine": p["engine"]}
    if problem.code == online.LOG_MISMATCH:
        return _(
            "The log's hands disagree with the recomputed game (%(where)s). Nothing was recorded."
        ) % {"where": problem.field}
    if problem.code == online.LOG_FORMAT and "most" in p:
        return _("The log has more than %(most)s hands: no game has that many.") % {
            "most": p["most"]
        }
    if problem.code == online.LOG_FORMAT and "yaku_chars" in p:
        return _(
            "%(hand)s of the log has a yaku name Janchō cannot show (%(chars)s). Nothing was "
            "recorded."
        ) % {"hand": p.get("hand", ""), "chars": p["yaku_chars"] or _("too long")}
    if problem.code == online.LOG_FORMAT and "chars" in p:
        return _(
            "A player's name in the log holds control, broken or direction characters "
            "(%(chars)s). Nothing was recorded."
        ) % {"chars": p["chars"]}
    if problem.code == online.LOG_FORMAT and "hand" in p:
        return _("%(hand)s of the log cannot be read (%(where)s). Nothing was recorded.") % {
            "hand": p["hand"],
            "where": problem.field,
        }
    if problem.code == online.LOG_FORMAT:
        return _(
            "This is not a log Janchō can read (a Tenhou JSON log or mjlog XML): %(where)s."
        ) % {"where": problem.field}
    if "hand" in p:
        return _(
            "%(hand)s of the log cannot be played under Tenhou's rules: %(reason)s "
            "Nothing was recorded."
        ) % {"hand": p["hand"], "reason": table.hand_problem_message(problem)}
    return _("A hand of the log cannot be played under Tenhou's rules (%(where)s).") % {
        "where": problem.field
    }


def log_read(text: str | bytes, *, filename: str = "") -> ReadLog:
    """Read and check a log; ServiceError on the `log` field when it cannot be recorded. An
    mjlog carries no id of its own: its file name gives it when it is Tenhou's id."""
    try:
        game = online.parse_online_log(text)
        hands = online.check_online_game(game)
    except scoring.InputError as e:
        raise ServiceError({LOG: [_message(e.problems[0])]}) from None
    stem = filename.rsplit("/", 1)[-1].split(".", 1)[0]
    if game.log_format == "mjlog-xml" and TENHOU_ID.match(stem):
        game = online.OnlineGame(**{**game.__dict__, "log_id": stem})
    return ReadLog(game, hands)


def players_problem(club: Club, read: ReadLog, date: datetime.date) -> str | None:
    """Why the club cannot take this log on `date`: a 3-player (三麻) log in a club of four, or
    the other way round (None when it can). The rules in force that day decide; without any, the
    club's latest."""
    version = RulesVersion.in_force(club, date) or (
        RulesVersion.objects.filter(club=club).order_by("-effective_from").first()
    )
    logged = len(read.game.names)
    if version is None or version.rules.players == logged:
        return None
    return _(
        "This log is a game of %(logged)s players; the club's rules on %(date)s are for "
        "%(club)s players. Nothing was recorded."
    ) % {"logged": logged, "club": version.rules.players, "date": date.isoformat()}


def _rules(club: Club, date: datetime.date) -> RulesVersion | None:
    return RulesVersion.in_force(club, date) or (
        RulesVersion.objects.filter(club=club).order_by("-effective_from").first()
    )


def _hands(read: ReadLog, members: Sequence[Member]) -> list[tuple[dict, dict]]:
    """The log's hands with players named by member pk, as table mode keeps them."""
    names = {name: str(m.pk) for name, m in zip(read.game.names, members, strict=True)}
    marks = read.game.marks or tuple({} for _e in read.game.events)
    return [
        (table.renamed(e, names), {names[who]: mark for who, mark in m.items()})
        for e, m in zip(read.game.events, marks, strict=True)
    ]


def game_input(
    club: Club, read: ReadLog, members: Sequence[Member], date: datetime.date, rate: str = ""
) -> recording.GameInput:
    """The log's game as the recording service takes it, as table mode would give it: points,
    leftover sticks, the chips its hands imply, 焼き鳥 and 飛び賞 by the club's rules of `date`."""
    names = read.game.names
    if len(members) != len(names) or len({m.pk for m in members}) != len(members):
        raise ServiceError.one(NON_FIELD_MEMBERS, _("Choose a different member for each seat."))
    version = _rules(club, date)
    seats = [
        recording.SeatInput(member=m, points=p) for m, p in zip(members, read.points, strict=True)
    ]
    chips: list[recording.ChipInput] = []
    if version is not None:
        implied = table.hands_imply(
            rules=version.rules,
            hand_rules=_hand_rules(read),
            hands=_hands(read, members),
            seats=members,
            points=read.points,
            ended=read.hands["final"]["ended"],
        )
        seats = [
            replace(s, yakitori=implied.yakitori[i], busted_by=implied.busted_by[i])
            for i, s in enumerate(seats)
        ]
        chips = implied.chips
    return recording.GameInput(
        date=date,
        seats=seats,
        table=ONLINE_TABLE,
        deposits=read.deposits,
        rate=rate,
        chips=chips,
    )


def rates(club: Club, date: datetime.date) -> list[str]:
    """The rates of the club's rules on `date` (none: the club plays for no money)."""
    version = _rules(club, date)
    return list(version.rules.rates) if version is not None else []


def day_rate(club: Club, date: datetime.date) -> str:
    """The rate the club played at on `date`: its latest game's that day, else the first rate of
    the rules in force (none when the club plays for no money)."""
    version = _rules(club, date)
    if version is None or not version.rules.rates:
        return ""
    played = (
        Game.objects.filter(club=club, date=date)
        .exclude(rate__isnull=True)
        .exclude(rate="")
        .order_by("-id")
        .values_list("rate", flat=True)
        .first()
    )
    return played if played in version.rules.rates else next(iter(version.rules.rates))


def log_lacks(club: Club, read: ReadLog, date: datetime.date) -> list[str]:
    """What the club's rules on `date` count that the log does not say, one line each: chip
    kinds no hand implies, chombo (online sites have none), a bust the last hand does not
    explain."""
    version = _rules(club, date)
    if version is None:
        return []
    rules = version.rules
    out = []
    from_hands = {k for kinds in table.CHIP_MARKS.values() for k in kinds}
    for kind in rules.chips:
        if kind not in from_hands:
            out.append(
                _("Chips of kind “%(kind)s”: the log does not say them; add them after recording.")
                % {"kind": kind}
            )
    if rules.chombo.mode != "none":
        out.append(_("Chombo: the site has none; a chombo is not in the log."))
    bust = rules.bust_bonus
    if bust is not None and bust.to == "buster" and read.hands["final"]["ended"] == "bust":
        last = read.game.events[-1]
        if last.get("result") not in ("tsumo", "ron"):
            out.append(
                _("飛び賞: the last hand has no winner, so the log does not say who busted.")
            )
    return out


def _hand_rules(read: ReadLog) -> scoring.HandRules:
    return replace(hand_rules_from_json(online.rules_json(read.game.rules)), start=read.game.start)


def remembered_members(club: Club, names: Sequence[str]) -> dict[str, Member]:
    """The members the club has mapped these online names to (one query)."""
    rows = OnlineName.objects.filter(club=club, site="tenhou", name__in=list(names))
    # A member merged into another since: the survivor (the merge keeps the record, inactive).
    rows = rows.select_related("member", "member__merged_into")
    return {r.name: r.member.merged_into or r.member for r in rows}


def already_recorded(club: Club, read: ReadLog) -> OnlineLog | None:
    return (
        OnlineLog.objects.filter(club=club)
        .filter(Q(log_id=read.game.log_id) | Q(fingerprint=read.game.fingerprint))
        .select_related("game")
        .first()
    )


def _duplicate(found: OnlineLog) -> ServiceError:
    return ServiceError.one(
        LOG,
        _("This log is already recorded (game %(number)s of %(date)s). Nothing was recorded.")
        % {"number": found.game.number, "date": found.game.date.isoformat()},
    )


def online_game_record(
    *,
    club: Club,
    user: User,
    read: ReadLog,
    members: Sequence[Member],
    date: datetime.date,
    rate: str = "",
) -> Game:
    """Record the checked log as a game of `date`, with the online names mapped to `members`
    (seat order); remember the mapping. The whole game: its hands with their marks (副露, 一発,
    yaku, 裏ドラ, 赤ドラ), the chips they imply, 焼き鳥 and 飛び賞 where the club counts them,
    at `rate`. Raises ServiceError (nothing stored) for a log already recorded, a member chosen
    twice, or a game the club's rules cannot settle."""
    names = read.game.names
    if (problem := players_problem(club, read, date)) is not None:
        raise ServiceError.one(LOG, problem)
    data = game_input(club, read, members, date, rate)
    try:
        with action():
            lock_club(club.pk)  # first: the one global lock order
            found = already_recorded(club, read)
            if found is not None:
                raise _duplicate(found)
            _remember(club, user, names, members)
            # The rate is chosen on the log's page, preselected at the day's (day_rate): no
            # second question (recording.check_rate) after the organiser picked it there.
            game = recording.game_record_in(club=club, user=user, data=data, confirm_rate=True)
            kept = _keep_hands(game, user, read, members)
            log = OnlineLog.objects.create(
                club=club,
                site=read.game.site,
                log_id=read.game.log_id,
                fingerprint=read.game.fingerprint,
                log_format=read.game.log_format,
                game=game,
                names=list(names),
                hands=read.hands,
                recorded_by=stored_user(user),
            )
            audit(
                club=club,
                actor=user,
                action="online.record",
                target=f"game:{game.pk}",
                after={
                    "log_id": log.log_id,
                    "format": log.log_format,
                    "names": list(names),
                    "members": [m.pk for m in members],
                    "hands": kept,
                },
                game=game,
            )
            return game
    except IntegrityError:
        # A concurrent request recorded the same log first.
        found = already_recorded(club, read)
        if found is not None:
            raise _duplicate(found) from None
        raise


def _keep_hands(game: Game, user: User, read: ReadLog, members: Sequence[Member]) -> int:
    """The log's hands kept with the game (league.table's Hand and HandStat, as a game played at
    the table), players named by member: the club's per-hand statistics count online games too.
    The number of hands kept."""
    hands = _hands(read, members)
    key = uuid.uuid5(uuid.NAMESPACE_URL, f"jancho:online:{game.club_id}:{read.game.fingerprint}")
    table.played_game_keep(
        game=game,
        user=user,
        key=key,
        members=members,
        rules=_hand_rules(read),
        events=[e for e, _m in hands],
        marks=[m for _e, m in hands],
    )
    return len(hands)


def _remember(club: Club, user: User, names: Sequence[str], members: Sequence[Member]) -> None:
    known = remembered_members(club, names)
    for name, member in zip(names, members, strict=True):
        if SHARED_NAME.search(name):
            continue  # a nickname two seats shared ("NoName (南)"): the seat, not the name, told
        before = known.get(name)
        if before is not None and before.pk == member.pk:
            continue
        OnlineName.objects.update_or_create(
            club=club, site="tenhou", name=name, defaults={"member": member}
        )
        audit(
            club=club,
            actor=user,
            action="online.name",
            target=f"member:{member.pk}",
            before={"name": name, "member": before.pk} if before is not None else None,
            after={"name": name, "member": member.pk},
        )


def recent_logs(club: Club, limit: int = 20) -> list[OnlineLog]:
    return list(
        OnlineLog.objects.filter(club=club)
        .select_related("game")
        .order_by("-created_at", "-id")[:limit]
    )
