"""The online-log modules' club: 天鳳部 on Tenhou's rules and its four players (tests/support/online)."""

from __future__ import annotations

import pytest

from league.models import Club, Member
from tests.support.online import make_tenhou_club, make_tenhou_players


@pytest.fixture
def tenhou_club(db) -> Club:
    return make_tenhou_club()


@pytest.fixture
def players(tenhou_club) -> list[Member]:
    return make_tenhou_players(tenhou_club)
