"""One identity for a member's name, everywhere a name is typed: the member form, a new guest on
the record form, the API, the Excel import and a merge.

Two names are the same member when they are the same after Unicode NFKC (full- and half-width
letters, digits and kana alike: ｱｵｷ is アオキ), with every space removed (阿部誠 is 阿部 誠, a
full-width space included) and letters compared without case. Names holding control, format
(zero-width, bidirectional) or private-use characters are refused: such a name looks like another
member's on the screen while being a different one (青木\\u200b, \\u202egnp.exe).
"""

from __future__ import annotations

import hashlib
import unicodedata

from scoring import text as scoring_text

# Unicode categories no name may hold: controls, format characters (zero-width spaces and joiners,
# bidirectional overrides and isolates, the BOM), surrogates, private use, line/paragraph seps.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Blank-looking letters that are not spaces to Python (ㅤ HANGUL FILLER and its relatives).
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _codes(text: str, listed: frozenset[str], categories: frozenset[str]) -> list[str]:
    """The characters of `text` that are listed or of one of the categories, as U+XXXX, once each."""
    found: list[str] = []
    for ch in text:
        if ch in listed or unicodedata.category(ch) in categories:
            code = f"U+{ord(ch):04X}"
            if code not in found:
                found.append(code)
    return found


def invisible_characters(text: str) -> list[str]:
    """The characters of `text` that no name may hold, as U+XXXX (empty when there are none)."""
    return _codes(text, BLANK_LETTERS, REFUSED_CATEGORIES)


# What no one-line text may hold (a table label, a rate's name, a note: league.limits), the same
# as a name or label read from a file or an API (scoring.text.refused_characters): controls (a
# line break, a tab, ESC), line and paragraph separators, lone surrogates, and the bidirectional
# controls, which reorder what follows them on the screen. Joiners stay: 👨\u200d👩.
LINE_CATEGORIES = scoring_text.LINE_CATEGORIES
BIDI_CONTROLS = scoring_text.BIDI_CONTROLS


def control_characters(text: str) -> list[str]:
    """The characters of `text` that no one-line text may hold, as U+XXXX (empty: none)."""
    return scoring_text.refused_characters(text)


def clean_name(text: str) -> str:
    """A name as it is stored: NFKC (ｱｵｷ → アオキ, ＡＢ → AB), runs of spaces of either width
    made one ASCII space, no space at either end. Refusing invisible characters is the caller's
    job (invisible_characters), so that it can say so."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def clean_label(text: str) -> str:
    """A short label as it is stored (a game's table): NFKC (Ａ → A, a full-width space a space),
    no space at either end. Line breaks and controls inside stay, for the column's check to
    refuse (league.limits)."""
    return unicodedata.normalize("NFKC", text).strip()


def name_key(text: str) -> str:
    """What makes two names the same member: NFKC, no spaces, no case, nothing invisible."""
    normal = unicodedata.normalize("NFKC", text)
    kept = (
        ch
        for ch in normal
        if not ch.isspace()
        and ch not in BLANK_LETTERS
        and unicodedata.category(ch) not in REFUSED_CATEGORIES
    )
    return "".join(kept).casefold()


def username_fold(text: str) -> str:
    """A user name as logins compare it: NFKC (ｚｅｄ is zed), then case folded (Zed, ZED, zed;
    Straße, STRASSE), then NFKC again (folding can leave a decomposed letter)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def username_key(text: str) -> str:
    """What makes two user names one account (league.models.accounts.UsernameKey): the SHA-256
    of username_fold, 64 hex digits whatever the name's length or how far it folds."""
    return hashlib.sha256(username_fold(text).encode("utf-8", "surrogatepass")).hexdigest()
