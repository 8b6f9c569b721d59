"""The write layer, league/recording/services.py and the other domains' services, against the real database.

Every settled number is compared with `scoring.settle_game` on the same input (the engine has its
own tests); these tests check what is stored, what is refused, and that nothing is ever deleted.
"""

from __future__ import annotations

import datetime
import json
import random
import uuid
from collections import Counter

import pytest
from django.db.models import QuerySet, Sum

import scoring
from league.core.errors import NON_FIELD, ServiceError
from league.models import (
    AuditLog,
    ChipEvent,
    Club,
    Day,
    Game,
    Member,
    Result,
    RulesVersion,
)
from league.recording.services import (
    ChipInput,
    GameInput,
    SeatInput,
    game_edit,
    game_input_from_stored,
    game_preview,
    game_record,
    game_snapshot,
    game_void,
)
from league.rules.services import resettle_apply, resettle_preview, rules_version_create
from tests.support import paths

SETTLE_CASES = paths.DATA / "cases" / "settle.json"
WORKED = "mame: floor, house deposits, chombo, chips, rate 0.3"
DAY = datetime.date(2024, 5, 10)
EVEN = [25_000, 25_000, 25_000, 25_000]
# conftest's club takes its rules from 2020-01-01 on.
BEFORE_ANY_RULES = datetime.date(2019, 12, 31)


def _game(
    seated: list[Member],
    points: list[int],
    *,
    date: datetime.date = DAY,
    deposits: int = 0,
    rate: str = "",
    chips: tuple[ChipInput, ...] = (),
    chombo: dict[str, int] | None = None,
    key: uuid.UUID | None = None,
) -> GameInput:
    chombo = chombo or {}
    return GameInput(
        date=date,
        seats=[SeatInput(m, p, chombo.get(m.name, 0)) for m, p in zip(seated, points, strict=True)],
        deposits=deposits,
        rate=rate,
        chips=chips,
        submission_key=key,
    )


def _worked_case() -> dict:
    cases = json.loads(SETTLE_CASES.read_text(encoding="utf-8"))
    return next(c for c in cases if c["name"] == WORKED)


def _worked_input(members: list[Member], date: datetime.date = DAY) -> GameInput:
    """The shared worked case, its players being the club's members of the same names."""
    case = _worked_case()["input"]
    by_name = {m.name: m for m in members}
    chombo = Counter(case.get("chombo", []))
    return GameInput(
        date=date,
        seats=[
            SeatInput(by_name[p["name"]], p["points"], chombo[p["name"]]) for p in case["players"]
        ],
        deposits=case.get("deposits", 0),
        rate=case.get("rate", ""),
        chips=[
            ChipInput(
                c["kind"],
                by_name[c["winner"]],
                by_name[c["from"]] if "from" in c else None,
                c.get("multiplier", 1),
            )
            for c in case.get("chips", [])
        ],
    )


def _engine(rules: scoring.Rules, data: GameInput) -> dict[str, scoring.PlayerResult]:
    """settle_game on the same input, players named by their names: the expected numbers."""
    game = scoring.Game(
        seats=tuple(scoring.Seat(s.member.name, s.points) for s in data.seats),
        deposits=data.deposits,
        chombo=tuple(s.member.name for s in data.seats for _ in range(s.chombo)),
        chips=tuple(
            scoring.ChipEvent(
                c.kind, c.winner.name, c.discarder.name if c.discarder else None, c.multiplier
            )
            for c in data.chips
        ),
        rate=data.rate or None,
    )
    return {p.name: p for p in scoring.settle_game(rules, game).players}


def _logs() -> QuerySet[AuditLog]:
    """The audit log without the fixtures' memberships (audited too: league/models/memberships.py)."""
    return AuditLog.objects.exclude(action__startswith="membership.")


def _counts() -> dict[str, int]:
    counts = {
        model.__name__: model.objects.count()
        for model in (Day, Game, Result, ChipEvent, RulesVersion)
    }
    return {**counts, "AuditLog": _logs().count()}


def _counted(game: Game) -> list[Result]:
    return list(Result.objects.filter(game=game, counted=True).order_by("seat"))


