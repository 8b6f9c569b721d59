"""Rules: the presets of settlement.md's table, their JSON round trip, and bad rules objects."""

from __future__ import annotations

import json

import pytest

from scoring import (
    PRESETS,
    ChipKind,
    ChomboRule,
    InputError,
    RateTier,
    Rules,
    errors,
    rules_from_json,
)
from tests.support.scoring_cases import assert_one_line_error, run_cli

KINYOKAI_JSON = PRESETS["kinyokai-2015"].rules.to_json()


def refused(value: object) -> set[tuple[str, str]]:
    with pytest.raises(InputError) as caught:
        rules_from_json(value)
    return {(p.field, p.code) for p in caught.value.problems}


def full(**changes: object) -> dict:
    """kinyokai-2015 as a full rules object, with `changes` (None removes a field)."""
    out = {**KINYOKAI_JSON, **changes}
    return {k: v for k, v in out.items() if v is not None}


# --- presets ----------------------------------------------------------------------------------------


def test_there_are_the_six_club_presets_then_the_public_rule_sets():
    assert list(PRESETS) == [
        "kinyokai-2015",
        "mame-no-kai",
        "kagetsu-cup",
        "pairon-kansai",
        "pairon-kansai-3p",
        "takabari-kenko",
        "jpml",
        "m-league",
        "ema-2016",
        "tenhou",
        "tenhou-3p",
        "saikouisen",
        "npm",
        "rmu-a",
        "rmu-m",
        "wrc",
    ]
    assert all(name == preset.name for name, preset in PRESETS.items())


@pytest.mark.parametrize(
    ("name", "players", "start", "ret", "rounding", "uma", "deposits", "below_zero", "chombo"),
    [
        (
            "kinyokai-2015",
            4,
            25000,
            30000,
            "gosha-rokunyu",
            (10, 5, -5, -10),
            "top",
            "settle",
            ("none", 0, 0),
        ),
        (
            "mame-no-kai",
            4,
            25000,
            30000,
            "none",
            (20, 10, -10, -20),
            "house",
            "floor",
            ("pay_top", 20, 30),
        ),
        ("kagetsu-cup", 4, 25000, 30000, "none", (0, 0, 0, 0), "top", "settle", ("none", 0, 0)),
        (
            "pairon-kansai",
            4,
            25000,
            30000,
            "none",
            (20, 10, -10, -20),
            "top",
            "settle",
            ("none", 0, 0),
        ),
        (
            "pairon-kansai-3p",
            3,
            35000,
            40000,
            "none",
            (20, 0, -20),
            "top",
            "settle",
            ("none", 0, 0),
        ),
        (
            "takabari-kenko",
            4,
            25000,
            25000,
            "none",
            (4, 2, -2, -4),
            "top",
            "settle",
            ("none", 0, 0),
        ),
    ],
)
def test_preset_matches_the_table(
    name, players, start, ret, rounding, uma, deposits, below_zero, chombo
):
    r = PRESETS[name].rules
    assert (r.players, r.start, r.return_points, r.rounding, r.uma) == (
        players,
        start,
        ret,
        rounding,
        uma,
    )
    assert (r.deposits, r.below_zero, r.ties) == (deposits, below_zero, "seat")
    assert (r.chombo.mode, r.chombo.points, r.chombo.top_points) == chombo


def test_mame_no_kai_chips_rates_and_surcharge():
    r = PRESETS["mame-no-kai"].rules
    assert dict(r.chips) == {"ippatsu": ChipKind(1, 3), "yakuman": ChipKind(2, 3)}
    assert dict(r.rates) == {
        "0.2": RateTier(20, 100),
        "0.3": RateTier(30, 90),
        "0.5": RateTier(50, 200),
    }
    assert r.surcharge_percent == 10


def test_kagetsu_cup_day_fields():
    r = PRESETS["kagetsu-cup"].rules
    assert dict(r.place_fees) == {4: 1000}
    assert (r.session_shugi, r.prize_cap, dict(r.rates)) == (2000, 10000, {})


def test_only_the_money_clubs_have_money():
    with_money = {name for name, p in PRESETS.items() if p.rules.has_money}
    assert with_money == {"mame-no-kai", "kagetsu-cup"}


