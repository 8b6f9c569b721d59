"""The player page's chart of a long history: the running totals at the ends of days played,
thinned by the database (standings.selectors.member_day_points), are the ones a straightforward
running sum over every day and the same thinning give."""

from __future__ import annotations

import datetime
import random

import pytest

from league.models import MemberDay
from league.standings.selectors import member_day_points

pytestmark = pytest.mark.django_db

FIRST = datetime.date(2019, 4, 1)


def expected(days, points):
    """Every ⌈n / points⌉-th day played and the last, with the running totals (the page's rule)."""
    step = max(1, -(-len(days) // points))
    out, games, total = [], 0, 0
    for i, (date, day_games, day_score) in enumerate(days):
        games += day_games
        total += day_score
        if (i + 1) % step == 0 or i == len(days) - 1:
            out.append((date, games, total))
    return out


@pytest.mark.parametrize("count", [0, 1, 7, 200, 201, 399, 401, 1_000])
def test_the_thinned_running_totals_are_the_plain_ones(club, members, count):
    rng = random.Random(count)
    member, other = members[0], members[1]
    days = []
    for i in range(count):
        date = FIRST + datetime.timedelta(days=2 * i)
        days.append((date, rng.randint(1, 8), rng.randint(-1_500, 1_500)))
    rows = [MemberDay(club=club, member=member, date=d, games=g, score=s) for d, g, s in days]
    rows.append(MemberDay(club=club, member=member, date=FIRST - datetime.timedelta(1)))  # 0 games
    rows.append(MemberDay(club=club, member=other, date=FIRST, games=3, score=999))
    MemberDay.objects.bulk_create(rows)
    got = member_day_points(member=member, start=None, end=None, points=200)
    assert got == expected(days, 200)
    assert len(got) <= 200
    if count > 10:  # a date range: only its days, summed from its first day
        start, end = days[3][0], days[-4][0]
        ranged = member_day_points(member=member, start=start, end=end, points=50)
        assert ranged == expected([d for d in days if start <= d[0] <= end], 50)


def test_one_query_however_long(club, members, django_assert_num_queries):
    member = members[0]
    MemberDay.objects.bulk_create(
        MemberDay(club=club, member=member, date=FIRST + datetime.timedelta(i), games=1, score=i)
        for i in range(3_000)
    )
    with django_assert_num_queries(1):
        got = member_day_points(member=member, start=None, end=None, points=200)
    assert len(got) == 200 and got[-1] == (FIRST + datetime.timedelta(2_999), 3_000, 4_498_500)
