"""Settling one game: exact numbers for each step of settlement.md, "Settling one game"."""

from __future__ import annotations

import dataclasses

import pytest

from scoring import (
    PRESETS,
    ChipEvent,
    ChomboRule,
    Game,
    InputError,
    RateTier,
    Rules,
    Seat,
    errors,
    settle_game,
)
from scoring.game import divide, round_half_away, rounded_tenths
from scoring.parse import game_from_json
from tests.support.settling import refused, scores

NAMES = ("A", "B", "C", "D")
KINYOKAI = PRESETS["kinyokai-2015"].rules  # 25,000/30,000, gosha-rokunyu, uma 5-10, seat, top
MAME = PRESETS["mame-no-kai"].rules
PAIRON = PRESETS["pairon-kansai"].rules  # 25,000/30,000, none, 10-20, settle
PLAIN = dataclasses.replace(KINYOKAI, rounding="none")  # uma (10, 5, -5, -10), exact tenths


def game(*points: int, deposits: int = 0, **kwargs) -> Game:
    return Game(
        seats=tuple(Seat(n, p) for n, p in zip(NAMES, points, strict=False)),
        deposits=deposits,
        **kwargs,
    )


def ranks(rules: Rules, g: Game) -> list[int]:
    return [p.rank for p in settle_game(rules, g).players]


# --- step 4: the rounding table -------------------------------------------------------------------

# rounding -> points -> R(points) in tenths of 1,000 points (settlement.md's table, then edges)
ROUNDING_TABLE = {
    "none": {24500: 245, 24600: 246, -2500: -25, -2600: -26},
    "gosha-rokunyu": {24500: 240, 24600: 250, -2500: -20, -2600: -30},
    "shisha-gonyu": {24500: 250, 24600: 250, -2500: -30, -2600: -30},
    "kirisute": {24500: 240, 24600: 240, -2500: -20, -2600: -20},
    "kiriage": {24500: 250, 24600: 250, -2500: -30, -2600: -30},
    # toward the return point; with return 0 (the default here) that is toward zero
    "toward-return": {24500: 240, 24600: 240, -2500: -20, -2600: -20},
}
EDGES = {
    "none": {0: 0, 100: 1, -100: -1, 999_900: 9999, -999_900: -9999, 24000: 240},
    "gosha-rokunyu": {0: 0, 100: 0, -100: 0, 999_900: 10000, 999_500: 9990, -600: -10},
    "shisha-gonyu": {0: 0, 100: 0, -100: 0, 999_900: 10000, 999_400: 9990, -500: -10},
    "kirisute": {0: 0, 100: 0, -100: 0, 999_900: 9990, -999_900: -9990, -900: 0},
    "kiriage": {0: 0, 100: 10, -100: -10, 999_900: 10000, 24000: 240, -1000: -10},
    "toward-return": {0: 0, 100: 0, -100: 0, 999_900: 9990, -999_900: -9990, -1000: -10},
}


@pytest.mark.parametrize(
    ("rounding", "points", "tenths"),
    [
        (r, p, t)
        for table in (ROUNDING_TABLE, EDGES)
        for r, row in table.items()
        for p, t in row.items()
    ],
)
def test_rounding_table(rounding, points, tenths):
    assert rounded_tenths(points, rounding) == tenths


def test_rounding_table_covers_every_mode():
    from scoring.rules import ROUNDINGS

    assert set(ROUNDING_TABLE) == set(EDGES) == set(ROUNDINGS)


# A game whose non-top players sit on the table's four columns: 24,600 (2nd), 24,500 (3rd),
# −2,500 (4th). Non-top score = R(points) − 30.0 + uma; the top takes the rest.
@pytest.mark.parametrize(
    ("rounding", "expected"),
    [
        ("none", [534, -4, -105, -425]),
        ("gosha-rokunyu", [530, 0, -110, -420]),
        ("shisha-gonyu", [530, 0, -100, -430]),
        ("kirisute", [540, -10, -110, -420]),
        ("kiriage", [530, 0, -100, -430]),
    ],
)
def test_each_rounding_in_a_whole_game(rounding, expected):
    rules = dataclasses.replace(KINYOKAI, rounding=rounding)
    assert scores(rules, game(53400, 24600, 24500, -2500)) == expected


def test_top_absorbs_oka_and_rounding_remainders():
    # gosha-rokunyu: 2nd 32,500 → 32, 3rd 24,600 → 25, 4th −2,400 → −2 (kinyokai's case)
    assert scores(KINYOKAI, game(45300, 32500, 24600, -2400)) == [450, 70, -100, -420]


