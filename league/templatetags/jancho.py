"""How numbers look on the screen: scores as clubs write them, yen with separators."""

from __future__ import annotations

from django import template
from django.utils.translation import get_language

import scoring

register = template.Library()


def _japanese() -> bool:
    return (get_language() or "ja").startswith("ja")


@register.filter
def score(tenths: int | None) -> str:
    """453 → "+45.3"; -123 → "▲12.3" in Japanese, "-12.3" in English."""
    if tenths is None:
        return ""
    text = scoring.format_score(tenths, "ja")
    return text if _japanese() else text.replace("▲", "-")


@register.filter
def yen(amount: int | None) -> str:
    """-1234 → "▲1,234" in Japanese, "-1,234" in English; 0 → "0"."""
    if amount is None:
        return ""
    minus = "▲" if _japanese() else "-"
    return f"{minus if amount < 0 else ''}{abs(amount):,}"


@register.filter
def points(value: int | None) -> str:
    """Final points with separators, ▲ for negatives in Japanese: 25000 → "25,000"."""
    return yen(value)
