"""An evening of games: the next game starts at the day's last rate and table, the same four
(or the same table with seats rotated) are one tap, a rate that differs from the table's earlier
games is pointed out before saving, and every error of the form comes in one round."""

from __future__ import annotations

import datetime

from django.urls import reverse

from tests.support.games import record_game

DATE = datetime.date(2026, 11, 21)
POINTS = [40000, 30000, 20000, 10000]


def play(club, members, *, rate="0.3", table="A"):
    return record_game(club, None, members, POINTS, date=DATE, rate=rate, table=table)


def new_form(client, club, **params):
    url = reverse("recording:game_new", args=[club.slug])
    return client.get(url, {"date": str(DATE), **params}).context["form"]


def test_the_next_game_starts_at_the_days_last_rate_and_table(organiser_client, club, members):
    assert new_form(organiser_client, club)["rate"].value() == "0.2"  # nothing played yet
    play(club, members[:4], rate="0.3", table="B")
    form = new_form(organiser_client, club)
    assert form["rate"].value() == "0.3" and form["table"].value() == "B"
    play(club, members[:4], rate="0.5", table="A")
    assert new_form(organiser_client, club, table="B")["rate"].value() == "0.3"  # B's own


def test_same_four_and_rotate_seats(organiser_client, club, members):
    game = play(club, members[:4], rate="0.3", table="A")
    names = [m.name for m in members[:4]]
    form = new_form(organiser_client, club, seats=game.pk)
    assert [form[f"member_{i}"].value() for i in range(4)] == names
    assert form["rate"].value() == "0.3" and form["table"].value() == "A"
    form = new_form(organiser_client, club, rotate=game.pk)
    assert [form[f"member_{i}"].value() for i in range(4)] == names[1:] + names[:1]


def test_the_day_page_offers_them(organiser_client, club, members):
    game = play(club, members[:4], table="A")
    page = organiser_client.get(
        reverse("recording:day_detail", args=[club.slug, DATE])
    ).content.decode()
    assert f"seats={game.pk}" in page and f"rotate={game.pk}" in page and "table=A" in page


def post(names, points, **extra):
    data = {"date": str(DATE), "table": "A", "deposits": "0", "rate": "0.3", "action": "preview"}
    for i, (name, p) in enumerate(zip(names, points, strict=True)):
        data |= {f"member_{i}": name, f"points_{i}": str(p), f"chombo_{i}": "0"}
    return data | extra


def test_a_rate_other_than_the_tables_is_pointed_out_before_saving(organiser_client, club, members):
    play(club, members[:4], rate="0.3", table="A")
    url = reverse("recording:game_new", args=[club.slug])
    names = [m.name for m in members[:4]]
    response = organiser_client.post(url, post(names, POINTS, rate="0.2"))
    assert response.context["preview"] is not None
    assert (
        "0.3" in response.context["rate_warning"]
        and "data-rate-warning" in response.content.decode()
    )
    response = organiser_client.post(url, post(names, POINTS))
    assert response.context["rate_warning"] == ""


def test_every_error_comes_in_one_round(organiser_client, club, members):
    url = reverse("recording:game_new", args=[club.slug])
    names = ["誰でもない人", *[m.name for m in members[1:4]]]
    response = organiser_client.post(url, post(names, [40000, 30000, 20000, 9000]))
    form = response.context["form"]
    assert "member_0" in form.errors  # the unknown name…
    assert form.block_errors.get("points")  # …and the sum, at once
