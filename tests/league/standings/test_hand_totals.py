"""The all-time hand statistics kept at write time (HandStatTotal): always the counted HandStat
rows summed, through a table game's save, its edit by hands and its void, and after
rebuild_aggregates; the player page reads the kept row."""

from __future__ import annotations

from league.core import changes
from league.models import HandStatTotal
from league.recording import services as recording
from league.standings import selectors
from league.table import services
from tests.support.hand_totals import kept, summed
from tests.support.table import game_hands, ids, record_all


def test_kept_totals_follow_save_edit_void_and_rebuild(tg, club, members, organiser):
    hands = game_hands(members)
    record_all(tg, organiser, hands)
    game = services.table_game_save(tg=tg, user=organiser)
    assert kept(members) == summed(members)
    assert kept(members)[members[3].pk]["games"] == 1
    changed = [{"event": e, "marks": m} for e, m in hands]
    changed[1]["marks"] = {}
    changed[-1]["marks"] = {ids(members)[3]: {"yaku": ["大三元"]}}
    game = services.table_game_edit(tg=tg, user=organiser, hands=changed, expected_revision=1)
    assert kept(members) == summed(members)
    assert kept(members)[members[3].pk]["yaku"] == {"大三元": 1}
    page = selectors.hand_stats(member=members[3])
    assert page["games"] == 1 and page["yaku"] == [("大三元", 1)]
    assert page == selectors.hand_stats(member=members[3], start=game.date, end=game.date)
    HandStatTotal.objects.all().delete()
    changes.club_rebuild(club.pk)
    assert kept(members) == summed(members)
    recording.game_void(game=game, user=organiser, reason="test")
    assert kept(members) == summed(members)
    assert kept(members)[members[3].pk]["games"] == 0
    assert selectors.hand_stats(member=members[3]) is None