# --- game_record -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_record_stores_the_worked_case(club, members, organiser):
    data = _worked_input(members)
    game = game_record(club=club, user=organiser, data=data)

    game.refresh_from_db()
    version = RulesVersion.objects.get(club=club)
    assert (game.club, game.date, game.day.date, game.number) == (club, DAY, DAY, 1)
    assert (game.rules_version, game.revision, game.voided) == (version, 1, False)
    assert (game.deposits, game.rate, game.recorded_by) == (1000, "0.3", organiser)

    rows = list(game.results.order_by("seat").select_related("member"))
    stored = [
        (r.seat, r.member.name, r.points, r.rank, r.score, r.chips, r.yen, r.chombo) for r in rows
    ]
    assert stored == [
        (0, "青木", 52_000, 1, 790, 3, 2640, 0),
        (1, "馬場", 31_000, 2, -90, -1, -360, 1),
        (2, "千葉", 19_000, 3, -210, 2, -450, 0),
        (3, "土井", -3_000, 4, -500, -4, -1860, 0),
    ]
    expected = _engine(version.rules, data)
    for r in rows:
        p = expected[r.member.name]
        assert (r.rank, r.score, r.chips, r.yen, r.chombo) == (
            p.rank,
            p.score,
            p.chips,
            p.yen,
            p.chombo,
        )
    # The shared case's own expected output, in its string form.
    case = {p["name"]: p for p in _worked_case()["expected"]["players"]}
    assert [scoring.format_score(r.score) for r in rows] == [
        case[r.member.name]["score"] for r in rows
    ]
    assert all(r.counted and r.revision == 1 for r in rows)
    assert all(r.club_id == club.pk and r.date == DAY for r in rows)

    chips = [
        (c.revision, c.kind, c.winner.name, c.discarder and c.discarder.name, c.multiplier)
        for c in game.chip_events.order_by("id")
    ]
    assert chips == [(1, "ippatsu", "青木", None, 1), (1, "yakuman", "千葉", "土井", 1)]

    log = _logs().get()
    assert (log.action, log.actor, log.game, log.target) == (
        "game.create",
        organiser,
        game,
        f"game:{game.pk}",
    )
    assert log.before is None
    assert log.after == game_snapshot(game)
    assert [p["score"] for p in log.after["players"]] == [790, -90, -210, -500]
    assert log.after["chip_events"][1] == {
        "kind": "yakuman",
        "winner": members[2].pk,
        "from": members[3].pk,
        "multiplier": 1,
    }


@pytest.mark.django_db
def test_record_creates_a_day_once_and_numbers_games_within_it(club, members, organiser):
    other_date = DAY + datetime.timedelta(days=7)
    first = game_record(
        club=club, user=organiser, data=_game(members[:4], EVEN), confirm_duplicate=True
    )
    assert Day.objects.count() == 1
    second = game_record(
        club=club, user=organiser, data=_game(members[1:], EVEN), confirm_duplicate=True
    )
    elsewhere = game_record(
        club=club, user=organiser, data=_game(members[:4], EVEN, date=other_date)
    )
    third = game_record(
        club=club, user=organiser, data=_game(members[:4], EVEN), confirm_duplicate=True
    )

    assert Day.objects.count() == 2
    assert first.day_id == second.day_id == third.day_id != elsewhere.day_id
    assert [first.number, second.number, third.number, elsewhere.number] == [1, 2, 3, 1]
    assert elsewhere.day.date == elsewhere.date == other_date


@pytest.mark.django_db
def test_a_voided_game_keeps_its_number(club, members, organiser):
    first = game_record(
        club=club, user=organiser, data=_game(members[:4], EVEN), confirm_duplicate=True
    )
    game_void(game=first, user=organiser, reason="wrong table")
    second = game_record(
        club=club, user=organiser, data=_game(members[:4], EVEN), confirm_duplicate=True
    )
    assert second.number == 2


@pytest.mark.django_db
def test_record_settles_under_the_version_in_force_on_the_date(club, members, organiser):
    old = RulesVersion.objects.get(club=club)
    new = rules_version_create(
        club=club,
        user=organiser,
        effective_from=datetime.date(2024, 6, 1),
        rules_json={"preset": "mame-no-kai", "uma": [15, 5, -5, -15]},
    )
    points = [40_000, 30_000, 20_000, 10_000]
    before = game_record(
        club=club, user=organiser, data=_game(members[:4], points, date=datetime.date(2024, 5, 31))
    )
    on = game_record(
        club=club, user=organiser, data=_game(members[:4], points, date=datetime.date(2024, 6, 1))
    )

    assert before.rules_version == old
    assert on.rules_version == new
    for game, version in ((before, old), (on, new)):
        expected = _engine(version.rules, _game(members[:4], points))
        assert [r.score for r in _counted(game)] == [expected[m.name].score for m in members[:4]]
    assert [r.score for r in _counted(before)] != [r.score for r in _counted(on)]


@pytest.mark.django_db
def test_record_without_a_logged_in_user_stores_no_actor(club, members):
    game = game_record(club=club, user=None, data=_game(members[:4], EVEN))
    assert game.recorded_by is None
    assert _logs().get().actor is None


# --- bad input ---------------------------------------------------------------------------------


def _bad_sum(ms, other):
    return _game(ms[:4], [25_000, 25_000, 25_000, 24_000])


def _bad_hundreds(ms, other):
    return _game(ms[:4], [25_000, 25_000, 25_050, 24_950])


def _three_players(ms, other):
    return _game(ms[:3], [40_000, 30_000, 30_000])


def _five_players(ms, other):
    return _game(ms[:5], [20_000] * 5)


