"""Head-to-head, seats, the rating and the runs kept at write time (league.standings.kept)."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime

import pytest
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from league.core.errors import ServiceError
from league.models import (
    ClubChronicle,
    Game,
    Member,
    MemberGame,
    MemberRating,
    PairTotal,
    Result,
    Season,
)
from league.recording.services import (
    ChipInput,
    GameInput,
    SeatInput,
    game_edit,
    game_input_from_stored,
    game_record,
    game_void,
)
from league.standings import kept, rating, selectors
from league.standings import tasks as standings_tasks
from tests.support.clubs import make_club
from tests.support.db import as_test_case
from tests.support.seasons import make_season
from tests.support.stats import stats_snapshot

DAY = datetime.date(2024, 5, 1)


def _record(club, seated, points, date=DAY, chips=()):
    return game_record(
        club=club,
        user=None,
        data=GameInput(
            date=date,
            seats=[SeatInput(m, p) for m, p in zip(seated, points, strict=True)],
            chips=chips,
        ),
    )


@pytest.fixture
def three_games(club):
    """A, B, C, D and E; three games (seats from 起家):

    1. A 45,000  B 30,000  C 15,000  D 10,000 → A 1st +55.0, B 2nd +10.0, C 3rd ▲25.0, D 4th ▲40.0
    2. B 40,000  C 25,000  A 20,000  E 15,000 → B 1st +50.0, C 2nd +5.0, A 3rd ▲20.0, E 4th ▲35.0
    3. D 35,000  A 25,000  B 15,000  C 25,000 → D 1st +45.0, A 2nd +5.0 (earlier seat), C 3rd
       ▲15.0, B 4th ▲35.0
    """
    a, b, c, d, e = (Member.objects.create(club=club, name=n, kana=n) for n in "ABCDE")
    _record(club, [a, b, c, d], [45_000, 30_000, 15_000, 10_000])
    _record(club, [b, c, a, e], [40_000, 25_000, 20_000, 15_000])
    _record(club, [d, a, b, c], [35_000, 25_000, 15_000, 25_000])
    return a, b, c, d, e


def test_the_three_game_example_settles_as_written(three_games):
    a, b, c, d, e = three_games
    got = [
        list(Result.objects.filter(game=g, counted=True).values_list("member", "rank", "score"))
        for g in Game.objects.order_by("number")
    ]
    assert got == [
        [(a.pk, 1, 550), (b.pk, 2, 100), (c.pk, 3, -250), (d.pk, 4, -400)],
        [(b.pk, 1, 500), (c.pk, 2, 50), (a.pk, 3, -200), (e.pk, 4, -350)],
        [(d.pk, 1, 450), (a.pk, 2, 50), (b.pk, 4, -350), (c.pk, 3, -150)],
    ]


def test_head_to_head_of_the_three_game_example(three_games):
    """Worked by hand from the games above (A's ranks 1, 3, 2)."""
    a, _b, _c, _d, e = three_games
    rows = {r["opponent"].name: r for r in selectors.head_to_head(member=a, season=None)}
    strip = {k: {f: v for f, v in r.items() if f != "opponent"} for k, r in rows.items()}
    assert strip == {
        # B's ranks 2, 1, 4; A above in games 1 and 3; 45.0 − 70.0 + 40.0
        "B": {
            "games": 3,
            "avg_rank": 200,
            "opponent_avg_rank": 233,
            "above": 2,
            "above_rate": 6666,
            "net": 150,
        },
        # C's ranks 3, 2, 3; 80.0 − 25.0 + 20.0
        "C": {
            "games": 3,
            "avg_rank": 200,
            "opponent_avg_rank": 266,
            "above": 2,
            "above_rate": 6666,
            "net": 750,
        },
        # games 1 and 3: D 4th then 1st; 95.0 − 40.0
        "D": {
            "games": 2,
            "avg_rank": 150,
            "opponent_avg_rank": 250,
            "above": 1,
            "above_rate": 5000,
            "net": 550,
        },
        # game 2: A 3rd, E 4th; ▲20.0 − ▲35.0
        "E": {
            "games": 1,
            "avg_rank": 300,
            "opponent_avg_rank": 400,
            "above": 1,
            "above_rate": 10000,
            "net": 150,
        },
    }
    assert list(rows) == ["B", "C", "D", "E"]  # most games first
    e_rows = selectors.head_to_head(member=e, season=None)
    assert [(r["opponent"].name, r["above"], r["net"]) for r in e_rows] == [
        ("A", 0, -150),
        ("B", 0, -850),
        ("C", 0, -400),
    ]


def test_seats_of_the_three_game_example(club, three_games):
    a, _b, _c, _d, _e = three_games
    mine = selectors.seat_rows(club=club, season=None, member=a)
    assert mine == [
        {"seat": 0, "games": 1, "avg_rank": 100, "average": 5500, "top_rate": 10000},
        {"seat": 1, "games": 1, "avg_rank": 200, "average": 500, "top_rate": 0},
        {"seat": 2, "games": 1, "avg_rank": 300, "average": -2000, "top_rate": 0},
        {"seat": 3, "games": 0, "avg_rank": None, "average": None, "top_rate": None},
    ]
    club_rows = selectors.seat_rows(club=club, season=None)
    assert club_rows == [
        # 起家 won all three: A +55.0, B +50.0, D +45.0
        {"seat": 0, "games": 3, "avg_rank": 100, "average": 5000, "top_rate": 10000},
        # B 2nd +10.0, C 2nd +5.0, A 2nd +5.0
        {"seat": 1, "games": 3, "avg_rank": 200, "average": 666, "top_rate": 0},
        # C 3rd ▲25.0, A 3rd ▲20.0, B 4th ▲35.0
        {"seat": 2, "games": 3, "avg_rank": 333, "average": -2666, "top_rate": 0},
        # D 4th ▲40.0, E 4th ▲35.0, C 3rd ▲15.0
        {"seat": 3, "games": 3, "avg_rank": 366, "average": -3000, "top_rate": 0},
    ]


def test_a_season_keeps_its_own_head_to_head_and_seats(club, three_games):
    a, b, *_rest = three_games
    later = DAY + datetime.timedelta(days=40)
    season = make_season(club=club, name="s", start=later, end=later)
    assert selectors.head_to_head(member=a, season=season) == []
    _record(club, list(three_games[:4]), [45_000, 30_000, 15_000, 10_000], date=later)
    rows = selectors.head_to_head(member=a, season=season)
    assert next((r["opponent"], r["games"], r["net"]) for r in rows) == (b, 1, 450)
    regulars, cells = selectors.season_matrix(club=club, season=season)
    assert regulars == list(three_games[:4])
    assert cells[(a.pk, b.pk)].net == 450 and cells[(b.pk, a.pk)].net == -450
    assert selectors.seat_rows(club=club, season=season)[0]["games"] == 1


def test_rating_equals_openskill_called_directly(club):
    """Split ties share a rank; the same games in the same order through openskill's
    PlackettLuce with its defaults give the stored μ and σ (to the millionths kept)."""
    split = make_club("split", "mame-no-kai")
    rules = split.rules_versions.get()
    rules.rules_json = {**rules.rules_json, "ties": "split"}
    rules.save()
    people = [Member.objects.create(club=split, name=f"p{i}", kana=f"p{i}") for i in range(6)]
    games = [
        ([0, 1, 2, 3], [40_000, 30_000, 20_000, 10_000]),
        ([4, 0, 5, 1], [25_000, 25_000, 30_000, 20_000]),  # a tie for 2nd
        ([2, 3, 4, 5], [50_000, 20_000, 20_000, 10_000]),  # a tie for 2nd
        ([1, 2, 0, 4], [10_000, 30_000, 30_000, 30_000]),  # three share the top
        ([5, 3, 1, 0], [35_000, 35_000, 15_000, 15_000]),
    ]
    for i, (seats, points) in enumerate(games):
        _record(split, [people[s] for s in seats], points, date=DAY + datetime.timedelta(days=i))
    model = PlackettLuce()
    ratings = {i: model.rating() for i in range(6)}
    for game in Game.objects.filter(club=split).order_by("date", "number"):
        rows = list(Result.objects.filter(game=game, counted=True).order_by("seat"))
        index = [people.index(r.member) for r in rows]
        ranks = [r.rank for r in rows]
        rated = model.rate([[ratings[i]] for i in index], ranks=ranks)
        for i, team in zip(index, rated, strict=True):
            ratings[i] = team[0]
    assert sorted({r.rank for r in Result.objects.filter(club=split, counted=True)}) == [1, 2, 3, 4]
    assert Result.objects.filter(club=split, counted=True, game__date=DAY + datetime.timedelta(1))
    for i, member in enumerate(people):
        kept_rating = MemberRating.objects.get(member=member)
        assert kept_rating.mu / rating.MICRO == pytest.approx(ratings[i].mu, abs=1e-5)
        assert kept_rating.sigma / rating.MICRO == pytest.approx(ratings[i].sigma, abs=1e-5)
        assert kept_rating.ordinal / rating.MICRO == pytest.approx(ratings[i].ordinal(), abs=1e-4)
    # In game 4 three players share the top: openskill was given three 1s.
    top = Game.objects.get(club=split, date=DAY + datetime.timedelta(3))
    assert sorted(Result.objects.filter(game=top, counted=True).values_list("rank", flat=True)) == [
        1,
        1,
        1,
        4,
    ]


def test_expected_place_is_one_plus_the_chances_opponents_finish_above(three_games):
    a, b, c, _d, _e = three_games
    second = Game.objects.order_by("number")[1]
    row = MemberGame.objects.get(game=second, member=a)
    model = PlackettLuce()
    before = {
        m.pk: MemberGame.objects.get(game=Game.objects.order_by("number")[0], member=m)
        for m in (a, b, c)
    }
    me = model.rating(mu=before[a.pk].mu / 1e6, sigma=before[a.pk].sigma / 1e6)
    others = [
        model.rating(mu=before[m.pk].mu / 1e6, sigma=before[m.pk].sigma / 1e6) for m in (b, c)
    ]
    others.append(model.rating())  # E's first game
    expected = 1 + sum(model.predict_win([[o], [me]])[0] for o in others)
    assert row.expected == round(expected * 100)
    assert row.rank == 3 and row.mu_before == before[a.pk].mu


def test_an_edit_of_an_old_game_replays_from_it_only(club, three_games):
    """The chronicle is rewritten from the edited game on: an edit of the last game writes its
    four member games, an edit of the first one every game's."""
    _a, _b, _c, _d, _e = three_games
    games = list(Game.objects.order_by("number"))
    chronicle = ClubChronicle.objects.get(club=club)
    before = chronicle.replayed
    data = game_input_from_stored(games[2])
    game_edit(game=games[2], user=None, data=data)
    chronicle.refresh_from_db()
    assert chronicle.replayed - before == 4
    before = chronicle.replayed
    game_edit(game=games[0], user=None, data=game_input_from_stored(games[0]))
    chronicle.refresh_from_db()
    assert chronicle.replayed - before == 12


def _first_two_swap_points(data: GameInput) -> GameInput:
    one, two, *rest = data.seats
    swapped = [
        dataclasses.replace(one, points=two.points),
        dataclasses.replace(two, points=one.points),
    ]
    return dataclasses.replace(data, seats=[*swapped, *rest])


def test_a_long_replay_is_left_to_a_worker(member_client, club, three_games, settings, monkeypatch):
    """With more later games than RATING_INLINE_GAMES, an edit of an old game notes where to
    replay from and enqueues the task (once the action has committed: here, held back so that
    the page can be seen before the worker runs); the task's replay equals a rebuild."""
    settings.RATING_INLINE_GAMES = 4
    queued: list[int] = []
    monkeypatch.setattr(standings_tasks, "enqueue_replay", queued.append)
    first = Game.objects.order_by("number").first()
    data = game_input_from_stored(first)
    data = _first_two_swap_points(data)
    game_edit(game=first, user=None, data=data)
    chronicle = ClubChronicle.objects.get(club=club)
    assert (chronicle.pending_date, chronicle.pending_number) == (first.date, first.number)
    assert queued == [club.pk]
    stale = stats_snapshot()["ratings"]
    rating_page = reverse("standings:rating_list", args=[club.slug])
    assert "再計算しています" in member_client.get(rating_page).content.decode()
    standings_tasks.replay_ratings.call(club.pk)  # the worker
    chronicle.refresh_from_db()
    assert chronicle.pending_date is None and chronicle.pending_number is None
    assert "再計算しています" not in member_client.get(rating_page).content.decode()
    replayed = stats_snapshot()
    assert replayed["ratings"] != stale
    call_command("rebuild_aggregates", club.slug, verbosity=0)
    assert stats_snapshot() == replayed


def test_a_replay_left_pending_is_done_by_the_next_one(club, three_games, settings, monkeypatch):
    """A later writer that replays in its request starts from a pending game before its own."""
    settings.RATING_INLINE_GAMES = 4
    monkeypatch.setattr(standings_tasks, "enqueue_replay", lambda club_id: None)  # no worker
    first = Game.objects.order_by("number").first()
    data = game_input_from_stored(first)
    data = _first_two_swap_points(data)
    game_edit(game=first, user=None, data=data)
    assert ClubChronicle.objects.get(club=club).pending_date == first.date
    settings.RATING_INLINE_GAMES = 2_000
    a, b, c, d, _e = three_games
    _record(club, [a, b, c, d], [25_000] * 4, date=DAY + datetime.timedelta(days=1))
    assert ClubChronicle.objects.get(club=club).pending_date is None
    incremental = stats_snapshot()
    call_command("rebuild_aggregates", club.slug, verbosity=0)
    assert stats_snapshot() == incremental


def test_runs_and_yakuman(club, three_games):
    a, b, c, d, _e = three_games
    _record(club, [a, b, c, d], [45_000, 30_000, 15_000, 10_000], date=DAY + datetime.timedelta(1))
    _record(
        club,
        [a, b, c, d],
        [45_000, 30_000, 15_000, 10_000],
        date=DAY + datetime.timedelta(2),
        chips=(ChipInput("yakuman", a, d),),
    )
    rating_a = MemberRating.objects.get(member=a)
    assert (rating_a.tops, rating_a.clean) == (2, 5)  # tops in games 4-5; never last
    assert MemberRating.objects.get(member=d).clean == 0
    assert MemberRating.objects.get(member=b).clean == 2  # last in game 3, then 2nd twice
    records = selectors.records(club=club, seasons=[])
    assert records["tops"] == 2 and [g.member for g in records["tops_holders"]] == [a]
    assert records["clean"] == 5
    assert [(g.member, g.yakuman) for g in records["yakuman"]] == [(a, 1)]
    assert records["high_scores"][0].score == 550


# --- properties -------------------------------------------------------------------------------


def _points(data: st.DataObject) -> list[int]:
    three = [25_000 + data.draw(st.integers(-3, 3), label="points") * 5_000 for _ in range(3)]
    return [*three, 100_000 - sum(three)]


def _game_input(data, members, date) -> GameInput:
    seated = data.draw(st.permutations(members), label="seats")[:4]
    chips = ()
    if data.draw(st.booleans(), label="yakuman"):
        chips = (ChipInput("yakuman", seated[0], seated[1]),)
    return GameInput(
        date=date,
        seats=[SeatInput(m, p) for m, p in zip(seated, _points(data), strict=True)],
        chips=chips,
    )


DATES = [DAY + datetime.timedelta(days=d) for d in (0, 1, 3, 30, 60)]
PROPERTY = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.large_base_example,
    ],
)


