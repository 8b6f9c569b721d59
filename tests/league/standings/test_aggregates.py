"""The kept aggregates (league.standings.services): incremental equals rebuilt, and equals the live
aggregate over the results, after any sequence of record, edit, void, re-settle and season."""

from __future__ import annotations

import contextlib
import datetime

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.core import changes
from league.core.actions import action
from league.core.errors import ServiceError
from league.models import Club, Game, Member, Result, RulesVersion, Season
from league.models.stats import MemberGame, PairTotal
from league.models.totals import MemberDay, MemberTotal
from league.recording.services import (
    ChipInput,
    GameInput,
    SeatInput,
    game_edit,
    game_input_from_stored,
    game_record,
    game_void,
)
from league.rules.services import resettle_apply, rules_version_create
from league.standings import services as aggregates
from tests.support.aggregates import assert_kept_equals_rebuilt_and_live, kept
from tests.support.clubs import make_club
from tests.support.db import as_test_case
from tests.support.games import record_game
from tests.support.seasons import make_season
from tests.support.stats import stats_snapshot

FIRST = datetime.date(2024, 4, 1)
DATES = [FIRST + datetime.timedelta(days=d) for d in (0, 1, 7, 30, 31, 90, 200)]
POINTS = [40_000, 30_000, 20_000, 10_000]


def _record(club: Club, date: datetime.date, seated: list[Member], rate: str = "") -> Game:
    """A game recorded by the system (no user): the first four of `seated` with POINTS."""
    return record_game(club, None, seated[:4], POINTS, date=date, rate=rate)


def _points(data: st.DataObject, deposits: int) -> list[int]:
    three = [25_000 + data.draw(st.integers(-300, 300), label="points") * 100 for _ in range(3)]
    return [*three, 100_000 - deposits - sum(three)]


def _game_input(data: st.DataObject, members: list[Member], date: datetime.date) -> GameInput:
    seated = data.draw(st.permutations(members), label="seats")[:4]
    deposits = data.draw(st.sampled_from([0, 0, 1000, 2000]), label="deposits")
    chips = ()
    if data.draw(st.booleans(), label="chip"):
        chips = (ChipInput("ippatsu", seated[0], seated[1]),)
    return GameInput(
        date=date,
        seats=[
            SeatInput(m, p, int(i == 0 and data.draw(st.booleans(), label="chombo")))
            for i, (m, p) in enumerate(zip(seated, _points(data, deposits), strict=True))
        ],
        deposits=deposits,
        rate=data.draw(st.sampled_from(["", "0.3", "0.5"]), label="rate"),
        chips=chips,
    )


OPERATIONS = [
    "record",
    "record",
    "record",
    "edit",
    "void",
    "resettle",
    "season",
    "import",
    "void_import",
]


def _import(data: st.DataObject, club: Club, members: list[Member]) -> None:
    """A workbook of one to three games imported (league.excel.imports.import_stored: whole days
    a transaction under an ImportBatch), from the plan its preview settled."""
    from league.excel import imports
    from tests.support.imports import game, simple

    rows = []
    for i in range(data.draw(st.integers(1, 3), label="imported games")):
        seated = data.draw(st.permutations(members), label="imported seats")[:4]
        deposits = data.draw(st.sampled_from([0, 1000]), label="imported deposits")
        points = _points(data, deposits)
        date = data.draw(st.sampled_from(DATES), label="imported date")
        rows.append(
            game(
                *[(m.name, p) for m, p in zip(seated, points, strict=True)],
                date=date,
                table=f"I{i}",
                deposits=deposits,
            )
        )
    parsed = imports.workbook_read(simple(*rows), players=4)
    with contextlib.suppress(imports.ImportFailed):
        imports.import_stored(
            club=club,
            settled=imports.settled_of(club=club, parsed=parsed),
            user=None,
            mapping={},
            kana={},
            duplicates=False,
        )


