"""The rule variants of version 2: floating uma, rounding toward the return point and on the number
line, oka to the house, 飛び賞 and 焼き鳥; and each player's score parts (ScoreParts).

Exact tables pin each rule; hypothesis checks what must hold for any game: scores sum to the
table's total, 飛び賞 and 焼き鳥 only move points (except the 焼き鳥 penalty, which lowers the
total), seat order does not change what a player gets, and the parts always add up.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import (
    PRESETS,
    Bust,
    BustBonus,
    FloatingUma,
    Game,
    InputError,
    Rules,
    Seat,
    Yakitori,
    errors,
    rules_from_json,
    settle_game,
)
from scoring.game import rounded_tenths
from scoring.parse import game_from_json
from tests.support.scoring_cases import load_cases
from tests.support.settling import refused, scores

PAIRON = PRESETS["pairon-kansai"].rules  # 25,000 / 30,000, uma 10-20, deposits to the top
NAMES = ("東", "南", "西", "北")


def game(*points: int, **kwargs) -> Game:
    return Game(seats=tuple(Seat(n, p) for n, p in zip(NAMES, points, strict=False)), **kwargs)


# --- rounding ------------------------------------------------------------------------------------

# points -> tenths, number-line rounding of signed values (settlement.md's definitions)
NUMBER_LINE = {
    "kirisute": {-10_100: -110, -10_000: -100, 10_900: 100},  # floor
    "kiriage": {-10_900: -100, 10_100: 110, -10_000: -100},  # ceiling
    "shisha-gonyu": {-10_500: -100, -10_600: -110, 10_500: 110},  # floor(v + 0.5)
    "gosha-rokunyu": {-10_500: -110, -10_600: -110, -10_400: -100, 10_500: 100, 10_600: 110},
}


@pytest.mark.parametrize(
    ("rounding", "points", "tenths"),
    [(r, p, t) for r, row in NUMBER_LINE.items() for p, t in row.items()],
)
def test_number_line_rounding(rounding, points, tenths):
    assert rounded_tenths(points, rounding, negative="number-line") == tenths


def test_number_line_and_magnitude_agree_on_positive_points():
    for rounding in NUMBER_LINE:
        for points in range(0, 60_000, 100):
            assert rounded_tenths(points, rounding, negative="number-line") == rounded_tenths(
                points, rounding
            )


@pytest.mark.parametrize(
    ("points", "tenths"),
    [(30_100, 300), (29_900, 300), (31_000, 310), (28_900, 290), (100, 10), (-700, 0)],
)
def test_toward_return_rounds_toward_the_return_point(points, tenths):
    assert rounded_tenths(points, "toward-return", return_points=30_000) == tenths


def test_toward_return_ignores_the_negative_mode():
    for negative in ("magnitude", "number-line"):
        assert rounded_tenths(
            -10_500, "toward-return", negative=negative, return_points=30_000
        ) == (-100)


# --- floating uma --------------------------------------------------------------------------------

RENMEI_UMA = {
    "floating_line": 30000,
    "by_floating": {"1": [12, -1, -3, -8], "3": [8, 3, 1, -12]},
    "default": [8, 4, -4, -8],
}


def renmei(**changes) -> Rules:
    base = {
        "players": 4,
        "start": 30000,
        "return": 30000,
        "rounding": "none",
        "uma": RENMEI_UMA,
        "ties": "split",
        "deposits": "house",
        "below_zero": "settle",
        "chombo": {"mode": "none"},
    }
    return rules_from_json({**base, **changes})


@pytest.mark.parametrize(
    ("points", "uma"),
    [
        ((40000, 29900, 25100, 25000), [12, -1, -3, -8]),  # one floats
        ((40000, 30000, 25000, 25000), [8, 4, -4, -8]),  # two (at the line counts): default
        ((31000, 33000, 32000, 24000), [8, 3, 1, -12]),  # three
        ((35000, 35000, 25000, 25000), [8, 4, -4, -8]),
    ],
)
def test_floating_uma_picks_the_list_by_how_many_float(points, uma):
    result = settle_game(renmei(ties="seat"), game(*points))
    for p in result.players:
        if p.rank != 1:
            assert p.parts.uma == uma[p.rank - 1] * 10


def test_floating_uma_without_a_default_refuses_an_unlisted_count():
    rules = renmei(uma={"floating_line": 30000, "by_floating": {"1": [12, -1, -3, -8]}})
    assert refused(rules, game(40000, 30000, 25000, 25000)) == {("uma", errors.NO_UMA)}
    settle_game(rules, game(40000, 29000, 26000, 25000))  # one floats: listed


def test_floating_line_defaults_to_the_return_points():
    rules = rules_from_json(
        {
            "preset": "pairon-kansai",
            "uma": {"by_floating": {"1": [30, -5, -10, -15]}, "default": [20, 10, -10, -20]},
        }
    )
    assert rules.floating is not None and rules.floating.line == 30000
    assert rules.to_json()["uma"]["floating_line"] == 30000


@pytest.mark.parametrize(
    ("uma", "field", "code"),
    [
        ({"by_floating": {"1": [12, -1, -3]}}, "rules.uma.by_floating.1", errors.UMA_LENGTH),
        ({"by_floating": {"1": [12, -1, -3, -7]}}, "rules.uma.by_floating.1", errors.UMA_SUM),
        ({"by_floating": {"x": [12, -1, -3, -8]}}, "rules.uma.by_floating.x", errors.TYPE),
        ({"by_floating": {"9": [12, -1, -3, -8]}}, "rules.uma.by_floating", errors.RANGE),
        ({"default": [8, 4, -4, -9]}, "rules.uma.default", errors.UMA_SUM),
        (
            {"floating_line": 30050, "default": [8, 4, -4, -8]},
            "rules.uma.floating_line",
            errors.MULTIPLE_OF_100,
        ),
        ({}, "rules.uma", errors.REQUIRED),
        ({"default": [8, 4, -4, -8], "extra": 1}, "rules.uma.extra", errors.UNKNOWN_FIELD),
    ],
)
def test_bad_floating_tables_name_the_field(uma, field, code):
    with pytest.raises(InputError) as caught:
        rules_from_json({"preset": "pairon-kansai", "uma": uma})
    assert (field, code) in {(p.field, p.code) for p in caught.value.problems}


def test_v2_rules_round_trip_through_json():
    rules = rules_from_json(
        {
            "preset": "mame-no-kai",
            "uma": RENMEI_UMA,
            "rounding": "gosha-rokunyu",
            "rounding_negative": "number-line",
            "oka": "house",
            "bust_bonus": {"points": 10, "to": "top", "at_zero": True},
            "yakitori": {"mode": "pay_top", "points": 5},
        }
    )
    assert rules_from_json(rules.to_json()) == rules
    # A rules object without the v2 fields writes none of them: it means what it meant before.
    assert set(PAIRON.to_json()) == {
        "players", "start", "return", "rounding", "uma", "ties", "deposits", "below_zero",
        "chombo", "chips", "rates", "place_fees", "session_shugi", "yen_unit",
        "surcharge_percent", "prize_cap",
    }  # fmt: skip


# --- oka to the house ----------------------------------------------------------------------------


def test_oka_to_the_house_lowers_the_total_and_the_top_scores_like_everyone():
    rules = dataclasses.replace(PAIRON, oka="house")
    result = settle_game(rules, game(42300, 31200, 17800, 8700))
    assert [p.score for p in result.players] == [323, 112, -222, -413]
    assert result.total_score == -200
    assert [p.parts.oka for p in result.players] == [0, 0, 0, 0]
    top = settle_game(PAIRON, game(42300, 31200, 17800, 8700)).players[0]
    assert top.parts.oka == 200 and top.score == 523


# --- 飛び賞 ---------------------------------------------------------------------------------------


def bust_rules(to: str, at_zero: bool = False) -> Rules:
    return dataclasses.replace(PAIRON, bust_bonus=BustBonus(10, to, at_zero))


def test_bust_bonus_to_the_buster():
    g = game(-10000, 20000, 30000, 60000, busts=(Bust("東", "西"),))
    result = settle_game(bust_rules("buster"), g)
    assert [p.parts.bust_bonus for p in result.players] == [-100, 0, 100, 0]
    assert result.players[0].busted_by == "西"


def test_bust_bonus_at_zero_only_when_the_rules_say_so():
    points = (0, 20000, 30000, 50000)
    assert scores(bust_rules("top"), game(*points)) == scores(PAIRON, game(*points))
    with_zero = settle_game(bust_rules("top", at_zero=True), game(*points))
    assert [p.parts.bust_bonus for p in with_zero.players] == [-100, 0, 0, 100]


def test_bust_bonus_to_tied_tops_is_shared():
    rules = dataclasses.replace(bust_rules("top"), ties="split")
    result = settle_game(rules, game(-5000, 10000, 47500, 47500))
    assert [p.parts.bust_bonus for p in result.players] == [-100, 0, 50, 50]


@pytest.mark.parametrize(
    ("busts", "expected"),
    [
        (None, ("busts", errors.BUSTS)),  # the buster must be named
        ((Bust("東", None),), ("busts[0].by", errors.REQUIRED)),
        ((Bust("東", "東"),), ("busts[0].by", errors.SELF_DEAL_IN)),
        ((Bust("東", "誰か"),), ("busts[0].by", errors.NOT_AT_TABLE)),
        ((Bust("東", "西"), Bust("南", "西")), ("busts[1].player", errors.BUSTS)),  # not busted
        ((Bust("東", "西"), Bust("東", "北")), ("busts[1].player", errors.DUPLICATE_NAME)),
    ],
)
def test_bad_busts_name_the_field(busts, expected):
    assert expected in refused(bust_rules("buster"), game(-10000, 20000, 30000, 60000, busts=busts))


def test_busts_without_a_bust_rule_are_refused():
    g = game(-10000, 20000, 30000, 60000, busts=(Bust("東", "西"),))
    assert refused(PAIRON, g) == {("busts", errors.NOT_IN_RULES)}


def test_busts_to_the_top_may_be_given_and_must_then_be_true():
    rules = bust_rules("top")
    settle_game(rules, game(-10000, 20000, 30000, 60000, busts=(Bust("東", "西"),)))
    settle_game(rules, game(-10000, 20000, 30000, 60000, busts=(Bust("東"),)))
    missing = game(-10000, -1000, 31000, 80000, busts=(Bust("東"),))
    assert ("busts", errors.BUSTS) in refused(rules, missing)


# --- 焼き鳥 ---------------------------------------------------------------------------------------


def yakitori(mode: str) -> Rules:
    return dataclasses.replace(PAIRON, yakitori=Yakitori(mode, 5))


@pytest.mark.parametrize(
    ("mode", "birds", "parts", "total"),
    [
        ("penalty", ("北",), [0, 0, 0, -50], -50),
        ("pay_each", ("北",), [50, 50, 50, -150], 0),
        ("pay_each", ("西", "北"), [100, 100, -100, -100], 0),
        ("pay_top", ("西", "北"), [100, 0, -50, -50], 0),
        ("pay_top", ("東",), [0, 0, 0, 0], 0),  # a yakitori top pays nothing
    ],
)
def test_yakitori(mode, birds, parts, total):
    result = settle_game(yakitori(mode), game(45000, 31000, 14000, 10000, yakitori=birds))
    assert [p.parts.yakitori for p in result.players] == parts
    assert result.total_score == total
    assert [p.yakitori for p in result.players] == [n in birds for n in NAMES]


def test_bad_yakitori_names_the_field():
    rules = yakitori("pay_each")
    assert refused(rules, game(45000, 31000, 14000, 10000, yakitori=("誰か",))) == {
        ("yakitori[0]", errors.NOT_AT_TABLE)
    }
    assert refused(rules, game(45000, 31000, 14000, 10000, yakitori=("北", "北"))) == {
        ("yakitori[1]", errors.DUPLICATE_NAME)
    }


def test_game_input_reads_busts_and_yakitori():
    g = game_from_json(
        {
            "players": [{"name": n, "points": 25000} for n in NAMES],
            "busts": [{"player": "東", "by": "南"}],
            "yakitori": ["北"],
        }
    )
    assert g.busts == (Bust("東", "南"),) and g.yakitori == ("北",)
    with pytest.raises(InputError) as caught:
        game_from_json({"players": [], "busts": [{"player": "東", "who": "南"}]})
    assert "busts[0].who" in {p.field for p in caught.value.problems}


# --- score parts, for every worked case ----------------------------------------------------------


@pytest.mark.parametrize("name", ["settle", "settle-v2"])
def test_the_parts_add_up_to_the_score_in_every_worked_case(name):
    for case in load_cases(name):
        if case.get("expected") is None:
            continue
        data = case["input"]
        rules = rules_from_json(data["rules"])
        result = settle_game(rules, game_from_json({k: v for k, v in data.items() if k != "rules"}))
        for p in result.players:
            assert p.parts is not None and p.parts.score == p.score, (case["name"], p.name)


def test_the_parts_show_what_the_top_absorbs_below_zero():
    """マメの会 (箱下なし): the 4th at −3,000 settles as 0; the top pays the 3.0 it does not."""
    mame = PRESETS["mame-no-kai"].rules
    result = settle_game(mame, game(52000, 31000, 20000, -3000))
    top, fourth = result.players[0], result.players[3]
    assert fourth.parts.settled_points == 0 and fourth.parts.rounded == 0
    assert top.parts.adjustment == -30
    assert (top.parts.rounded, top.parts.returned, top.parts.uma, top.parts.oka) == (
        520,
        -300,
        200,
        200,
    )


# --- properties ----------------------------------------------------------------------------------

POINTS4 = st.lists(st.integers(-300, 900).map(lambda h: h * 100), min_size=3, max_size=3).map(
    lambda ps: [*ps, 100_000 - sum(ps)]
)
V2_RULES = st.fixed_dictionaries(
    {
        "preset": st.just("pairon-kansai"),
        "rounding": st.sampled_from(
            ["none", "gosha-rokunyu", "shisha-gonyu", "kirisute", "kiriage", "toward-return"]
        ),
        "rounding_negative": st.sampled_from(["magnitude", "number-line"]),
        "oka": st.sampled_from(["top", "house"]),
        "ties": st.sampled_from(["seat", "split"]),
        "below_zero": st.sampled_from(["settle", "floor"]),
        "bust_bonus": st.builds(
            lambda p, to, z: {"points": p, "to": to, "at_zero": z},
            st.integers(1, 30),
            st.just("top"),
            st.booleans(),
        ),
        "yakitori": st.builds(
            lambda m, p: {"mode": m, "points": p},
            st.sampled_from(["penalty", "pay_each", "pay_top"]),
            st.integers(1, 30),
        ),
        "uma": st.sampled_from([[20, 10, -10, -20], RENMEI_UMA | {"floating_line": 25000}]),
    }
)


@settings(max_examples=300, deadline=None)
@given(V2_RULES, POINTS4, st.sets(st.sampled_from(NAMES), max_size=4))
def test_v2_games_add_up_and_bonuses_only_move_points(rules_json, points, birds):
    rules = rules_from_json(rules_json)
    g = game(*points, yakitori=tuple(sorted(birds)))
    result = settle_game(rules, g)
    total = sum(p.score for p in result.players)
    assert total == result.total_score
    penalty = rules.yakitori.points * 10 * len(birds) if rules.yakitori.mode == "penalty" else 0
    oka = rules.oka_tenths if rules.oka == "house" else 0
    assert total == -oka - penalty  # deposits 0, to the top: only these leave the table
    assert sum(p.parts.bust_bonus for p in result.players) == 0
    assert sum(p.parts.yakitori for p in result.players) == -penalty
    for p in result.players:
        assert p.parts.score == p.score
    # Without 飛び賞 and 焼き鳥 the same game differs only by their parts.
    plain = settle_game(dataclasses.replace(rules, bust_bonus=None, yakitori=None), game(*points))
    for a, b in zip(result.players, plain.players, strict=True):
        assert a.score - a.parts.bust_bonus - a.parts.yakitori == b.score


@settings(max_examples=200, deadline=None)
@given(V2_RULES, POINTS4, st.permutations(range(4)))
def test_v2_a_player_gets_the_same_whatever_their_seat_when_nobody_ties(rules_json, points, order):
    if len(set(points)) < 4:
        return  # ties between seats are decided by seat order on purpose
    rules = rules_from_json(rules_json)
    first = {p.points: p.score for p in settle_game(rules, game(*points)).players}
    moved = [points[i] for i in order]
    again = {p.points: p.score for p in settle_game(rules, game(*moved)).players}
    # Indivisible tenths go to earlier seats: only shares split between tied tops could move,
    # and nobody ties here.
    assert first == again


def test_floating_uma_property_cases_exist():
    """The strategies above do reach floating uma and both oka modes (a guard against vacuity)."""
    rules = rules_from_json({"preset": "pairon-kansai", "uma": RENMEI_UMA})
    assert isinstance(rules.floating, FloatingUma)
