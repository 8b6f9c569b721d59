"""Issue 40 on a 390×844 phone: at a 3-player table the point calculator takes 北抜き (each 北 set
aside a dora) and offers 地和 to a non-dealer's tsumo; 人和 is not offered where the club does not
count it."""

from __future__ import annotations

import pytest

from league.models import Member
from tests.support.clubs import MEMBER_NAMES, make_playing_club
from tests.support.table_mode import panel_pick, start_table, winner_box

pytestmark = pytest.mark.django_db(transaction=True)


def test_kita_and_chiihou_in_the_calculator(phone, live_server, log_in, screenshot):
    club = make_playing_club("pairon3", "pairon-kansai-3p", "関西ぱいろん", MEMBER_NAMES[:3])
    page = phone
    log_in("organiser")
    members = list(Member.objects.filter(club=club).order_by("pk"))
    start_table(page, live_server.url, club, members)
    winner = members[1].name
    page.locator("[data-result='tsumo']").click()
    panel_pick(page, "winners", winner)
    box = winner_box(page, winner)
    box.locator("[data-mark='calc']").click()
    calc = box.locator("[data-calc]")
    flags = calc.locator("[data-flag]")
    offered = {flags.nth(i).get_attribute("data-flag") for i in range(flags.count())}
    # A non-dealer's tsumo: 地和 offered, not 天和 (the dealer's) nor 人和 (a ron, and the club
    # does not count it); 北抜き at this 3-player table.
    assert {"chiihou", "kita"} <= offered and not offered & {"tenhou", "renhou"}
    for suit, digits in (("p", "11456"), ("s", "789123"), ("z", "555")):
        calc.locator(f"[data-suit='{suit}']").click()
        for d in digits:
            calc.locator(f"[data-tile='{d}{suit}']").click()
    calc.locator("[data-flag='kita']").click()
    calc.locator("[data-flag='kita']").click()
    screenshot("table-calculator-kita")
    calc.locator("[data-calc-go]").click()
    valued = box.locator("[data-valued]")
    valued.wait_for()
    screenshot("table-calculated-kita")
    # 門前清自摸和 + 役牌 白 + two 北 set aside: 4 han 30 fu (without them: 2 han).
    assert box.locator("[data-han='4']").first.get_attribute("aria-pressed") == "true"
    assert "役牌 白" in valued.inner_text()
