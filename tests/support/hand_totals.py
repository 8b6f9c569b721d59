"""The all-time hand statistics, kept and summed."""

from __future__ import annotations

from django.db.models import Count, Sum

from league.models import HandStat, HandStatTotal
from league.models.hands import HAND_SUMS

# The standings' hand columns, last on the table when shown, as a reader sees them.
HAND_HEADERS = [
    "局記録",
    "局数",
    "和了率",
    "放銃率",
    "立直率",
    "副露率（和了時）",
    "平均打点",
    "平均放銃",
]


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