def _same_member_twice(ms, other):
    return _game([ms[0], ms[0], ms[2], ms[3]], EVEN)


def _other_clubs_member(ms, other):
    return _game([ms[0], ms[1], other, ms[3]], EVEN)


def _unknown_rate(ms, other):
    return _game(ms[:4], EVEN, rate="9.9")


def _chip_winner_not_seated(ms, other):
    return _game(ms[:4], EVEN, chips=(ChipInput("ippatsu", ms[4]),))


def _chip_of_another_club(ms, other):
    return _game(ms[:4], EVEN, chips=(ChipInput("yakuman", ms[0], other),))


def _unknown_chip_kind(ms, other):
    return _game(ms[:4], EVEN, chips=(ChipInput("dora", ms[0]),))


def _before_any_rules(ms, other):
    return _game(ms[:4], EVEN, date=BEFORE_ANY_RULES)


def _negative_deposits(ms, other):
    return _game(ms[:4], [25_000, 25_000, 25_000, 25_100], deposits=-100)


BAD_INPUTS = [  # by the path of the game's input (a form shows each by core.errors.form_field)
    (_bad_sum, {"points"}),
    (_bad_hundreds, {"players[2].points", "players[3].points"}),
    (_three_players, {"players"}),
    (_five_players, {"players"}),
    (_same_member_twice, {"players[1].name"}),
    (_other_clubs_member, {"players[2].name"}),
    (_unknown_rate, {"rate"}),
    (_chip_winner_not_seated, {"chips[0].winner"}),
    (_chip_of_another_club, {"chips"}),
    (_unknown_chip_kind, {"chips[0].kind"}),
    (_before_any_rules, {"date"}),
    (_negative_deposits, {"deposits"}),
]


@pytest.mark.parametrize(
    ("make", "fields"), BAD_INPUTS, ids=[make.__name__.strip("_") for make, _ in BAD_INPUTS]
)
@pytest.mark.django_db
def test_bad_input_is_refused_by_field_and_stores_nothing(
    club, other_club, members, organiser, make, fields
):
    outsider = Member.objects.create(club=other_club, name="外様")
    before = _counts()
    with pytest.raises(ServiceError) as caught:
        game_record(club=club, user=organiser, data=make(members, outsider))
    assert set(caught.value.errors) == fields
    assert all(caught.value.errors[f] and all(caught.value.errors[f]) for f in fields)
    assert _counts() == before
    assert before["Game"] == before["Day"] == before["AuditLog"] == 0


@pytest.mark.django_db
def test_bad_input_on_an_existing_day_changes_nothing(club, members, organiser):
    game_record(club=club, user=organiser, data=_game(members[:4], EVEN))
    before = _counts()
    with pytest.raises(ServiceError):
        game_record(club=club, user=organiser, data=_bad_sum(members, None))
    assert _counts() == before


@pytest.mark.django_db
def test_preview_stores_nothing(club, members):
    preview = game_preview(club=club, data=_worked_input(members))
    assert [p.score for p in preview.result.players] == [790, -90, -210, -500]
    assert preview.members == members[:4]
    assert _counts() == {
        "Day": 0,
        "Game": 0,
        "Result": 0,
        "ChipEvent": 0,
        "AuditLog": 0,
        "RulesVersion": 1,
    }


# --- idempotency -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_same_submission_key_records_one_game(club, members, organiser):
    key = uuid.uuid4()
    first = game_record(club=club, user=organiser, data=_game(members[:4], EVEN, key=key))
    again = game_record(club=club, user=organiser, data=_game(members[:4], EVEN, key=key))
    assert again.pk == first.pk
    assert (Game.objects.count(), Result.objects.count(), _logs().count()) == (1, 4, 1)


@pytest.mark.django_db
def test_different_submission_keys_record_two_games(club, members, organiser):
    for _ in range(2):
        data = _game(members[:4], EVEN, key=uuid.uuid4())
        game_record(club=club, user=organiser, data=data, confirm_duplicate=True)
    assert list(Game.objects.values_list("number", flat=True)) == [1, 2]
    assert Result.objects.filter(counted=True).count() == 8


@pytest.mark.django_db
def test_a_retry_with_a_changed_date_stores_no_day(club, members, organiser):
    """The form was sent again after its date was changed: the key returns the game it recorded,
    and no empty 開催日 is left behind for the other date."""
    key = uuid.uuid4()
    first = game_record(club=club, user=organiser, data=_game(members[:4], EVEN, key=key))
    other_date = DAY + datetime.timedelta(days=1)
    again = game_record(
        club=club, user=organiser, data=_game(members[:4], EVEN, key=key, date=other_date)
    )
    assert again.pk == first.pk
    assert list(Day.objects.values_list("date", flat=True)) == [DAY]


