"""The preview and the game page explain each score step by step (league.recording.breakdown), so that an
organiser can check by hand why 小林 has +79.0 where a hand count without 箱下 gives 82."""

from __future__ import annotations

import datetime

from django.urls import reverse

import scoring
from league.recording import breakdown, services
from league.recording.services import GameInput, SeatInput

DATE = datetime.date(2026, 11, 21)
POINTS = [52000, 31000, 19000, -3000]  # マメの会 settles 箱下 as 0: the 4th's −3,000 is not paid


def game_input(members, **kwargs):
    seats = [SeatInput(m, p) for m, p in zip(members[:4], POINTS, strict=True)]
    seats[1] = SeatInput(members[1], POINTS[1], 1)  # 馬場's chombo: pays the top 20
    return GameInput(date=DATE, seats=seats, deposits=1000, rate="0.3", **kwargs)


def tenths(shown: str) -> int:
    """A score as shown ("+20.0", "▲3.0") back to tenths, in integers."""
    digits = int(shown.lstrip("+-▲").replace(".", "").replace(",", ""))
    return -digits if shown.startswith(("▲", "-")) else digits


def column_sums_are_the_scores(table: breakdown.Breakdown, result: scoring.GameResult) -> None:
    steps = [r for r in table.rows if r.label not in ("素点", "精算上の素点（箱下は0点）")]
    score_at = next(i for i, r in enumerate(steps) if r.total)
    for seat, player in enumerate(result.players):
        parts = [steps[i].cells[seat] for i in range(score_at)]
        total = sum(tenths(c) for c in parts)
        assert total == player.score


def test_the_parts_of_a_mame_no_kai_game(club, members):
    preview = services.game_preview(club=club, data=game_input(members))
    table = breakdown.breakdown(preview.result, [m.name for m in preview.members], "東南西北")
    labels = [r.label for r in table.rows]
    assert labels[:2] == [
        "素点",
        "精算上の素点（箱下は0点）",
    ]  # shown because 箱下 changed something
    assert "トップが負担する端数・箱下" in labels and "チョンボ" in labels and "オカ" in labels
    settled = next(r for r in table.rows if r.label.startswith("精算上"))
    assert settled.cells[3] == "0"
    absorbed = next(r for r in table.rows if r.label.startswith("トップが負担"))
    assert absorbed.cells[0] == "▲3.0"  # the top pays what the 4th does not
    assert table.rows[-1].label == "収支"
    column_sums_are_the_scores(table, preview.result)


def test_the_preview_and_the_game_page_show_the_same_breakdown(organiser_client, club, members):
    url = reverse("recording:game_new", args=[club.slug])
    data = {"date": str(DATE), "table": "A", "deposits": "1000", "rate": "0.3", "action": "preview"}
    for i, (m, p) in enumerate(zip(members[:4], POINTS, strict=True)):
        data |= {
            f"member_{i}": m.name,
            f"points_{i}": str(p),
            f"chombo_{i}": "1" if i == 1 else "0",
        }
    preview = organiser_client.post(url, data)
    assert "成績の内訳" in preview.content.decode()
    shown = preview.context["breakdown"]
    game = services.game_record(club=club, user=None, data=game_input(members))
    page = organiser_client.get(reverse("recording:game_detail", args=[club.slug, game.pk]))
    assert page.context["breakdown"] == shown
    assert "精算上の素点" in page.content.decode()


def test_a_plain_game_shows_only_the_steps_it_has(club, members):
    seats = [
        SeatInput(m, p) for m, p in zip(members[:4], [40000, 30000, 20000, 10000], strict=True)
    ]
    preview = services.game_preview(club=club, data=GameInput(date=DATE, seats=seats, rate="0.3"))
    table = breakdown.breakdown(preview.result, [m.name for m in preview.members], "東南西北")
    labels = [r.label for r in table.rows]
    assert "精算上の素点（箱下は0点）" not in labels and "チョンボ" not in labels
    assert "飛び賞" not in labels and "焼き鳥" not in labels
    column_sums_are_the_scores(table, preview.result)
