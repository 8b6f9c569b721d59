"""What the sign-up and club creation pages are posted."""

from __future__ import annotations

GOOD = "tsumo-pinfu-2026"


def signup_data(**override) -> dict[str, str]:
    return {
        "username": "yamada",
        "password1": GOOD,
        "password2": GOOD,
        "email": "",
        **override,
    }


def club_data(**override) -> dict[str, str]:
    return {
        "name": "マメの会",
        "slug": "mame-no-kai",
        "rules_from": "preset:mame-no-kai",
        **override,
    }
