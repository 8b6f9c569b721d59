"""The draw's day picker keeps the app's date rule (issue 39): it made days on 0001-01-01 and
9999-12-31, which the books check then reported. Such a date is refused on the form, naming the
field, and no day is made; a day in the rule opens as before."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from league.core.clock import today
from league.core.errors import ServiceError
from league.draw import services as draw
from league.models import Day


@pytest.mark.parametrize("date", ["0001/01/01", "9999/12/31", "1999/12/31"])
def test_a_day_outside_the_date_rule_is_refused(organiser_client, club, date):
    response = organiser_client.post(reverse("draw:draw_start", args=[club.slug]), {"date": date})
    assert response.status_code == 200
    assert "date" in response.context["form"].errors
    assert not Day.objects.exists()


def test_the_service_refuses_it_too_and_a_day_in_the_rule_opens(club, organiser, organiser_client):
    with pytest.raises(ServiceError) as caught:
        draw.day_open(club=club, user=organiser, date=datetime.date(9999, 12, 31))
    assert list(caught.value.errors) == ["date"]
    response = organiser_client.post(
        reverse("draw:draw_start", args=[club.slug]), {"date": f"{today():%Y/%m/%d}"}
    )
    assert response.status_code == 302
    assert Day.objects.filter(club=club, date=today()).exists()
