"""The record form under concurrent requests, on PostgreSQL (SQLite serialises every write, so
races cannot happen there): double submissions, games numbered without gaps, two organisers
editing the same game, and an edit racing a void. Each thread has its own client and its own
database connection; a barrier releases them together."""

from __future__ import annotations

import uuid

from django.contrib.messages import get_messages
from django.urls import reverse

from league.models import AuditLog, Day, Game, Member, Result
from tests.support.concurrency import (
    CHANGED,
    DATE,
    POINTS,
    RACES,
    edit_post,
    logged_in,
    new_game_post,
    race,
)
from tests.support.games import record_game

pytestmark = RACES  # PostgreSQL only, transactional

THREADS = 8
VOID_NOT_EDITED = "A void game cannot be edited."


def record(club, members, organiser) -> Game:
    return record_game(club, organiser, members[:4], POINTS, date=DATE, table="A", deposits=1000)


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def counted(game: Game) -> list[Result]:
    return list(Result.objects.filter(game=game, counted=True).order_by("seat"))


# --- recording ---------------------------------------------------------------------------------


def test_the_same_submission_from_eight_threads_records_one_game(club, members, organiser):
    clients = [logged_in(organiser) for _ in range(THREADS)]
    data = new_game_post(key=uuid.uuid4())
    url = reverse("recording:game_new", args=[club.slug])

    responses = race([lambda c=c: c.post(url, data) for c in clients])

    day_page = reverse("recording:day_detail", args=[club.slug, DATE])
    assert [(r.status_code, r["Location"]) for r in responses] == [(302, day_page)] * THREADS
    game = Game.objects.get()
    assert (game.number, game.revision, str(game.submission_key)) == (
        1,
        1,
        data["submission_key"],
    )
    assert Result.objects.count() == 4
    assert [r.points for r in counted(game)] == list(POINTS)
    assert Day.objects.count() == 1
    assert AuditLog.objects.filter(action="game.create").count() == 1


def test_eight_different_games_at_once_are_numbered_one_to_eight(club, members, organiser):
    clients = [logged_in(organiser) for _ in range(THREADS)]
    # The same result at eight tables: eight games, each confirmed as not a repeat.
    posts = [new_game_post(table=f"T{i}") | {"confirm_duplicate": "on"} for i in range(THREADS)]
    url = reverse("recording:game_new", args=[club.slug])

    responses = race([lambda c=c, d=d: c.post(url, d) for c, d in zip(clients, posts, strict=True)])

    assert [r.status_code for r in responses] == [302] * THREADS
    games = list(Game.objects.order_by("number"))
    assert [g.number for g in games] == list(range(1, THREADS + 1))
    assert sorted(g.table for g in games) == sorted(d["table"] for d in posts)
    assert Day.objects.count() == 1
    assert Result.objects.filter(counted=True).count() == 4 * THREADS
    assert AuditLog.objects.filter(action="game.create").count() == THREADS


def test_the_same_submission_with_a_new_guest_from_eight_threads(club, members, organiser):
    """The guest is created with the game, once: a twin request must not trip over the guest
    its sibling is creating."""
    clients = [logged_in(organiser) for _ in range(THREADS)]
    data = new_game_post(key=uuid.uuid4()) | {"member_3": "新顔", "guest_3": "on"}
    url = reverse("recording:game_new", args=[club.slug])

    responses = race([lambda c=c: c.post(url, data) for c in clients])

    day_page = reverse("recording:day_detail", args=[club.slug, DATE])
    assert [(r.status_code, r["Location"]) for r in responses] == [(302, day_page)] * THREADS
    guest = Member.objects.get(club=club, name="新顔")
    assert guest.is_guest
    game = Game.objects.get()
    assert [r.member_id for r in counted(game)][3] == guest.pk
    assert AuditLog.objects.filter(action="member.create").count() == 1


