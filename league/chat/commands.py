"""The command core every chat shares (LINE, Discord, Telegram, Slack): a message's text in, the
reply's text out. The adapters only check signatures and carry text.

    連携 ABC123                         link this group to a club, or me to a member (a code)
    記録 青木45000 佐藤31000 鈴木18000 田中6000   record today's game, as the record form does
    精算                                the day's text, as the day's LINE text page shows it
    順位                                the season's top and my place
    卓                                  my table and wind in the current round of the draw
    取消                                void my last game recorded here, within 10 minutes

Names are found as the record form finds them (by name, reading or a part only one member has);
points as people type them (full-width digits, ▲ for minus, commas). The seats are in the order
typed (起家 first). Anything else typed in a group is ordinary chat: no reply.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
import uuid
from collections.abc import Sequence

from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import scoring
from league.chat import services, sharing
from league.chat.services import Message
from league.club.directory import AmbiguousMember, MemberDirectory
from league.core.clock import today
from league.core.errors import ServiceError
from league.core.format import score
from league.draw import selectors as draw_selectors
from league.models import ChatEvent, ChatLink, ChatUser, Club, Day, Game, Member, RulesVersion
from league.models.seasons import Season
from league.recording import selectors as recording_selectors
from league.recording import services as recording
from league.recording.forms import BAD_NUMBER
from league.recording.services import GameInput, SeatInput
from league.standings import selectors as standings_selectors

UNDO_WINDOW = datetime.timedelta(minutes=10)
TOP = 3
# A game recorded from a chat event has a submission key made from the event's id: the record
# service itself then records one game for one event, whatever re-sends it.
CHAT_NAMESPACE = uuid.UUID("6f1c2b0e-43a5-4c1e-9a57-1c0e6b7f4343")

COMMANDS = {
    "連携": "link",
    "link": "link",
    "記録": "record",
    "record": "record",
    "精算": "settle",
    "settle": "settle",
    "順位": "standings",
    "standings": "standings",
    "卓": "table",
    "table": "table",
    "取消": "undo",
    "取り消し": "undo",
    "undo": "undo",
}
SOURCE = {"line": "LINE", "discord": "Discord", "telegram": "Telegram", "slack": "Slack"}


def how_to_link() -> str:
    return _(
        "This chat is not linked to a club yet. An organiser makes a link code on the club's "
        "chat page (club page → chat) and types 「連携 CODE」 here."
    )


def members_only() -> str:
    return _(
        "Only members may do this. Make a code on My page → chat and send 「連携 CODE」 to "
        "link your chat account to your player."
    )


def how_to_use() -> str:
    return _("Commands: 記録 (name points ×4), 精算, 順位, 卓, 取消; 連携 CODE to link.")


def split(text: str) -> tuple[str | None, str]:
    """(command, the rest): 「記録　青木45000 …」, "/record@JanchoBot …" (Telegram)."""
    text = unicodedata.normalize("NFKC", text).strip()
    head, _sep, rest = text.partition(" ")
    head = head.lstrip("/").split("@", 1)[0].lower()
    return COMMANDS.get(head), rest.strip()


def respond(message: Message) -> list[str] | None:
    """The reply to a message (None: no reply), each event once (services.handle)."""
    with translation.override("ja"):
        return services.handle(message, _run)


def _run(message: Message) -> list[str]:
    command, rest = split(message.text)
    if command == "link":
        return [_link(message, rest)]
    link = ChatLink.objects.filter(platform=message.platform, chat_id=message.chat_id).first()
    club = link.club if link is not None else _direct_club(message)
    if club is None:
        # A bot just added to a group (an empty text), or a command in an unlinked chat.
        return [how_to_link()] if command is not None or not message.text else []
    if command is None:
        return []
    asker = (
        ChatUser.objects.filter(club=club, platform=message.platform, user_id=message.user_id)
        .select_related("member")
        .first()
    )
    member = asker.member if asker is not None else None
    if command == "settle":
        return [_settle(club)]
    if command == "standings":
        return [_standings(club, member)]
    if member is None:
        return [members_only()]
    if command == "record":
        return [_record(message, club, member, rest)]
    if command == "table":
        return [_table(club, member)]
    return [_undo(message, club, member)]


def _direct_club(message: Message) -> Club | None:
    """In a 1:1 chat with the bot: the one club its user is linked in."""
    if message.group:
        return None
    clubs = list(
        ChatUser.objects.filter(platform=message.platform, user_id=message.user_id).values_list(
            "club", flat=True
        )[:2]
    )
    return Club.objects.filter(pk=clubs[0]).first() if len(clubs) == 1 else None


def _link(message: Message, code: str) -> str:
    if not code:
        return _("Send 「連携」 with the code, e.g. 「連携 ABC123」.")
    try:
        row, club = services.code_use(message=message, code=code.replace(" ", ""))
    except ServiceError as e:
        return " ".join(m for ms in e.errors.values() for m in ms)
    if row.member is not None:
        return _("Linked: you are %(name)s of %(club)s.") % {
            "name": row.member.name,
            "club": club.name,
        }
    return _("Linked to %(club)s. Send 記録, 精算, 順位, 卓 or 取消.") % {"club": club.name}


# --- 記録 ------------------------------------------------------------------------------------

_NAME_AND_POINTS = re.compile(r"^(?P<name>.*?)(?P<points>[+\-−▲△]?[0-9][0-9,]*)点?$")
_NUMBER = re.compile(r"^[+\-−▲△]?[0-9][0-9,]*点?$")


def parse_seats(text: str) -> list[tuple[str, str]]:
    """「青木45000 佐藤 31,000 鈴木▲1000」 → [(name, points text), …] in the order typed. A
    name may have a space in it (青木 健 45000); a number stands on its own or after its name."""
    text = unicodedata.normalize("NFKC", text)
    seats: list[tuple[str, str]] = []
    name: list[str] = []
    for token in text.split():
        if _NUMBER.match(token):
            seats.append((" ".join(name), token))
            name = []
            continue
        match = _NAME_AND_POINTS.match(token)
        if match and match["name"]:
            seats.append((" ".join([*name, match["name"]]), match["points"]))
            name = []
        else:
            name.append(token)
    if name:
        seats.append((" ".join(name), ""))
    return seats


def _rate(club: Club, date: datetime.date) -> str:
    """The evening's rate, as the record form starts a game (recording.evening_rate: the day's
    last game's), else the rules' first tier. So the chat never meets the rate question (the
    chat cannot tick a box)."""
    last = recording.evening_rate(club=club, date=date)
    if last is not None:
        return last
    version = RulesVersion.in_force(club, date)
    return next(iter(version.rules.rates), "") if version is not None else ""


def _record(message: Message, club: Club, member: Member, text: str) -> str:
    typed = parse_seats(text)
    if not typed:
        return _("Write the players and their points: 「記録 青木45000 佐藤31000 …」.")
    directory = MemberDirectory(Member.objects.filter(club=club, is_active=True))
    problems: list[str] = []
    seats: list[SeatInput] = []
    for name, points_text in typed:
        label = name or "?"
        try:
            found = directory.find(name) if name else None
        except AmbiguousMember as e:
            problems.append(f"{label}: {e.message}")
            found = None
        else:
            if found is None:
                problems.append(f"{label}: {directory.unknown_message(name)}")
        try:
            points = scoring.parse_integer(points_text)
        except ValueError:
            problems.append(f"{label}: {BAD_NUMBER}")
            continue
        if found is not None:
            seats.append(SeatInput(found, points))
    if problems:
        return "\n".join([_("Not recorded:"), *problems])
    date = today()
    data = GameInput(
        date=date,
        seats=seats,
        rate=_rate(club, date),
        submission_key=uuid.uuid5(CHAT_NAMESPACE, f"{message.platform}:{message.event_id}"),
    )
    try:
        game = recording.game_record_in(
            club=club,
            user=member.user,
            data=data,
            confirm_duplicate=False,
            source=SOURCE[message.platform],
        )
    except ServiceError as e:
        return "\n".join([_("Not recorded:"), *_service_problems(e, typed)])
    services.event_game(message=message, club=club, game_id=game.pk)
    return _result_text(club, game)


def _service_problems(error: ServiceError, typed: Sequence[tuple[str, str]]) -> list[str]:
    """A service's messages, each named by the player it is about ("member_2" → 鈴木)."""
    out = []
    for field_name, messages in error.errors.items():
        head, _sep, index = field_name.rpartition("_")
        who = ""
        if head in ("member", "points") and index.isdigit() and int(index) < len(typed):
            who = typed[int(index)][0] + ": "
        out += [who + m for m in messages]
    return out


