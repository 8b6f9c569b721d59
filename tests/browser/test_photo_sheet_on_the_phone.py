"""A photo of the club's paper score sheet of several games, on a phone: uploaded on the import
page, read by the worker, and shown in the import's own preview: the games that add up as games,
the one that does not as a problem, and nothing imported while it is there. Screenshots
photo-sheet-upload and photo-sheet-preview. Needs requirements-photo.txt besides Chromium."""

from __future__ import annotations

import pytest

from league.models import Game, Membership
from league.recording import photos
from tests.support.browser import fits_the_screen
from tests.support.clubs import make_club, make_user

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not photos.available(), reason="needs requirements-photo.txt and ssocr"),
]


def test_a_score_sheets_photo_is_previewed_as_an_import(
    phone, live_server, log_in, screenshot, tmp_path
):
    from tests.support import photo_samples

    make_club("mame", "mame-no-kai", "マメの会")
    make_user("organiser", make_club_of("mame"), Membership.ORGANISER)
    sample = photo_samples.score_sheet(41, tmp_path, games=5, wrong=(3,))

    log_in("organiser")
    phone.goto(f"{live_server.url}/c/mame/import/")
    phone.wait_for_selector("[data-sheet-photo]")
    phone.fill("[data-sheet-photo] [name=date]", "2026/11/25")
    phone.set_input_files("[data-sheet-photo] #id_image", str(sample.path))
    screenshot("photo-sheet-upload")
    assert fits_the_screen(phone)
    with phone.expect_navigation(timeout=180_000):
        phone.click("[data-sheet-photo] button[type=submit]", no_wait_after=True)
    phone.wait_for_url(f"{live_server.url}/c/mame/import/preview/", timeout=120_000)
    phone.wait_for_selector("[data-photo-problems]", timeout=120_000)
    screenshot("photo-sheet-preview")
    problems = phone.locator("table.import-problems tbody tr")
    assert problems.count() == 1, problems.all_inner_texts()
    assert f"{sample.games[3][0]:,}" in problems.first.inner_text()
    for name in sample.names:
        assert phone.locator(f"text={name}").count() >= 1
    assert fits_the_screen(phone)
    assert not Game.objects.exists()


def make_club_of(slug: str):
    from league.models import Club

    return Club.objects.get(slug=slug)
