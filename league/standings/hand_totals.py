"""The all-time hand statistics kept at write time (league.models.hands.HandStatTotal): the
projection "hand totals" of league.core.changes.

Every action that counts or uncounts HandStat rows (a table game saved or edited by its hands, an
online log kept, a game's new revision, a void) records `HandStatsChanged` with the rows: as it
ends, the members' totals move by those rows (`hand_stats_changed`). `club_rebuilt` recomputes a
club's from the counted rows (manage.py rebuild_aggregates, restore), `member_rebuilt` one
member's (a merge moved their rows: `MembersMerged`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Count, QuerySet, Sum

from league.core import changes
from league.core.locks import for_update
from league.models import HandStat, HandStatTotal, Member
from league.models.hands import HAND_SUMS


def _add(total: HandStatTotal, stat: HandStat, sign: int) -> None:
    total.games += sign
    for name in HAND_SUMS:
        setattr(total, name, getattr(total, name) + sign * getattr(stat, name))
    yaku = dict(total.yaku or {})
    for name, count in (stat.yaku or {}).items():
        left = yaku.get(name, 0) + sign * count
        if left:
            yaku[name] = left
        else:
            yaku.pop(name, None)
    total.yaku = yaku


def hand_stats_changed(*, added: Iterable[HandStat] = (), removed: Iterable[HandStat] = ()) -> None:
    """Move the members' all-time totals by the rows now counted (`added`) and no longer
    counted (`removed`). A constant number of queries per call."""
    changes = [(s, 1) for s in added] + [(s, -1) for s in removed]
    if not changes:
        return
    fill_ins = set(
        Member.objects.filter(
            pk__in={s.member_id for s, _sign in changes}, fill_in=True
        ).values_list("pk", flat=True)
    )
    changes = [(s, sign) for s, sign in changes if s.member_id not in fill_ins]  # count for nobody
    if not changes:
        return
    members = {s.member_id for s, _sign in changes}
    totals = {
        t.member_id: t for t in for_update(HandStatTotal.objects).filter(member_id__in=members)
    }
    new = {
        m: HandStatTotal(
            member_id=m, club_id=next(s.club_id for s, _ in changes if s.member_id == m)
        )
        for m in members
        if m not in totals
    }
    for stat, sign in changes:
        _add(totals.get(stat.member_id) or new[stat.member_id], stat, sign)
    HandStatTotal.objects.bulk_create(new.values())
    fields = ["games", *HAND_SUMS, "yaku"]
    HandStatTotal.objects.bulk_update(totals.values(), fields)


def club_rebuilt(*, club_id: int) -> None:
    """Recompute a club's totals from its counted HandStat rows."""
    HandStatTotal.objects.filter(club_id=club_id).delete()
    _insert(club_id, HandStat.objects.filter(club_id=club_id, counted=True, member__fill_in=False))


def member_rebuilt(*, member: Member) -> None:
    """Recompute one member's total from their counted HandStat rows (both members of a merge:
    the survivor's sums what both records played, the merged record's is gone with its rows)."""
    HandStatTotal.objects.filter(member=member).delete()
    _insert(
        member.club_id, HandStat.objects.filter(member=member, counted=True, member__fill_in=False)
    )


def _insert(club_id: int, rows: QuerySet[HandStat]) -> None:
    """The totals of the members of `rows` (counted HandStat rows), in four queries."""
    sums: dict[int, dict[str, Any]] = {
        r["member_id"]: r
        for r in rows.values("member_id")
        .annotate(games=Count("id"), **{f: Sum(f) for f in HAND_SUMS})
        .order_by("member_id")
    }
    yaku: dict[int, dict[str, int]] = {}
    for member_id, listed in (
        rows.exclude(yaku={}).values_list("member_id", "yaku").iterator(chunk_size=5000)
    ):
        mine = yaku.setdefault(member_id, {})
        for name, count in listed.items():
            mine[name] = mine.get(name, 0) + count
    HandStatTotal.objects.bulk_create(
        (
            HandStatTotal(
                member_id=m,
                club_id=club_id,
                games=r["games"],
                **{f: r[f] or 0 for f in HAND_SUMS},
                yaku=yaku.get(m, {}),
            )
            for m, r in sums.items()
        ),
        batch_size=2000,
    )


@changes.projection(
    "hand totals",
    order=2,
    follows=(changes.HandStatsChanged, changes.MembersMerged),
    sources=(HandStat._meta.db_table,),
    rebuild=lambda club_id: club_rebuilt(club_id=club_id),
)
def changes_applied(changed: list[Any]) -> None:
    """An action's changes: every row's delta at once, then the records of a merge rebuilt."""
    stats = [c for c in changed if isinstance(c, changes.HandStatsChanged)]
    hand_stats_changed(
        added=[s for c in stats for s in c.added], removed=[s for c in stats for s in c.removed]
    )
    for change in changed:
        if isinstance(change, changes.MembersMerged):
            member_rebuilt(member=change.keep)
            member_rebuilt(member=change.gone)
