"""Migration 0056 moves a photo of scores' own status machine (ScorePhoto.status, .error) onto a
job (league.jobs), as 0052 did for exports, uploads and re-settles: what each photo said before
is what its pages say after."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from league.models import ScorePhoto
from league.recording import photos
from tests.support.migrations import migrated_back, old_club_and_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_photo_says_after_the_migration_what_it_said_before():
    with migrated_back("0055_kept_books_removed") as apps:
        club, user = old_club_and_user(apps)
        later = timezone.now() + datetime.timedelta(hours=1)
        kept = apps.get_model("league", "ScorePhoto").objects

        def photo(status, **fields):
            return kept.create(
                club=club, user=user, kind="display", players=4, total=100_000, image=b"x",
                sha256="0" * 64, status=status, expires=later, **fields,
            )  # fmt: skip

        read = photo("done", rows=[{"points": 25_000, "checksum": True}])
        unreadable = photo("failed", error="unreadable")
        reading = photo("reading")

    def after(pk):
        return ScorePhoto.objects.select_related("job").get(pk=pk)

    assert photos.photo_read(after(read.pk)) and photos.photo_state(after(read.pk)).status == "done"
    assert after(read.pk).rows == [{"points": 25_000, "checksum": True}]
    for pk in (unreadable.pk, reading.pk):  # not read, and nothing will read it: another photo
        state = photos.photo_state(after(pk))
        assert not photos.photo_read(after(pk)) and state.status == "stalled" and not state.busy
    jobs = {after(pk).job for pk in (read.pk, unreadable.pk, reading.pk)}
    assert len(jobs) == 3 and {(j.kind, j.club_id, j.user_id) for j in jobs} == {
        ("photo", club.pk, user.pk)
    }
