"""Every hand says who entered it (issue 41, item 1's audit): the table's JSON (what the phone
reads, the API's hands) and the game page's hand list name the member whose login entered each
hand, or the login's name when it is linked to no member of the club; read in the same query as
the hands, so that the pages' query counts do not grow with the hands."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league.models import Member, Membership
from league.table import services
from tests.support.clubs import client_for, make_user
from tests.support.table import DATE, game_hands, linked_login, record_by_turns


@pytest.fixture
def seated(club, members):
    """A plain member whose login is linked to the table's first player (青木)."""
    return linked_login(club, members[0], "seated")


def boot(page) -> dict:
    found = re.search(r'id="table-boot"[^>]*>(.*?)</script>', page.content.decode(), re.S)
    return json.loads(found.group(1))


def test_the_tables_json_names_who_entered_each_hand(club, members, tg, organiser, seated):
    # Hands by turns: the seated member (青木's login), then the organiser (no member).
    record_by_turns(tg, [seated, organiser], game_hands(members)[:3])
    state = client_for(seated).get(f"/api/clubs/{club.slug}/tables/{tg.key}").json()
    assert [h["recorded_by"] for h in state["hands"]] == ["青木", "organiser", "青木"]
    # The page's boot (the phone's first view and a watcher's) says the same.
    page = client_for(organiser).get(f"/c/{club.slug}/table/{tg.key}/")
    assert [h["recorded_by"] for h in boot(page)["state"]["hands"]] == ["青木", "organiser", "青木"]
    # A hand put through the API answers with its recorder too.
    event = {"result": "draw", "tenpai": []}
    answer = client_for(seated).put(
        f"/api/clubs/{club.slug}/tables/{tg.key}/hands/3",
        json.dumps({"event": event}),
        "application/json",
        headers={"Idempotency-Key": "h3"},
    )
    assert answer.status_code == 201, answer.json()
    assert answer.json()["hands"][3]["recorded_by"] == "青木"


def test_a_login_linked_to_a_member_of_another_club_shows_its_username(
    club, other_club, members, tg, organiser
):
    """The name is the member's in the table's club: a login linked only elsewhere is named by
    its username (a guest scorer, a helper from another club)."""
    helper = make_user("helper", club, Membership.ORGANISER)
    Member.objects.create(club=other_club, name="別クラブの人", user=helper)
    record_by_turns(tg, [helper], game_hands(members)[:1])
    state = client_for(organiser).get(f"/api/clubs/{club.slug}/tables/{tg.key}").json()
    assert state["hands"][0]["recorded_by"] == "helper"


def test_the_tables_json_reads_the_recorders_with_the_hands(
    club, members, tg, organiser, seated, django_assert_num_queries
):
    """The recorders come in the hands' query: one hand or four, by one recorder or two, the
    same number of queries."""
    client = client_for(seated)
    url = f"/api/clubs/{club.slug}/tables/{tg.key}"
    record_by_turns(tg, [seated], game_hands(members)[:1])
    client.get(url)  # warm the session
    with CaptureQueriesContext(connection) as one:
        client.get(url)
    # session + user, the club with the role, the table game, its live hands with their
    # recorders.
    assert len(one) == 5
    tg2 = services.table_start(
        club=club, user=organiser, key=uuid.uuid4(), date=DATE, members=members[:4], rate="0.3"
    )
    record_by_turns(tg2, [seated, organiser], game_hands(members)[:4])
    with django_assert_num_queries(len(one)):
        state = client.get(f"/api/clubs/{club.slug}/tables/{tg2.key}").json()
    assert [h["recorded_by"] for h in state["hands"]] == ["青木", "organiser"] * 2


def test_the_game_page_says_who_entered_each_hand(
    club, members, tg, organiser, seated, organiser_client, django_assert_num_queries
):
    record_by_turns(tg, [seated, organiser], game_hands(members))
    game = services.table_game_save(tg=tg, user=seated)
    url = f"/c/{club.slug}/games/{game.pk}/"
    organiser_client.get(url)
    # session + user, the club with the role, the game, its results, its chips (this game has
    # 一発 and 役満 chips), its hands with their recorders, its table game, its history: naming
    # the recorders adds no query, however many hands and recorders.
    with django_assert_num_queries(9):
        page = organiser_client.get(url)
    html = page.content.decode()
    said = re.findall(r"data-hand-recorder>· ([^<]*)</span>", html)
    assert said == ["入力：青木", "入力：organiser"] * 2 + ["入力：青木"]
    # Who saved the game, on its 記録 line and in its history, is named the same way.
    assert re.search(r"<dd>青木 · \d{4}/\d{2}/\d{2} \d{2}:\d{2}</dd>", html)
    history = html[html.index('class="history"') :]
    assert "seated" not in history  # the login's name is not shown for a member
    assert history.count('<span class="muted">青木 · ') >= 2  # saved; linked to its table
    # A member may read the game page too (not only organisers).
    assert "入力：青木" in client_for(seated).get(url).content.decode()


def test_an_online_games_hands_name_nobody(members, organiser):
    """Hands read from an online game's log were entered by nobody: the game page does not name
    the organiser who imported it beside each hand (its 記録 line does)."""
    from league.recording import selectors
    from tests.support.online import record as online_record

    game = online_record(members[0].club, organiser, members[:4])
    hands, key = selectors.game_hands(game=game, names=[m.name for m in members[:4]])
    assert len(hands) == 10 and key == ""
    assert [h.recorder for h in hands] == [""] * 10
