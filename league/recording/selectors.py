"""Every read of 雀帳's pages: keyword-only, typed functions named `<entity>_<what>`.

Each returns its rows in a fixed number of queries, whatever the number of games and players:
the current settlement of a game is prefetched (`Game.current_results`), and totals are database
aggregates over `Result(counted=True)`, the rows that rankings count.
"""

from __future__ import annotations

import datetime
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, F, Prefetch, Q, QuerySet, Subquery
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from league.models import AuditLog, ChipEvent, Club, Day, Game, Hand, Result, TableGame
from league.models.hands import recorder_annotations
from league.models.members import club_member_name
from league.standings import selectors as aggregate_selectors

RECENT_GAMES = 10
RECENT_DAYS = 10


# --- clubs and days --------------------------------------------------------------------------


def user_clubs(*, user: AbstractBaseUser | AnonymousUser) -> list[Club]:
    """The clubs a user belongs to (a superuser: every club), by name."""
    clubs = Club.objects.order_by("name", "slug")
    if not getattr(user, "is_superuser", False):
        clubs = clubs.filter(memberships__user=user)
    return list(clubs)


def club_day(*, club: Club, date: datetime.date) -> Day | None:
    return Day.objects.filter(club=club, date=date).first()


def club_recent_days(*, club: Club, limit: int = RECENT_DAYS) -> list[Day]:
    """The club's latest days, newest first, each with `game_count`: its live games (a voided
    game is left out, as the share link and the LINE text count them)."""
    # The latest days first (an index range), then their games counted: the cost of `limit`
    # days, not of the club's history.
    latest = Day.objects.filter(club=club).order_by("-date").values("pk")[:limit]
    return list(
        Day.objects.filter(pk__in=Subquery(latest))
        .annotate(game_count=Count("games", filter=Q(games__voided=False)))
        .order_by("-date")
    )


# --- games -----------------------------------------------------------------------------------


def _current_results() -> Prefetch:
    """A game's rows of its current revision, in seat order, as `game.current_results`."""
    return Prefetch(
        "results",
        queryset=Result.objects.filter(revision=F("game__revision"))
        .select_related("member")
        .order_by("seat"),
        to_attr="current_results",
    )


def _current_chip_events() -> Prefetch:
    return Prefetch(
        "chip_events",
        queryset=ChipEvent.objects.filter(revision=F("game__revision"))
        .select_related("winner", "discarder")
        .order_by("id"),
        to_attr="current_chip_events",
    )


def _with_flags(games: Sequence[Game]) -> list[Game]:
    """Marks what a game's table needs to show: a chips column only when chips moved."""
    for game in games:
        game.has_chips = any(r.chips for r in game.current_results)  # type: ignore[attr-defined]
        game.has_chombo = any(r.chombo for r in game.current_results)  # type: ignore[attr-defined]
    return list(games)


def club_recent_games(*, club: Club, limit: int = RECENT_GAMES) -> list[Game]:
    """The club's latest games, newest first (voided ones too: they are shown struck through)."""
    games = (
        Game.objects.filter(club=club)
        .order_by("-date", "-number")
        .prefetch_related(_current_results())[:limit]
    )
    return _with_flags(games)


def day_games(*, day: Day) -> list[Game]:
    """A day's games in order, each with its current settlement."""
    games = Game.objects.filter(day=day).order_by("number").prefetch_related(_current_results())
    return _with_flags(games)


def day_table_heads(*, day: Day) -> list[Game]:
    """Each table's latest counted game of the day: where an organiser's "next game", "same four"
    and "rotate seats" start from. One query of two columns (the id, the table), not the day's
    games with their rows (a day page's games are a part that members share:
    league.access.shared_part)."""
    last: dict[str, Game] = {}
    for game in Game.objects.filter(day=day, voided=False).order_by("number").only("table"):
        last[game.table] = game
    return list(last.values())


def club_game(*, club: Club, game_id: int) -> Game | None:
    """One game of the club (None for another club's game), with its settlement and chips and
    the name of its recorder's member in the club (`recorder_member`, None if none)."""
    game = (
        Game.objects.filter(club=club, pk=game_id)
        .select_related("rules_version", "recorded_by", "day")
        .annotate(recorder_member=club_member_name(user="recorded_by_id", club="club_id"))
        .prefetch_related(_current_results(), _current_chip_events())
        .first()
    )
    return _with_flags([game])[0] if game is not None else None


