"""「写真から」 on a phone: a result screen's photo uploaded from the record form, read by the
worker, its four rows shown, one name corrected with the member button offered for it, and the
game saved equal to the same game typed in. Needs requirements-photo.txt and ssocr besides
Chromium (tests/league/core/test_photo_read.py says how they are required in CI)."""

from __future__ import annotations

import pytest

import scoring
from league.core.clock import today
from league.models import AuditLog, Game, Member, Membership, RulesVersion, ScorePhoto
from league.recording import photos
from tests.support.clubs import MEMBER_NAMES, make_club, make_user

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not photos.available(), reason="needs requirements-photo.txt and ssocr"),
]

NAMES = ["青木", "馬場", "千葉", "江藤"]
POINTS = [45800, 31200, 26600, -3600]


def test_a_photo_of_the_result_screen_becomes_the_game(
    phone, live_server, log_in, screenshot, tmp_path
):
    from tests.support import photo_samples

    club = make_club("mame", "mame-no-kai", "マメの会")
    for name, kana in MEMBER_NAMES:
        Member.objects.create(club=club, name=name, kana=kana)
    make_user("organiser", club, Membership.ORGANISER)
    # The screen shows 江籐, a name no member has: the form offers 江藤.
    sample = photo_samples.screen(
        3, tmp_path, names=["青木", "馬場", "千葉", "江籐"], points=POINTS
    )

    log_in("organiser")
    phone.goto(f"{live_server.url}/c/mame/games/new/")
    phone.click("[data-photo-link]")
    phone.check("input[name=kind][value=screen]")
    phone.set_input_files("#id_image", str(sample.path))
    # The worker reads the photo (at once in tests, inside the upload's request): seconds.
    with phone.expect_navigation(timeout=180_000):
        phone.click("form.photo-upload button[type=submit]", no_wait_after=True)
    phone.wait_for_selector("[data-photo-read]", timeout=120_000)
    rows = phone.locator("[data-photo-read] tbody tr")
    assert rows.count() == 4
    screenshot("photo-read")
    assert [phone.input_value(f"#id_points_{i}") for i in range(4)] == [f"{p:,}" for p in POINTS]
    assert phone.input_value("#id_member_3") == "江籐"

    phone.click("[data-photo-name='3']:has-text('江藤')")
    phone.wait_for_selector("[data-photo-read]")
    assert phone.input_value("#id_member_3") == "江藤"
    phone.fill("#id_deposits", "0")
    phone.click("form[data-record] .actions button[name=action][value=preview]")
    phone.wait_for_selector("[data-preview]")
    screenshot("photo-preview")
    phone.click("[data-preview] button[name=action][value=save]")
    phone.wait_for_url(f"{live_server.url}/c/mame/days/{today().isoformat()}/")

    game = Game.objects.get()
    rules = RulesVersion.objects.get(club=club).rules
    typed = scoring.settle_game(
        rules,
        scoring.Game(
            seats=tuple(scoring.Seat(n, p) for n, p in zip(NAMES, POINTS, strict=True)),
            deposits=0,
            rate=game.rate,
        ),
    )
    saved = list(game.results.filter(counted=True).select_related("member").order_by("seat"))
    assert [(r.member.name, r.points, r.rank, r.score) for r in saved] == [
        (p.name, p.points, p.rank, p.score) for p in typed.players
    ]
    assert not ScorePhoto.objects.exists()
    assert AuditLog.objects.get(action="game.photo").game == game
