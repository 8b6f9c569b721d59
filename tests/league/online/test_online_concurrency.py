"""The same online log recorded from four sessions at once, on PostgreSQL (SQLite serialises
writes): it is recorded once, under the club's lock; the others are told it is already there."""

from __future__ import annotations

from django.urls import reverse

from league.models import AuditLog, Game, Member, OnlineLog
from tests.support import paths
from tests.support.concurrency import (
    RACES,
    logged_in,
    race,
)

pytestmark = RACES  # PostgreSQL only, transactional

LOG = (paths.DATA / "online" / "2019021004gm-00a9-0000-e2f6516d.json").read_text(encoding="utf-8")


def test_one_log_recorded_from_four_sessions_at_once_is_recorded_once(club, members, organiser):
    url = reverse("online:online_import", args=[club.slug])
    post = {"step": "record", "log": LOG, "filename": "", "date": "2024-05-01"}
    post |= {f"member_{i}": str(m.pk) for i, m in enumerate(members[:4])}
    clients = [logged_in(organiser) for _ in range(4)]
    responses = race([lambda c=c: c.post(url, post) for c in clients])
    codes = sorted(r.status_code for r in responses)
    assert codes == [200, 200, 200, 302], codes
    assert Game.objects.count() == 1 and OnlineLog.objects.count() == 1
    assert AuditLog.objects.filter(action="online.record").count() == 1
    assert Member.objects.filter(online_names__isnull=False).count() == 4
