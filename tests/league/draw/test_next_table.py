"""Issue 42 part 4, "my next table": each checked-in player's next table and wind
(「次：第3回戦 B卓 西家」) on My page, in the API's draw and in the day's LINE text, from one query
whatever the size of the day."""

from __future__ import annotations

import datetime
import json

import pytest
from django.test import Client
from django.urls import reverse

from league.accounts import tokens as api_auth
from league.chat import sharing
from league.core import clock
from league.draw import selectors as sel
from league.draw import services as draw
from league.models import Day, Member
from league.models.draw import next_tables
from tests.support.clubs import make_user
from tests.support.draw import DATE, check_in_all, people, record_table


def _where(day: Day, member: Member) -> tuple[int, str, str] | None:
    """The member's first unrecorded seat, read the long way from the draw's own selectors."""
    for rv in sel.current_rounds(day):
        for tv in rv.tables:
            if not tv.recorded and member in tv.players:
                return rv.round.number, tv.table.label, sel.WINDS[tv.players.index(member)]
    return None


def _cup(club, user, date: datetime.date) -> tuple[Day, list[Member]]:
    """A cup day: 9 players, 3 rounds drawn at once with seats (one sits out each round)."""
    players = people(club, 9)
    for m in players:
        draw.attendance_check_in(club=club, user=user, date=date, member=m)
    draw.schedule_draw(club=club, user=user, date=date, rounds=3)
    return Day.objects.get(club=club, date=date), players


@pytest.fixture
def cup(club, organiser) -> tuple[Day, list[Member]]:
    return _cup(club, organiser, DATE)


@pytest.fixture
def ten(club) -> list[Member]:
    return people(club, 10)


def test_each_player_s_next_table_follows_the_recorded_games(
    club, organiser, organiser_client, cup
) -> None:
    day, players = cup
    rounds = sel.current_rounds(day)
    for played in range(3):
        found = next_tables(club_id=club.pk, date=DATE)
        for m in players:
            expected = _where(day, m)
            if expected is None:
                assert m.pk not in found
            else:
                n = found[m.pk]
                assert (n.round, n.table, n.wind) == expected
                assert n.text == f"次：第{n.round}回戦 {n.table}卓 {n.wind}家"
        # Whoever sits out this round sits at a table of the next one, not "out".
        out = rounds[played].sitting_out
        if played < 2:
            assert all(found[m.pk].round > played + 1 for m in out)
        for tv in rounds[played].tables:
            record_table(organiser_client, club, tv)
        rounds = sel.current_rounds(day)
    assert next_tables(club_id=club.pk, date=DATE) == {}  # every table recorded


def test_a_player_who_left_has_no_next_table(club, organiser, cup) -> None:
    day, _players = cup
    gone = next(m for tv in sel.current_rounds(day)[0].tables for m in tv.players)
    assert gone.pk in next_tables(club_id=club.pk, date=DATE)
    draw.attendance_leave(club=club, user=organiser, day=day, member=gone)
    assert gone.pk not in next_tables(club_id=club.pk, date=DATE)
    assert gone.pk not in next_tables(club_id=club.pk, date=DATE, member_id=gone.pk)


def test_seats_left_to_the_table_give_the_table_only(club, organiser) -> None:
    check_in_all(club, organiser, people(club, 4))
    draw.round_draw(club=club, user=organiser, date=DATE, seats_drawn=False)
    texts = {n.text for n in next_tables(club_id=club.pk, date=DATE).values()}
    assert texts == {"次：第1回戦 A卓"}


def test_a_redraw_moves_the_next_table(club, organiser, ten) -> None:
    """Only the latest revision of a round counts."""
    day = check_in_all(club, organiser, ten)
    draw.round_draw(club=club, user=organiser, date=DATE)
    draw.round_draw(club=club, user=organiser, date=DATE, redraw=True)
    found = next_tables(club_id=club.pk, date=DATE)
    assert sel.current_rounds(day)[0].round.revision == 2
    assert len(found) == 8  # two tables; two sit out
    for m in ten:
        n = found.get(m.pk)
        assert _where(day, m) == (None if n is None else (n.round, n.table, n.wind))


@pytest.mark.parametrize("size", [9, 33])
def test_one_query_whatever_the_day(club, organiser, size, django_assert_num_queries) -> None:
    check_in_all(club, organiser, people(club, size))
    draw.schedule_draw(club=club, user=organiser, date=DATE, rounds=4)
    with django_assert_num_queries(1):
        found = next_tables(club_id=club.pk, date=DATE)
    assert len(found) == size


def test_my_page_shows_my_next_table(club, organiser) -> None:
    day = _cup(club, organiser, clock.today())[0]
    me = sel.current_rounds(day)[0].tables[1].players[2]  # round 1, table B, 西
    me.user = make_user("chiba", club)
    me.save(update_fields=["user"])
    client = Client()
    client.force_login(me.user)
    page = client.get(reverse("mypage:my_page", args=[club.slug])).content.decode()
    assert 'id="next-table"' in page and "次：第1回戦 B卓 西家" in page


def test_the_api_draw_lists_the_next_tables(club, organiser, cup) -> None:
    _day, players = cup
    secret = api_auth.token_create(club=club, user=organiser, name="bot")[1]
    data = json.loads(
        Client()
        .get(
            f"/api/clubs/{club.slug}/days/{DATE}/draw",
            headers={"Authorization": f"Bearer {secret}"},
        )
        .content
    )
    found = next_tables(club_id=club.pk, date=DATE)
    assert len(data["next"]) == len(players) == len(found)
    for row in data["next"]:
        n = found[row["member_id"]]
        assert (row["round"], row["table"], row["wind"], row["text"]) == (
            n.round,
            n.table,
            n.wind,
            n.text,
        )
        assert row["text"].startswith("次：第")


def test_the_day_s_text_lists_the_next_tables(club, organiser, cup) -> None:
    day, _players = cup
    text = sharing.day_message(club=club, day=day)
    found = next_tables(club_id=club.pk, date=DATE)
    lines = text.splitlines()
    start = lines.index("■次の卓")
    assert lines[start + 1 : start + 1 + len(found)] == [
        f"{n.name} {n.text}" for n in found.values()
    ]
