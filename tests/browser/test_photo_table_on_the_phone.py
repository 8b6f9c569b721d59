"""「写真から」 at table mode's finish on a phone: the table's game ended hand by hand, the scorer
photographs the automatic table's display, the worker reads it, and the finish page shows the
photo's points beside the hands' at each seat (one seat marked where they differ); saving then
records the hands' game and deletes the photo. Needs requirements-photo.txt and ssocr besides
Chromium (tests/league/core/test_photo_read.py says how they are required in CI)."""

from __future__ import annotations

import datetime
import uuid

import pytest

from league.core.clock import today
from league.models import AuditLog, Game, Member, Membership, ScorePhoto
from league.recording import photos
from league.table import services
from tests.support.clubs import MEMBER_NAMES, make_club, make_user
from tests.support.table import game_hands, record_all

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not photos.available(), reason="needs requirements-photo.txt and ssocr"),
]


def test_a_display_photo_is_checked_against_the_hands_at_the_finish(
    phone, live_server, log_in, screenshot, tmp_path
):
    from tests.support import photo_samples

    club = make_club("mame", "mame-no-kai", "マメの会")
    members = [Member.objects.create(club=club, name=n, kana=k) for n, k in MEMBER_NAMES]
    organiser = make_user("organiser", club, Membership.ORGANISER)
    tg = services.table_start(
        club=club, user=organiser, key=uuid.uuid4(), date=today(), members=members[:4], rate="0.3"
    )
    record_all(tg, organiser, game_hands(members))
    points = list(services.play(tg).state.points)
    # The display says 1,000 more at the first seat and 1,000 less at the second.
    shown = [points[0] + 1000, points[1] - 1000, *points[2:]]
    sample = photo_samples.display(21, tmp_path, points=shown)

    log_in("organiser")
    phone.goto(f"{live_server.url}/c/mame/table/{tg.key}/finish/")
    phone.click("[data-photo-link]")
    assert phone.is_checked("input[name=kind][value=display]")
    phone.set_input_files("#id_image", str(sample.path))
    with phone.expect_navigation(timeout=180_000):
        phone.click("form.photo-upload button[type=submit]", no_wait_after=True)
    phone.wait_for_selector("[data-photo-read]", timeout=120_000)
    assert phone.locator("[data-photo-differs]").is_visible()
    cells = phone.locator("[data-photo-points]")
    assert cells.count() == 4
    read = [t.split()[1].replace(",", "").replace("▲", "-") for t in cells.all_inner_texts()]
    assert [int(t) for t in read] == shown
    assert phone.locator("tr.photo-unsure").count() == 2
    screenshot("photo-table-finish")
    assert not Game.objects.exists()

    phone.click("[data-save]")
    phone.wait_for_url(f"{live_server.url}/c/mame/games/*/")
    game = Game.objects.get()
    assert [r.points for r in game.results.order_by("seat")] == points  # the hands' game
    assert not ScorePhoto.objects.exists()
    assert AuditLog.objects.get(action="game.photo").game == game
    assert game.date == today() and isinstance(game.date, datetime.date)