def test_oka():
    assert PRESETS["kinyokai-2015"].rules.oka_tenths == 200
    assert PRESETS["pairon-kansai-3p"].rules.oka_tenths == 150
    assert PRESETS["takabari-kenko"].rules.oka_tenths == 0


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_round_trips_through_json(name):
    rules = PRESETS[name].rules
    data = rules.to_json()
    assert json.loads(json.dumps(data)) == data  # plain JSON, nothing else
    again = rules_from_json(json.loads(json.dumps(data)))
    assert again == rules
    assert hash(again) == hash(rules)
    assert again.to_json() == data


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_preset_name_and_an_empty_override_are_the_preset(name):
    assert rules_from_json(name) == PRESETS[name].rules
    assert rules_from_json({"preset": name}) == PRESETS[name].rules


def test_preset_overrides_change_only_what_they_name():
    r = rules_from_json({"preset": "kinyokai-2015", "ties": "split", "rounding": "shisha-gonyu"})
    assert (r.ties, r.rounding) == ("split", "shisha-gonyu")
    assert r.to_json() == {**KINYOKAI_JSON, "ties": "split", "rounding": "shisha-gonyu"}


def test_the_documented_full_rules_object():
    r = rules_from_json(
        {
            "players": 4,
            "start": 25000,
            "return": 30000,
            "rounding": "none",
            "uma": [15, 5, -5, -15],
            "ties": "seat",
            "deposits": "top",
            "below_zero": "settle",
            "chombo": {"mode": "penalty", "points": 20},
            "chips": {"yakuman": {"tsumo": 2, "ron": 5}},
            "rates": {"tenpin": {"yen_per_1000": 100, "chip_yen": 500}},
        }
    )
    assert r.uma == (15, 5, -5, -15)
    assert r.chombo == ChomboRule("penalty", 20)
    assert dict(r.chips) == {"yakuman": ChipKind(2, 5)}
    assert dict(r.rates) == {"tenpin": RateTier(100, 500)}
    assert (r.yen_unit, r.session_shugi, r.surcharge_percent, r.prize_cap) == (1, 0, 0, None)


def test_presets_command_prints_every_preset_and_each_feeds_back():
    proc = run_cli("presets")
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    assert list(printed) == list(PRESETS)
    for name, data in printed.items():
        assert rules_from_json(data) == PRESETS[name].rules


def test_presets_printed_settle_the_same_as_their_names():
    printed = json.loads(run_cli("presets").stdout)
    games = []
    for name, data in printed.items():
        rules = PRESETS[name].rules
        names = ["東", "南", "西", "北"][: rules.players]
        points = [rules.start + 8000, *([rules.start] * (rules.players - 2)), rules.start - 8000]
        players = [{"name": n, "points": p} for n, p in zip(names, points, strict=True)]
        games += [{"rules": name, "players": players}, {"rules": data, "players": players}]
    proc = run_cli("settle", input=json.dumps(games, ensure_ascii=False))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out[0::2] == out[1::2]