def _result_text(club: Club, game: Game) -> str:
    """The settled game as the day's LINE text writes it (league.chat.sharing.game_lines)."""
    day = Day.objects.get(pk=game.day_id)
    shown = next(g for g in recording_selectors.day_games(day=day) if g.pk == game.pk)
    lines = [
        _("Recorded: %(club)s %(date)s") % {"club": club.name, "date": f"{game.date:%Y/%m/%d}"}
    ]
    return "\n".join([*lines, *sharing.game_lines(shown)])


# --- 精算 / 順位 / 卓 / 取消 ------------------------------------------------------------------


def _settle(club: Club) -> str:
    day = Day.objects.filter(club=club, date=today()).first()
    if day is None:
        return _("No games today yet.")
    if draw_selectors.hidden_games(day, organiser=False):  # a group: never an organiser's view
        return str(HELD_TEXT)
    return sharing.day_message(club=club, day=day)


HELD_TEXT = gettext_lazy(
    "Round results are held back until every table of the round is recorded; ask again then."
)


def _season(club: Club) -> Season | None:
    date = today()
    running = Season.objects.filter(club=club, start__lte=date, end__gte=date)
    return running.order_by("-start", "-pk").first() or (
        Season.objects.filter(club=club).order_by("-start", "-pk").first()
    )


