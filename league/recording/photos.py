"""「写真から」: a game's scores read from a photo (league.core.photo) by a worker, then shown on the
record form for the organiser to confirm. Nothing is saved from a photo without that: the form
is filled in, and the organiser checks and saves as always.

The photo is kept (ScorePhoto) only until the game read from it is saved, or for KEEP; its
SHA-256 goes in the game's audit log (`game.photo`). Whether it is being read, read, or could not
be read is its job's (league.jobs: the task's own result, `photo_state`): a photo that cannot be
read fails its task (photo.Unreadable)."""

from __future__ import annotations

import datetime
import hashlib
import io
import tempfile
from pathlib import Path
from typing import Any

from django.utils import timezone

from league import jobs
from league.core import photo
from league.core.actions import action
from league.core.tasks import default_task_backend, enqueue_on_commit, task
from league.models import Club, Game, Job, ScorePhoto
from league.models.audit import User, audit

KEEP = datetime.timedelta(hours=24)
MAX_BYTES = 12 * 1024 * 1024


def available() -> bool:
    """Whether photos can be read here (requirements-photo.txt and ssocr installed): without,
    the record form has no 「写真から」."""
    return photo.available("display") and photo.available("sheet")


def image_problem(data: bytes) -> str | None:
    """Why `data` is not a photo that can be read, or None."""
    if len(data) > MAX_BYTES:
        return "too large"
    try:
        photo.check_image(io.BytesIO(data))
    except photo.Unreadable:
        return "not an image"
    return None


def photo_keep(
    *, club: Club, user: User, data: bytes, kind: str, players: int, total: int
) -> ScorePhoto:
    """Keep a photo for its organiser (replacing their earlier one for this club, and removing
    every expired one), inside the caller's action, which has it read on commit."""
    now = timezone.now()
    _delete(ScorePhoto.objects.filter(expires__lt=now))
    _delete(ScorePhoto.objects.filter(club=club, user=user))
    kept = ScorePhoto.objects.create(
        club=club,
        user=user,
        kind=kind,
        players=players,
        total=total,
        image=data,
        sha256=hashlib.sha256(data).hexdigest(),
        created=now,
        expires=now + KEEP,
        job=Job.objects.create(club=club, user=user, kind=Job.PHOTO, created=now, touched=now),
    )
    if default_task_backend.supports_defer:
        # Gone after KEEP even if nobody uploads again or saves the game.
        enqueue_on_commit(clear_expired_photos.using(run_after=kept.expires))
    return kept


def photo_upload(
    *, club: Club, user: User, data: bytes, kind: str, players: int, total: int
) -> ScorePhoto:
    """Keep a photo of one game (photo_keep) and have a worker read it, on commit."""
    with action():
        kept = photo_keep(club=club, user=user, data=data, kind=kind, players=players, total=total)
        assert kept.job is not None
        jobs.job_enqueue_on_commit(kept.job, read_score_photo, kept.pk)
    return kept


def _delete(photos: Any) -> int:
    """Delete these photos and their jobs; how many photos."""
    job_ids = [pk for pk in photos.values_list("job_id", flat=True) if pk]
    deleted, _ = photos.delete()
    if job_ids:
        Job.objects.filter(pk__in=job_ids).delete()
    return deleted


@task()
def clear_expired_photos() -> int:
    """Delete every photo past its 24 hours; how many."""
    return _delete(ScorePhoto.objects.filter(expires__lt=timezone.now()))


def photo_state(kept: ScorePhoto) -> jobs.JobState | None:
    """Its job's state (league.jobs: queued, running, done, failed, stalled), or None for a
    photo without a job."""
    return jobs.job_state(kept.job)


def photo_read(kept: ScorePhoto) -> bool:
    """Whether the worker has read it (the record form can be filled in from its rows)."""
    state = photo_state(kept)
    return state is not None and state.status == jobs.DONE


def photo_for(*, club: Club, user: User, photo_id: object) -> ScorePhoto | None:
    """The organiser's own unexpired photo of this club, or None."""
    try:
        pk = int(str(photo_id))
    except ValueError:
        return None
    return (
        ScorePhoto.objects.filter(club=club, user=user, pk=pk, expires__gte=timezone.now())
        .select_related("job")
        .defer("image")
        .first()
    )


def photo_confirmed(*, score_photo: ScorePhoto, game: Game, user: User) -> None:
    """The game read from the photo is saved: the photo goes, its hash stays in the audit log."""
    with action():
        deleted = _delete(ScorePhoto.objects.filter(pk=score_photo.pk))
        if deleted:
            audit(
                club=game.club,
                actor=user,
                action="game.photo",
                target=f"game:{game.pk}",
                game=game,
                after={"photo_sha256": score_photo.sha256, "kind": score_photo.kind},
            )


def read_sheet(kept: ScorePhoto) -> photo.SheetReading:
    """A kept photo of a score sheet of several games read (league.core.photo.read_score_sheet);
    raises photo.Unreadable."""
    with tempfile.TemporaryDirectory(prefix="jancho-photo-") as folder:
        path = Path(folder) / "photo"
        path.write_bytes(bytes(kept.image))
        return photo.read_score_sheet(path, players=kept.players, total=kept.total)


@task()
def read_score_photo(photo_id: int) -> int:
    """Read a kept photo into rows (league.core.photo.read_scores); returns the rows read. A
    photo that cannot be read raises photo.Unreadable: the task fails, and its job says so."""
    kept = ScorePhoto.objects.filter(pk=photo_id).first()
    if kept is None:  # replaced by another, or its game saved, meanwhile
        return 0
    with tempfile.TemporaryDirectory(prefix="jancho-photo-") as folder:
        path = Path(folder) / "photo"
        path.write_bytes(bytes(kept.image))
        reading = photo.read_scores(path, kind=kept.kind, players=kept.players, total=kept.total)
    rows = [row.to_json() for row in reading.rows]
    ScorePhoto.objects.filter(pk=photo_id).update(rows=rows)
    return len(rows)