# --- the day's running totals ----------------------------------------------------------------


def day_ledger_rows(*, day: Day, hidden: Collection[int] = ()) -> list[dict[str, Any]]:
    """Each player's totals over the day's counted games (voided games and old revisions excluded).

    Rows: member, name, games, score (tenths), chips, yen (None when no game had a rate);
    best score first. Without the `hidden` games (held back: league.models.draw.hidden_games).
    """
    if hidden:
        return aggregate_selectors.day_totals_without(
            club_id=day.club_id, date=day.date, games=hidden
        )
    return aggregate_selectors.day_totals(club_id=day.club_id, date=day.date)


# --- a game's history ------------------------------------------------------------------------

ACTION_LABELS: dict[str, Promise] = {
    "game.create": _("created"),
    "game.edit": _("edited"),
    "game.void": _("voided"),
    "game.resettle": _("re-settled"),
    "draw.recorded": _("linked to its table of the draw"),
    "import.apply": _("imported"),
    "online.record": _("recorded from an online game's log"),
    "table.save": _("recorded hand by hand (table mode)"),
    "team_match.recorded": _("linked to its team match table"),
}

FIELD_LABELS: dict[str, Promise] = {
    "table": _("table"),
    "rate": _("rate"),
    "deposits": _("deposits"),
}


@dataclass(frozen=True)
class PlayerChange:
    """One player's line before → after an edit (None: not at the table on that side)."""

    name: str
    points_before: int | None
    points_after: int | None
    score_before: int | None
    score_after: int | None
    chips_before: int | None
    chips_after: int | None

    @property
    def points_changed(self) -> bool:
        return self.points_before != self.points_after

    @property
    def score_changed(self) -> bool:
        return self.score_before != self.score_after

    @property
    def chips_changed(self) -> bool:
        return self.chips_before != self.chips_after


@dataclass(frozen=True)
class FieldChange:
    field: str
    label: Promise
    before: Any
    after: Any


@dataclass(frozen=True)
class HistoryEntry:
    action: str
    label: Promise | str
    actor: AbstractBaseUser | None
    actor_name: str  # their member's name in the club, else their login's ("" when unknown)
    at: datetime.datetime
    reason: str
    players: Sequence[PlayerChange]
    fields: Sequence[FieldChange]


def _player_changes(before: dict[str, Any], after: dict[str, Any]) -> list[PlayerChange]:
    """The players whose points, score or chips differ, in the new seat order, then those who left."""
    old = {p["member"]: p for p in before.get("players", [])}
    new = {p["member"]: p for p in after.get("players", [])}
    changes = []
    for member in [*new, *(m for m in old if m not in new)]:
        o, n = old.get(member, {}), new.get(member, {})
        change = PlayerChange(
            name=n.get("name") or o.get("name", ""),
            points_before=o.get("points"),
            points_after=n.get("points"),
            score_before=o.get("score"),
            score_after=n.get("score"),
            chips_before=o.get("chips"),
            chips_after=n.get("chips"),
        )
        if change.points_changed or change.score_changed or change.chips_changed:
            changes.append(change)
    return changes


def _field_changes(before: dict[str, Any], after: dict[str, Any]) -> list[FieldChange]:
    return [
        FieldChange(name, label, before.get(name), after.get(name))
        for name, label in FIELD_LABELS.items()
        if before.get(name) != after.get(name)
    ]


def _history_entry(log: AuditLog) -> HistoryEntry:
    before, after = log.before or {}, log.after or {}
    compare = bool(log.before and log.after) and log.action != "game.void"
    return HistoryEntry(
        action=log.action,
        label=ACTION_LABELS.get(log.action, _("changed")),
        actor=log.actor,
        actor_name=getattr(log, "actor_member", None)
        or (log.actor.get_username() if log.actor else ""),
        at=log.at,
        reason=log.reason,
        players=_player_changes(before, after) if compare else [],
        fields=_field_changes(before, after) if compare else [],
    )


