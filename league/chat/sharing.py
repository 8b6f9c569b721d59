"""A day as plain text for a group chat (LINE): each game's players and scores, each player's day
total, then who pays whom.

Clubs used to type this into their LINE group by hand after the evening. The shape is compact,
one line a player, so that it reads on a phone without wrapping:

    マメの会 2026/11/15
    ■次の卓
    小林 誠 次：第3回戦 B卓 西家
    …
    ■第1半荘 A卓 レート 0.5
    1位 小林 誠 +46.3 チップ+2
    …
    4位 林 裕子 ▲37.8 チョンボ1回
    ■第2半荘 無効
    ■この日の合計
    小林 誠 +11.9 2,030円
    …
    クラブへ（マメの会） 30円（端数処理 30円）
    ■精算
    松本 和也 → 山田 博 2,630円
    吉田 浩二 → 阿部 誠 2,015円（支払済み）
    林 裕子 → 山田 博 1,505円（後日払い＋割増151円＝1,656円）

The next tables (league.draw) are listed while a round drawn for the day still has a table to
play: each checked-in player's first one, with their wind when the seats were drawn. A voided
game keeps its line (its number, as on the day page) and nothing else; the scores are those of
each game's current revision; the payments are league.money.sharing's. Numbers are written as on the screen (▲ for negatives in
Japanese); yen only where the club plays for money.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from league import money
from league.core.format import chombo, score, signed, yen
from league.models import Club, Day, Game, RulesVersion
from league.models.draw import NextTable, next_tables
from league.money.sharing import day_transfers, party_name
from league.recording import selectors

HEADING = "■"


def _heading(game: Game) -> str:
    heading = _("Game %(number)s") % {"number": game.number}
    if game.table:
        heading += " " + _("table %(table)s") % {"table": game.table}
    if game.rate:
        heading += " " + _("rate %(rate)s") % {"rate": game.rate}
    return heading


def game_lines(game: Game) -> list[str]:
    """One game: a heading with its number, table and rate, then its players by rank, each with
    their chombo and chips when they have any. A voided game is its heading, marked void: the
    numbers stay those of the day page.

    `game` comes from league.recording.selectors (its `current_results` loaded, in seat order)."""
    if game.voided:
        # Translators: a voided game in the chat message: ■第2半荘 無効
        return [HEADING + _("%(game)s void") % {"game": _heading(game)}]
    rows = sorted(game.current_results, key=lambda r: (r.rank, r.seat))  # type: ignore[attr-defined]
    # Translators: a player's rank in the chat message: 1位
    rank = _("%(rank)s.")
    players = []
    for r in rows:
        line = f"{rank % {'rank': r.rank}} {r.member.name} {score(r.score)}"
        if r.chombo:
            line += " " + chombo(r.chombo)
        if r.chips:
            # Translators: a player's chips in one game in the chat message: チップ+2
            line += " " + _("chips %(n)s") % {"n": signed(r.chips)}
        players.append(line)
    return [HEADING + _heading(game), *players]


def total_lines(games: Sequence[Game], ledger: money.DayLedger | None) -> list[str]:
    """Each player's day: their scores summed over the live games and, with money, their day
    total in yen (the ledger's, fees and shūgi included), best first. An attendee who played no
    game is listed only with yen to pay or get (session shūgi)."""
    scores: dict[int, int] = {}
    names: dict[int, str] = {}
    for game in games:
        if game.voided:
            continue
        for r in game.current_results:  # type: ignore[attr-defined]
            if r.member.fill_in:  # 黒子: in the game's lines only
                continue
            scores[r.member_id] = scores.get(r.member_id, 0) + r.score
            names[r.member_id] = r.member.name
    money_of: dict[int, int] = {}
    if ledger is not None:
        for p in ledger.players:
            pk = money.party(p.name)
            if pk is not None:
                money_of[pk] = p.yen
                names.setdefault(pk, ledger.members[pk].name)
    order = (
        sorted(names, key=lambda pk: (-money_of.get(pk, 0), -scores.get(pk, 0), names[pk]))
        if ledger is not None
        else sorted(names, key=lambda pk: (-scores.get(pk, 0), names[pk]))
    )
    lines = []
    for pk in order:
        if pk not in scores and not money_of.get(pk):
            continue  # checked in but played no game, and nothing to pay or get: not news
        line = names[pk]
        if pk in scores:
            line += " " + score(scores[pk])
        if ledger is not None:
            line += " " + _("%(amount)s yen") % {"amount": yen(money_of.get(pk, 0))}
        lines.append(line)
    return lines


def club_line(club: Club, ledger: money.DayLedger) -> str | None:
    """What the day left to the club, as the day's ledger shows it on the club's row (and the
    pot page's account, by kind): "クラブへ（マメの会） 30円（端数処理 30円）", its parts the
    sticks and deposits left on the tables (and a fill-in's money), the place fees and the
    rounding, each when not zero. None when the club got nothing (negative: the club paid)."""
    house = ledger.house
    if not house:
        return None
    players = ledger.players
    fees = -sum(p.fees for p in players)
    rounding = -sum(p.rounding for p in players)
    parts = [
        (_("Sticks and deposits left to the club"), house - fees - rounding),
        (_("Place fees"), fees),
        (_("Rounding"), rounding),
    ]
    named = [
        _("%(what)s %(amount)s yen") % {"what": what, "amount": yen(amount)}
        for what, amount in parts
        if amount
    ]
    # Translators: the club's share of the day in the chat message: クラブへ（マメの会） 30円
    line = _("To the club (%(club)s) %(amount)s yen") % {"club": club.name, "amount": yen(house)}
    # Translators: the parts of the club's share, after it: （端数処理 30円）
    return line + _(" (%(parts)s)") % {"parts": pgettext("list separator", ", ").join(named)}


def payment_lines(club: Club, ledger: money.DayLedger) -> list[str]:
    """Who pays whom, one line each: "松本 → 山田 2,630円（支払済み）"."""
    notes = {"paid": _(" (paid)"), "deferred": _(" (later)"), "due": ""}
    lines = []
    for t in day_transfers(club, ledger):
        amount = _("%(amount)s yen") % {"amount": yen(t.yen)}
        if t.status == "loan":
            note = _(" (paid, lent by %(lender)s)") % {"lender": party_name(club, t.entry.payer)}
        elif t.status == "deferred" and t.entry is not None and t.entry.surcharge:
            note = _(" (later, + %(surcharge)s yen surcharge = %(total)s yen)") % {
                "surcharge": yen(t.entry.surcharge),
                "total": yen(t.yen + t.entry.surcharge),
            }
        else:
            note = notes[t.status]
        lines.append(f"{t.payer} → {t.payee} {amount}{note}")
    return lines


def day_text(
    *,
    club: Club,
    day: Day,
    games: Sequence[Game],
    ledger: money.DayLedger | None,
    upcoming: Sequence[NextTable] = (),
) -> str:
    """The whole message: the club and date, each checked-in player's next table of the draw
    (`upcoming`), every game (a voided one by its number only), each player's day total, what
    went to the club when anything did (club_line), and (with money) the payments."""
    lines = [f"{club.name} {day.date:%Y/%m/%d}"]
    if upcoming:
        lines.append(HEADING + _("Next tables"))
        lines += [f"{n.name} {n.text}" for n in upcoming]
    for game in games:
        lines += game_lines(game)
    totals = total_lines(games, ledger)
    club_share = club_line(club, ledger) if ledger is not None else None
    if totals or club_share:
        lines.append(HEADING + _("Day totals"))
        lines += totals
    if club_share:
        lines.append(club_share)
    if ledger is not None:
        payments = payment_lines(club, ledger)
        lines.append(HEADING + _("Payments"))
        lines += payments or [_("Nothing to pay.")]
    return "\n".join(lines) + "\n"


def day_message(*, club: Club, day: Day) -> str:
    """day_text of a day as the share page and the chat bot (league.chat's 「精算」) show it: the
    ledger when the rules in force play for money."""
    version = RulesVersion.in_force(club, day.date)
    ledger = None
    if version is not None and version.rules.has_money:
        day.club = club  # money.day_ledger reads it: no second query
        ledger = money.day_ledger(day=day)
    upcoming = list(next_tables(club_id=club.pk, date=day.date).values())
    return day_text(
        club=club, day=day, games=selectors.day_games(day=day), ledger=ledger, upcoming=upcoming
    )
