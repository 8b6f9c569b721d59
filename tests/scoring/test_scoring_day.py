"""Settling a day: the payment ledger, deferred debts and the cup's pot (settlement.md)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from scoring import (
    PRESETS,
    GameResult,
    InputError,
    PlayerResult,
    Seat,
    Shugi,
    Transfer,
    deferred_debt,
    errors,
    pot_payout,
    settle_day,
    settle_transfers,
)
from scoring.game import Game, settle_game
from scoring.parse import ledger_json
from tests.support.scoring_cases import assert_one_line_error, check_transfers, load_cases, run_cli

MAME = PRESETS["mame-no-kai"].rules
KAGETSU = PRESETS["kagetsu-cup"].rules


def money_game(yens: dict[str, int]) -> GameResult:
    """A settled game whose only effect is `yens` (players listed from 1st to last)."""
    return GameResult(
        players=tuple(
            PlayerResult(
                name=n, points=40000 - 10000 * i, rank=i + 1, score=0, chips=0, yen=y, chombo=0
            )
            for i, (n, y) in enumerate(yens.items())
        ),
        total_score=0,
        deposits=0,
        rate="r",
    )


def day_yen(rules, *games: GameResult, **kwargs) -> dict[str | None, int]:
    day = settle_day(rules, games, **kwargs)
    return {**{p.name: p.yen for p in day.players}, None: day.house}


def kagetsu_game(order: tuple[str, str, str, str]) -> GameResult:
    points = (40000, 30000, 20000, 10000)
    return settle_game(
        KAGETSU, Game(seats=tuple(Seat(n, p) for n, p in zip(order, points, strict=True)))
    )


# --- rounding to the yen unit -------------------------------------------------------------------


def test_yen_unit_rounds_each_total_half_away_from_zero():
    unit = dataclasses.replace(MAME, yen_unit=100)
    day = settle_day(unit, [money_game({"A": 150, "B": -50, "C": 49, "D": -149})])
    assert [p.yen for p in day.players] == [200, -100, 0, -100]
    assert [p.rounding for p in day.players] == [50, -50, -49, 49]
    assert day.house == 0


def test_yen_unit_change_goes_to_the_house():
    unit = dataclasses.replace(MAME, yen_unit=100)
    got = day_yen(unit, money_game({"A": 140, "B": -60, "C": -80, "D": 0}))
    assert got == {"A": 100, "B": -100, "C": -100, "D": 0, None: 100}


def test_yen_unit_on_the_shared_mame_day():
    data = load_cases("ledger")[0]["input"]
    assert data["rules"] == "mame-no-kai"
    out = ledger_json({**data, "rules": {"preset": "mame-no-kai", "yen_unit": 100}})
    # 2,040 → 2,000; 1,140 → 1,100; −1,650 → −1,700 (half away); −1,860 → −1,900; 300 → 300
    assert [p["yen"] for p in out["players"]] == [2000, 1100, -1700, -1900, 300]
    assert out["house"] == 200  # 30 from the deposits plus 170 of rounding
    check_transfers(out)


def test_yen_unit_1_changes_nothing():
    got = day_yen(MAME, money_game({"A": 151, "B": -51, "C": -99, "D": -1}))
    assert got == {"A": 151, "B": -51, "C": -99, "D": -1, None: 0}


# --- place fees and session shūgi ----------------------------------------------------------------


def test_place_fee_is_paid_by_the_rank_to_the_house():
    day = settle_day(
        KAGETSU, [kagetsu_game(("A", "B", "C", "D")), kagetsu_game(("D", "C", "B", "A"))]
    )
    assert {p.name: p.fees for p in day.players} == {"A": -1000, "B": 0, "C": 0, "D": -1000}
    assert day.house == 2000


def test_place_fees_for_several_ranks():
    rules = dataclasses.replace(KAGETSU, place_fees={3: 500, 4: 1000})
    got = day_yen(rules, kagetsu_game(("A", "B", "C", "D")))
    assert got == {"A": 0, "B": 0, "C": -500, "D": -1000, None: 1500}


def test_session_shugi_comes_from_every_other_attendee_including_non_players():
    game = kagetsu_game(("A", "B", "C", "D"))
    day = settle_day(KAGETSU, [game], attendees=["E", "F"], shugi=[Shugi("B", 2)])
    assert [(p.name, p.games) for p in day.players] == [
        ("A", 1),
        ("B", 1),
        ("C", 1),
        ("D", 1),
        ("E", 0),
        ("F", 0),
    ]
    assert {p.name: p.shugi for p in day.players} == {
        "A": -4000,
        "B": 20000,
        "C": -4000,
        "D": -4000,
        "E": -4000,
        "F": -4000,
    }
    assert day.house == 1000  # D's place fee


def test_a_waiting_attendee_can_win_the_session_shugi():
    day = settle_day(
        KAGETSU, [kagetsu_game(("A", "B", "C", "D"))], attendees=["E"], shugi=[Shugi("E")]
    )
    assert {p.name: p.yen for p in day.players} == {
        "A": -2000,
        "B": -2000,
        "C": -2000,
        "D": -3000,
        "E": 8000,
    }


def test_an_attendee_who_also_played_appears_once():
    day = settle_day(KAGETSU, [kagetsu_game(("A", "B", "C", "D"))], attendees=["C", "E", "E"])
    assert [p.name for p in day.players] == ["A", "B", "C", "D", "E"]


def test_shugi_winner_not_present_is_refused():
    with pytest.raises(InputError) as caught:
        settle_day(KAGETSU, [kagetsu_game(("A", "B", "C", "D"))], shugi=[Shugi("Z")])
    assert [(p.field, p.code) for p in caught.value.problems] == [
        ("shugi[0].winner", errors.NOT_AT_TABLE)
    ]


def test_shugi_without_session_shugi_in_the_rules_is_refused():
    with pytest.raises(InputError) as caught:
        settle_day(MAME, [money_game({"A": 0, "B": 0, "C": 0, "D": 0})], shugi=[Shugi("A")])
    assert ("shugi", errors.NO_SESSION_SHUGI) in {(p.field, p.code) for p in caught.value.problems}


@pytest.mark.parametrize("multiplier", [0, -1, 101])
def test_shugi_multiplier_out_of_range_is_refused(multiplier):
    with pytest.raises(InputError) as caught:
        settle_day(KAGETSU, [kagetsu_game(("A", "B", "C", "D"))], shugi=[Shugi("A", multiplier)])
    assert [(p.field, p.code) for p in caught.value.problems] == [
        ("shugi[0].multiplier", errors.RANGE)
    ]


def test_ledger_command_with_an_absent_shugi_winner_is_one_line_naming_the_day():
    data = dict(load_cases("ledger")[1]["input"])
    data["shugi"] = [{"winner": "不在", "multiplier": 1}]
    proc = run_cli("ledger", input=json.dumps(data, ensure_ascii=False))
    assert proc.returncode == 2
    line = assert_one_line_error(proc.stderr, proc.stdout)
    assert line.startswith("day 0: shugi[0].winner: ")


def test_ledger_names_the_bad_game_of_the_day():
    data = json.loads(json.dumps(load_cases("ledger")[0]["input"]))
    data["games"][1]["players"][0]["points"] = 40050
    with pytest.raises(InputError) as caught:
        ledger_json(data)
    fields = {p.field for p in caught.value.problems}
    assert "games[1].players[0].points" in fields


def test_a_game_may_carry_its_own_rate_tier():
    data = json.loads(json.dumps(load_cases("ledger")[0]["input"]))
    data["games"][1]["rate"] = "0.5"
    out = ledger_json(data)
    # game 2 at 0.5: 馬場 +30.0 (40,000 − 30 + 20), 江藤 +10.0, 青木 −20.0, 千葉 −40.0 → × 50 yen
    eto = next(p for p in out["players"] if p["name"] == "江藤")
    assert eto["yen"] == 500
    check_transfers(out)


# --- transfers ------------------------------------------------------------------------------------


def test_transfers_largest_debtor_pays_largest_creditor():
    got = settle_transfers([("A", -50), ("B", -150), (None, 200)])
    assert got == (Transfer("B", None, 150), Transfer("A", None, 50))


def test_transfers_ties_go_in_the_order_the_parties_come():
    assert settle_transfers([("A", -100), ("B", -100), ("C", 100), ("D", 100)]) == (
        Transfer("A", "C", 100),
        Transfer("B", "D", 100),
    )
    assert settle_transfers([("B", -100), ("A", -100), ("D", 100), ("C", 100)]) == (
        Transfer("B", "D", 100),
        Transfer("A", "C", 100),
    )


def test_transfers_split_a_large_debt():
    got = settle_transfers([("A", 300), ("B", 200), ("C", -450), (None, -50)])
    assert got == (Transfer("C", "A", 300), Transfer("C", "B", 150), Transfer(None, "B", 50))


def test_transfers_the_club_can_pay():
    assert settle_transfers([("A", 70), (None, -70)]) == (Transfer(None, "A", 70),)


def test_transfers_are_deterministic_and_ignore_settled_parties():
    balances = [("A", 1234), ("B", 0), ("C", -1000), ("D", -1000), ("E", 766), (None, 0)]
    first = settle_transfers(balances)
    assert first == settle_transfers(list(balances))
    assert len(first) <= 4 - 1
    assert all(t.payer not in ("B", None) and t.payee not in ("B", None) for t in first)


def test_transfers_need_balances_that_sum_to_zero():
    with pytest.raises(ValueError):
        settle_transfers([("A", 100), ("B", -99)])
    assert settle_transfers([]) == ()
    assert settle_transfers([("A", 0), (None, 0)]) == ()


# --- deferred debt and the pot --------------------------------------------------------------------


def test_deferred_debt_adds_the_surcharge():
    assert deferred_debt(MAME, 1000) == 1100
    assert deferred_debt(MAME, 0) == 0


def test_deferred_debt_rounds_up_to_the_yen_unit():
    unit = dataclasses.replace(MAME, yen_unit=100)
    assert deferred_debt(unit, 1234) == 1400  # 1,357.4 rounded up to 100
    assert deferred_debt(unit, 1000) == 1100  # exact: nothing to round
    assert deferred_debt(dataclasses.replace(MAME, yen_unit=10), 1234) == 1360
    assert deferred_debt(MAME, 1234) == 1358  # 1,357.4 rounded up to 1


def test_deferred_debt_without_surcharge_and_negative_amounts():
    assert deferred_debt(KAGETSU, 1234) == 1234
    with pytest.raises(ValueError):
        deferred_debt(MAME, -1)


def test_pot_pays_the_venue_then_the_prize_up_to_the_cap():
    p = pot_payout(KAGETSU, 15000, 3000)
    assert (p.venue, p.prize, p.remainder) == (3000, 10000, 2000)


def test_pot_smaller_than_the_venue():
    p = pot_payout(KAGETSU, 2000, 3000)
    assert (p.venue, p.prize, p.remainder) == (2000, 0, 0)


def test_pot_without_a_cap_gives_all_the_rest_to_the_champion():
    p = pot_payout(MAME, 15000, 3000)
    assert (p.venue, p.prize, p.remainder) == (3000, 12000, 0)


def test_pot_refuses_negative_amounts():
    with pytest.raises(InputError):
        pot_payout(KAGETSU, -1, 3000)
    with pytest.raises(InputError):
        pot_payout(KAGETSU, 1000, -1)


# --- fill-ins (黒子): their money is the house's ---------------------------------------------------


def test_a_fill_in_s_money_is_the_house_s():
    from scoring import house_takes

    day = settle_day(MAME, [money_game({"A": 1500, "K": 300, "B": -600, "C": -1200})])
    taken = house_takes(day, ["K"])
    assert [p.name for p in taken.players] == ["A", "B", "C"]
    assert {p.name: p.yen for p in taken.players} == {"A": 1500, "B": -600, "C": -1200}
    assert taken.house == day.house + 300  # what the fill-in won, the house pays
    assert sum(p.yen for p in taken.players) + taken.house == 0
    paid = {(t.payer, t.payee): t.yen for t in taken.transfers}
    assert "K" not in {who for pair in paid for who in pair}
    assert sum(v for (_f, to), v in paid.items() if to == "A") == 1500
    assert house_takes(day, []) is day and house_takes(day, ["nobody"]) is day