def game_history(*, game: Game) -> list[HistoryEntry]:
    """The game's audit log, oldest first, with what each edit changed."""
    logs: QuerySet[AuditLog] = (
        game.history.select_related("actor")
        .annotate(actor_member=club_member_name(user="actor_id", club="club_id"))
        .order_by("at", "id")
    )
    return [_history_entry(log) for log in logs]


# --- a game recorded hand by hand (league.table) ---------------------------------------------


@dataclass(frozen=True)
class HandRow:
    index: int
    label: str  # 東1-1
    text: str  # what happened, with names
    deltas: list[int]
    scores: list[int]
    marks: list[str]  # 一発, 役満, 副露, 裏 n, 赤 n
    recorder: str = ""  # who entered it: their member's name in the club, else their login's


def game_hands(*, game: Game, names: list[str]) -> tuple[list[HandRow], str]:
    """The hands of the game's current revision, in order, each with who entered it, and its
    table game's key (one query; a second only for a game with hands). `names` are the players
    in seat order. An online game's hands come from its log: no key (it is corrected on the
    ordinary form, players only) and nobody entered them by hand."""
    hands = list(
        Hand.objects.filter(table_game__game=game, live=True)
        .annotate(**recorder_annotations())
        .order_by("index")
        .values_list(
            "index",
            "round",
            "honba",
            "event",
            "marks",
            "deltas",
            "scores",
            "recorder_member",
            "recorder_username",
        )
    )
    if not hands:
        return [], ""
    table = (
        TableGame.objects.filter(game=game).values_list("seats", "key", "game__online_log").first()
    )
    seats, key, online = table if table else ([], "", None)
    key = "" if online is not None else key
    by_pk = {str(pk): names[i] for i, pk in enumerate(seats)}
    return [
        HandRow(
            index,
            f"{round_}-{honba}" if honba else round_,
            _hand_text(event, by_pk),
            deltas,
            scores,
            _hand_marks(event, marks, by_pk),
            "" if online is not None else member or username or "",
        )
        for index, round_, honba, event, marks, deltas, scores, member, username in hands
    ], str(key)


def _hand_text(event: dict[str, Any], names: dict[str, str]) -> str:
    def name(pk: object) -> str:
        return names.get(str(pk), "?")

    result = event.get("result")
    if result == "ron":
        winners = "・".join(name(w.get("player")) for w in event.get("winners", []))
        return _("%(winners)s ron on %(from)s") % {"winners": winners, "from": name(event["from"])}
    if result == "tsumo":
        return _("%(winner)s tsumo") % {"winner": name(event.get("winner"))}
    if result == "draw":
        tenpai = "・".join(name(p) for p in event.get("tenpai", []))
        text = _("Draw (tenpai: %(tenpai)s)") % {"tenpai": tenpai} if tenpai else str(_("Draw"))
        if event.get("nagashi"):
            nagashi = "・".join(name(p) for p in event["nagashi"])
            text += " " + _("nagashi mangan: %(players)s") % {"players": nagashi}
        return text
    if result == "abortive":
        return str(_("Abortive draw"))
    return _("Chombo by %(player)s") % {"player": name(event.get("player"))}


def _hand_marks(event: dict[str, Any], marks: dict[str, Any], names: dict[str, str]) -> list[str]:
    out = []
    wins = event.get("winners", []) if event.get("result") == "ron" else [event]
    for win in wins if event.get("result") in ("ron", "tsumo") else []:
        who = str(win.get("player") or win.get("winner"))
        hand = str(
            _("yakuman") if win.get("yakuman") else _("%(han)s han") % {"han": win.get("han")}
        )
        if win.get("fu") and not win.get("yakuman"):
            hand += _(" %(fu)s fu") % {"fu": win["fu"]}
        mark = marks.get(who, {})
        if isinstance(win.get("pao"), dict):
            hand += " " + _("(pao: %(player)s)") % {
                "player": names.get(str(win["pao"].get("player")), "?")
            }
        extra = [
            str(text)
            for flag, text in (("ippatsu", _("ippatsu")), ("called", _("called")))
            if mark.get(flag)
        ]
        extra += [
            f"{text} {mark[count]}"
            for count, text in (("ura", _("ura")), ("aka", _("red")))
            if mark.get(count)
        ]
        extra += [str(y) for y in mark.get("yaku", [])]
        out.append(" ".join([names.get(who, "?"), hand, *extra]))
    return out
