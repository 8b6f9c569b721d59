"""「写真から」 on the record form (league.recording.photos, views.photos): upload, the worker's
reading (run at once here), the form filled in from it, the save, and the photo deleted with its
hash in the audit log. Needs requirements-photo.txt and ssocr like test_photo_read.py."""

from __future__ import annotations

import hashlib
import io
import os

import pytest
from django.urls import reverse

from league.models import AuditLog, Game, ScorePhoto
from league.recording import photos

READY = photos.available()
if not READY and os.environ.get("JANCHO_REQUIRE_PHOTO"):
    raise RuntimeError("JANCHO_REQUIRE_PHOTO is set but requirements-photo.txt or ssocr is missing")
needs_photos = pytest.mark.skipif(not READY, reason="needs requirements-photo.txt and ssocr")

POINTS = [45800, 31200, 26600, -3600]


@pytest.fixture
def upload(django_capture_on_commit_callbacks):
    """Post a photo; the worker's task (enqueued on commit) runs at once."""

    def post(client, club, path, kind):
        with open(path, "rb") as file, django_capture_on_commit_callbacks(execute=True):
            return client.post(
                reverse("recording:photo_new", args=[club.slug]), {"kind": kind, "image": file}
            )

    return post


def follow_to_form(client, response):
    """From the upload's redirect to the filled-in record form (the worker ran at commit)."""
    assert response.status_code == 302, response.content[:500]
    status = client.get(response["Location"])
    assert status.status_code == 302, "still reading: the task did not run"
    form_page = client.get(status["Location"])
    assert form_page.status_code == 200
    return form_page


def test_without_the_readers_the_button_is_absent_and_the_pages_404(
    organiser_client, club, members, monkeypatch
):
    monkeypatch.setattr(photos, "available", lambda: False)
    page = organiser_client.get(reverse("recording:game_new", args=[club.slug]))
    assert page.status_code == 200
    assert b"data-photo-link" not in page.content
    assert organiser_client.get(reverse("recording:photo_new", args=[club.slug])).status_code == 404


@needs_photos
def test_a_display_photo_fills_in_the_points_and_saving_deletes_the_photo(
    organiser_client, club, members, tmp_path, upload
):
    from tests.support import photo_samples

    page = organiser_client.get(reverse("recording:game_new", args=[club.slug]))
    assert b"data-photo-link" in page.content
    sample = photo_samples.display(5, tmp_path, points=POINTS)
    form_page = follow_to_form(
        organiser_client, upload(organiser_client, club, sample.path, "display")
    )
    form = form_page.context["form"]
    assert [form.initial.get(f"points_{i}") for i in range(4)] == [f"{p:,}" for p in POINTS]
    assert b"data-photo-read" in form_page.content
    kept = ScorePhoto.objects.get()
    assert kept.sha256 == hashlib.sha256(sample.path.read_bytes()).hexdigest()
    # The organiser types the names (a display has none), checks and saves as always.
    data = {
        "date": form.initial["date"],
        "table": "",
        "deposits": "0",
        "rate": "",
        "submission_key": str(form.initial["submission_key"]),
        "action": "save",
    }
    for i, name in enumerate(("青木", "馬場", "千葉", "土井")):
        data[f"member_{i}"] = name
        data[f"points_{i}"] = form.initial[f"points_{i}"]
        data[f"chombo_{i}"] = "0"
    saved = organiser_client.post(form_page.wsgi_request.get_full_path(), data)
    assert saved.status_code == 302, saved.context["form"].errors if saved.context else saved
    game = Game.objects.get()
    assert [r.points for r in game.results.order_by("seat")] == POINTS
    assert not ScorePhoto.objects.exists()
    entry = AuditLog.objects.get(action="game.photo")
    assert entry.game == game and entry.after["photo_sha256"] == kept.sha256


@needs_photos
def test_rows_that_do_not_sum_fill_in_no_points(organiser_client, club, members, tmp_path, upload):
    from tests.support import photo_samples

    # A sum the photo cannot make: 1,000 missing (deposits), no digit change explains it.
    sample = photo_samples.display(6, tmp_path, points=[45800, 31200, 26600, -4600])
    form_page = follow_to_form(
        organiser_client, upload(organiser_client, club, sample.path, "display")
    )
    form = form_page.context["form"]
    assert not any(form.initial.get(f"points_{i}") for i in range(4))
    assert "photo-unsure" in form_page.content.decode()
    assert not Game.objects.exists()