@pytest.mark.django_db
def test_a_submission_key_is_per_club(club, other_club, members, organiser):
    key = uuid.uuid4()
    theirs = [Member.objects.create(club=other_club, name=f"客{i}") for i in range(4)]
    mine = game_record(club=club, user=organiser, data=_game(members[:4], EVEN, key=key))
    other = game_record(club=other_club, user=None, data=_game(theirs, EVEN, key=key))
    assert other.pk != mine.pk
    assert other.club == other_club


@pytest.mark.django_db
def test_a_lost_submission_key_race_returns_the_winners_game(club, members, organiser, monkeypatch):
    """The key check inside the transaction missed a game that a concurrent request stored: the
    unique constraint refuses the second insert, and the winner's game is returned."""
    key = uuid.uuid4()
    winner = game_record(club=club, user=organiser, data=_game(members[:4], EVEN, key=key))
    real_filter = Game.objects.filter
    missed: list[bool] = []

    def filter_that_misses_once(*args, **kwargs):
        qs = real_filter(*args, **kwargs)
        if "submission_key" in kwargs and not missed:
            missed.append(True)
            return qs.none()
        return qs

    monkeypatch.setattr(Game.objects, "filter", filter_that_misses_once)
    loser = game_record(club=club, user=organiser, data=_game(members[:4], EVEN, key=key))
    assert missed
    assert loser.pk == winner.pk
    assert (Game.objects.count(), Result.objects.count(), _logs().count()) == (1, 4, 1)


# --- game_edit ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_edit_adds_a_revision_and_keeps_the_old_rows(club, members, organiser):
    game = game_record(club=club, user=organiser, data=_worked_input(members))
    first = game_snapshot(game)
    data = _game(members[:4], [40_000, 30_000, 20_000, 9_000], deposits=1000, rate="0.5")
    edited = game_edit(game=game, user=organiser, data=data, expected_revision=1)

    edited.refresh_from_db()
    assert (edited.revision, edited.rate, edited.deposits, edited.number) == (2, "0.5", 1000, 1)
    old = list(Result.objects.filter(game=game, revision=1))
    assert len(old) == 4
    assert not any(r.counted for r in old)
    assert [r.score for r in old] == [790, -90, -210, -500]  # kept as they were
    new = _counted(edited)
    assert [r.revision for r in new] == [2, 2, 2, 2]
    expected = _engine(edited.rules_version.rules, data)
    assert [(r.score, r.yen) for r in new] == [
        (expected[m.name].score, expected[m.name].yen) for m in members[:4]
    ]
    # The old chip events stay with their revision; the new revision has none.
    assert list(ChipEvent.objects.filter(game=game).values_list("revision", flat=True)) == [1, 1]

    log = AuditLog.objects.get(action="game.edit")
    assert (log.actor, log.game, log.before, log.after) == (
        organiser,
        edited,
        first,
        game_snapshot(edited),
    )
    assert (log.before["revision"], log.after["revision"]) == (1, 2)


@pytest.mark.django_db
def test_edit_of_an_edit_leaves_one_counted_revision(club, members, organiser):
    game = game_record(club=club, user=organiser, data=_game(members[:4], EVEN))
    for points in ([30_000, 30_000, 20_000, 20_000], [50_000, 20_000, 20_000, 10_000]):
        game = game_edit(game=game, user=organiser, data=_game(members[:4], points))
    assert game.revision == 3
    assert Result.objects.filter(game=game).count() == 12
    assert {r.revision for r in _counted(game)} == {3}
    assert [r.points for r in _counted(game)] == [50_000, 20_000, 20_000, 10_000]


@pytest.mark.django_db
def test_edit_can_change_who_played(club, members, organiser):
    game = game_record(club=club, user=organiser, data=_game(members[:4], EVEN))
    game_edit(game=game, user=organiser, data=_game(members[1:], EVEN))
    assert [r.member for r in _counted(game)] == members[1:]


@pytest.mark.django_db
def test_a_stale_edit_is_refused_and_changes_nothing(club, members, organiser):
    game = game_record(club=club, user=organiser, data=_game(members[:4], EVEN))
    game_edit(game=game, user=organiser, data=_game(members[:4], [30_000, 30_000, 20_000, 20_000]))
    before = _counts()
    with pytest.raises(ServiceError) as caught:
        game_edit(
            game=game,
            user=organiser,
            data=_game(members[:4], [40_000, 20_000, 20_000, 20_000]),
            expected_revision=1,
        )
    assert set(caught.value.errors) == {NON_FIELD}
    assert _counts() == before
    game.refresh_from_db()
    assert game.revision == 2
    assert [r.points for r in _counted(game)] == [30_000, 30_000, 20_000, 20_000]


@pytest.mark.django_db
def test_an_edit_cannot_move_the_date(club, members, organiser):
    game = game_record(club=club, user=organiser, data=_game(members[:4], EVEN))
    before = _counts()
    moved = _game(members[:4], EVEN, date=DAY + datetime.timedelta(days=1))
    with pytest.raises(ServiceError) as caught:
        game_edit(game=game, user=organiser, data=moved)
    assert set(caught.value.errors) == {"date"}
    assert _counts() == before
    game.refresh_from_db()
    assert (game.revision, game.date, game.day.date) == (1, DAY, DAY)


