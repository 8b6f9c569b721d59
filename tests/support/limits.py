"""The rules form's post and the API's errors, for the limits tests."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

import scoring
from league.rules.forms import rules_initial

BASE = scoring.PRESETS["mame-no-kai"].rules.to_json()


RATE = {"yen_per_1000": 30, "chip_yen": 100}


def rules_post(client, club, text: str, **overrides: Any):
    """The rules form in advanced mode: the JSON replaces the fields."""
    data = {
        **{k: v for k, v in rules_initial(BASE).items() if v is not None},
        "effective_from": "2026/11/01",
        "advanced": "on",
        "rules_json": text,
        "uma_0": "20",
        "uma_1": "10",
        "uma_2": "-10",
        "uma_3": "-20",
    }
    data.pop("uma", None)
    data.update(overrides)
    url = reverse("rules:rules_new", args=[club.slug])
    response = client.post(url, data)
    check = response.context and response.context.get("check")
    if check is None:  # refused: nothing to confirm
        return response
    return client.post(url, {**data, "confirm": check.token})  # the second step saves


def json_errors(response) -> list[str]:
    assert response.status_code == 200, response.status_code
    return response.context["form"].errors.get("rules_json", [])
