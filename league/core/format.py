"""How numbers look on the screen: scores as clubs write them, yen with separators."""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import get_language, ngettext, pgettext_lazy

import scoring


def _japanese() -> bool:
    return (get_language() or "ja").startswith("ja")


def score(tenths: int | None) -> str:
    """453 → "+45.3"; -123 → "▲12.3" in Japanese, "-12.3" in English."""
    if tenths is None:
        return ""
    text = scoring.format_score(tenths, "ja")
    return text if _japanese() else text.replace("▲", "-")


def yen(amount: int | None) -> str:
    """-1234 → "▲1,234" in Japanese, "-1,234" in English; 0 → "0"."""
    if amount is None:
        return ""
    minus = "▲" if _japanese() else "-"
    return f"{minus if amount < 0 else ''}{abs(amount):,}"


def count(value: int | None) -> str:
    """A signed count such as chips: -1 → "▲1" in Japanese (as scores and yen), "-1" in English."""
    return yen(value)


def chombo(times: int | None) -> str:
    """A player's chombo in a game, one wording everywhere: 1 → 「チョンボ1回」, "1 chombo"."""
    if not times:
        return ""
    return ngettext("%(n)s chombo", "%(n)s chombo", times) % {"n": times}


def points(value: int | None) -> str:
    """Final points with separators, ▲ for negatives in Japanese: 25000 → "25,000"."""
    return yen(value)


def signed(value: int | None) -> str:
    """A change, with its sign: 6800 → "+6,800", -6800 → "▲6,800" ("-6,800" in English), 0 → "0"
    (a hand's points as table mode shows them, chips in the LINE message, uma)."""
    if value is None:
        return ""
    return f"+{value:,}" if value > 0 else yen(value)


def sign_class(value: int | None) -> str:
    """The CSS class of a signed number cell: "plus", "minus", or "" for zero and blanks."""
    if not value:
        return ""
    return "plus" if value > 0 else "minus"


# One letter each, like 東南西北: the seat sits in front of the player's name on a phone.
SEAT_WINDS = (
    pgettext_lazy("seat", "E"),
    pgettext_lazy("seat", "S"),
    pgettext_lazy("seat", "W"),
    pgettext_lazy("seat", "N"),
)


# The starting seats by name, as score sheets write them (起家 is the first dealer).
SEAT_NAMES = (
    pgettext_lazy("starting seat", "Dealer (East)"),
    pgettext_lazy("starting seat", "South"),
    pgettext_lazy("starting seat", "West"),
    pgettext_lazy("starting seat", "North"),
)


def seat_name(seat: int | None) -> str:
    """A starting seat (0-3) by name: 0 → 起家, 1 → 南家 ("Dealer (East)", "South" in English)."""
    if seat is None or not 0 <= seat < len(SEAT_NAMES):
        return ""
    return str(SEAT_NAMES[seat])


def wind(seat: int | None) -> str:
    """A seat number from 起家 (0-3) as its wind: 0 → 東 ("E" in English)."""
    if seat is None or not 0 <= seat < len(SEAT_WINDS):
        return ""
    return str(SEAT_WINDS[seat])


# Chip kinds that clubs commonly pay for, by their key in a rules object. A club's own kinds
# (any other key) show as they are named.
CHIP_KINDS = {
    "ippatsu": pgettext_lazy("chip", "ippatsu"),
    "yakuman": pgettext_lazy("chip", "yakuman"),
    "aka": pgettext_lazy("chip", "red five"),
    "ura": pgettext_lazy("chip", "ura dora"),
}


def chip_kind_key(text: str) -> str:
    """What an organiser typed as a chip kind, back to its key: 「一発」, "Ippatsu" → "ippatsu".

    A known kind's name in either language is its key; anything else is a club's own kind."""
    typed = text.strip().casefold()
    for key, label in CHIP_KINDS.items():
        if typed == key:
            return key
        for language in ("ja", "en"):
            with translation.override(language):
                if typed == str(label).casefold():
                    return key
    return text.strip()


def chip_kind(kind: str) -> str:
    """A chip kind of the rules as players call it; a club's own kinds show as they are named."""
    return str(CHIP_KINDS.get(kind, kind))


def _hundredths(value: int, sign: str) -> str:
    minus = "▲" if _japanese() else "-"
    prefix = minus if value < 0 else sign if value > 0 else ""
    return f"{prefix}{abs(value) // 100}.{abs(value) % 100:02d}"


def percent_tenths(hundredths: int) -> int:
    """A rate from hundredths of a percent to tenths, rounded half up: 3076 → 308 (30.8%).

    league.standings.stats truncates a rate to hundredths (4/13 = 30.769…% → 3076); rounding that half up
    to tenths gives exactly the rate itself rounded half up, floor(floor(1000·r) / 10 + 0.5) being
    floor(1000·r / 10 + 0.5) for a rate r ≥ 0, so the two steps never round twice."""
    return (hundredths + 5) // 10


def percent(hundredths: int | None) -> str:
    """A rate in hundredths of a percent (league.standings.stats), shown to one decimal rounded half up:
    2500 → "25.0%", 3076 (4/13) → "30.8%"."""
    if hundredths is None:
        return ""
    tenths = percent_tenths(hundredths)
    return f"{tenths // 10}.{tenths % 10}%"


def hundredths(value: int | None) -> str:
    """An unsigned statistic in hundredths, e.g. an average rank: 256 → "2.56"."""
    if value is None:
        return ""
    return _hundredths(value, "")


def average(value: int | None) -> str:
    """An average score in hundredths of 1,000 points, signed like `score`: -774 → "▲7.74" in
    Japanese, "-7.74" in English; 1250 → "+12.50"."""
    if value is None:
        return ""
    return _hundredths(value, "+")


def rating(millionths: int | None) -> str:
    """A rating stored in millionths (league.standings.rating) to one decimal, rounded half up:
    27_345_000 → "27.3"; negatives with ▲ in Japanese, as scores."""
    if millionths is None:
        return ""
    tenths = (abs(millionths) * 10 + 500_000) // 1_000_000
    minus = ("▲" if _japanese() else "-") if millionths < 0 and tenths else ""
    return f"{minus}{tenths // 10}.{tenths % 10}"
