"""Online games (Tenhou, and 雀魂 logs converted to Tenhou's format) as the hands engine's input.

Two formats are read: the tenhou.net/6 JSON log (`{"log": [...], "name": [...], "sc": [...]}`) and
Tenhou's mjlog XML (`<mjloggm>`). From a log only the outcomes are taken: who won, from whom, han
and fu (or the yakuman count), liability, riichi sticks, tenpai, the kind of abortive draw. The
engine (`scoring.hands`) then recomputes every hand under the matching Tenhou preset, and
`check_online_game` compares the result with the points the log itself records after every hand
and at the end: a log whose numbers disagree (a tampered or mis-converted log) is refused.

Pure Python, integers only, no Django. Errors are `InputError`s naming the field:
`log`, `log[3].result`, `hands[3]` (a hand whose points disagree) or `final`.
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.parse
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from typing import Any

from .errors import InputError, Problem
from .hands import play_game, round_label
from .hands_json import hand_rules_from_json, hands_game_from_json, hands_result_to_json
from .text import refused_characters

MAX_LOG_BYTES = 2_000_000  # a full hanchan is a few tens of kilobytes
# Hands in one game, as table mode and the API take them: far beyond any hanchan (a West round
# with many renchan stays under 60); 32,768 abortive draws overflowed the hand-number column.
MAX_HANDS = 200
LOG_FORMAT = "log_format"  # not a log this module reads
LOG_MISMATCH = "log_mismatch"  # the log's own points disagree with the recomputed hands

# Tenhou's yaku ids (mjlog `yaku`/`yakuman`) and names (tenhou.net/6) of the yakuman with pao.
PAO_IDS = {39: "daisangen", 49: "daisuushii", 51: "suukantsu"}
PAO_NAMES = {"大三元": "daisangen", "大四喜": "daisuushii", "四槓子": "suukantsu"}
ABORTIVE_JSON = {
    "九種九牌": "kyuushu",
    "四風連打": "suufon",
    "四家立直": "suucha",
    "四槓散了": "suukan",
    "三家和了": "sanchahou",
}
ABORTIVE_XML = {
    "yao9": "kyuushu",
    "kaze4": "suufon",
    "reach4": "suucha",
    "kan4": "suukan",
    "ron3": "sanchahou",
}
DRAW_JSON = ("流局", "全員聴牌", "全員不聴", "流し満貫")
# Tenhou's yaku ids (mjlog `yaku`/`yakuman`) by the names its tenhou.net/6 logs (and table mode)
# use; 52-54 are dora, counted, not yaku.
YAKU_IDS: tuple[str, ...] = (
    "門前清自摸和",
    "立直",
    "一発",
    "槍槓",
    "嶺上開花",
    "海底摸月",
    "河底撈魚",
    "平和",
    "断幺九",
    "一盃口",
    "自風 東",
    "自風 南",
    "自風 西",
    "自風 北",
    "場風 東",
    "場風 南",
    "場風 西",
    "場風 北",
    "役牌 白",
    "役牌 發",
    "役牌 中",
    "両立直",
    "七対子",
    "混全帯幺九",
    "一気通貫",
    "三色同順",
    "三色同刻",
    "三槓子",
    "対々和",
    "三暗刻",
    "小三元",
    "混老頭",
    "二盃口",
    "純全帯幺九",
    "混一色",
    "清一色",
    "人和",
    "天和",
    "地和",
    "大三元",
    "四暗刻",
    "四暗刻単騎",
    "字一色",
    "緑一色",
    "清老頭",
    "九蓮宝燈",
    "純正九蓮宝燈",
    "国士無双",
    "国士無双１３面",
    "大四喜",
    "小四喜",
    "四槓子",
)
DORA_IDS = {52: "dora", 53: "ura", 54: "aka"}
DORA_NAMES = {"ドラ": "dora", "裏ドラ": "ura", "赤ドラ": "aka", "抜きドラ": "dora"}
MARKS = "_marks"  # a win's marks (table mode's: ippatsu, called, ura, aka, yaku) while read


@dataclass(frozen=True)
class LoggedHand:
    """What the log itself says about one hand: where it was played and the points after it."""

    hand: int  # r: 0 = 東1
    honba: int
    sticks: int
    scores_after: tuple[int, ...] | None  # None: read from the next hand's start


@dataclass(frozen=True)
class OnlineGame:
    site: str  # "tenhou"
    log_id: str  # Tenhou's own id, or the fingerprint when the log has none
    fingerprint: str  # the same game gives the same fingerprint in either format
    log_format: str  # "tenhou6-json" or "mjlog-xml"
    names: tuple[str, ...]  # seat order from 起家
    rules: str  # the hand preset the log's room plays
    start: int
    events: tuple[dict[str, Any], ...]  # the hands contract's events (docs/hands.md)
    logged: tuple[LoggedHand, ...]
    final_points: tuple[int, ...]  # the log's result line, leftover sticks added to the first
    final_scores: tuple[str, ...]  # the site's own scores from the result line, as written
    # Per hand, its winners' marks by name (table mode's: ippatsu, called, ura, aka, yaku).
    marks: tuple[dict[str, dict[str, Any]], ...] = ()

    def hands_input(self) -> dict[str, Any]:
        """The `python -m scoring hands` input for this game."""
        return {
            "rules": self.rules,
            "players": list(self.names),
            "start": self.start,
            "hands": [dict(e) for e in self.events],
        }


def _bad(field: str, message: str, code: str = LOG_FORMAT, **params: Any) -> InputError:
    return InputError([Problem(field, code, message, params)])


# --- reading ---------------------------------------------------------------------------------


def parse_online_log(text: str | bytes) -> OnlineGame:
    """A tenhou.net/6 JSON log or a Tenhou mjlog XML, whichever `text` is."""
    if isinstance(text, bytes):
        if len(text) > MAX_LOG_BYTES:
            raise _bad("log", "is too large for one game")
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise _bad("log", "is not UTF-8 text") from None
    if len(text) > MAX_LOG_BYTES:
        raise _bad("log", "is too large for one game")
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped, parse_float=str)  # decimals stay text: no floats
        except (ValueError, RecursionError):
            raise _bad("log", "is not valid JSON") from None
        return _from_json(data)
    if stripped.startswith("<"):
        return _from_xml(stripped)
    raise _bad("log", "is neither a tenhou.net/6 JSON log nor a Tenhou mjlog XML")


def _preset(players: int, east_only: bool) -> str:
    if players == 3:
        return "tenhou-3p" if not east_only else "tenhou-3p-tonpuu"
    return "tenhou-tonpuu" if east_only else "tenhou"


def rules_json(preset: str) -> Any:
    """The hands rules (a preset name) of the log's room."""
    return preset