def test_games_at_several_tables_adding_the_same_new_guest_at_once(club, members, organiser):
    """Tables add the same newcomer at the same moment: one game seats the new guest, each other
    one is saved with that member or refused with a message on the seat; never a 500."""
    tables = "ABCD"
    clients = [logged_in(organiser) for _ in tables]
    posts = [new_game_post(table=t) | {"member_3": "新顔", "guest_3": "on"} for t in tables]
    url = reverse("recording:game_new", args=[club.slug])

    responses = race([lambda c=c, d=d: c.post(url, d) for c, d in zip(clients, posts, strict=True)])

    assert Member.objects.filter(club=club, name="新顔").count() == 1
    codes = [r.status_code for r in responses]
    assert set(codes) <= {200, 302} and 302 in codes
    for r in responses:
        if r.status_code == 200:  # the form back, the name kept, an error on the form
            page = r.content.decode()
            assert 'class="errorlist' in page and 'value="新顔"' in page
    assert Game.objects.count() == codes.count(302)


# --- editing -----------------------------------------------------------------------------------


def test_two_organisers_editing_at_once_one_wins_the_other_is_told(club, members, organiser):
    game = record(club, members, organiser)
    url = reverse("recording:game_edit", args=[club.slug, game.pk])
    first, second = logged_in(organiser), logged_in(organiser)
    # Both load the form at revision 1 ...
    for client in (first, second):
        assert client.get(url).context["form"]["revision"].value() == 1
    # ... and both save a different correction.
    corrections = [(53000, 30000, 19000, -3000), (52000, 31000, 20000, -4000)]
    responses = race(
        [
            lambda c=c, p=p: c.post(url, edit_post(p))
            for c, p in zip((first, second), corrections, strict=True)
        ]
    )

    codes = sorted(r.status_code for r in responses)
    assert codes == [200, 302]
    won = next(i for i, r in enumerate(responses) if r.status_code == 302)
    lost = responses[1 - won]
    assert responses[won]["Location"] == reverse("recording:game_detail", args=[club.slug, game.pk])
    # The loser gets the form back with what they typed and the reason, above the form.
    html = lost.content.decode()
    assert CHANGED in html
    assert 'class="form-errors"' in html
    assert all(f'value="{p:,}"' in html for p in corrections[1 - won])

    game.refresh_from_db()
    assert game.revision == 2
    assert [r.points for r in counted(game)] == list(corrections[won])
    assert all(r.revision == 2 for r in counted(game))
    assert AuditLog.objects.filter(game=game, action="game.edit").count() == 1


def test_an_edit_racing_a_void_leaves_a_consistent_game(club, members, organiser):
    """Several rounds, so that both orders are likely to happen. Both organisers saw revision 1:
    whichever commits first wins and the other is refused with the reason, so a game is never
    voided over a correction nobody looked at, and a void game never has counted rows."""
    for round_ in range(6):
        game = record(club, members, organiser)
        editor, voider = logged_in(organiser), logged_in(organiser)
        edit_url = reverse("recording:game_edit", args=[club.slug, game.pk])
        void_url = reverse("recording:game_void", args=[club.slug, game.pk])
        # A different correction each round: the same one would repeat an earlier round's game
        # edited to it, and the edit would stop at the duplicate question instead.
        correction = (53000 - 1000 * round_, 30000 + 1000 * round_, 19000, -3000)

        edited, voided = race(
            [
                lambda c=editor, u=edit_url, p=correction: c.post(u, edit_post(p)),
                lambda c=voider, u=void_url: c.post(u, {"reason": "entered twice", "revision": 1}),
            ]
        )

        game.refresh_from_db()
        detail = reverse("recording:game_detail", args=[club.slug, game.pk])
        actions = list(
            AuditLog.objects.filter(game=game).order_by("id").values_list("action", flat=True)
        )
        if game.revision == 2:  # the edit came first: the void of revision 1 is refused
            assert (edited.status_code, edited["Location"]) == (302, detail)
            assert voided.status_code == 200
            assert CHANGED in voided.content.decode()
            assert not game.voided
            assert actions == ["game.create", "game.edit"]
            assert [r.points for r in counted(game)] == list(correction)
        else:  # the void came first: the edit is refused with the reason, on the form or after
            assert (voided.status_code, voided["Location"]) == (302, detail)
            assert game.voided
            assert counted(game) == []
            assert actions == ["game.create", "game.void"]
            if edited.status_code == 200:  # the edit loaded the game before the void committed
                assert VOID_NOT_EDITED in edited.content.decode()
            else:
                assert (edited.status_code, edited["Location"]) == (302, detail)
                assert messages_of(edited) == [VOID_NOT_EDITED]
        assert set(Result.objects.filter(game=game).values_list("revision", flat=True)) == set(
            range(1, game.revision + 1)
        )