@pytest.mark.django_db(transaction=False)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.large_base_example,
    ],
)
@given(data=st.data())
def test_incremental_equals_rebuilt(db, data):
    with as_test_case():
        club = make_club("prop", "mame-no-kai")
        members = [Member.objects.create(club=club, name=f"m{i}", kana=f"m{i}") for i in range(6)]
        make_season(club=club, name="spring", start=DATES[0], end=DATES[3])
        make_season(club=club, name="year", start=DATES[0], end=DATES[-1], min_games=2)
        games = []
        for op in data.draw(st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=14)):
            live = [g for g in games if not g.voided]
            if op == "record" or (not live and op in ("edit", "void")):
                date = data.draw(st.sampled_from(DATES), label="date")
                games.append(
                    game_record(club=club, user=None, data=_game_input(data, members, date))
                )
            elif op == "edit":
                game = data.draw(st.sampled_from(live), label="edited")
                new = _game_input(data, members, game.date)
                with contextlib.suppress(ServiceError):
                    games[games.index(game)] = game_edit(game=game, user=None, data=new)
            elif op == "void":
                game = data.draw(st.sampled_from(live), label="voided")
                games[games.index(game)] = game_void(game=game, user=None, reason="test")
            elif op == "resettle":
                date = data.draw(st.sampled_from(DATES), label="rules from")
                if RulesVersion.objects.filter(club=club, effective_from=date).exists():
                    continue
                uma = data.draw(st.sampled_from([[15, 5, -5, -15], [30, 10, -10, -30]]))
                version = rules_version_create(
                    club=club,
                    user=None,
                    effective_from=date,
                    rules_json={"preset": "mame-no-kai", "uma": uma, "ties": "split"},
                )
                resettle_apply(version=version, user=None)
                games = [type(g).objects.get(pk=g.pk) for g in games]
            elif op == "import":
                _import(data, club, members)
            elif op == "void_import":
                from league.excel import imports
                from league.models import ImportBatch

                if not ImportBatch.objects.filter(club=club, voided=False).exists():
                    _import(data, club, members)  # something to void
                batches = list(ImportBatch.objects.filter(club=club, voided=False).order_by("pk"))
                if batches:
                    batch = data.draw(st.sampled_from(batches), label="voided import")
                    imports.batch_void(club=club, batch_id=batch.pk, user=None)
                    games = [type(g).objects.get(pk=g.pk) for g in games]
            else:  # a season created after its games: its totals are built then
                start = data.draw(st.sampled_from(DATES), label="season start")
                make_season(club=club, name="later", start=start, end=DATES[-1])
        assert_kept_equals_rebuilt_and_live(club)
        transaction.set_rollback(True)


@pytest.mark.django_db
def test_member_rebuild_and_results_recorded_as_changed(club, members):
    """A member's rows rebuilt alone; rows an action records as counted now (ResultsChanged,
    league.core.changes) are added once as the action ends."""
    make_season(club=club, name="s", start=DATES[0], end=DATES[-1])
    g = _record(club, DATES[0], members)
    before = kept()
    statistics = stats_snapshot()
    MemberTotal.objects.filter(member=members[0]).update(games=99, best=1)
    MemberDay.objects.filter(member=members[0]).delete()
    PairTotal.objects.filter(opponent=members[0]).update(games=99)
    MemberGame.objects.filter(member=members[0]).update(mu=1)
    aggregates.member_rebuild(member=members[0])
    assert kept() == before
    assert stats_snapshot() == statistics
    # An action records the rows it made count; the projection moves the totals as it ends.
    MemberTotal.objects.all().delete()
    MemberDay.objects.all().delete()
    with action():
        rows = list(Result.objects.filter(game=g, counted=True))
        changes.record(changes.ResultsChanged(club.pk, added=rows))
        assert not MemberTotal.objects.exists()  # not yet: once, as the action ends
    assert kept() == before
    assert game_input_from_stored(g).seats[0].points == 40_000


@pytest.mark.django_db
def test_race_and_day_ledger_read_a_few_kept_rows(member_client, club, members):
    """The race and the day page read the kept daily totals, not the results."""
    season = Season.objects.create(club=club, name="s", start=DATES[0], end=DATES[-1])
    for date in DATES[:3]:
        _record(club, date, members)
    for url in (
        reverse("standings:season_race", args=[club.slug, season.pk]),
        reverse("recording:day_detail", args=[club.slug, DATES[0]]),
    ):
        with CaptureQueriesContext(connection) as captured:
            response = member_client.get(url)
        assert response.status_code == 200, url
        assert not any("league_result" in q["sql"] and "GROUP BY" in q["sql"] for q in captured)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="races are only real on PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_games_recorded_at_once_for_the_same_members_all_count():
    """Eight games on eight different days (no shared day lock), the same members in all of
    them, recorded at once: the kept totals count every one (no lost update, no deadlock), also
    the first time these members get rows."""
    from tests.support.concurrency import race

    club = make_club("race", "mame-no-kai")
    members = [Member.objects.create(club=club, name=f"r{i}", kana=f"r{i}") for i in range(5)]
    Season.objects.create(
        club=club, name="s", start=DATES[0], end=DATES[0] + datetime.timedelta(30)
    )

    def record(i: int) -> None:
        seated = members[i % 2 : i % 2 + 4] if i % 3 else list(reversed(members[:4]))
        _record(club, DATES[0] + datetime.timedelta(days=i), seated)

    race([lambda i=i: record(i) for i in range(8)])
    assert MemberTotal.objects.get(member=members[1], season__isnull=True).games == 8
    incremental = kept()
    call_command("rebuild_aggregates", club.slug, verbosity=0)
    assert kept() == incremental