# --- step 2: ranking and ties -------------------------------------------------------------------


def test_seat_ties_rank_the_earlier_seat_higher():
    assert ranks(PLAIN, game(25000, 25000, 25000, 25000)) == [1, 2, 3, 4]
    assert ranks(PLAIN, game(20000, 30000, 30000, 20000)) == [3, 1, 2, 4]


def test_seat_tie_for_first_gives_the_whole_top_share_to_the_earlier_seat():
    # B and C tie on 30,000: B is top; C: 30.0 − 30 + 5 = 5.0; A 20.0 − 30 − 5 = −15.0; D −20.0
    assert scores(PLAIN, game(20000, 30000, 30000, 20000)) == [-150, 300, 50, -200]


SPLIT = dataclasses.replace(PLAIN, ties="split")


def test_split_three_way_tie_below_the_top_gives_the_extra_tenth_to_earlier_seats():
    # 2nd-4th share 5 − 5 − 10 = −10 → −100 tenths / 3 = −33, −33, −34 (earlier seats favoured)
    assert ranks(SPLIT, game(40000, 20000, 20000, 20000)) == [1, 2, 2, 2]
    assert scores(SPLIT, game(40000, 20000, 20000, 20000)) == [400, -133, -133, -134]


def test_split_tie_shares_follow_seat_order_not_position_in_the_list():
    assert ranks(SPLIT, game(20000, 40000, 20000, 20000)) == [2, 1, 2, 2]
    assert scores(SPLIT, game(20000, 40000, 20000, 20000)) == [-133, 400, -133, -134]


def test_divide_favours_earlier_seats_for_positive_and_negative_totals():
    assert divide(-100, 3) == [-33, -33, -34]
    assert divide(100, 3) == [34, 33, 33]
    assert divide(-301, 2) == [-150, -151]
    assert divide(0, 4) == [0, 0, 0, 0]
    assert divide(9, 3) == [3, 3, 3]


def test_split_three_way_tie_for_first_shares_the_rest_with_the_extra_tenth_to_the_first():
    # D: 9.9 − 30 − 10 = −30.1; the three tops share T − Σ others = 30.1 → 10.1, 10.0, 10.0
    assert ranks(SPLIT, game(30000, 30000, 30000, 9900, deposits=100)) == [1, 1, 1, 4]
    assert scores(SPLIT, game(30000, 30000, 30000, 9900, deposits=100)) == [101, 100, 100, -301]
    assert scores(SPLIT, game(9900, 30000, 30000, 30000, deposits=100)) == [-301, 101, 100, 100]


def test_split_two_way_tie_for_first_with_an_odd_remainder():
    # C: 20.0 − 30 − 5 = −15.0; D: 9.9 − 30 − 10 = −30.1; tops share 45.1 → 22.6, 22.5
    assert scores(SPLIT, game(35000, 35000, 20000, 9900, deposits=100)) == [226, 225, -150, -301]
    assert ranks(SPLIT, game(35000, 35000, 20000, 9900, deposits=100)) == [1, 1, 3, 4]


def test_split_tie_for_last_shares_the_uma_of_both_ranks():
    # the shared case: two-way ties share (10 + 5) and (−5 − 10) → ±7.5 each
    assert scores(SPLIT, game(30000, 30000, 20000, 20000)) == [175, 175, -175, -175]
    assert ranks(SPLIT, game(30000, 30000, 20000, 20000)) == [1, 1, 3, 3]


def test_split_four_way_tie():
    assert ranks(SPLIT, game(25000, 25000, 25000, 25000)) == [1, 1, 1, 1]
    # Σ others is empty: the four tops share T = 0
    assert scores(SPLIT, game(25000, 25000, 25000, 25000)) == [0, 0, 0, 0]


# --- step 3: below zero ---------------------------------------------------------------------------


def test_settle_counts_negative_points_as_they_are():
    assert scores(PAIRON, game(61200, 25300, 17100, -3600)) == [712, 53, -229, -536]


def test_floor_settles_a_negative_player_as_if_at_zero():
    floor = dataclasses.replace(PAIRON, below_zero="floor")
    assert scores(floor, game(61200, 25300, 17100, -3600)) == [676, 53, -229, -500]


