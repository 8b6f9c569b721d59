"""Numbers from an address or a form are checked against their columns before they reach the
database (issue 39): a rate of 100,000,000 yen per 1,000 points (the yen column overflowed), a
draw-table id past 2^31−1 at table mode's start, a statement page of 18 digits. Each was a 500
(on PostgreSQL; SQLite stores what PostgreSQL refuses)."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

import scoring
from league import limits
from league.models import Result, TableGame
from league.recording.services import GameInput, SeatInput, game_record
from league.rules import services as rules_services
from scoring import rules as scoring_rules


def rules_with_rate(yen: int, chip: int = 0) -> dict:
    rules = scoring.PRESETS["mame-no-kai"].rules.to_json()
    rules["rates"] = {"big": {"yen_per_1000": yen, "chip_yen": chip}}
    return rules


@pytest.mark.parametrize("field", ["yen_per_1000", "chip_yen"])
def test_a_rate_past_the_largest_is_refused_naming_it(field):
    too_much = {"yen_per_1000": 10, "chip_yen": 10, field: 100_000_000}
    with pytest.raises(scoring.InputError) as caught:
        scoring.rules_from_json(rules_with_rate(too_much["yen_per_1000"], too_much["chip_yen"]))
    assert [p.field for p in caught.value.problems] == [f"rules.rates.big.{field}"]


def test_the_largest_legal_game_at_the_largest_rate_fits_its_columns(club, members, organiser):
    top = scoring_rules.MAX_RATE_YEN
    rules_services.rules_version_create(
        club=club,
        user=organiser,
        effective_from=datetime.date(2026, 1, 1),
        rules_json=rules_with_rate(top, top),
        preset="mame-no-kai",
    )
    points = scoring_rules.MAX_POINTS
    rest = -(points - 100_000) // 3
    seats = [points, rest, rest, 100_000 - points - 2 * rest]
    game = game_record(
        club=club,
        user=organiser,
        data=GameInput(
            date=datetime.date(2026, 11, 20),
            seats=[SeatInput(m, p) for m, p in zip(members[:4], seats, strict=True)],
            rate="big",
        ),
    )
    yen = list(Result.objects.filter(game=game).values_list("yen", flat=True))
    assert max(abs(y) for y in yen) > 1_000_000
    assert all(abs(y) < 2**31 for y in yen)


def test_a_draw_table_id_past_its_column_is_a_message_not_a_500(organiser_client, club, members):
    url = reverse("table:table_new", args=[club.slug])
    post = {
        "date": "2026-11-20",
        "rate": "0.3",
        "key": "6f1c1b8e-8a8f-4a39-9d2e-7a7c2f9a1b11",
        **{f"member_{i}": str(m.pk) for i, m in enumerate(members[:4])},
    }
    for draw_table in ("2147483648", "999999999999999999"):
        response = organiser_client.post(url, {**post, "draw_table": draw_table})
        assert response.status_code == 200
        assert "2,147,483,647" in response.content.decode()
    assert not TableGame.objects.exists()
    assert limits.number_problem(TableGame, "draw_table", 2**31 - 1) is None


def test_a_statement_page_of_18_digits_is_a_404(member_client, club, members):
    url = reverse("money:member_statement", args=[club.slug, members[0].pk])
    assert member_client.get(f"{url}?page=999999999999999999").status_code == 404
    assert member_client.get(f"{url}?page=2").status_code == 200