@pytest.mark.django_db
def test_a_bad_edit_changes_nothing(club, members, organiser):
    game = game_record(club=club, user=organiser, data=_game(members[:4], EVEN))
    before = _counts()
    with pytest.raises(ServiceError) as caught:
        game_edit(game=game, user=organiser, data=_bad_sum(members, None))
    assert set(caught.value.errors) == {"points"}
    assert _counts() == before
    game.refresh_from_db()
    assert game.revision == 1


@pytest.mark.django_db
def test_a_voided_game_cannot_be_edited(club, members, organiser):
    """A void does not change the revision, so an edit form opened before the void passes the
    revision check after it: the edit must still be refused, not stored as uncounted rows that the
    organiser believes were saved."""
    game = game_record(club=club, user=organiser, data=_game(members[:4], EVEN))
    game_void(game=game, user=organiser, reason="practice game")
    before = _counts()
    with pytest.raises(ServiceError):
        game_edit(
            game=game,
            user=organiser,
            data=_game(members[:4], [30_000, 30_000, 20_000, 20_000]),
            expected_revision=1,
        )
    assert _counts() == before


# --- game_void ---------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("reason", ["", "   "])
def test_a_void_needs_a_reason(club, members, organiser, reason):
    game = game_record(club=club, user=organiser, data=_game(members[:4], EVEN))
    before = _counts()
    with pytest.raises(ServiceError) as caught:
        game_void(game=game, user=organiser, reason=reason)
    assert set(caught.value.errors) == {"reason"}
    assert _counts() == before
    game.refresh_from_db()
    assert not game.voided
    assert len(_counted(game)) == 4


@pytest.mark.django_db
def test_void_stops_every_row_counting_and_is_logged(club, members, organiser):
    game = game_record(club=club, user=organiser, data=_game(members[:4], EVEN))
    game_edit(game=game, user=organiser, data=_game(members[:4], [30_000, 30_000, 20_000, 20_000]))
    voided = game_void(game=game, user=organiser, reason="  wrong table  ")

    voided.refresh_from_db()
    assert (voided.voided, voided.void_reason, voided.revision) == (True, "wrong table", 2)
    assert Result.objects.filter(game=game).count() == 8  # nothing deleted
    assert not Result.objects.filter(game=game, counted=True).exists()
    log = AuditLog.objects.get(action="game.void")
    assert (log.actor, log.game, log.reason) == (organiser, voided, "wrong table")
    assert (log.before["voided"], log.after["voided"]) == (False, True)
    assert log.after["void_reason"] == "wrong table"


@pytest.mark.django_db
def test_voiding_twice_is_refused(club, members, organiser):
    game = game_record(club=club, user=organiser, data=_game(members[:4], EVEN))
    game_void(game=game, user=organiser, reason="practice")
    before = _counts()
    with pytest.raises(ServiceError) as caught:
        game_void(game=game, user=organiser, reason="again")
    assert set(caught.value.errors) == {NON_FIELD}
    assert _counts() == before
    game.refresh_from_db()
    assert game.void_reason == "practice"


@pytest.mark.django_db
def test_a_stale_void_is_refused(club, members, organiser):
    game = game_record(club=club, user=organiser, data=_game(members[:4], EVEN))
    game_edit(game=game, user=organiser, data=_game(members[:4], [30_000, 30_000, 20_000, 20_000]))
    with pytest.raises(ServiceError):
        game_void(game=game, user=organiser, reason="typo", expected_revision=1)
    game.refresh_from_db()
    assert not game.voided


# --- rules versions ----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "rules_json",
    [
        {"preset": "mame-no-kai", "uma": [10, 5]},
        {"preset": "mame-no-kai", "uma": [20, 10, -10, -10]},
        {"preset": "mame-no-kai", "colour": "red"},
        "no-such-preset",
        42,
    ],
    ids=["uma-length", "uma-sum", "unknown-field", "unknown-preset", "not-an-object"],
)
def test_bad_rules_are_refused(club, organiser, rules_json):
    before = _counts()
    with pytest.raises(ServiceError) as caught:
        rules_version_create(
            club=club,
            user=organiser,
            effective_from=datetime.date(2024, 1, 1),
            rules_json=rules_json,
        )
    assert set(caught.value.errors) == {"rules_json"}
    assert caught.value.errors["rules_json"]
    assert _counts() == before


def _a_second_version_on_conftests_date_is_refused(club, organiser):
    before = _counts()
    with pytest.raises(ServiceError) as caught:
        rules_version_create(
            club=club,
            user=organiser,
            effective_from=datetime.date(2020, 1, 1),  # conftest's version
            rules_json="mame-no-kai",
        )
    assert set(caught.value.errors) == {"effective_from"}
    assert _counts() == before


