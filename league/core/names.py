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


# Common variant kanji of names (異体字), each folded to one form, for finding a member as people
# type them (league.core.directory): 齋藤, 斉藤 and 斎藤; 渡邊, 渡邉 and 渡辺; 髙橋 and 高橋. A small
# table of our own: the PyPI tables looked at (ja-itaiji 1.0.2) join characters that are not
# variants of one another in names (吉 with 桔, 澤 with 途, 濱 with 頻) and miss 斉/斎 and 吉/𠮷.
# Only the finding folds: a member's name is stored and shown as written, and two members may be
# 斉藤 and 斎藤 (then a variant finds both, and the finder asks for the exact name). The
# compatibility forms (塚 U+FA10, 隆 U+F9DC) need no row: NFKC already folds them.
VARIANT_GROUPS = (
    "斎斉齋齊",
    "辺邊邉",
    "高髙",
    "崎﨑嵜碕",
    "島嶋嶌",
    "沢澤",
    "浜濱濵",
    "広廣",
    "桜櫻",
    "竜龍",
    "恵惠",
    "吉𠮷",
    "徳德",
    "国國",
    "関關",
    "富冨",
    "黒黑",
    "栄榮",
    "真眞",
    "瀬瀨",
    "槙槇",
    "蔵藏",
    "渕淵",
    "峰峯",
    "曽曾",
    "舘館",
    "遥遙",
    "弥彌",
    "亀龜",
    "礼禮",
    "鴎鷗",
    "条條",
    "会會",
    "実實",
    "団團",
    "来來",
)
VARIANTS = {ch: group[0] for group in VARIANT_GROUPS for ch in group[1:]}


def fold_variants(text: str) -> str:
    """`text` with each variant kanji of the table in its one form (髙橋 → 高橋, 渡邉 → 渡辺)."""
    return "".join(VARIANTS.get(ch, ch) for ch in text)


def variant_key(text: str) -> str:
    """name_key with variant kanji folded: what a name is found by when it is not found as
    written (齋藤 由美子 and 斉藤由美子 both give 斎藤由美子's key)."""
    return fold_variants(name_key(text))


def username_fold(text: str) -> str:
    """A user name as logins compare it: NFKC (ｚｅｄ is zed), then case folded (Zed, ZED, zed;
    Straße, STRASSE), then NFKC again (folding can leave a decomposed letter)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def username_key(text: str) -> str:
    """What makes two user names one account (league.models.accounts.UsernameKey): the SHA-256
    of username_fold, 64 hex digits whatever the name's length or how far it folds."""
    return hashlib.sha256(username_fold(text).encode("utf-8", "surrogatepass")).hexdigest()