def _standings(club: Club, member: Member | None) -> str:
    if draw_selectors.held_round(club.pk) is not None:  # the kept totals have the held games
        return str(HELD_TEXT)
    season = _season(club)
    rows = list(
        standings_selectors.standings(
            club=club, season=season, min_games=season.min_games if season else 0
        )
    )
    title = season.name if season is not None else _("All time")
    if not rows:
        return _("%(season)s: no games yet.") % {"season": title}
    lines = [_("%(season)s standings") % {"season": title}]
    for row in rows[:TOP]:
        lines.append(_line(row))
    mine = next((r for r in rows if member is not None and r["member"] == member.pk), None)
    if mine is not None:
        lines.append(_("You: %(line)s") % {"line": _line(mine)})
    elif member is not None:
        lines.append(_("You: no games in this season yet."))
    return "\n".join(lines)


def _line(row: dict) -> str:
    place = _("%(rank)s.") % {"rank": row["position"]} if row["qualified"] else "—"
    games = _("%(n)s games") % {"n": row["games"]}
    return f"{place} {row['name']} {score(row['total'])} ({games})"


def _table(club: Club, member: Member) -> str:
    day = Day.objects.filter(club=club, date=today()).first()
    current = draw_selectors.current_round(draw_selectors.current_rounds(day))
    if current is None:
        return _("No draw today yet.")
    heading = _("Round %(n)s") % {"n": current.round.number}
    for view in current.tables:
        for wind, player in view.seated:
            if player.pk == member.pk:
                return _("%(round)s: table %(table)s, %(wind)s (%(players)s)") % {
                    "round": heading,
                    "table": view.table.label,
                    "wind": wind,
                    "players": "、".join(p.name for p in view.players),
                }
    return _("%(round)s: you sit this round out.") % {"round": heading}


def _undo(message: Message, club: Club, member: Member) -> str:
    since = timezone.now() - UNDO_WINDOW
    last = (
        ChatEvent.objects.filter(
            platform=message.platform,
            sender=message.user_id,
            club=club,
            game__isnull=False,
            game__voided=False,
            game__recorded_at__gte=since,
        )
        .order_by("-received_at", "-pk")
        .values_list("game", flat=True)
        .first()
    )
    if last is None:
        return _("Nothing to cancel: no game of yours recorded here in the last 10 minutes.")
    game = Game.objects.select_related("club").get(pk=last)
    reason = _("Cancelled from %(source)s") % {"source": SOURCE[message.platform]}
    try:
        recording.game_void_in(game=game, user=member.user, reason=reason)
    except ServiceError as e:
        return " ".join(m for ms in e.errors.values() for m in ms)
    return _("Cancelled game %(number)s of %(date)s.") % {
        "number": game.number,
        "date": f"{game.date:%Y/%m/%d}",
    }