@pytest.mark.django_db
@PROPERTY
@given(data=st.data())
def test_head_to_head_is_symmetric(db, data):
    with as_test_case():
        club = make_club("sym", "mame-no-kai")
        members = [Member.objects.create(club=club, name=f"m{i}", kana=f"m{i}") for i in range(6)]
        make_season(club=club, name="s", start=DATES[0], end=DATES[2])
        for _ in range(data.draw(st.integers(1, 6), label="games")):
            date = data.draw(st.sampled_from(DATES), label="date")
            game_record(club=club, user=None, data=_game_input(data, members, date))
        rows = {(p.member_id, p.opponent_id, p.season_id): p for p in PairTotal.objects.all()}
        assert rows
        for (m, o, s), p in rows.items():
            q = rows[(o, m, s)]
            assert (p.games, p.rank_sum, p.opponent_rank_sum, p.net) == (
                q.games,
                q.opponent_rank_sum,
                q.rank_sum,
                -q.net,
            )
            shared = Result.objects.filter(
                game__in=Result.objects.filter(member_id=m, counted=True).values("game"),
                member_id=o,
                counted=True,
            )
            assert p.games <= shared.count()
            assert p.above + q.above <= p.games
        transaction.set_rollback(True)


@pytest.mark.django_db
@PROPERTY
@given(data=st.data())
def test_any_edit_or_void_gives_the_ratings_of_a_replay_from_scratch(db, data):
    """Record games, then edit or void any of them (old or new): every kept statistic equals
    what a rebuild of the club from its stored results gives (the rating replayed from the
    first game, head-to-head and seats summed afresh)."""
    with as_test_case():
        club = make_club("prop-stats", "mame-no-kai")
        members = [Member.objects.create(club=club, name=f"m{i}", kana=f"m{i}") for i in range(6)]
        make_season(club=club, name="s", start=DATES[0], end=DATES[2])
        games = []
        for _ in range(data.draw(st.integers(2, 6), label="games")):
            date = data.draw(st.sampled_from(DATES), label="date")
            games.append(game_record(club=club, user=None, data=_game_input(data, members, date)))
        for op in data.draw(st.lists(st.sampled_from(["edit", "void"]), min_size=1, max_size=4)):
            live = [g for g in games if not g.voided]
            if not live:
                break
            game = data.draw(st.sampled_from(live), label="changed")
            if op == "edit":
                new = _game_input(data, members, game.date)
                with contextlib.suppress(ServiceError):
                    games[games.index(game)] = game_edit(game=game, user=None, data=new)
            else:
                games[games.index(game)] = game_void(game=game, user=None, reason="test")
        incremental = stats_snapshot()
        call_command("rebuild_aggregates", club.slug, verbosity=0)
        assert stats_snapshot() == incremental
        transaction.set_rollback(True)


