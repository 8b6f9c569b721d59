"""The club's management pages in tests: the rules form's post, games recorded."""

from __future__ import annotations

import datetime

from django.test import Client
from django.urls import reverse

import scoring
from league.models import Game, RulesVersion
from league.rules.forms import hand_options_initial, rules_initial
from scoring.hand_options import default_hand_options
from tests.support.games import record_game


def rules_post(preset: str = "mame-no-kai", **overrides: str) -> dict[str, str]:
    """POST data for the rules form as it comes pre-filled from `preset`, with `overrides`."""
    data: dict[str, str] = {}
    rules = scoring.PRESETS[preset].rules
    hand = hand_options_initial(default_hand_options(preset, rules.players))
    for key, value in (rules_initial(rules.to_json()) | hand).items():
        if key == "uma":
            data |= {f"uma_{i}": str(v) for i, v in enumerate(value)}
        elif value is True:
            data[key] = "on"
        elif value not in (None, False):
            data[key] = str(value)
    data |= {"effective_from": "2026/04/01", "preset": preset, "note": "改定"}
    data.update(overrides)
    return data


def post_rules(client: Client, club, data: dict[str, str], base: str = ""):
    """Both steps of saving: the check (what would change), then the confirmation of it."""
    url = reverse("rules:rules_new", args=[club.slug])
    url = f"{url}?from={base}" if base else url
    response = client.post(url, data)
    check = response.context and response.context.get("check")
    if check is None:
        return response  # refused (form errors): nothing to confirm
    return client.post(url, {**data, "confirm": check.token})


def saved_version(client: Client, club, data: dict[str, str]) -> RulesVersion:
    """The rules form's `data` saved (both steps): the club's version from 2026-04-01, the date
    rules_post sends."""
    assert post_rules(client, club, data).status_code == 302
    return RulesVersion.objects.get(club=club, effective_from=datetime.date(2026, 4, 1))


def record(club, organiser, members, date: datetime.date, points, rate: str = "0.3") -> Game:
    return record_game(club, organiser, members, points, date=date, rate=rate)
