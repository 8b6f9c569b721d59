"""「写真から」 at table mode's finish (league.table.views.table_photo_new): a photo of the table's
display is read by the same worker task and core as the record form's, and its points are shown
beside the hands' at each seat; the save is the hands' game, after the scorer's confirmation, and
deletes the photo (its hash in the audit log). Needs requirements-photo.txt and ssocr like
test_photo_read.py; without them the button is absent and the pages are 404."""

from __future__ import annotations

import datetime
import hashlib
import os
import uuid

import pytest
from django.urls import reverse

from league.models import AuditLog, Game, ScorePhoto
from league.recording import photos
from league.table import services
from tests.support.table import game_hands, record_all

READY = photos.available()
if not READY and os.environ.get("JANCHO_REQUIRE_PHOTO"):
    raise RuntimeError("JANCHO_REQUIRE_PHOTO is set but requirements-photo.txt or ssocr is missing")
needs_photos = pytest.mark.skipif(not READY, reason="needs requirements-photo.txt and ssocr")


@pytest.fixture
def ended(club, members, organiser):
    """A table game played to its end (a bust), not yet saved, and its final points."""
    tg = services.table_start(
        club=club,
        user=organiser,
        key=uuid.uuid4(),
        date=datetime.date(2026, 11, 20),
        members=members[:4],
        rate="0.3",
    )
    record_all(tg, organiser, game_hands(members))
    played = services.play(tg)
    assert played.state.ended
    return tg, list(played.state.points), played.state.sticks * 1000


def finish_url(club, tg):
    return reverse("table:table_finish", args=[club.slug, tg.key])


def upload(client, club, tg, path, capture, kind="display"):
    """Post the photo at the finish; the worker's task runs at commit; follow to the finish."""
    with open(path, "rb") as file, capture(execute=True):
        response = client.post(
            reverse("table:table_photo_new", args=[club.slug, tg.key]),
            {"kind": kind, "image": file},
        )
    assert response.status_code == 302, response.content[:500]
    status = client.get(response["Location"])
    assert status.status_code == 302, "still reading: the task did not run"
    assert status["Location"].startswith(finish_url(club, tg) + "?photo=")
    page = client.get(status["Location"])
    assert page.status_code == 200
    return page


def test_without_the_readers_the_finish_has_no_button_and_the_pages_404(
    organiser_client, club, ended, monkeypatch
):
    tg, _points, _deposits = ended
    monkeypatch.setattr(photos, "available", lambda: False)
    page = organiser_client.get(finish_url(club, tg))
    assert page.status_code == 200
    assert b"data-photo-link" not in page.content
    new = reverse("table:table_photo_new", args=[club.slug, tg.key])
    assert organiser_client.get(new).status_code == 404


@needs_photos
def test_a_display_photo_that_agrees_with_the_hands_then_the_save_deletes_it(
    organiser_client, club, ended, tmp_path, django_capture_on_commit_callbacks
):
    from tests.support import photo_samples

    tg, points, deposits = ended
    page = organiser_client.get(finish_url(club, tg))
    assert b"data-photo-link" in page.content
    sample = photo_samples.display(11, tmp_path, points=points)
    page = upload(organiser_client, club, tg, sample.path, django_capture_on_commit_callbacks)
    kept = ScorePhoto.objects.get()
    # The rows must add up to the starting points less what the hands left on the table.
    assert kept.total == 100000 - deposits
    assert kept.sha256 == hashlib.sha256(sample.path.read_bytes()).hexdigest()
    assert [s.points for s in (r["photo"] for r in page.context["rows"])] == points
    html = page.content.decode()
    assert "data-photo-agrees" in html and "photo-unsure" not in html
    assert not Game.objects.exists()  # nothing saved before the scorer saves
    saved = organiser_client.post(page.wsgi_request.get_full_path())
    assert saved.status_code == 302
    game = Game.objects.get()
    assert [r.points for r in game.results.order_by("seat")] == points
    assert not ScorePhoto.objects.exists()
    entry = AuditLog.objects.get(action="game.photo")
    assert entry.game == game and entry.after["photo_sha256"] == kept.sha256


@needs_photos
def test_a_photo_that_differs_from_the_hands_marks_the_seats(
    organiser_client, club, ended, tmp_path, django_capture_on_commit_callbacks
):
    from tests.support import photo_samples

    tg, points, _deposits = ended
    # 1,000 moved from the first seat to the second: the photo adds up, but two seats differ.
    other = [points[0] - 1000, points[1] + 1000, *points[2:]]
    sample = photo_samples.display(12, tmp_path, points=other)
    page = upload(organiser_client, club, tg, sample.path, django_capture_on_commit_callbacks)
    seats = [r["photo"] for r in page.context["rows"]]
    assert [s.points for s in seats] == other
    assert [s.agrees for s in seats] == [False, False, True, True]
    html = page.content.decode()
    assert "data-photo-differs" in html and html.count('class="photo-unsure"') == 2


@needs_photos
def test_a_photo_whose_rows_do_not_sum_gives_no_points(
    organiser_client, club, ended, tmp_path, django_capture_on_commit_callbacks
):
    from tests.support import photo_samples

    tg, points, _deposits = ended
    sample = photo_samples.display(13, tmp_path, points=[points[0] - 1000, *points[1:]])
    page = upload(organiser_client, club, tg, sample.path, django_capture_on_commit_callbacks)
    seats = [r["photo"] for r in page.context["rows"]]
    assert [s.points for s in seats] == [None] * 4 and not any(s.agrees for s in seats)
    assert page.content.decode().count('class="photo-unsure"') == 4
    assert not Game.objects.exists()


def test_the_buttons_are_there_exactly_when_the_readers_are_installed(
    organiser_client, club, ended
):
    """Not patched: run without requirements-photo.txt (or ssocr), the record form, table mode's
    finish and the import page have no 「写真から」; with them, all three have it."""
    tg, _points, _deposits = ended
    pages = {
        "record form": (reverse("recording:game_new", args=[club.slug]), b"data-photo-link"),
        "table finish": (finish_url(club, tg), b"data-photo-link"),
        "import": (reverse("excel:import_upload", args=[club.slug]), b"data-sheet-photo"),
    }
    for name, (address, mark) in pages.items():
        page = organiser_client.get(address)
        assert page.status_code == 200, name
        assert (mark in page.content) == READY, name
