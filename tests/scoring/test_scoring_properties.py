"""Properties of the engine over random valid rules and games, and over random bad input.

Each property is checked against settlement.md directly (a small reference computation written
here), not against the engine's own helpers.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
from collections import Counter
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scoring import Shugi, rules_from_json, settle_day, settle_game
from scoring.cli import main
from scoring.game import rounded_tenths
from scoring.parse import game_from_json, settle_json
from scoring.rules import ROUNDINGS

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    database=None,  # no .hypothesis/ directory left behind
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FEW = settings(SETTINGS, max_examples=100)
NAMES = ("青木", "馬場", "千葉", "土井", "江藤", "藤井")


# --- strategies: valid rules ---------------------------------------------------------------------


@st.composite
def umas(draw: st.DrawFn, n: int) -> list[int]:
    """Non-increasing, summing to 0: uma[k] = c − Σ gaps[:k], gaps[0] nudged so that n divides."""
    gaps = draw(st.lists(st.integers(0, 15), min_size=n - 1, max_size=n - 1))
    weight = sum(g * (n - 1 - i) for i, g in enumerate(gaps))
    gaps[0] += weight % n  # each unit of gaps[0] adds n − 1 ≡ −1 (mod n)
    weight = sum(g * (n - 1 - i) for i, g in enumerate(gaps))
    c = weight // n
    return [c - sum(gaps[:k]) for k in range(n)]


def chombo_rules(n: int) -> st.SearchStrategy[dict[str, Any]]:
    """Each chombo mode with valid points; pay_top's Q splits into tenths among the others."""
    points = st.integers(1, 30)
    step = (n - 1) // math.gcd(10, n - 1)  # Q × 10 divisible by n − 1 ⇔ step divides Q
    return st.one_of(
        st.just({"mode": "none"}),
        st.builds(lambda p: {"mode": "penalty", "points": p}, points),
        st.builds(
            lambda p, q: {"mode": "pay_top", "points": p, "top_points": q},
            points,
            st.integers(1, 30 // step).map(lambda k: k * step),
        ),
        st.builds(lambda x: {"mode": "pay_each", "points": x}, points),
    )


ROUNDING = st.sampled_from(ROUNDINGS)
CHIPS = st.dictionaries(
    st.sampled_from(["ippatsu", "yakuman", "aka"]),
    st.fixed_dictionaries({"tsumo": st.integers(0, 5), "ron": st.integers(0, 10)}),
    max_size=2,
)
RATES = st.dictionaries(
    st.sampled_from(["0.1", "0.3", "点5"]),
    st.fixed_dictionaries({"yen_per_1000": st.integers(0, 100), "chip_yen": st.integers(0, 500)}),
    max_size=2,
)
# Strategies that depend on the player count, built once (building them per draw is slow).
BY_PLAYERS = {
    n: {
        "uma": umas(n),
        "chombo": chombo_rules(n),
        "place_fees": st.dictionaries(st.integers(1, n).map(str), st.integers(0, 2000), max_size=2),
        # each value: hundreds of points relative to the start ("rel") or absolute ("abs")
        "values": st.lists(
            st.sampled_from([("rel", 0), ("rel", 50), ("rel", -100), ("abs", 0), ("abs", -30)])
            | st.integers(-300, 1200).map(lambda v: ("abs", v)),
            min_size=n,
            max_size=n,
        ),
        "seat": st.integers(0, n - 1),
        "chombo_seats": st.lists(st.integers(0, n - 1), max_size=3),
        # (kind index, winner seat, discarder seat or None, multiplier or None)
        "events": st.lists(
            st.tuples(
                st.integers(0, 5),
                st.integers(0, n - 1),
                st.none() | st.integers(0, n - 1),
                st.none() | st.integers(1, 3),
            ),
            max_size=4,
        ),
    }
    for n in (3, 4)
}
DEPOSITS = st.sampled_from([0, 0, 10, 20]) | st.integers(0, 40)
SEATINGS = st.permutations(NAMES)


@st.composite
def rules_objects(draw: st.DrawFn) -> dict[str, Any]:
    """A random full rules object that settlement.md allows."""
    n = draw(st.sampled_from([3, 4]))
    by_n = BY_PLAYERS[n]
    start = draw(st.integers(50, 500)) * 100
    return {
        "players": n,
        "start": start,
        "return": start + draw(st.integers(-40, 150)) * 100,
        "rounding": draw(ROUNDING),
        "uma": draw(by_n["uma"]),
        "ties": draw(st.sampled_from(["seat", "split"])),
        "deposits": draw(st.sampled_from(["top", "house"])),
        "below_zero": draw(st.sampled_from(["settle", "floor"])),
        "chombo": draw(by_n["chombo"]),
        "chips": draw(CHIPS),
        "rates": draw(RATES),
        "place_fees": draw(by_n["place_fees"]),
        "session_shugi": draw(st.sampled_from([0, 0, 500, 2000])),
        "yen_unit": draw(st.sampled_from([1, 1, 10, 100])),
        "surcharge_percent": draw(st.integers(0, 20)),
        "prize_cap": draw(st.none() | st.integers(0, 20000)),
    }


# --- strategies: valid games for given rules ----------------------------------------------------


@st.composite
def game_objects(draw: st.DrawFn, rules: dict[str, Any]) -> dict[str, Any]:
    """A valid game object (without `rules`): ties and negatives often, some chombo and chips."""
    n, start = rules["players"], rules["start"] // 100  # in hundreds of points
    by_n = BY_PLAYERS[n]
    seat_names = draw(SEATINGS)[:n]
    if draw(st.integers(0, 9)) == 0:  # everyone level
        deposits, values = 0, [start] * n
    else:
        deposits = draw(DEPOSITS)
        values = [v + start if how == "rel" else v for how, v in draw(by_n["values"])]
        values[draw(by_n["seat"])] += n * start - deposits - sum(values)
    game: dict[str, Any] = {
        "players": [
            {"name": s, "points": v * 100} for s, v in zip(seat_names, values, strict=True)
        ],
        "deposits": deposits * 100,
        "chombo": [seat_names[i] for i in draw(by_n["chombo_seats"])],
    }
    kinds = sorted(rules["chips"])
    if kinds:
        game["chips"] = []
        for kind, winner, discarder, multiplier in draw(by_n["events"]):
            event = {"kind": kinds[kind % len(kinds)], "winner": seat_names[winner]}
            if discarder is not None and discarder != winner:
                event["from"] = seat_names[discarder]
            if multiplier is not None:
                event["multiplier"] = multiplier
            game["chips"].append(event)
    rates = sorted(rules["rates"])
    if rates:
        pick = draw(st.integers(0, len(rates)))
        game["rate"] = rates[pick - 1] if pick else None
    return game


@st.composite
def rules_and_games(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    rules = draw(rules_objects())
    return rules, draw(game_objects(rules))


def settled(rules_json: dict[str, Any], game_json: dict[str, Any]):
    rules = rules_from_json(rules_json)
    return rules, settle_game(rules, game_from_json(game_json))


# --- reference computations straight from settlement.md -------------------------------------------


def reference_rounding(points: int, rounding: str, return_points: int = 0) -> int:
    """R(points) in tenths, written out independently of the engine (Fraction for the v2 modes)."""
    if rounding == "toward-return":
        off = Fraction(points - return_points, 1000)
        whole = int(off)  # int() truncates toward zero
        return return_points // 100 + whole * 10
    magnitude = abs(points)
    thousands, hundreds = magnitude // 1000, magnitude % 1000 // 100
    up = {"gosha-rokunyu": hundreds >= 6, "shisha-gonyu": hundreds >= 5, "kiriage": hundreds >= 1}
    tenths = magnitude // 100 if rounding == "none" else (thousands + up.get(rounding, 0)) * 10
    return -tenths if points < 0 else tenths


def half_away(x: Fraction) -> int:
    magnitude = int(abs(x) + Fraction(1, 2))  # int() truncates: floor for non-negatives
    return -magnitude if x < 0 else magnitude


def table_total(rules: dict[str, Any], game: dict[str, Any]) -> int:
    """T of step 5, in tenths."""
    return 0 if rules["deposits"] == "top" else -game["deposits"] // 100


# --- (a)–(d): one settled game, checked against each step ---------------------------------------
# One generated game feeds every check (generation dominates the cost); each check is its own
# function so that a failure names the property.


def check_scores_sum_to_t_minus_penalties(rules_json, game_json, result) -> None:
    """(a) Σ scores = T − P × 10 per chombo under `penalty`."""
    chombo = rules_json["chombo"]
    penalties = (
        chombo["points"] * 10 * len(game_json["chombo"]) if chombo["mode"] == "penalty" else 0
    )
    assert sum(p.score for p in result.players) == table_total(rules_json, game_json) - penalties
    assert result.total_score == table_total(rules_json, game_json) - penalties


def check_ranks(rules_json, game_json, result) -> None:
    """(b) `seat`: a permutation, the earlier seat first; `split`: 1 + players strictly above."""
    points = [p["points"] for p in game_json["players"]]
    got = [p.rank for p in result.players]
    if rules_json["ties"] == "seat":
        assert sorted(got) == list(range(1, len(points) + 1))
        above = [
            sum(q > p or (q == p and j < i) for j, q in enumerate(points))
            for i, p in enumerate(points)
        ]
        assert got == [1 + a for a in above]
    else:
        assert got == [1 + sum(q > p for q in points) for p in points]


def check_step_4_and_the_top(rules_json, game_json, result) -> None:
    """Non-top: R(points) − return + uma (split: the group's pooled uma); the top takes the rest."""
    ret = rules_json["return"] // 100
    floor = rules_json["below_zero"] == "floor"
    uma = rules_json["uma"]
    tops = [p for p in result.players if p.rank == 1]
    others = [p for p in result.players if p.rank != 1]
    for p in others:
        settled = 0 if floor and p.points < 0 else p.points
        r = reference_rounding(settled, rules_json["rounding"], rules_json["return"])
        if rules_json["ties"] == "seat":
            assert p.score == r - ret + uma[p.rank - 1] * 10
        else:  # split: each member within one tenth of an equal share of the pooled uma
            group = [q for q in result.players if q.points == p.points]
            pooled = sum(uma[p.rank - 1 : p.rank - 1 + len(group)]) * 10
            assert abs((p.score - r + ret) * len(group) - pooled) < len(group)
    assert sum(p.score for p in tops) == table_total(rules_json, game_json) - sum(
        p.score for p in others
    )
    # shared between tied tops within one tenth, the extra tenths to the earlier seats
    assert [p.score for p in tops] == sorted((p.score for p in tops), reverse=True)
    assert tops[0].score - tops[-1].score <= 1


def check_chombo(rules_json, game_json, result, without) -> None:
    """Step 6: what chombo moves, compared with the same game settled without chombo."""
    mode, n = rules_json["chombo"], rules_json["players"]
    assert [p.chombo for p in result.players] == [
        Counter(game_json["chombo"])[p.name] for p in result.players
    ]
    tops = [i for i, p in enumerate(without.players) if p.rank == 1]
    if mode["mode"] != "none" and len(tops) > 1:
        return  # shared between tied tops: covered by the exact tests
    expected = [p.score for p in without.players]
    seat = {p.name: i for i, p in enumerate(without.players)}
    for name in game_json["chombo"] if mode["mode"] != "none" else []:
        i, top = seat[name], tops[0]
        if mode["mode"] == "penalty":
            expected[i] -= mode["points"] * 10
        elif mode["mode"] == "pay_each":
            expected = [s + mode["points"] * 10 for s in expected]
            expected[i] -= mode["points"] * 10 * n
        elif i == top:
            share = mode["top_points"] * 10 // (n - 1)
            expected = [s + share for s in expected]
            expected[i] -= share + mode["top_points"] * 10
        else:
            expected[i] -= mode["points"] * 10
            expected[top] += mode["points"] * 10
    assert [p.score for p in result.players] == expected


def check_chips(rules_json, game_json, result) -> None:
    """(d) Step 7, computed from the events; net chips sum to zero."""
    net = {p["name"]: 0 for p in game_json["players"]}
    for ev in game_json.get("chips", []):
        kind, m = rules_json["chips"][ev["kind"]], ev.get("multiplier", 1)
        if "from" in ev:
            net[ev["from"]] -= kind["ron"] * m
            net[ev["winner"]] += kind["ron"] * m
        else:
            for name in net:
                if name != ev["winner"]:
                    net[name] -= kind["tsumo"] * m
                    net[ev["winner"]] += kind["tsumo"] * m
    assert [p.chips for p in result.players] == list(net.values())
    assert sum(p.chips for p in result.players) == 0


def check_yen(rules_json, game_json, result) -> None:
    """Step 8: score × yen per 1,000 rounded half away from zero, plus chips × chip yen."""
    rate = game_json.get("rate")
    if rate is None:
        assert all(p.yen is None for p in result.players)
        return
    tier = rules_json["rates"][rate]
    for p in result.players:
        points_yen = half_away(Fraction(p.score * tier["yen_per_1000"], 10))
        assert p.yen == points_yen + p.chips * tier["chip_yen"]


@SETTINGS
@given(rules_and_games())
def test_a_settled_game_follows_every_step_of_settlement_md(case):
    rules_json, game_json = case
    rules, result = settled(rules_json, game_json)
    _, without = settled(rules_json, {**game_json, "chombo": []})
    check_scores_sum_to_t_minus_penalties(rules_json, game_json, result)
    check_ranks(rules_json, game_json, result)
    check_step_4_and_the_top(rules_json, {**game_json, "chombo": []}, without)
    check_chombo(rules_json, game_json, result, without)
    check_chips(rules_json, game_json, result)
    check_yen(rules_json, game_json, result)
    assert settle_game(rules, game_from_json(game_json)) == result  # deterministic


# --- (c) the rounding table -----------------------------------------------------------------------


@SETTINGS
@given(st.integers(-100_000, 100_000).map(lambda h: h * 100), st.sampled_from(ROUNDINGS))
def test_rounding_matches_the_table_and_is_odd(points, rounding):
    got = rounded_tenths(points, rounding)
    assert got == reference_rounding(points, rounding)
    assert rounded_tenths(-points, rounding) == -got
    assert abs(got * 100 - points) < 1000  # never off by a whole thousand
    if rounding != "none":
        assert got % 10 == 0
    if points >= 0:  # monotonic on each side of zero
        assert rounded_tenths(points + 100, rounding) >= got


# --- (e) a day -----------------------------------------------------------------------------------


@st.composite
def days(draw: st.DrawFn):
    rules_json = draw(rules_objects())
    games = draw(st.lists(game_objects(rules_json), max_size=4))
    attendees = draw(st.lists(st.sampled_from((*NAMES, "福田", "後藤")), max_size=3))
    present = sorted({p["name"] for g in games for p in g["players"]} | set(attendees))
    shugi = []
    if rules_json["session_shugi"] and present:
        shugi = draw(
            st.lists(st.builds(Shugi, st.sampled_from(present), st.integers(1, 3)), max_size=2)
        )
    return rules_json, games, attendees, shugi


@SETTINGS
@given(days())
def test_a_day_balances_and_the_transfers_settle_it(case):
    rules_json, games, attendees, shugi = case
    rules = rules_from_json(rules_json)
    results = [settle_game(rules, game_from_json(g)) for g in games]
    day = settle_day(rules, results, attendees=attendees, shugi=shugi)

    assert sum(p.yen for p in day.players) + day.house == 0
    unit = rules_json["yen_unit"]
    for p in day.players:
        assert p.yen % unit == 0
        assert 2 * abs(p.rounding) <= unit
        raw = p.game_yen + p.fees + p.shugi
        assert p.yen == half_away(Fraction(raw, unit)) * unit
        assert p.games == sum(p.name in {q["name"] for q in g["players"]} for g in games)
    names = [p.name for p in day.players]
    assert len(names) == len(set(names))
    assert set(names) == {q["name"] for g in games for q in g["players"]} | set(attendees)

    balance: dict[str | None, int] = {p.name: p.yen for p in day.players}
    balance[None] = day.house
    parties = sum(1 for v in balance.values() if v)
    assert len(day.transfers) <= max(parties - 1, 0)
    for t in day.transfers:
        assert t.yen > 0 and t.payer != t.payee
        balance[t.payer] += t.yen
        balance[t.payee] -= t.yen
    assert not any(balance.values())
    again = settle_day(rules, results, attendees=attendees, shugi=shugi)
    assert again.transfers == day.transfers


# --- (f) bad input never escapes as anything but one line and status 2 ----------------------------

KEYS = st.sampled_from(
    ["rules", "players", "name", "points", "deposits", "chombo", "chips", "rate", "kind",
     "winner", "from", "multiplier", "preset", "uma", "mode", "games", "attendees", "shugi"]
)  # fmt: skip
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([0, -1, 100, 25000, 10**30, -(10**30)])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=10)
    | st.sampled_from(["kinyokai-2015", "mame-no-kai", "0.3", "ippatsu", "青木", "", "\n"])
)
GARBAGE = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=8,
)


