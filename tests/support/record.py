"""The record form in tests: its address, what it is posted, and nothing stored."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.test import Client
from django.urls import reverse

from league.models import Game, Result

NAMES = ("青木", "馬場", "千葉", "土井")


# マメの会, deposits to the house: 52,000 / 31,000 / 19,000 / ▲3,000 with 1,000 left on the table.
TYPED_POINTS = ("５２，０００", "31,000", "１９０００", "▲3,000")


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def new_url(club) -> str:
    return reverse("recording:game_new", args=[club.slug])


def posted(
    action: str = "save", points: Sequence[Any] = TYPED_POINTS, **overrides: Any
) -> dict[str, Any]:
    """What the new-game form sends for the standard game, the four `points` typed as given;
    overrides replace or add fields (None leaves one out)."""
    data: dict[str, Any] = {
        "date": "2026-11-21",
        "table": "A",
        "deposits": "1,000",
        "rate": "0.3",
        "submission_key": str(uuid.uuid4()),
        "action": action,
    }
    for i, (name, typed) in enumerate(zip(NAMES, points, strict=True)):
        data[f"member_{i}"] = name
        data[f"points_{i}"] = str(typed)
        data[f"chombo_{i}"] = "0"
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def nothing_stored() -> bool:
    return not Game.objects.exists() and not Result.objects.exists()
