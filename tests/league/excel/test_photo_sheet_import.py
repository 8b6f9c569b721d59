"""A photo of a club's paper score sheet of several games (成績表) becomes an import through the
import's own preview (league.excel.tasks.read_sheet_photo, imports.photo_parsed): each game is
checked by the checksum on its own; a game that does not add up is a problem on the preview,
never a game; nothing is stored before the organiser confirms there. The sheets are generated
(tests/support/photo_samples.py: rendered with Noto CJK, then rotated, blurred and noised) and
read with the network blocked. Needs requirements-photo.txt like test_photo_read.py."""

from __future__ import annotations

import datetime
import hashlib
import os

import pytest
from django.urls import reverse

from league.excel import imports
from league.models import AuditLog, Game, ImportBatch, ImportUpload, ScorePhoto
from league.recording import photos

READY = photos.available()
if not READY and os.environ.get("JANCHO_REQUIRE_PHOTO"):
    raise RuntimeError("JANCHO_REQUIRE_PHOTO is set but requirements-photo.txt or ssocr is missing")
needs_photos = pytest.mark.skipif(not READY, reason="needs requirements-photo.txt and ssocr")
DATE = datetime.date(2026, 11, 25)


def post_photo(client, club, path, capture, **extra):
    """Post the sheet's photo; the worker's tasks (the reading, then the import's preview) run
    at commit; follow the status page to the import's preview."""
    with open(path, "rb") as file, capture(execute=True):
        response = client.post(
            reverse("excel:import_photo", args=[club.slug]),
            {"date": "2026/11/25", "rate": "", "image": file, **extra},
        )
    assert response.status_code == 302, response.content[:800]
    status = client.get(response["Location"])
    assert status.status_code == 302, "still reading: the task did not run"
    assert status["Location"] == reverse("excel:import_preview", args=[club.slug])
    preview = client.get(status["Location"])
    assert preview.status_code == 200
    return preview


def test_photo_parsed_makes_a_game_of_each_summing_row_and_a_problem_of_the_others():
    names = ["青木", "馬場", "千葉", "土井"]

    def rows(points, ok):
        return [{"points": p, "checksum": ok} for p in points]

    parsed = imports.photo_parsed(
        names=names,
        games=[rows([40000, 30000, 20000, 10000], True), rows([40000, 30000, 20000, 11000], False)],
        date=DATE,
        rate="",
        total=100000,
    )
    assert [(g.names, g.points, g.rows) for g in parsed.games] == [
        (names, [40000, 30000, 20000, 10000], [1])
    ]
    assert [(p.row, "11,000" in p.message) for p in parsed.problems] == [(2, True)]
    # Without a row of names the games cannot be told apart: one problem, no game.
    nameless = imports.photo_parsed(names=[], games=[], date=DATE, rate="", total=100000)
    assert not nameless.games and len(nameless.problems) == 1


def test_the_sheets_columns_rows_and_totals_from_the_readers_lines():
    """league.core.photo.games_from_lines on lines as a reader gives them (pure, no reader): the
    header's names make the columns, a tilted page's rows are kept apart, a cell with two numbers
    is unknown, and a last row that totals the games above (its 合計 not read) is no game."""
    from league.core.photo import games_from_lines
    from league.core.photo.lines import Line

    def at(text, column, row, tilt=0):
        x = 120 + 200 * column if column >= 0 else 20
        return Line(text, 0.99, x, 60 * row + tilt * x // 100, 30, width=90)

    names = ["青木", "馬場", "千葉", "土井"]
    games = [[40000, 30000, 20000, 10000], [-2000, 52000, 25000, 25000]]
    lines = [at("回戦", -1, 1, 2)] + [at(n, c, 1, 2) for c, n in enumerate(names)]
    for r, game in enumerate(games, start=2):
        lines.append(at(str(r - 1), -1, r, 2))
        lines += [at(f"{p:,}", c, r, 2) for c, p in enumerate(game)]
    totals = [sum(col) - 50000 for col in zip(*games, strict=True)]
    lines += [at(f"{p:,}", c, 4, 2) for c, p in enumerate(totals)]
    got_names, got = games_from_lines(lines, 4)
    assert got_names == names
    assert [[r.points for r in g] for g in got] == games
    # Two numbers in one cell: that cell is unknown, not a guess.
    lines.append(at("3,000", 1, 2, 2))
    _names, got = games_from_lines(lines, 4)
    assert [r.points for r in got[0]] == [40000, None, 20000, 10000]


def test_without_the_readers_the_import_page_has_no_photo_form(organiser_client, club, monkeypatch):
    monkeypatch.setattr(photos, "available", lambda: False)
    page = organiser_client.get(reverse("excel:import_upload", args=[club.slug]))
    assert page.status_code == 200 and b"data-sheet-photo" not in page.content
    assert organiser_client.post(reverse("excel:import_photo", args=[club.slug])).status_code == 404


@needs_photos
@pytest.mark.usefixtures("no_network")
def test_a_sheet_with_a_game_that_does_not_add_up_is_previewed_with_it_marked(
    organiser_client, club, members, tmp_path, django_capture_on_commit_callbacks
):
    from tests.support import photo_samples

    page = organiser_client.get(reverse("excel:import_upload", args=[club.slug]))
    assert b"data-sheet-photo" in page.content
    sample = photo_samples.score_sheet(31, tmp_path, games=5, wrong=(2,))
    preview = post_photo(organiser_client, club, sample.path, django_capture_on_commit_callbacks)
    plan = preview.context["plan"]
    good = [g for g, ok in zip(sample.games, sample.sums, strict=True) if ok]
    assert plan.total == 4 and plan.problem_total == 1 and not plan.ready
    (problem,) = plan.problems
    assert problem.row == 3 and f"{sample.games[2][0]:,}" in problem.message
    assert [[r.points for _m, r in g.seats] for g in plan.games] == good
    assert [[m.name for m, _r in g.seats] for g in plan.games] == [sample.names] * 4
    assert not Game.objects.exists()
    # The image is gone once read; its hash stays in the audit log.
    kept = ScorePhoto.objects.get()
    assert not bytes(kept.image)
    entry = AuditLog.objects.get(action="import.photo")
    assert entry.after["photo_sha256"] == hashlib.sha256(sample.path.read_bytes()).hexdigest()
    assert entry.after["games"] == 4 and entry.after["not_summing"] == 1


@needs_photos
@pytest.mark.usefixtures("no_network")
def test_a_sheet_that_adds_up_is_imported_as_one_batch_once_confirmed(
    organiser_client, club, members, tmp_path, django_capture_on_commit_callbacks
):
    from tests.support import photo_samples

    sample = photo_samples.score_sheet(32, tmp_path, games=4)
    preview = post_photo(organiser_client, club, sample.path, django_capture_on_commit_callbacks)
    plan = preview.context["plan"]
    assert plan.ready and plan.total == 4
    assert not Game.objects.exists()  # nothing before the confirmation
    with django_capture_on_commit_callbacks(execute=True):
        response = organiser_client.post(reverse("excel:import_confirm", args=[club.slug]))
    assert response.status_code == 302
    assert ImportUpload.objects.get().imported
    batch = ImportBatch.objects.get()
    games = list(Game.objects.filter(club=club).order_by("number"))
    assert len(games) == 4 and all(g.date == DATE for g in games)
    assert {g.import_batch_id for g in games} == {batch.pk}
    got = [[r.points for r in g.results.order_by("seat")] for g in games]
    assert got == sample.games