def test_floor_still_ranks_by_the_real_points():
    floor = dataclasses.replace(PAIRON, below_zero="floor")
    g = game(70000, 40000, -4000, -6000)
    assert ranks(floor, g) == [1, 2, 3, 4]
    # both settle at 0: 3rd 0 − 30 − 10, 4th 0 − 30 − 20
    assert scores(floor, g)[2:] == [-400, -500]
    split_floor = dataclasses.replace(floor, ties="split")
    assert ranks(split_floor, g) == [1, 2, 3, 4]


# --- step 5: deposits -------------------------------------------------------------------------------


def test_deposits_to_the_top():
    g = game(38000, 31600, 20500, 8900, deposits=1000)
    assert scores(PLAIN, g) == [390, 66, -145, -311]
    assert sum(scores(PLAIN, g)) == 0


def test_deposits_to_the_house_leave_the_table():
    house = dataclasses.replace(PLAIN, deposits="house")
    g = game(38000, 31600, 20500, 8900, deposits=1000)
    assert scores(house, g) == [380, 66, -145, -311]
    assert sum(scores(house, g)) == -10  # −deposits / 100 tenths
    assert settle_game(house, g).total_score == -10


# --- step 6: chombo ---------------------------------------------------------------------------------

# A 41,000, B 29,000, C 18,000, D 12,000 under PLAIN: 41.0, 4.0, −17.0, −28.0 before chombo
CHOMBO_GAME = (41000, 29000, 18000, 12000)
BEFORE = [410, 40, -170, -280]


def with_chombo(mode: str, points: int = 0, top_points: int = 0) -> Rules:
    return dataclasses.replace(PLAIN, chombo=ChomboRule(mode, points, top_points))


def test_the_game_before_chombo():
    assert scores(PLAIN, game(*CHOMBO_GAME)) == BEFORE


def test_chombo_none_changes_no_score_but_is_counted():
    result = settle_game(with_chombo("none"), game(*CHOMBO_GAME, chombo=("B",)))
    assert [p.score for p in result.players] == BEFORE
    assert [p.chombo for p in result.players] == [0, 1, 0, 0]


def test_chombo_penalty_leaves_the_table():
    rules = with_chombo("penalty", 20)
    assert scores(rules, game(*CHOMBO_GAME, chombo=("B",))) == [410, -160, -170, -280]
    assert sum(scores(rules, game(*CHOMBO_GAME, chombo=("B",)))) == -200
    twice = game(*CHOMBO_GAME, chombo=("B", "C"))
    assert sum(scores(rules, twice)) == -400
    assert settle_game(rules, twice).total_score == -400


def test_chombo_penalty_with_house_deposits_sums_to_both():
    rules = dataclasses.replace(with_chombo("penalty", 20), deposits="house")
    g = game(38000, 31600, 20500, 8900, deposits=1000, chombo=("A",))
    assert sum(scores(rules, g)) == -10 - 200


def test_chombo_pay_top_by_a_non_top_player_pays_p_to_the_top():
    rules = with_chombo("pay_top", 20, 30)
    assert scores(rules, game(*CHOMBO_GAME, chombo=("B",))) == [610, -160, -170, -280]


def test_chombo_pay_top_by_the_top_pays_q_split_among_the_others():
    rules = with_chombo("pay_top", 20, 30)
    assert scores(rules, game(*CHOMBO_GAME, chombo=("A",))) == [110, 140, -70, -180]


def test_chombo_pay_top_with_a_split_tie_for_first_shares_p_between_the_tops():
    rules = dataclasses.replace(with_chombo("pay_top", 20, 30), ties="split")
    g = game(35000, 35000, 20000, 10000, chombo=("C",))
    # before: C −15.0, D −30.0, tops 22.5 each; C pays 20 shared 10/10
    assert scores(rules, g) == [325, 325, -350, -300]


def test_chombo_pay_each_pays_x_to_every_other_player():
    rules = with_chombo("pay_each", 10)
    assert scores(rules, game(*CHOMBO_GAME, chombo=("B",))) == [510, -260, -70, -180]


def test_two_chombo_by_the_same_player_count_twice():
    g = game(*CHOMBO_GAME, chombo=("B", "B"))
    assert scores(with_chombo("penalty", 20), g) == [410, -360, -170, -280]
    assert scores(with_chombo("pay_top", 20, 30), g) == [810, -360, -170, -280]
    assert scores(with_chombo("pay_each", 10), g) == [610, -560, 30, -80]
    assert [p.chombo for p in settle_game(with_chombo("none"), g).players] == [0, 2, 0, 0]


