"""Table mode's hands with pao, posted in tests."""

from __future__ import annotations

import json


def post(client, url, body):
    return client.post(url, json.dumps(body), "application/json")