@pytest.mark.django_db
def test_page_queries_do_not_grow_with_history(
    member_client, club, members, django_assert_num_queries, monkeypatch
):
    """Every page reading the kept totals takes the same queries with 2 or 8 days of history
    (its latest day, season and member the same), and a player's long history takes the same
    queries as a short one."""
    season = Season.objects.create(club=club, name="s", start=DATES[0], end=DATES[-1])
    last = DATES[-1]

    def play(date: datetime.date, n: int = 1) -> None:
        for _ in range(n):
            _record(club, date, members)

    pages = [
        reverse("recording:club_home", args=[club.slug]),
        reverse("recording:day_detail", args=[club.slug, last]),
        reverse("standings:season_standings", args=[club.slug, season.pk]),
        reverse("standings:season_race", args=[club.slug, season.pk]),
        reverse("standings:standings", args=[club.slug]),
        reverse("standings:player_detail", args=[club.slug, members[0].pk]),
        reverse("standings:player_detail", args=[club.slug, members[0].pk])
        + f"?season={season.pk}",
    ]
    play(last)
    play(DATES[0])
    counts = {}
    for url in pages:
        with CaptureQueriesContext(connection) as captured:
            member_client.get(url)
        counts[url] = len(captured)
    for date in DATES[1:-1]:
        play(date)
    from league.standings.views import players

    # Past the per-game chart (one point per day beyond it), with the limit made small so that
    # the test records a few dozen games rather than 300.
    monkeypatch.setattr(players, "CHART_GAMES", 12)
    play(DATES[1], players.CHART_GAMES)
    for url in pages:
        with django_assert_num_queries(counts[url]):
            assert member_client.get(url).status_code == 200


@pytest.mark.skipif(connection.vendor != "postgresql", reason="races are only real on PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_a_season_created_while_games_are_recorded_counts_them_all():
    """A season's rows are built while games inside its dates are being recorded: the games
    committed before it are in its rebuild, those after it move its rows; none is lost."""
    from tests.support.concurrency import race

    club = make_club("season-race", "mame-no-kai")
    members = [Member.objects.create(club=club, name=f"s{i}", kana=f"s{i}") for i in range(4)]
    # The members' rows exist: the race is on the season, not on new rows.
    _record(club, DATES[0], members)

    def record(i: int) -> None:
        _record(club, DATES[0] + datetime.timedelta(days=i + 1), members)

    def season() -> None:
        make_season(club=club, name="s", start=DATES[0], end=DATES[-1])

    race([*(lambda i=i: record(i) for i in range(6)), season])
    assert MemberTotal.objects.get(member=members[0], season__isnull=False).games == 7
    incremental = kept()
    call_command("rebuild_aggregates", club.slug, verbosity=0)
    assert kept() == incremental


def test_a_bulk_import_moves_many_member_days_as_a_rebuild_would(club, members):
    """More member-days than aggregates.services.BULK_DAYS in one call (an import): the rows are
    read, added to and written back in bulk, and equal a rebuild; existing rows keep theirs."""
    from league.recording import services
    from league.standings.services import BULK_DAYS

    _record(club, DATES[0], members)
    batch = []
    for i in range(12):  # 12 games on 12 days: 48 member-days, one of them already kept
        date = DATES[0] + datetime.timedelta(days=i)
        seats = [SeatInput(m, p) for m, p in zip(members[i % 2 :], POINTS, strict=False)]
        data = GameInput(date=date, seats=seats)
        batch.append((data, services.game_preview(club=club, data=data)))
    assert len(batch) * 4 > BULK_DAYS
    services.games_record_bulk(club=club, user=None, games=batch)
    assert_kept_equals_rebuilt_and_live(club)


@pytest.mark.django_db
def test_standings_filtered_by_rate_read_the_kept_rate_totals(member_client, club, members):
    """The standings of one rate tier, all time and a season's, read MemberRateTotal: no query
    touches the results, and the queries do not grow with history."""
    season = Season.objects.create(club=club, name="s", start=DATES[0], end=DATES[-1])

    def play(date: datetime.date, rate: str, order: list[Member]) -> None:
        _record(club, date, order, rate)

    pages = [
        reverse("standings:standings", args=[club.slug]) + "?rate=0.3",
        reverse("standings:season_standings", args=[club.slug, season.pk]) + "?rate=0.3",
        reverse("standings:standings", args=[club.slug]) + f"?rate=0.5&season={season.pk}",
    ]
    play(DATES[0], "0.3", members[:4])
    play(DATES[0], "0.5", members[:4][::-1])
    counts = {}
    for url in pages:
        with CaptureQueriesContext(connection) as captured:
            assert member_client.get(url).status_code == 200
        counts[url] = len(captured)
        assert not [q for q in captured if '"league_result"' in q["sql"]], url
    for date in DATES[1:2]:
        play(date, "0.3", members[:4][::-1])
        play(date, "0.5", members[:4])
    for url in pages:
        with CaptureQueriesContext(connection) as captured:
            response = member_client.get(url)
        assert len(captured) == counts[url], url
        assert not [q for q in captured if '"league_result"' in q["sql"]], url
    rows = {r.record["member"]: r.record for r in response.context["table"].page.object_list}
    assert rows[members[0].pk]["games"] == 2  # 0.5 only: one a date
    assert rows[members[0].pk]["first"] == 1


@pytest.mark.django_db
def test_rebuild_aggregates_names_the_clubs_it_does_not_know(club):
    with pytest.raises(CommandError, match="No such club: nowhere, other"):
        call_command("rebuild_aggregates", club.slug, "other", "nowhere", verbosity=0)