@pytest.mark.django_db
def test_one_rules_version_per_date(club, organiser):
    _a_second_version_on_conftests_date_is_refused(club, organiser)


@pytest.mark.django_db
def test_a_lost_race_for_a_rules_date_is_refused_by_field(club, organiser, monkeypatch):
    """Two organisers save a version for the same date at once: both pass the exists() check, the
    unique constraint refuses the second, and that must reach the form as a field error."""
    real_filter = RulesVersion.objects.filter

    def filter_that_misses(*args, **kwargs):
        return real_filter(*args, **kwargs).none()

    monkeypatch.setattr(RulesVersion.objects, "filter", filter_that_misses)
    _a_second_version_on_conftests_date_is_refused(club, organiser)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "rules_json",
    [
        "mame-no-kai",
        "kagetsu-cup",
        {"preset": "kinyokai-2015", "ties": "split", "rounding": "shisha-gonyu"},
    ],
    ids=["mame", "kagetsu", "partial-object"],
)
def test_rules_are_stored_normalised(club, organiser, rules_json):
    version = rules_version_create(
        club=club,
        user=organiser,
        effective_from=datetime.date(2024, 4, 1),
        rules_json=rules_json,
        preset="x",
        note="new uma",
    )
    full = scoring.rules_from_json(rules_json).to_json()
    stored = RulesVersion.objects.get(pk=version.pk)
    assert stored.rules_json == full
    assert stored.rules == scoring.rules_from_json(rules_json)
    assert (stored.preset, stored.note, stored.created_by) == ("x", "new uma", organiser)
    log = AuditLog.objects.get(action="rules.create")
    assert log.after == {
        "effective_from": "2024-04-01",
        "rules": full,
        # The hand options kept with it: preset "x" has no hand preset, so Tenhou's.
        "hand_options": {
            "kuitan": True,
            "aka": True,
            "atozuke": True,
            "kiriage": False,
            "kazoe": "yakuman",
            "renhou": "none",
        },
    }
    assert log.target == f"rules:{version.pk}"


# --- re-settling -------------------------------------------------------------------------------


NEW_UMA = {"preset": "mame-no-kai", "uma": [15, 5, -5, -15]}
SPREAD = [40_000, 30_000, 20_000, 10_000]


@pytest.fixture
def spread_games(club, members, organiser) -> dict[str, Game]:
    """Games under the 2020 rules before, inside and after the range of a later version."""

    def record(date: datetime.date) -> Game:
        return game_record(
            club=club,
            user=organiser,
            data=_game(members[:4], SPREAD, date=date),
            confirm_duplicate=True,  # "voided" and "second": the same result on one day
        )

    games = {
        "before": record(datetime.date(2024, 3, 31)),
        "first": record(datetime.date(2024, 4, 1)),
        "voided": record(datetime.date(2024, 5, 1)),
        "second": record(datetime.date(2024, 5, 1)),
        "after": record(datetime.date(2024, 8, 1)),
    }
    game_void(game=games["voided"], user=organiser, reason="practice")
    return games


def _new_version(club, user, date=datetime.date(2024, 4, 1), rules=NEW_UMA) -> RulesVersion:
    return rules_version_create(club=club, user=user, effective_from=date, rules_json=rules)


@pytest.mark.django_db
def test_resettle_preview_lists_the_games_in_the_versions_range(club, organiser, spread_games):
    _new_version(club, organiser, datetime.date(2024, 8, 1), "mame-no-kai")  # a later version
    version = _new_version(club, organiser)
    before = _counts()
    changes = resettle_preview(version=version)

    assert [c.game.pk for c in changes] == [spread_games["first"].pk, spread_games["second"].pk]
    for change in changes:
        assert change.changed
        assert [r.score for r in change.before] == [r.score for r in _counted(change.game)]
        data = game_input_from_stored(change.game)
        engine = _engine(version.rules, data)
        assert [p.score for p in change.after.players] == [
            engine[s.member.name].score for s in data.seats
        ]
    assert _counts() == before  # a preview stores nothing


@pytest.mark.django_db
def test_resettle_apply_moves_the_games_to_the_new_version(club, organiser, spread_games):
    old = RulesVersion.objects.get(club=club)
    _new_version(club, organiser, datetime.date(2024, 8, 1), "mame-no-kai")  # a later version
    version = _new_version(club, organiser)
    logs = _logs().count()
    assert resettle_apply(version=version, user=organiser) == 2

    for name in ("first", "second"):
        game = Game.objects.get(pk=spread_games[name].pk)
        assert (game.revision, game.rules_version) == (2, version)
        data = game_input_from_stored(game)
        engine = _engine(version.rules, data)
        assert [(r.revision, r.score) for r in _counted(game)] == [
            (2, engine[s.member.name].score) for s in data.seats
        ]
        assert not Result.objects.filter(game=game, revision=1, counted=True).exists()
        log = AuditLog.objects.get(action="game.resettle", game=game)
        assert (log.before["rules_version"], log.after["rules_version"]) == (old.pk, version.pk)
        assert (log.before["revision"], log.after["revision"]) == (1, 2)
    for name in ("before", "voided", "after"):
        game = Game.objects.get(pk=spread_games[name].pk)
        assert (game.revision, game.rules_version) == (1, old)
    # Two games moved, and each of their days moved to the new version (league.money).
    assert _logs().count() == logs + 4
    assert _logs().filter(action="game.resettle").count() == 2
    assert _logs().filter(action="day.resettle").count() == 2
    assert not Result.objects.filter(game=spread_games["voided"], counted=True).exists()

    # Done once, there is nothing left to move.
    before = _counts()
    assert resettle_preview(version=version) == []
    assert resettle_apply(version=version, user=organiser) == 0
    assert _counts() == before