def run_main(command: str, value: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([command], stdin=io.StringIO(json.dumps(value, ensure_ascii=False)))
    return code, out.getvalue(), err.getvalue()


def assert_contract(command: str, value: object) -> int:
    code, out, err = run_main(command, value)
    if code == 0:
        assert err == ""
        parsed = json.loads(out)
        assert isinstance(parsed, list) == isinstance(value, list)
    else:
        assert code == 2
        assert out == ""
        assert len(err.splitlines()) == 1, err
        assert "Traceback" not in err
    return code


@SETTINGS
@given(st.sampled_from(["settle", "ledger"]), GARBAGE)
def test_garbage_is_settled_or_refused_in_one_line(command, value):
    assert_contract(command, value)


@SETTINGS
@given(st.sampled_from(["settle", "ledger"]), st.dictionaries(KEYS, GARBAGE, max_size=4))
def test_garbage_objects_with_the_right_keys_are_settled_or_refused_in_one_line(command, value):
    assert_contract(command, value)


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            found += paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += paths(v, (*prefix, i))
    return found


REPLACEMENTS = GARBAGE | st.sampled_from([10**30, -(10**30), -100, True, "25000", None, [], {}])
HOW = st.sampled_from(["replace", "replace", "delete", "add", "duplicate_name"])


@st.composite
def mutated_games(draw: st.DrawFn) -> dict[str, Any]:
    """A valid game (with a full rules object) with one thing changed at a random place."""
    rules_json, game_json = draw(rules_and_games())
    game = copy.deepcopy({"rules": rules_json, **game_json})
    everywhere = paths(game)[1:]
    *parent_path, key = everywhere[draw(st.integers(0, len(everywhere) - 1))]
    parent = game
    for step in parent_path:
        parent = parent[step]
    how = draw(HOW)
    old = parent[key]
    if how == "delete" and isinstance(parent, dict):
        del parent[key]
    elif how == "add" and isinstance(parent, dict):
        parent[draw(st.text(min_size=1, max_size=5))] = draw(SCALARS)
    elif how == "duplicate_name":
        game["players"][-1]["name"] = game["players"][0]["name"]
    elif isinstance(old, int) and not isinstance(old, bool) and draw(st.booleans()):
        # off the 100s, a float, the wrong sign, a string
        parent[key] = draw(st.sampled_from([old + 50, float(old), -old - 100, str(old)]))
    else:
        parent[key] = draw(REPLACEMENTS)
    return game


CHOMBO_MODE_A_LIST = {
    "rules": {"preset": "kinyokai-2015", "chombo": {"mode": []}},
    "players": [{"name": n, "points": 25000} for n in NAMES[:4]],
}


@SETTINGS
@given(mutated_games())
@example(
    CHOMBO_MODE_A_LIST
)  # found by this property: a TypeError escapes (see test_scoring_cli.py)
def test_valid_games_with_one_field_mutated_are_settled_or_refused_in_one_line(game):
    assert_contract("settle", game)


@FEW
@given(st.lists(mutated_games(), min_size=1, max_size=3))
def test_lists_of_mutated_games_are_settled_or_refused_in_one_line(games):
    assert_contract("settle", games)


@FEW
@given(rules_and_games(), st.sampled_from(["price", "dealer", "Players"]))
def test_an_unknown_game_key_is_refused(case, key):
    rules_json, game_json = case
    code, out, err = run_main("settle", {"rules": rules_json, **game_json, key: 1})
    assert (code, out) == (2, "")
    assert err.startswith(f"game 0: {key}: ")


# --- (g) determinism, and lists --------------------------------------------------------------------


@FEW
@given(st.lists(rules_and_games(), min_size=0, max_size=4))
def test_settle_is_deterministic_and_a_list_gives_a_list_of_the_same_length(cases):
    games = [{"rules": r, **g} for r, g in cases]
    code, out, err = run_main("settle", games)
    assert (code, err) == (0, "")
    got = json.loads(out)
    assert isinstance(got, list) and len(got) == len(games)
    assert got == [settle_json(g) for g in games]
    assert run_main("settle", games)[1] == out
    for game, one in zip(games, got, strict=True):
        assert [p["name"] for p in one["players"]] == [p["name"] for p in game["players"]]


@SETTINGS
@given(rules_objects())
def test_every_valid_rules_object_is_accepted_and_round_trips(rules_json):
    rules = rules_from_json(rules_json)
    assert rules.to_json() == rules_json
    assert rules_from_json(rules.to_json()) == rules