def _int(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(field, "must be a whole number")
    return value


SEAT_WINDS = "東南西北"


def _names(raw: list[str], players: int) -> tuple[str, ...]:
    """The seats' names in seat order. Two seats with the same nickname (Tenhou's anonymous
    "NoName", or two players who chose the same one) are told apart by their seat in 東1:
    "NoName (東)", "NoName (南)"; the seat order, not the name, says who is who."""
    names = tuple(str(n).strip() for n in raw[:players])
    if any(refused_characters(n) for n in names):  # NUL, a lone surrogate, U+202E
        raise _bad(
            "name",
            "has a name with control, surrogate or direction characters",
            chars=", ".join(c for n in names for c in refused_characters(n)),
        )
    if len(names) != players or any(not n for n in names):
        raise _bad("name", "needs a non-empty name for every seat")
    if any(len(n) > 64 for n in names):
        raise _bad("name", "has a name longer than 64 characters")
    if len(set(names)) != players:
        names = tuple(
            f"{n} ({SEAT_WINDS[s]})" if names.count(n) > 1 else n for s, n in enumerate(names)
        )
    return names


def hand_name(players: int, hand: int, honba: int) -> str:
    """A hand as a player says it: 東4局, 東4局 1本場 (西 and 北 in an extension)."""
    wind = SEAT_WINDS[hand // players] if 0 <= hand < 4 * players else "?"
    label = f"{wind}{hand % players + 1}局"
    return f"{label} {honba}本場" if honba else label


# tenhou.net/6 JSON ------------------------------------------------------------------------------

_HAN = re.compile(r"\((\d+)飜\)$")
_FU = re.compile(r"(\d+)符")


def _yaku(entries: list[Any], field: str) -> tuple[int, int, list[str]]:
    """(han, yakuman count, yakuman names) from a win's yaku strings."""
    han = yakuman = 0
    names = []
    for entry in entries:
        if not isinstance(entry, str):
            raise _bad(field, "has a yaku that is not text")
        if refused_characters(entry):  # shown on the game page: no line break, no U+202E
            raise _bad(
                field,
                "has a yaku with control, surrogate or direction characters",
                yaku_chars=", ".join(refused_characters(entry)),
            )
        if len(entry) > 40:
            raise _bad(field, "has a yaku longer than 40 characters", yaku_chars="")
        if entry.endswith("(役満)"):
            yakuman += 1
            names.append(entry.removesuffix("(役満)"))
        elif entry.endswith("(ダブル役満)"):
            yakuman += 2
            names.append(entry.removesuffix("(ダブル役満)"))
        elif m := _HAN.search(entry):
            han += int(m.group(1))
        else:
            raise _bad(field, f"has a yaku that cannot be read: {entry!r}")
    return han, yakuman, names


def _mangan_fu(han: int) -> int:
    """The smallest fu at which `han` (below 5) reaches a mangan: the log writes only 満貫."""
    for fu in (20, 25, *range(30, 120, 10)):
        if fu * 2 ** (han + 2) >= 2000:
            return fu
    return 110


def _mark(yaku: list[str], dora: dict[str, int], called: bool) -> dict[str, Any]:
    """A win's marks as table mode keeps them: 一発, an open hand (副露), 裏ドラ and 赤ドラ counted,
    the yaku by name (dora aside); nothing false or zero."""
    mark: dict[str, Any] = {
        "ippatsu": "一発" in yaku,
        "called": called,
        "ura": dora.get("ura", 0),
        "aka": dora.get("aka", 0),
        "yaku": yaku,
    }
    return {k: v for k, v in mark.items() if v}


def _json_mark(entries: list[str], called: bool) -> dict[str, Any]:
    yaku: list[str] = []
    dora: dict[str, int] = {}
    for entry in entries:
        name = entry.split("(", 1)[0]
        m = _HAN.search(entry)
        if name in DORA_NAMES:
            kind = DORA_NAMES[name]
            dora[kind] = dora.get(kind, 0) + (int(m.group(1)) if m else 0)
        else:
            yaku.append(name)
    return _mark(yaku, dora, called)


def _take_marks(event: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The winners' marks, taken out of the event (the engine's input has no place for them)."""
    wins = [event] if event.get("result") == "tsumo" else event.get("winners", [])
    out = {}
    for win in wins:
        mark = win.pop(MARKS, {})
        if mark:
            out[win.get("winner", win.get("player"))] = mark
    return out


def _open_meld(code: int) -> bool:
    """Whether an mjlog meld (`m`) opens the hand: chi, pon, added or open kan; not a closed kan
    or a 北 set aside (三麻)."""
    if code & 0x4 or code & 0x18:
        return True
    if code & 0x20:
        return False
    return code & 0x3 != 0


def _win_json(
    info: list[Any], names: tuple[str, ...], field: str, called: frozenset[int] = frozenset()
) -> tuple[int, int, dict]:
    if not isinstance(info, list) or len(info) < 4:
        raise _bad(field, "is not a win of a tenhou.net/6 log")
    who, frm, pao_who = (_int(v, field) for v in info[:3])
    n = len(names)
    if not all(0 <= s < n for s in (who, frm, pao_who)):
        raise _bad(field, "names a seat that is not at the table")
    han, yakuman, yakuman_names = _yaku(info[4:], field)
    win: dict[str, Any] = {"player": names[who]}
    if yakuman:
        win["yakuman"] = yakuman
        if pao_who != who:
            yaku = next((PAO_NAMES[y] for y in yakuman_names if y in PAO_NAMES), None)
            if yaku is None:
                raise _bad(field, "has a liable player but no yakuman with liability")
            win["pao"] = {"player": names[pao_who], "yaku": yaku}
    else:
        if han < 1:
            raise _bad(field, "has no han")
        win["han"] = han
        text = str(info[3])
        if m := _FU.search(text):
            win["fu"] = int(m.group(1))
        elif han < 5:
            win["fu"] = _mangan_fu(han)
    win[MARKS] = _json_mark(info[4:], who in called)
    return who, frm, win


def _json_hand(
    k: list[Any], i: int, hand: int, players: int, names: tuple[str, ...], nxt: int | None
) -> tuple[tuple[int, ...], dict[str, Any]]:
    """One hand of a tenhou.net/6 log: its starting points and its event. `nxt` is the next
    hand's round (None after the last)."""
    field = f"log[{i}]"
    scores = k[1]
    if not isinstance(scores, list) or len(scores) < players:
        raise _bad(field, "has no starting points")
    scores = tuple(_int(v, field) for v in scores[:players])
    if i == 0 and len(set(scores)) != 1:
        raise _bad(field, "does not start from equal points")
    result = k[-1]
    if not isinstance(result, list) or not result or not isinstance(result[0], str):
        raise _bad(f"{field}.result", "is missing")
    # Riichi: a discard written "r…"; not established when that very tile was won off.
    riichi = []
    for seat in range(players):
        discards = k[6 + 3 * seat] if 6 + 3 * seat < len(k) - 1 else []
        if not isinstance(discards, list):
            raise _bad(field, "has discards that are not a list")
        for j, tile in enumerate(discards):
            if isinstance(tile, str) and tile.startswith("r"):
                last = j == len(discards) - 1
                ronned = result[0] == "和了" and any(
                    isinstance(info, list) and len(info) > 2 and info[1] == seat and info[0] != seat
                    for info in result[2::2]
                )
                if not (last and ronned):
                    riichi.append(names[seat])
    kind = result[0]
    event: dict[str, Any]
    if kind == "和了":
        # 副露: a call (chi c, pon p, open kan m) among the seat's drawn tiles.
        called = frozenset(
            seat
            for seat in range(players)
            if 5 + 3 * seat < len(k) - 1
            and isinstance(k[5 + 3 * seat], list)
            and any(isinstance(t, str) and any(c in t for c in "cpm") for t in k[5 + 3 * seat])
        )
        wins = [_win_json(info, names, f"{field}.result", called) for info in result[2::2]]
        if not wins:
            raise _bad(f"{field}.result", "has no winner")
        who, frm, win = wins[0]
        if who == frm:
            event = {"result": "tsumo", "winner": win.pop("player"), **win}
        else:
            if any(w[1] != frm or w[0] == frm for w in wins):
                raise _bad(f"{field}.result", "has winners of different discards")
            event = {"result": "ron", "from": names[frm], "winners": [w[2] for w in wins]}
    elif kind in DRAW_JSON:
        deltas = result[1] if len(result) > 1 and isinstance(result[1], list) else []
        deltas = [_int(v, field) for v in deltas[:players]]
        event = {"result": "draw"}
        if kind == "全員聴牌":
            event["tenpai"] = list(names)
        elif kind == "流局" and not any(deltas):
            # Nobody paid: all four (three) tenpai or none, which the log does not write.
            # The dealer is tenpai exactly when the same dealer deals next (Tenhou's 連荘 on
            # the dealer's tenpai); the last hand of a game changes no points either way.
            event["tenpai"] = list(names) if nxt == hand else []
        elif kind == "流局":
            event["tenpai"] = [names[s] for s, d in enumerate(deltas) if d > 0]
        elif kind == "流し満貫":
            event["nagashi"] = [names[s] for s, d in enumerate(deltas) if d > 0]
            # Tenpai is not written at a nagashi mangan; the dealer's is seen in who deals next.
            if nxt == hand:
                event["tenpai"] = [names[hand % players]]
    elif kind in ABORTIVE_JSON:
        event = {"result": "abortive", "kind": ABORTIVE_JSON[kind]}
    else:
        raise _bad(f"{field}.result", f"is an outcome that cannot be read: {kind!r}")
    if riichi:
        event["riichi"] = sorted(set(riichi), key=names.index)
    return scores, event


def _round_of(k: Any) -> bool:
    """Whether a hand of a tenhou.net/6 log starts with its round as a whole number."""
    return (
        isinstance(k, list)
        and bool(k)
        and isinstance(k[0], list)
        and bool(k[0])
        and isinstance(k[0][0], int)
        and not isinstance(k[0][0], bool)
    )


def _in_hand(error: InputError, where: str) -> InputError:
    """A log's problem with the hand it is in, as a player says it (東4局 1本場)."""
    return InputError(
        [
            replace(p, message=f"{where}: {p.message}", params={**p.params, "hand": where})
            for p in error.problems
        ]
    )


def _from_json(data: Any) -> OnlineGame:
    if not isinstance(data, dict) or not isinstance(data.get("log"), list):
        raise _bad("log", "has no list of hands (not a tenhou.net/6 log)")
    raw_names = data.get("name")
    if not isinstance(raw_names, list) or len(raw_names) < 3:
        raise _bad("name", "is missing")
    rule = data.get("rule") if isinstance(data.get("rule"), dict) else {}
    disp = str(rule.get("disp", ""))
    players = 3 if ("三" in disp or len(raw_names) == 3 or not str(raw_names[3]).strip()) else 4
    east_only = "東" in disp
    names = _names(raw_names, players)
    kyokus = data["log"]
    if not kyokus:
        raise _bad("log", "has no hands")
    if len(kyokus) > MAX_HANDS:
        raise _bad("log", f"has more than {MAX_HANDS} hands", most=MAX_HANDS)
    events: list[dict[str, Any]] = []
    marks: list[dict[str, dict[str, Any]]] = []
    logged: list[LoggedHand] = []
    start = 0
    for i, k in enumerate(kyokus):
        field = f"log[{i}]"
        if not isinstance(k, list) or len(k) < 5 or not isinstance(k[0], list) or len(k[0]) < 3:
            raise _bad(field, "is not a hand of a tenhou.net/6 log")
        hand, honba, sticks = (_int(v, field) for v in k[0][:3])
        nxt = kyokus[i + 1][0][0] if i + 1 < len(kyokus) and _round_of(kyokus[i + 1]) else None
        try:
            scores, event = _json_hand(k, i, hand, players, names, nxt)
        except InputError as e:
            raise _in_hand(e, hand_name(players, hand, honba)) from None
        if i == 0:
            start = scores[0]
        elif logged:
            prev = logged[-1]
            logged[-1] = LoggedHand(prev.hand, prev.honba, prev.sticks, scores)
        logged.append(LoggedHand(hand, honba, sticks, None))
        marks.append(_take_marks(event))
        events.append(event)
    sc = data.get("sc")
    if not isinstance(sc, list) or len(sc) < 2 * players:
        raise _bad("sc", "is missing: the log has no final result")
    final_points = tuple(_int(sc[2 * s], "sc") for s in range(players))
    final_scores = tuple(_score_text(sc[2 * s + 1]) for s in range(players))
    preset = _preset(players, east_only)
    ref = data.get("ref")
    digest = fingerprint(names, start, logged, final_points)
    log_id = ref.strip() if isinstance(ref, str) and ref.strip() else digest
    return OnlineGame(
        "tenhou",
        log_id[:100],
        digest,
        "tenhou6-json",
        names,
        preset,
        start,
        tuple(events),
        tuple(logged),
        final_points,
        final_scores,
        tuple(marks),
    )


_DECIMAL = re.compile(r"^(-?)(\d{1,7})(?:\.(\d))?0*$")


def _score_text(value: object, field: str = "sc") -> str:
    """A site's score (a whole number, or a decimal kept as its text) with one decimal."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    m = _DECIMAL.match(value) if isinstance(value, str) else None
    if m is None:
        raise _bad(field, "has a score that is not a number")
    sign, whole, tenth = m.group(1), int(m.group(2)), m.group(3) or "0"
    sign = sign if (whole or tenth != "0") else ""
    return f"{sign}{whole}.{tenth}"


def fingerprint(
    names: tuple[str, ...], start: int, logged: list[LoggedHand], final: tuple[int, ...]
) -> str:
    """The same for one game in either format: the names, the hands played (round, honba,
    sticks) and the final points, which both formats record."""
    hands = [[h.hand, h.honba, h.sticks] for h in logged]
    body = json.dumps([list(names), start, hands, list(final)], ensure_ascii=False).encode()
    return "sha256:" + hashlib.sha256(body).hexdigest()[:32]


# Tenhou mjlog XML --------------------------------------------------------------------------------


def _ints(value: str | None, field: str) -> list[int]:
    if value is None or value == "":
        return []
    try:
        return [int(v) for v in value.split(",")]
    except ValueError:
        raise _bad(field, "has a number that cannot be read") from None


def _from_xml(text: str) -> OnlineGame:
    if "<!DOCTYPE" in text.upper() or "<!ENTITY" in text.upper():
        raise _bad("log", "may not declare a DOCTYPE or entities")
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        raise _bad("log", "is not valid XML") from None
    if root.tag != "mjloggm":
        raise _bad("log", "is not a Tenhou mjlog (<mjloggm>)")
    go = root.find("GO")
    game_type = int(go.get("type", "9")) if go is not None and go.get("type", "").isdigit() else 9
    players = 3 if game_type & 0x10 else 4
    east_only = not game_type & 0x08
    un = root.find("UN")
    if un is None:
        raise _bad("name", "is missing (no <UN>)")
    names = _names([urllib.parse.unquote(un.get(f"n{s}", "")) for s in range(4)], players)
    events: list[dict[str, Any]] = []
    logged: list[LoggedHand] = []
    start = 0
    owari: list[int] | None = None
    owari_text: list[str] = []
    marks: list[dict[str, dict[str, Any]]] = []
    current: dict[str, Any] | None = None  # the hand being read
    wins: list[tuple[int, int, dict[str, Any]]] = []
    riichi: list[str] = []

    def close() -> None:
        nonlocal current, wins, riichi
        if current is None:
            return
        field = current["field"]
        if wins:
            who, frm, win = wins[0]
            if who == frm:
                event = {"result": "tsumo", "winner": win.pop("player"), **win}
            else:
                event = {"result": "ron", "from": names[frm], "winners": [w[2] for w in wins]}
        elif "event" in current:
            event = current["event"]
        else:
            raise _bad(field, "has no outcome")
        if riichi:
            event["riichi"] = sorted(set(riichi), key=names.index)
        marks.append(_take_marks(event))
        events.append(event)
        current, wins, riichi = None, [], []

    where = ""  # the hand being read, as a player says it
    try:
        for el in root:
            tag = el.tag
            if tag == "INIT":
                close()
                field = f"log[{len(logged)}]"
                seed = _ints(el.get("seed"), field)
                ten = _ints(el.get("ten"), field)
                if len(seed) < 3 or len(ten) < players:
                    raise _bad(field, "has no round or points")
                scores = tuple(100 * t for t in ten[:players])
                if not logged:
                    if len(set(scores)) != 1:
                        raise _bad(field, "does not start from equal points")
                    start = scores[0]
                if len(logged) >= MAX_HANDS:
                    raise _bad("log", f"has more than {MAX_HANDS} hands", most=MAX_HANDS)
                logged.append(LoggedHand(seed[0], seed[1], seed[2], None))
                where = hand_name(players, seed[0], seed[1])
                current = {"field": field}
            elif tag == "REACH" and el.get("step") == "2" and current is not None:
                seat = _ints(el.get("who"), current["field"])
                if seat and 0 <= seat[0] < players:
                    riichi.append(names[seat[0]])
            elif tag in ("AGARI", "RYUUKYOKU"):
                if current is None:
                    raise _bad("log", f"has a <{tag}> outside a hand")
                field = current["field"]
                sc = _ints(el.get("sc"), field)
                if len(sc) < 2 * players:
                    raise _bad(field, "has no points after the hand")
                after = tuple(100 * (sc[2 * s] + sc[2 * s + 1]) for s in range(players))
                prev = logged[-1]
                logged[-1] = LoggedHand(prev.hand, prev.honba, prev.sticks, after)
                if tag == "AGARI":
                    wins.append(_win_xml(el, names, field))
                else:
                    kind = el.get("type", "")
                    tenpai = [names[s] for s in range(players) if el.get(f"hai{s}") is not None]
                    if kind in ABORTIVE_XML:
                        current["event"] = {"result": "abortive", "kind": ABORTIVE_XML[kind]}
                    elif kind in ("", "nm"):
                        event = {"result": "draw", "tenpai": tenpai}
                        if kind == "nm":
                            deltas = [sc[2 * s + 1] for s in range(players)]
                            event["nagashi"] = [names[s] for s, d in enumerate(deltas) if d > 0]
                        current["event"] = event
                    else:
                        raise _bad(field, f"is a draw that cannot be read: {kind!r}")
                if el.get("owari") is not None:
                    parts = (el.get("owari") or "").split(",")
                    if len(parts) < 2 * players:
                        raise _bad("owari", "cannot be read")
                    owari = [100 * v for v in _ints(",".join(parts[0 : 2 * players : 2]), "owari")]
                    owari_text = [_score_text(parts[2 * s + 1], "owari") for s in range(players)]
        close()
    except InputError as e:
        if not where:
            raise
        raise _in_hand(e, where) from None
    if not events:
        raise _bad("log", "has no hands")
    if owari is None:
        raise _bad("owari", "is missing: the log has no final result")
    preset = _preset(players, east_only)
    final = tuple(owari)
    digest = fingerprint(names, start, logged, final)
    return OnlineGame(
        "tenhou",
        digest,  # an mjlog does not carry its own id: the caller may give it (the file's name)
        digest,
        "mjlog-xml",
        names,
        preset,
        start,
        tuple(events),
        tuple(logged),
        final,
        tuple(owari_text),
        tuple(marks),
    )


def _win_xml(el: ET.Element, names: tuple[str, ...], field: str) -> tuple[int, int, dict]:
    n = len(names)
    who = _ints(el.get("who"), field)
    frm = _ints(el.get("fromWho"), field)
    if len(who) != 1 or len(frm) != 1 or not (0 <= who[0] < n and 0 <= frm[0] < n):
        raise _bad(field, "has a winner or discarder that is not at the table")
    win: dict[str, Any] = {"player": names[who[0]]}
    yakuman = _ints(el.get("yakuman"), field)
    called = any(_open_meld(code) for code in _ints(el.get("m"), field))
    pairs = _ints(el.get("yaku"), field)
    yaku_names = [YAKU_IDS[y] for y in pairs[0::2] if 0 <= y < len(YAKU_IDS)]
    yaku_names += [YAKU_IDS[y] for y in yakuman if 0 <= y < len(YAKU_IDS)]
    dora: dict[str, int] = {}
    for y, han in zip(pairs[0::2], pairs[1::2], strict=False):
        if y in DORA_IDS:
            dora[DORA_IDS[y]] = dora.get(DORA_IDS[y], 0) + han
    win[MARKS] = _mark(yaku_names, dora, called)
    if yakuman:
        win["yakuman"] = len(yakuman)
        pao = _ints(el.get("paoWho"), field)
        if pao and pao[0] != who[0]:
            yaku = next((PAO_IDS[y] for y in yakuman if y in PAO_IDS), None)
            if yaku is None or not 0 <= pao[0] < n:
                raise _bad(field, "has a liable player but no yakuman with liability")
            win["pao"] = {"player": names[pao[0]], "yaku": yaku}
    else:
        yaku = _ints(el.get("yaku"), field)
        han = sum(yaku[1::2])
        ten = _ints(el.get("ten"), field)
        if han < 1 or not ten:
            raise _bad(field, "has no han or fu")
        win["han"] = han
        if han < 5:
            win["fu"] = ten[0]
    return who[0], frm[0], win


# --- checking ------------------------------------------------------------------------------------


def check_online_game(game: OnlineGame) -> dict[str, Any]:
    """Recompute every hand with the engine and compare it with the log's own points; return the
    engine's output (`python -m scoring hands`). Raises InputError on any disagreement."""
    rules = hand_rules_from_json(rules_json(game.rules))
    try:
        result = play_game(rules, hands_game_from_json(game.hands_input()))
    except InputError as e:
        raise _engine_refusal(e, game) from None
    if len(result.hands) != len(game.logged):
        raise _bad("log", "has a different number of hands than were played", LOG_MISMATCH)
    for i, (record, logged) in enumerate(zip(result.hands, game.logged, strict=True)):
        label = round_label(rules, logged.hand)
        where = hand_name(len(game.names), logged.hand, logged.honba)
        if (record.round, record.honba, 1000 * record.sticks) != (
            label,
            logged.honba,
            1000 * logged.sticks,
        ):
            raise _bad(
                f"hands[{i}]",
                f"{where}: the log plays {label} {logged.honba}本場 with {logged.sticks} sticks, "
                f"the rules give {record.round} {record.honba}本場 with {record.sticks}",
                LOG_MISMATCH,
                hand=where,
                log=f"{label} {logged.honba}本場",
                engine=f"{record.round} {record.honba}本場",
            )
        if logged.scores_after is not None and logged.scores_after != record.scores:
            raise _bad(
                f"hands[{i}]",
                f"{where}: the log has {_points(logged.scores_after)} after the hand, the "
                f"recomputed hand gives {_points(record.scores)}",
                LOG_MISMATCH,
                hand=where,
                log=_points(logged.scores_after),
                engine=_points(record.scores),
            )
    if result.ended is None:
        raise _bad("log", "ends before the game is over", LOG_MISMATCH)
    final = list(result.state.points)
    top = max(range(len(final)), key=lambda s: (final[s], -s))
    final[top] += result.deposits  # the site adds the leftover sticks to the first
    if tuple(final) != game.final_points:
        raise _bad(
            "final",
            f"the log's result is {_points(game.final_points)}, the recomputed game gives "
            f"{_points(tuple(final))}",
            LOG_MISMATCH,
            log=_points(game.final_points),
            engine=_points(tuple(final)),
        )
    return hands_result_to_json(result)


_HAND_INDEX = re.compile(r"^hands\[(\d+)\]")


def _engine_refusal(error: InputError, game: OnlineGame) -> InputError:
    """The engine's refusal of a hand of the log, named as a player says it (東4局 1本場) with
    the engine's reason (the rule that fails); its field under `log`."""
    problems = []
    for p in error.problems:
        m = _HAND_INDEX.match(p.field)
        if m is None or int(m.group(1)) >= len(game.logged):
            problems.append(p.within("log"))
            continue
        logged = game.logged[int(m.group(1))]
        where = hand_name(len(game.names), logged.hand, logged.honba)
        problems.append(
            replace(
                p.within("log"),
                message=f"{where}: {p.message}",
                params={**p.params, "hand": where, "reason": p.message},
            )
        )
    return InputError(problems)


def _points(values: tuple[int, ...]) -> str:
    return " / ".join(f"{v:,}" for v in values)


__all__ = [
    "LOG_FORMAT",
    "LOG_MISMATCH",
    "MAX_LOG_BYTES",
    "LoggedHand",
    "OnlineGame",
    "check_online_game",
    "fingerprint",
    "hand_name",
    "parse_online_log",
]
