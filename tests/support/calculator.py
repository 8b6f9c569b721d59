"""The API's point calculator in tests."""

from __future__ import annotations

import json

PINFU_TSUMO = {
    "tiles": "123456m234p56799s",
    "win": "7s",
    "tsumo": True,
    "riichi": True,
    "seat_wind": "south",
    "ura": ["8s"],
}


def calc(client, secret, body):
    return client.post(
        "/api/clubs/mame/calculator",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