@pytest.mark.django_db
def test_resettle_skips_a_game_the_new_rules_cannot_settle(club, members, organiser):
    at_rate = game_record(
        club=club,
        user=organiser,
        data=_game(members[:4], SPREAD, date=datetime.date(2024, 5, 1), rate="0.3"),
    )
    plain = game_record(
        club=club, user=organiser, data=_game(members[:4], SPREAD, date=datetime.date(2024, 5, 2))
    )
    only_02 = {"preset": "mame-no-kai", "rates": {"0.2": {"yen_per_1000": 20, "chip_yen": 100}}}
    version = _new_version(club, organiser, rules=only_02)

    changes = {c.game.pk: c for c in resettle_preview(version=version)}
    assert changes[at_rate.pk].after is None
    assert changes[at_rate.pk].problem
    assert not changes[at_rate.pk].changed
    assert changes[plain.pk].after is not None
    assert resettle_apply(version=version, user=organiser) == 1
    at_rate.refresh_from_db()
    assert at_rate.revision == 1
    assert at_rate.rules_version != version


@pytest.mark.django_db
def test_an_edit_after_a_resettle_settles_under_the_new_version(club, members, organiser):
    """`game` is the instance loaded before the re-settle (as in a request that raced it): the
    edit must settle under the version the locked row has, so rows and rules_version agree."""
    game = game_record(
        club=club, user=organiser, data=_game(members[:4], SPREAD, date=datetime.date(2024, 5, 1))
    )
    version = _new_version(club, organiser)
    resettle_apply(version=version, user=organiser)
    data = _game(members[:4], [50_000, 30_000, 15_000, 5_000], date=datetime.date(2024, 5, 1))
    game_edit(game=game, user=organiser, data=data)
    game.refresh_from_db()
    assert game.rules_version == version
    engine = _engine(version.rules, data)
    assert [r.score for r in _counted(game)] == [engine[m.name].score for m in members[:4]]


# --- the totals invariant ----------------------------------------------------------------------


def _random_game(rng: random.Random, members: list[Member], date: datetime.date) -> GameInput:
    seated = rng.sample(members, 4)
    deposits = rng.choice([0, 0, 1000, 2000])
    points = [rng.randrange(-100, 600) * 100 for _ in range(3)]
    points.append(100_000 - deposits - sum(points))
    chombo = {m.name: 1 for m in seated if rng.random() < 0.1}
    chips = []
    for _ in range(rng.choice([0, 0, 1, 2])):
        winner, other = rng.sample(seated, 2)
        chips.append(
            ChipInput(
                rng.choice(["ippatsu", "yakuman"]),
                winner,
                other if rng.random() < 0.5 else None,
                rng.choice([1, 1, 2]),
            )
        )
    return _game(
        seated,
        points,
        date=date,
        deposits=deposits,
        rate=rng.choice(["", "0.2", "0.3", "0.5"]),
        chips=tuple(chips),
        chombo=chombo,
    )


def _assert_totals(club: Club) -> None:
    games = Game.objects.filter(club=club).select_related("rules_version")
    sums = dict(
        Result.objects.filter(counted=True)
        .values_list("game")
        .annotate(total=Sum("score"))
        .values_list("game", "total")
    )
    for game in games:
        rows = list(Result.objects.filter(game=game, counted=True))
        if game.voided:
            assert rows == [], game
            continue
        settled = game_preview(
            club=club, data=game_input_from_stored(game), version=game.rules_version
        )
        assert sums[game.pk] == settled.result.total_score, game
        # mame-no-kai: deposits go to the house and chombo is paid between players.
        assert sums[game.pk] == -game.deposits // 100, game
        assert len(rows) == game.rules_version.rules.players
        assert {r.revision for r in rows} == {game.revision}
        assert sorted(r.seat for r in rows) == [0, 1, 2, 3]
        assert all(r.date == game.date and r.club_id == club.pk for r in rows)
        revisions = Counter(Result.objects.filter(game=game).values_list("revision", flat=True))
        assert revisions == dict.fromkeys(range(1, game.revision + 1), 4)


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2])
def test_counted_rows_always_add_up(club, members, organiser, seed):
    rng = random.Random(seed)
    dates = [datetime.date(2024, 5, d) for d in (10, 17, 24)]
    games: list[Game] = []
    ops = Counter()
    for _ in range(30):
        live = [g for g in games if not g.voided]
        op = rng.choice(["record", "record", "edit", "void"]) if live else "record"
        ops[op] += 1
        if op == "record":
            games.append(
                game_record(
                    club=club, user=organiser, data=_random_game(rng, members, rng.choice(dates))
                )
            )
        elif op == "edit":
            game = rng.choice(live)
            data = _random_game(rng, members, game.date)
            edited = game_edit(
                game=game, user=organiser, data=data, expected_revision=game.revision
            )
            games[games.index(game)] = edited
        else:
            game = rng.choice(live)
            voided = game_void(
                game=game, user=organiser, reason="test", expected_revision=game.revision
            )
            games[games.index(game)] = voided
    assert ops["edit"] and ops["void"]
    _assert_totals(club)
    assert _logs().count() == 30