def test_play_is_openskill_rounded_to_millionths():
    before = [rating.START, rating.State(30_000_000, 5_000_000, 3), rating.START, rating.START]
    outcomes = rating.play(before, [2, 1, 2, 4])
    model = PlackettLuce()
    teams = [[model.rating(mu=s.mu / 1e6, sigma=s.sigma / 1e6)] for s in before]
    direct = model.rate(teams, ranks=[2, 1, 2, 4])
    for outcome, team in zip(outcomes, direct, strict=True):
        assert outcome.after.mu == round(team[0].mu * 1e6)
        assert outcome.after.sigma == round(team[0].sigma * 1e6)
    assert outcomes[0].after.mu == outcomes[2].after.mu  # a shared place, equal ratings
    assert [o.after.games for o in outcomes] == [1, 4, 1, 1]


def test_replay_from_scratch_is_what_replay_from_a_game_gives(club, three_games):
    """kept.replay from the second game rewrites the same rows as from the first."""
    whole = stats_snapshot()
    second = Game.objects.order_by("number")[1]
    kept.replay(club.pk, (second.date, second.number))
    assert stats_snapshot() == whole
    kept.replay(club.pk, None)
    assert stats_snapshot() == whole


# --- pages ------------------------------------------------------------------------------------


def test_an_open_seasons_leader_is_not_called_its_winner(member_client, club, three_games):
    """歴代記録 lists each season's winner: until the season is closed, its leader so far."""
    from django.urls import reverse
    from django.utils import timezone

    season = make_season(club=club, name="春", start=DAY, end=DAY, min_games=1)
    page = member_client.get(reverse("standings:records", args=[club.slug])).content.decode()
    assert "首位：" in page
    Season.objects.filter(pk=season.pk).update(closed_at=timezone.now())
    page = member_client.get(reverse("standings:records", args=[club.slug])).content.decode()
    assert "首位：" not in page and "春" in page


