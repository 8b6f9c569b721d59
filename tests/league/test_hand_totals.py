"""The all-time hand statistics kept at write time (HandStatTotal): always the counted HandStat
rows summed, through a table game's save, its edit by hands and its void, and after
rebuild_aggregates; the player page reads the kept row."""

from __future__ import annotations

from django.db.models import Count, Sum

from league.core import changes
from league.models import HandStat, HandStatTotal
from league.models.hands import HAND_SUMS
from league.recording import services as recording
from league.standings import selectors
from league.table import services
from tests.league.test_table import game_hands, ids, record_all, tg  # noqa: F401


def summed(members):
    """The counted rows summed per member, as the kept totals must hold them."""
    out = {}
    for m in members[:4]:
        rows = HandStat.objects.filter(member=m, counted=True)
        sums = rows.aggregate(games=Count("id"), **{f: Sum(f) for f in HAND_SUMS})
        yaku: dict[str, int] = {}
        for listed in rows.values_list("yaku", flat=True):
            for name, count in listed.items():
                yaku[name] = yaku.get(name, 0) + count
        out[m.pk] = {k: v or 0 for k, v in sums.items()} | {"yaku": yaku}
    return out


def kept(members):
    out = {}
    for m in members[:4]:
        t = HandStatTotal.objects.filter(member=m).first()
        fields = ["games", *HAND_SUMS]
        out[m.pk] = (
            {f: getattr(t, f) for f in fields} | {"yaku": t.yaku}
            if t
            else dict.fromkeys(fields, 0) | {"yaku": {}}
        )
    return out


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