# --- bad rules objects --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(
            {"preset": "kinyokai-2015", "uma": [10, -10]},
            ("rules.uma", errors.UMA_LENGTH),
            id="uma-length",
        ),
        pytest.param(
            {"preset": "kinyokai-2015", "uma": [10, 5, -5, -5]},
            ("rules.uma", errors.UMA_SUM),
            id="uma-sum",
        ),
        pytest.param(
            {"preset": "kinyokai-2015", "uma": [5, 10, -5, -10]},
            ("rules.uma", errors.UMA_ORDER),
            id="uma-order",
        ),
        pytest.param(
            {"preset": "kinyokai-2015", "players": 3},
            ("rules.uma", errors.UMA_LENGTH),
            id="3p-with-4-uma",
        ),
        pytest.param(
            {"preset": "kinyokai-2015", "kaeshi": 20},
            ("rules.kaeshi", errors.UNKNOWN_FIELD),
            id="unknown-field",
        ),
        pytest.param(full(extra=1), ("rules.extra", errors.UNKNOWN_FIELD), id="unknown-field-full"),
        pytest.param(
            {"preset": "kinyokai-2015", "chombo": {"mode": "double", "points": 1, "top_points": 3}},
            ("rules.chombo.mode", errors.CHOICE),
            id="unknown-chombo-mode-with-fields",
        ),
        pytest.param(
            {
                "preset": "kinyokai-2015",
                "chombo": {"mode": "pay_top", "points": 20, "top_points": 20},
            },
            ("rules.chombo.top_points", errors.INDIVISIBLE),
            id="pay-top-q-indivisible",
        ),
        pytest.param(
            {"preset": "kinyokai-2015", "chombo": {"mode": "penalty"}},
            ("rules.chombo.points", errors.REQUIRED),
            id="penalty-without-points",
        ),
        pytest.param(
            {"preset": "kinyokai-2015", "chombo": {"mode": "penalty", "points": 0}},
            ("rules.chombo.points", errors.RANGE),
            id="penalty-zero",
        ),
        pytest.param(
            {"preset": "kinyokai-2015", "chombo": {"points": 20}},
            ("rules.chombo.mode", errors.REQUIRED),
            id="chombo-without-mode",
        ),
        pytest.param(
            {"preset": "kinyokai-2015", "chombo": {"mode": "none", "points": 20}},
            ("rules.chombo.points", errors.UNKNOWN_FIELD),
            id="chombo-none-with-points",
        ),
        pytest.param("kinyokai", ("rules", errors.UNKNOWN_PRESET), id="unknown-preset-name"),
        pytest.param(
            {"preset": "kinyokai"}, ("rules.preset", errors.UNKNOWN_PRESET), id="unknown-preset-key"
        ),
        pytest.param(
            {"preset": 4}, ("rules.preset", errors.UNKNOWN_PRESET), id="preset-not-a-string"
        ),
        pytest.param(
            full(rounding=None), ("rules.rounding", errors.REQUIRED), id="missing-rounding"
        ),
        pytest.param(full(chombo=None), ("rules.chombo", errors.REQUIRED), id="missing-chombo"),
        pytest.param(full(start=25000.0), ("rules.start", errors.TYPE), id="float-start"),
        pytest.param(full(uma=[10.0, 5, -5, -10]), ("rules.uma[0]", errors.TYPE), id="float-uma"),
        pytest.param(full(start=True), ("rules.start", errors.TYPE), id="bool-start"),
        pytest.param(full(yen_unit=False), ("rules.yen_unit", errors.TYPE), id="bool-yen-unit"),
        pytest.param(full(uma=[10, 5, -5, True]), ("rules.uma[3]", errors.TYPE), id="bool-uma"),
        pytest.param(
            full(start=25050), ("rules.start", errors.MULTIPLE_OF_100), id="start-not-in-100s"
        ),
        pytest.param(full(start=10**30), ("rules.start", errors.RANGE), id="huge-start"),
        pytest.param(
            full(players=5, uma=[10, 5, 0, -5, -10]),
            ("rules.players", errors.CHOICE),
            id="five-players",
        ),
        pytest.param(full(rounding="round"), ("rules.rounding", errors.CHOICE), id="bad-rounding"),
        pytest.param(full(ties="coin"), ("rules.ties", errors.CHOICE), id="bad-ties"),
        pytest.param(full(deposits="dealer"), ("rules.deposits", errors.CHOICE), id="bad-deposits"),
        pytest.param(
            full(below_zero="bust"), ("rules.below_zero", errors.CHOICE), id="bad-below-zero"
        ),
        pytest.param(full(uma="5-10"), ("rules.uma", errors.TYPE), id="uma-not-a-list"),
        pytest.param(
            full(chips={"x": {"tsumo": -1}}),
            ("rules.chips.x.tsumo", errors.RANGE),
            id="negative-chip",
        ),
        pytest.param(
            full(chips={"x": {"tsumo": 1, "tenpai": 1}}),
            ("rules.chips.x.tenpai", errors.UNKNOWN_FIELD),
            id="chip-field",
        ),
        pytest.param(full(chips=[]), ("rules.chips", errors.TYPE), id="chips-not-an-object"),
        pytest.param(
            full(rates={"r": {"chip_yen": 1}}),
            ("rules.rates.r.yen_per_1000", errors.REQUIRED),
            id="rate-no-yen",
        ),
        pytest.param(
            full(rates={"r": 30}), ("rules.rates.r", errors.TYPE), id="rate-not-an-object"
        ),
        pytest.param(
            full(place_fees={"5": 1000}), ("rules.place_fees", errors.RANGE), id="fee-rank-5-of-4"
        ),
        pytest.param(
            full(place_fees={"last": 1000}),
            ("rules.place_fees.last", errors.TYPE),
            id="fee-rank-word",
        ),
        pytest.param(
            full(place_fees={"4": -1}), ("rules.place_fees.4", errors.RANGE), id="negative-fee"
        ),
        pytest.param(full(yen_unit=0), ("rules.yen_unit", errors.RANGE), id="yen-unit-0"),
        pytest.param(
            full(prize_cap="10000"), ("rules.prize_cap", errors.TYPE), id="prize-cap-string"
        ),
        pytest.param(3, ("rules", errors.TYPE), id="rules-a-number"),
        pytest.param(["kinyokai-2015"], ("rules", errors.TYPE), id="rules-a-list"),
    ],
)
def test_bad_rules_name_the_field(value, expected):
    assert expected in refused(value)