def test_the_pages_show_the_kept_figures(member_client, organiser_client, club, three_games):
    from django.urls import reverse

    a, b, *_rest = three_games
    season = make_season(club=club, name="春", start=DAY, end=DAY)
    player = member_client.get(
        reverse("standings:player_detail", args=[club.slug, a.pk])
    ).content.decode()
    assert 'id="head-to-head"' in player and "+75.0" in player  # A's net against C
    assert "66.7%" in player  # above B in 2 of 3
    assert 'id="rating"' in player and "line-chart" in player
    matrix = member_client.get(reverse("standings:season_matrix", args=[club.slug, season.pk]))
    assert matrix.status_code == 200 and "+15.0" in matrix.content.decode()
    assert (
        member_client.get(
            reverse("standings:season_matrix", args=[club.slug, season.pk]) + f"?row={b.pk}"
        ).status_code
        == 200
    )
    assert (
        member_client.get(
            reverse("standings:season_matrix", args=[club.slug, season.pk]) + "?row=999999"
        ).status_code
        == 404
    )
    seats = member_client.get(reverse("standings:club_seats", args=[club.slug])).content.decode()
    assert "+50.00" in seats and "100.0%" in seats  # 起家: three tops, +55, +50, +45
    assert member_client.get(reverse("standings:records", args=[club.slug])).status_code == 200
    ranking = member_client.get(reverse("standings:rating_list", args=[club.slug])).content.decode()
    assert "A" in ranking
    # Nobody has ten games: all are listed as not ranked yet; with a minimum of 1 all rank.
    assert member_client.get(reverse("club:rating_settings", args=[club.slug])).status_code == 403
    response = organiser_client.post(
        reverse("club:rating_settings", args=[club.slug]), {"games": "1"}
    )
    assert response.status_code == 302
    club.refresh_from_db()
    assert club.rating_min_games == 1
    ranked, others = selectors.rating_ranking(club=club)
    assert len(ranked) == 5 and not others
    assert [r.ordinal for r in ranked] == sorted((r.ordinal for r in ranked), reverse=True)