# --- queries -----------------------------------------------------------------------------------


def _with_chips(members: list[Member], n: int, date: datetime.date = DAY) -> GameInput:
    chips = tuple(ChipInput("ippatsu", members[i % 4]) for i in range(n))
    return _game(members[:4], EVEN, date=date, chips=chips)


# 30 for the game, its results and chips, the standings totals and the audit log; 18 for the kept
# statistics (league.standings.kept), whatever the game: head-to-head and seats 3 each (insert the
# missing rows, read them, one UPDATE), where the replay starts 1, the club's chronicle locked 1
# and saved 1, the rating replay's reads 5 (kept games from there on, games, results, yakuman
# chips, the ratings of members new to the replay) and writes 4 (kept games and ratings: delete,
# insert). Posting the day to the kept books (league.books) adds its read and its rows: 12. The
# final tables seated on the game's date (a fixed-table final's check, league.teams): 1. Which of
# the game's players are fill-ins, whose rows count for nobody (issue 42): 1. The savepoint that
# game_record_in keeps inside the action (a twin's submission key is caught there, whoever the
# caller): SAVEPOINT and RELEASE, 2. Posting the day to the book (league.books.post_book, issue
# 37): what the book holds for the day 1, its accounts read and the new ones opened 2, the
# transactions and their legs 2: 5.
RECORD_QUERIES = 30 + 18 + 12 + 1 + 1 + 2 + 5


@pytest.mark.django_db
def test_record_and_edit_queries_do_not_grow_with_chips_or_revisions(
    club, members, organiser, django_assert_max_num_queries
):
    game_record(
        club=club, user=organiser, data=_with_chips(members, 1), confirm_duplicate=True
    )  # the day exists now
    with django_assert_max_num_queries(RECORD_QUERIES) as one_chip:
        game = game_record(
            club=club, user=organiser, data=_with_chips(members, 1), confirm_duplicate=True
        )
    with django_assert_max_num_queries(len(one_chip)) as many:
        game_record(club=club, user=organiser, data=_with_chips(members, 4), confirm_duplicate=True)
    assert len(many) == len(one_chip)

    def edit(chips: int) -> None:
        game_edit(
            game=Game.objects.get(pk=game.pk),
            user=organiser,
            data=_with_chips(members, chips),
            confirm_duplicate=True,
        )

    with django_assert_max_num_queries(RECORD_QUERIES) as first_edit:
        edit(1)
    for _ in range(3):
        edit(4)
    with django_assert_max_num_queries(len(first_edit)) as later_edit:
        edit(4)
    assert len(later_edit) == len(first_edit)


@pytest.mark.django_db
def test_resettle_preview_queries_do_not_grow_with_games(
    club, members, organiser, django_assert_num_queries
):
    offset = [0]

    def record(n: int) -> None:
        for i in range(n):
            data = _with_chips(members, 2, date=datetime.date(2024, 5, 1 + i + offset[0]))
            game = game_record(club=club, user=organiser, data=data)
            game_edit(game=game, user=organiser, data=data)
        offset[0] += n

    record(2)
    version = _new_version(club, organiser)
    with django_assert_num_queries(6) as few:
        assert len(resettle_preview(version=version)) == 2
    record(4)  # under `version`; a yet newer one governs all six
    newer = _new_version(club, organiser, datetime.date(2024, 4, 15))
    with django_assert_num_queries(len(few)):
        assert len(resettle_preview(version=newer)) == 6


def test_a_result_row_holds_results_columns_in_their_order():
    """write_results makes each Result from a ResultRow's values by position (Model's fast
    path): the row's fields must be Result's columns after the id, in the same order."""
    from league.models import Result
    from league.recording.services import ResultRow

    columns = [f.attname for f in Result._meta.concrete_fields]
    assert columns[0] == "id"
    assert list(ResultRow._fields) == columns[1:]