def test_chombo_does_not_change_ranks():
    g = game(*CHOMBO_GAME, chombo=("A", "A", "A"))
    assert ranks(with_chombo("pay_each", 30), g) == [1, 2, 3, 4]


# --- step 7: chips ----------------------------------------------------------------------------------


def chips(rules: Rules, *events: ChipEvent) -> list[int]:
    return [p.chips for p in settle_game(rules, game(*CHOMBO_GAME, chips=events)).players]


def test_chip_tsumo_takes_from_each_other_player():
    assert chips(MAME, ChipEvent("ippatsu", "A")) == [3, -1, -1, -1]  # ippatsu tsumo 1 each


def test_chip_ron_takes_from_the_discarder_only():
    assert chips(MAME, ChipEvent("yakuman", "C", "D")) == [0, 0, 3, -3]  # yakuman ron 3


def test_chip_multiplier():
    assert chips(MAME, ChipEvent("yakuman", "B", None, 2)) == [-4, 12, -4, -4]
    assert chips(MAME, ChipEvent("yakuman", "B", "A", 2)) == [-6, 6, 0, 0]


def test_chips_add_up_over_events():
    events = (ChipEvent("ippatsu", "A"), ChipEvent("yakuman", "C", "D"), ChipEvent("ippatsu", "A"))
    assert chips(MAME, *events) == [6, -2, 1, -5]


# --- step 8: money ---------------------------------------------------------------------------------

FIVE_YEN = Rules(
    players=3,
    start=25000,
    return_points=25000,
    rounding="none",
    uma=(0, 0, 0),
    rates={"5": RateTier(yen_per_1000=5, chip_yen=0)},
)


def test_yen_rounds_half_away_from_zero():
    # 12.3 × 5 = 61.5 → 62; −12.3 × 5 = −61.5 → −62
    result = settle_game(FIVE_YEN, game(37300, 12700, 25000, rate="5"))
    assert [p.score for p in result.players] == [123, -123, 0]
    assert [p.yen for p in result.players] == [62, -62, 0]


def test_round_half_away():
    assert [round_half_away(n, 10) for n in (615, -615, 614, -614, 616, -616, 0, 5, -5)] == [
        62,
        -62,
        61,
        -61,
        62,
        -62,
        0,
        1,
        -1,
    ]


def test_yen_adds_points_money_and_chip_money_at_the_rate_tier():
    g = game(*CHOMBO_GAME, chips=(ChipEvent("ippatsu", "A"),), rate="0.5")
    result = settle_game(MAME, g)  # house deposits, floor, 20-10 uma; no chombo
    for p in result.players:
        assert p.yen == p.score * 5 + p.chips * 200  # 50 yen per 1,000 = 5 per tenth


def test_no_rate_no_yen():
    assert all(p.yen is None for p in settle_game(MAME, game(*CHOMBO_GAME)).players)


# --- step 1: bad games, each naming its field -------------------------------------------------------


def test_unknown_rate():
    assert refused(MAME, game(*CHOMBO_GAME, rate="9.9")) == {("rate", errors.UNKNOWN_RATE)}
    assert refused(KINYOKAI, game(*CHOMBO_GAME, rate="0.3")) == {("rate", errors.UNKNOWN_RATE)}


def test_unknown_chip_kind():
    g = game(*CHOMBO_GAME, chips=(ChipEvent("dora", "A"),))
    assert refused(MAME, g) == {("chips[0].kind", errors.UNKNOWN_CHIP)}


@pytest.mark.parametrize(
    ("event", "field", "code"),
    [
        (ChipEvent("ippatsu", "Z"), "chips[0].winner", errors.NOT_AT_TABLE),
        (ChipEvent("ippatsu", "A", "Z"), "chips[0].from", errors.NOT_AT_TABLE),
        (ChipEvent("ippatsu", "A", "A"), "chips[0].from", errors.SELF_DEAL_IN),
        (ChipEvent("ippatsu", "A", None, 0), "chips[0].multiplier", errors.RANGE),
        (ChipEvent("ippatsu", "A", None, 101), "chips[0].multiplier", errors.RANGE),
    ],
)
def test_bad_chip_event(event, field, code):
    assert refused(MAME, game(*CHOMBO_GAME, chips=(event,))) == {(field, code)}


def test_chombo_by_someone_not_at_the_table():
    g = game(*CHOMBO_GAME, chombo=("A", "Z"))
    assert refused(MAME, g) == {("chombo[1]", errors.NOT_AT_TABLE)}