def test_the_statistics_pages_take_the_same_queries_with_more_history(
    member_client, club, three_games, django_assert_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    a, b, c, d, e = three_games
    season = make_season(club=club, name="s", start=DAY, end=DAY + datetime.timedelta(9))
    _record(club, [a, b, c, e], [45_000, 30_000, 15_000, 10_000], date=DAY + datetime.timedelta(1))
    pages = [
        reverse("standings:player_detail", args=[club.slug, a.pk]),
        reverse("standings:player_detail", args=[club.slug, a.pk]) + f"?season={season.pk}",
        reverse("standings:season_matrix", args=[club.slug, season.pk]),
        reverse("standings:rating_list", args=[club.slug]),
        reverse("standings:club_seats", args=[club.slug]),
        reverse("standings:records", args=[club.slug]),
    ]
    counts = {}
    for url in pages:
        with CaptureQueriesContext(connection) as captured:
            assert member_client.get(url).status_code == 200
        counts[url] = len(captured)
    for i in range(6):
        seated = [[a, b, c, d], [b, c, d, e], [a, c, d, e]][i % 3]
        _record(club, seated, [25_000, 35_000, 30_000, 10_000], date=DAY + datetime.timedelta(i))
    for url in pages:
        with django_assert_num_queries(counts[url]):
            assert member_client.get(url).status_code == 200


def test_the_share_link_shows_head_to_head_rating_and_records_without_yen(
    client, club, three_games
):
    """Read-only, linking nowhere into the club; the biggest day in yen only with money allowed."""
    from django.urls import reverse

    _a, _b, _c, _d, _e = three_games
    club.share_token = "t" * 43
    club.save()
    Game.objects.filter(club=club).update(rate="0.3")
    big = Result.objects.filter(club=club, counted=True).order_by("-score").first()
    from league.models import MemberDay

    MemberDay.objects.filter(member=big.member, date=big.date).update(yen=12_345, yen_games=1)
    season = make_season(club=club, name="春", start=DAY, end=DAY)
    token = club.share_token
    pages = {
        "matrix": reverse("public:public_season_matrix", args=[token, season.pk]),
        "rating": reverse("public:public_rating", args=[token]),
        "records": reverse("public:public_records", args=[token]),
    }
    for name, url in pages.items():
        response = client.get(url)
        assert response.status_code == 200, name
        html = response.content.decode()
        assert "/c/" not in html, name
        assert "12,345" not in html, name
    assert "+15.0" in client.get(pages["matrix"]).content.decode()  # A against B, all 3 games
    club.share_money = True
    club.save()
    assert "12,345" in client.get(pages["records"]).content.decode()
    club.share_token = ""
    club.save()
    assert client.get(pages["records"]).status_code == 404


def test_the_api_reads_the_kept_statistics(club, organiser, three_games):
    from league.accounts import tokens as api_auth
    from tests.support.api import call, url

    a, b, *_rest = three_games
    secret = api_auth.token_create(club=club, user=organiser, name="bot")[1]
    mine = call("GET", url(club, f"players/{a.pk}/stats"), secret).json()
    assert mine["head_to_head"][0] == {
        "opponent_id": b.pk,
        "opponent": "B",
        "games": 3,
        "avg_rank": 200,
        "opponent_avg_rank": 233,
        "above": 2,
        "above_rate": 6666,
        "net": 150,
    }
    assert [s["games"] for s in mine["seats"]] == [1, 1, 1, 0]
    seats = call("GET", url(club, "seats"), secret).json()["seats"]
    assert seats[0] == {"seat": 0, "games": 3, "avg_rank": 100, "average": 5000, "top_rate": 10000}
    ratings = call("GET", url(club, "ratings"), secret).json()
    assert ratings["min_games"] == 10 and len(ratings["rows"]) == 5
    assert not any(r["ranked"] for r in ratings["rows"])
    kept_a = MemberRating.objects.get(member=a)
    row = next(r for r in ratings["rows"] if r["member_id"] == a.pk)
    assert (row["mu"], row["sigma"], row["ordinal"]) == (kept_a.mu, kept_a.sigma, kept_a.ordinal)
    history = call("GET", url(club, f"players/{a.pk}/rating"), secret).json()["games"]
    assert [g["rank"] for g in history] == [1, 3, 2] and history[-1]["mu"] == kept_a.mu
    assert call("GET", url(club, "players/999999/stats"), secret).status_code == 404
    assert call("GET", url(club, "seats") + "?season=999999", secret).status_code == 422


def test_the_statistics_workbook_is_made_by_a_worker(
    member_client, club, three_games, django_capture_on_commit_callbacks
):
    """Every pair's head-to-head is a row (members squared): the statistics are a file of
    their own made by a worker (issue 38), offered from the standings; the standings workbook
    is the standings alone, as cheap as its page."""
    import io

    from openpyxl import load_workbook

    from league.jobs import job_state
    from league.models import ExportFile

    a, _b, *_rest = three_games
    standings = reverse("excel:export_standings", args=[club.slug])
    response = member_client.get(standings)
    assert response.status_code == 200
    assert len(load_workbook(io.BytesIO(b"".join(response.streaming_content))).sheetnames) == 1
    offer = reverse("excel:export_statistics", args=[club.slug])
    assert offer in member_client.get(reverse("standings:standings", args=[club.slug])).text
    page = member_client.get(offer)
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    start = reverse("excel:export_statistics_start", args=[club.slug])
    assert start in page.text
    with django_capture_on_commit_callbacks(execute=True):
        started = member_client.post(start)
    export = ExportFile.objects.select_related("job").get(kind="statistics")
    assert started.url == reverse("excel:export_status", args=[club.slug, export.pk])
    # 5 rating rows, 4 seats, 18 pairs (A–D met each other, E met A, B and C; each pair both
    # ways): the job's rows
    assert export.ready and export.job.total == export.job.done == 5 + 4 + 18
    assert job_state(export.job).status == "done"
    file = member_client.get(reverse("excel:export_download", args=[club.slug, export.pk]))
    assert file["Content-Disposition"].startswith('attachment; filename="mame_all-time_statistics')
    book = load_workbook(io.BytesIO(b"".join(file.streaming_content)))
    assert len(book.sheetnames) == 1
    rows = [list(row) for row in book.worksheets[0].iter_rows(values_only=True)]
    assert len(rows[1:6]) == 5 and all(r[5] is None for r in rows[1:6])  # nobody has 10 games
    kept_a = MemberRating.objects.get(member=a)
    line = next(r for r in rows if r[0] == "A" and isinstance(r[1], int) and r[1] == 3)
    assert float(line[3]) == pytest.approx(kept_a.mu / 1e6)
    seats = next(i for i, r in enumerate(rows) if r[0] and str(r[0]).startswith("座席別"))
    assert list(rows[seats + 2][:2]) == ["起家", 3]  # the caption, the headers, then 起家
    pair = next(r for r in rows if r[0] == "A" and r[1] == "B")
    assert pair[2] == 3 and float(pair[6]) == pytest.approx(15.0) and pair[5] == 2
    # A date range or a rate is not kept: no statistics offered, nor made.
    ranged = reverse("standings:standings", args=[club.slug]) + f"?start={DAY}&end={DAY}"
    assert offer not in member_client.get(ranged).text
    assert member_client.get(offer + f"?start={DAY}&end={DAY}").status_code == 404
    assert member_client.post(start + "?rate=0.3").status_code == 404


def test_records_break_ties_by_date_game_and_member_in_one_query(
    club, three_games, django_assert_num_queries
):
    """Many games share the highest score: the record lists the first five in (date, game,
    member) order, the same as sorting every row, reading only those five."""
    from league.models import MemberDay

    a, b, c, d, e = three_games
    for i in range(4):
        seated = [[a, b, c, d], [e, a, b, c]][i % 2]
        _record(club, seated, [45_000, 30_000, 15_000, 10_000], date=DAY + datetime.timedelta(i))
    everyone = sorted(
        MemberGame.objects.filter(club=club),
        key=lambda g: (-g.score, g.date, g.number, g.member_id),
    )
    days = sorted(
        MemberDay.objects.filter(club=club, yen_games__gt=0, yen__gt=0),
        key=lambda m: (-m.yen, m.date, m.member_id),
    )
    records = selectors.records(club=club, seasons=[])
    assert [g.pk for g in records["high_scores"]] == [g.pk for g in everyone[:5]]
    assert [m.pk for m in records["big_days"]] == [m.pk for m in days[:5]]
    assert everyone[0].score == everyone[4].score  # ties at the top
    with django_assert_num_queries(1):
        selectors._first(MemberGame.objects.filter(club=club), "score", "date", "number")


def test_a_replayed_member_game_is_written_in_its_columns_order():
    """The replay makes each MemberGame from its values by position (Model's fast path): they
    are written in _WRITTEN's order, which must be MemberGame's columns after the id."""
    from league.models.stats import MemberGame
    from league.standings import kept

    columns = [f.attname for f in MemberGame._meta.concrete_fields]
    assert columns[0] == "id"
    assert list(kept._WRITTEN) == columns[1:]
