"""The kept aggregates against their rebuild and the live query."""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management import call_command

from league.models import Club, Day, Season
from league.models.totals import MemberDay, MemberRateTotal, MemberTotal
from league.recording import selectors
from league.standings import services as aggregates
from league.standings import stats
from tests.support.stats import stats_snapshot

TOTAL_FIELDS = [*aggregates.TOTAL_FIELDS, "best"]


def kept() -> tuple[dict[Any, dict[str, Any]], dict[Any, dict[str, Any]]]:
    """Every kept row with games, keyed by scope; rows without games must be all zero."""
    totals, days = {}, {}
    for row in MemberTotal.objects.values("member", "season", *TOTAL_FIELDS):
        key = (row.pop("member"), row.pop("season"))
        if row["games"]:
            totals[key] = row
        else:
            assert row == dict.fromkeys(TOTAL_FIELDS, 0) | {"best": None}, (key, row)
    for row in MemberRateTotal.objects.values("member", "season", "rate", *TOTAL_FIELDS):
        key = (row.pop("member"), row.pop("season"), row.pop("rate"))
        if row["games"]:
            totals[key] = row
        else:
            assert row == dict.fromkeys(TOTAL_FIELDS, 0) | {"best": None}, (key, row)
    for row in MemberDay.objects.values("member", "date", *aggregates.DAY_FIELDS):
        key = (row.pop("member"), row.pop("date"))
        if row["games"]:
            days[key] = row
        else:
            assert row == dict.fromkeys(aggregates.DAY_FIELDS, 0), (key, row)
    return totals, days


def assert_kept_equals_rebuilt_and_live(club: Club) -> None:
    incremental = kept()
    statistics = stats_snapshot()  # head-to-head, seats, rating (league.standings.kept)
    call_command("rebuild_aggregates", club.slug, verbosity=0)
    assert kept() == incremental
    assert stats_snapshot() == statistics
    # The pages' rows equal the live aggregate over the results (all time, each season; every
    # rate and each rate tier). All time is aggregated live from a first day before any game.
    seasons = list(Season.objects.filter(club=club))
    for start, end, min_games in [(None, None, 0), *((s.start, s.end, 2) for s in seasons)]:
        for rate in (None, "0.3", "0.5"):
            for order in ("position", "-games", "best", "avoid_last_rate"):
                fast = list(
                    stats.standings(
                        club=club,
                        start=start,
                        end=end,
                        rate=rate,
                        min_games=min_games,
                        order=order,
                        seasons=seasons,
                    )
                )
                live = list(
                    stats.standings(
                        club=club,
                        start=start or datetime.date(1, 1, 1),
                        end=end,
                        rate=rate,
                        min_games=min_games,
                        order=order,
                    )
                )
                assert [dict(r) for r in fast] == [dict(r) for r in live], (start, rate, order)
    for day in Day.objects.filter(club=club):
        live_rows = list(
            stats.counted_results(club=club, start=day.date, end=day.date)
            .values("member")
            .order_by("member")
        )
        assert {r["member"] for r in selectors.day_ledger_rows(day=day)} == {
            r["member"] for r in live_rows
        }