@pytest.mark.parametrize(
    ("points", "deposits", "field", "code"),
    [
        ((45300, 32500, 24600, -2500), 0, "points", errors.SUM),
        ((45300, 32500, 24600, -2300), 0, "points", errors.SUM),
        ((45350, 32450, 24600, -2400), 0, "players[0].points", errors.MULTIPLE_OF_100),
        ((25000, 25000, 25000, 25100), -100, "deposits", errors.RANGE),
        ((25000, 25000, 25000, 24850), 150, "deposits", errors.MULTIPLE_OF_100),
        ((10**30, 0, 0, 0), 0, "players[0].points", errors.RANGE),
    ],
)
def test_bad_points(points, deposits, field, code):
    assert (field, code) in refused(KINYOKAI, game(*points, deposits=deposits))


def test_bad_points_name_every_bad_player():
    got = refused(KINYOKAI, game(45350, 32450, 24600, -2400))
    assert got == {
        ("players[0].points", errors.MULTIPLE_OF_100),
        ("players[1].points", errors.MULTIPLE_OF_100),
    }


def test_player_count_and_duplicate_names():
    three = Game(seats=(Seat("A", 50000), Seat("B", 30000), Seat("C", 20000)))
    assert refused(KINYOKAI, three) == {("players", errors.PLAYER_COUNT)}
    dup = Game(seats=tuple(Seat(n, 25000) for n in ("A", "B", "A", "D")))
    assert refused(KINYOKAI, dup) == {("players[2].name", errors.DUPLICATE_NAME)}
    blank = Game(seats=tuple(Seat(n, 25000) for n in ("A", " ", "C", "D")))
    assert refused(KINYOKAI, blank) == {("players[1].name", errors.REQUIRED)}


def test_all_problems_of_a_game_are_reported_at_once():
    g = game(
        *CHOMBO_GAME,
        chombo=("Z",),
        chips=(ChipEvent("dora", "A"), ChipEvent("ippatsu", "Y")),
        rate="9.9",
    )
    assert refused(MAME, g) == {
        ("chombo[0]", errors.NOT_AT_TABLE),
        ("chips[0].kind", errors.UNKNOWN_CHIP),
        ("chips[1].winner", errors.NOT_AT_TABLE),
        ("rate", errors.UNKNOWN_RATE),
    }


# --- the same through the JSON reader -----------------------------------------------------------


def json_game(**extra) -> dict:
    points = dict(zip(NAMES, CHOMBO_GAME, strict=True))
    return {"players": [{"name": n, "points": p} for n, p in points.items()], **extra}


@pytest.mark.parametrize(
    ("extra", "field", "code"),
    [
        ({"chips": [{"kind": "dora", "winner": "A"}]}, "chips[0].kind", errors.UNKNOWN_CHIP),
        (
            {"chips": [{"kind": "ippatsu", "winner": "A", "from": "Z"}]},
            "chips[0].from",
            "not_at_table",
        ),
        ({"chombo": ["A", "Z"]}, "chombo[1]", errors.NOT_AT_TABLE),
        ({"chombo": [3]}, "chombo[0]", errors.TYPE),
        ({"rate": "9.9"}, "rate", errors.UNKNOWN_RATE),
        ({"rate": 0.3}, "rate", errors.TYPE),
        ({"deposits": 1000.0}, "deposits", errors.TYPE),
        ({"deposits": True}, "deposits", errors.TYPE),
        ({"dealer": "A"}, "dealer", errors.UNKNOWN_FIELD),
        (
            {"chips": [{"kind": "ippatsu", "winner": "A", "multiplier": 0}]},
            "chips[0].multiplier",
            errors.RANGE,
        ),
        (
            {"chips": [{"kind": "ippatsu", "winner": "A", "multiplier": 1.0}]},
            "chips[0].multiplier",
            errors.TYPE,
        ),
    ],
)
def test_bad_json_game_names_the_field(extra, field, code):
    with pytest.raises(InputError) as caught:
        settle_game(MAME, game_from_json(json_game(**extra)))
    assert (field, code) in {(p.field, p.code) for p in caught.value.problems}


def test_json_points_must_be_integers():
    data = json_game()
    data["players"][1]["points"] = 29000.0
    with pytest.raises(InputError) as caught:
        game_from_json(data)
    assert [(p.field, p.code) for p in caught.value.problems] == [
        ("players[1].points", errors.TYPE)
    ]
