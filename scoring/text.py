"""Numbers as people write them: scores shown the way clubs write them, points as they are typed."""

from __future__ import annotations

import re
import unicodedata

# Signs a Japanese phone keyboard produces for "minus", beyond ASCII '-': ▲ △ are how score sheets
# write negatives; U+2212 and the dashes come from IMEs; ー (long vowel mark) is a common slip.
_MINUS = "▲△−‐‑‒–—―ーｰ-"
_PLUS = "+"
_NUMBER = re.compile(r"\d+")

# What no name or label read from a file or an API may hold (a player's name in an online log, a
# yaku name, a table label): controls (NUL, a line break, ESC), lone surrogates, line and
# paragraph separators, and the bidirectional controls, which reorder what follows them on the
# screen (U+202E). Joiners stay: 👨\u200d👩. league.core.names and league.limits use the same sets.
LINE_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def refused_characters(text: str) -> list[str]:
    """The characters of `text` no one-line name or label may hold, as U+XXXX, once each (empty:
    none): controls, lone surrogates, line separators and bidirectional controls."""
    found: list[str] = []
    for ch in text:
        if ch in BIDI_CONTROLS or unicodedata.category(ch) in LINE_CATEGORIES:
            code = f"U+{ord(ch):04X}"
            if code not in found:
                found.append(code)
    return found


def format_score(tenths: int, style: str = "plain") -> str:
    """A score in tenths as text with exactly one decimal.

    `plain`: "45.0", "-12.3" (the command line; also English). `ja`: "+45.0", "▲12.3", "0.0".
    """
    magnitude = f"{abs(tenths) // 10}.{abs(tenths) % 10}"
    if tenths < 0:
        return ("▲" if style == "ja" else "-") + magnitude
    if tenths > 0 and style == "ja":
        return "+" + magnitude
    return magnitude


def parse_integer(text: str) -> int:
    """An integer as a person types it: full-width digits, thousands commas, ▲/△/− for minus.

    Raises ValueError (with an English message) when the text is not one integer.
    """
    s = unicodedata.normalize("NFKC", text).strip()
    s = s.replace(",", "").replace("、", "")
    if s.endswith("点"):
        s = s[:-1]
    sign = 1
    if s and s[0] in _MINUS:
        sign, s = -1, s[1:]
    elif s and s[0] in _PLUS:
        s = s[1:]
    if not _NUMBER.fullmatch(s) or not s.isascii():
        raise ValueError(f"not a whole number: {text!r}")
    return sign * int(s)