def test_float_player_count_is_refused():
    """Integers only: 4.0 is not a player count (settlement.md: never floats)."""
    got = refused({"preset": "kinyokai-2015", "players": 4.0})
    assert "rules.players" in {field for field, _ in got}


def test_unknown_chombo_mode_is_reported_as_the_mode():
    """An unknown mode is the mistake to name, not the fields that mode would need."""
    got = refused({"preset": "kinyokai-2015", "chombo": {"mode": "double"}})
    assert ("rules.chombo.mode", errors.CHOICE) in got


def test_several_problems_are_all_reported():
    got = refused(full(rounding="round", ties="coin", start=25050, uma=[10, 5, -5, -5]))
    assert got == {
        ("rules.rounding", errors.CHOICE),
        ("rules.ties", errors.CHOICE),
        ("rules.start", errors.MULTIPLE_OF_100),
        ("rules.uma", errors.UMA_SUM),
    }


def test_unknown_and_missing_fields_are_reported_together():
    got = refused(full(ties=None, below_zero=None, kaeshi=20))
    assert got == {
        ("rules.ties", errors.REQUIRED),
        ("rules.below_zero", errors.REQUIRED),
        ("rules.kaeshi", errors.UNKNOWN_FIELD),
    }


def test_rules_refuse_to_exist_when_built_wrong_in_python():
    with pytest.raises(InputError) as caught:
        Rules(players=4, start=25000, return_points=30000, rounding="none", uma=(10, 5, -5))
    assert [(p.field, p.code) for p in caught.value.problems] == [("uma", errors.UMA_LENGTH)]
    with pytest.raises(InputError) as caught:
        Rules(
            players=3,
            start=35000,
            return_points=40000,
            rounding="none",
            uma=(20, 0, -20),
            chombo=ChomboRule("pay_top", 20, 0),
        )
    assert [(p.field, p.code) for p in caught.value.problems] == [
        ("chombo.top_points", errors.RANGE)
    ]


def test_pay_top_q_divisible_among_the_others_is_accepted():
    for players, uma, q in (
        (4, [10, 5, -5, -10], 30),
        (4, [10, 5, -5, -10], 3),
        (3, [20, 0, -20], 1),
    ):
        r = rules_from_json(
            full(
                players=players, uma=uma, chombo={"mode": "pay_top", "points": 20, "top_points": q}
            )
        )
        assert r.chombo.top_points == q


def test_bad_rules_on_the_command_line_name_the_game_and_the_field():
    game = {
        "rules": {"preset": "kinyokai-2015", "uma": [10, 5, -5, -5]},
        "players": [{"name": n, "points": 25000} for n in "ABCD"],
    }
    proc = run_cli("settle", input=json.dumps(game))
    assert proc.returncode == 2
    line = assert_one_line_error(proc.stderr, proc.stdout)
    assert line.startswith("game 0: rules.uma: ")