@needs_photos
def test_a_screens_names_are_matched_to_members_with_buttons_to_confirm(
    organiser_client, club, members, tmp_path, upload
):
    from tests.support import photo_samples

    # 江籐 is no member: the closest names are offered (江藤 first), as for a typed name.
    sample = photo_samples.screen(
        3, tmp_path, names=["青木", "馬場", "千葉", "江籐"], points=POINTS
    )
    form_page = follow_to_form(
        organiser_client, upload(organiser_client, club, sample.path, "screen")
    )
    form = form_page.context["form"]
    assert [form.initial.get(f"member_{i}") for i in range(4)] == ["青木", "馬場", "千葉", "江籐"]
    rows = form_page.context["photo_rows"]
    assert [c for c, _ in rows[0].choices] == []  # 青木 is a member
    assert rows[3].choices and rows[3].choices[0][0] == "江藤"
    picked = organiser_client.get(form_page.wsgi_request.path + rows[3].choices[0][1])
    assert picked.context["form"].initial["member_3"] == "江藤"


@needs_photos
def test_a_file_that_is_no_image_is_refused_and_nothing_is_kept(organiser_client, club, members):
    response = organiser_client.post(
        reverse("recording:photo_new", args=[club.slug]),
        {"kind": "sheet", "image": io.BytesIO(b"not a picture")},
    )
    assert response.status_code == 200
    assert response.context["form"].errors["image"]
    assert not ScorePhoto.objects.exists()


@needs_photos
def test_another_organisers_photo_is_not_found(organiser_client, club, members, tmp_path):
    from league.models import Membership
    from tests.support.clubs import make_user

    other = make_user("other-organiser", club, Membership.ORGANISER)
    kept = photos.photo_upload(
        club=club, user=other, data=b"x", kind="sheet", players=4, total=100000
    )
    assert (
        organiser_client.get(
            reverse("recording:photo_status", args=[club.slug, kept.pk])
        ).status_code
        == 404
    )


def test_a_photo_past_its_24_hours_is_deleted(club, members):
    from django.utils import timezone

    from league.models import Membership
    from tests.support.clubs import make_user

    user = make_user("photo-organiser", club, Membership.ORGANISER)
    kept = photos.photo_upload(
        club=club, user=user, data=b"x", kind="sheet", players=4, total=100000
    )
    assert kept.expires - kept.created == photos.KEEP
    assert photos.clear_expired_photos.call() == 0
    ScorePhoto.objects.filter(pk=kept.pk).update(expires=timezone.now() - photos.KEEP)
    assert photos.photo_for(club=club, user=user, photo_id=kept.pk) is None
    assert photos.clear_expired_photos.call() == 1
    assert not ScorePhoto.objects.exists()


@needs_photos
def test_a_photo_that_cannot_be_read_fails_its_task_and_its_page_says_so(
    organiser_client, club, members, django_capture_on_commit_callbacks
):
    """No status of its own (issue 38): the photo's job is the task's result. While it waits
    the page refreshes itself; once the task has failed it offers another photo."""
    from league.models import Job

    user = organiser_client.get(reverse("recording:game_new", args=[club.slug])).wsgi_request.user
    with django_capture_on_commit_callbacks(execute=True):
        kept = photos.photo_upload(
            club=club, user=user, data=b"not a picture", kind="display", players=4, total=100000
        )
    kept = ScorePhoto.objects.select_related("job").get()
    state = photos.photo_state(kept)
    assert state.status == "failed" and state.errors == ("league.core.photo.Unreadable",)
    assert not photos.photo_read(kept)
    status = reverse("recording:photo_status", args=[club.slug, kept.pk])
    page = organiser_client.get(status)
    assert page.status_code == 200
    assert 'http-equiv="refresh"' not in page.content.decode()
    assert "data-photo-reading" not in page.content.decode()
    assert reverse("recording:photo_new", args=[club.slug]) in page.content.decode()
    # Before a worker takes it (its task not enqueued yet): the page waits and refreshes.
    Job.objects.filter(pk=kept.job_id).update(task_id="")
    waiting = organiser_client.get(status).content.decode()
    assert 'http-equiv="refresh"' in waiting and "data-photo-reading" in waiting
    # Another photo replaces it, job and all (as saving its game or its 24 hours do).
    photos.photo_upload(club=club, user=user, data=b"x", kind="display", players=4, total=100000)
    assert ScorePhoto.objects.count() == 1 and Job.objects.filter(kind=Job.PHOTO).count() == 1
