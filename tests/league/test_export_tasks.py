"""The game log of a long history is made by a worker (league.excel.tasks): the page offers to
make it, shows how far it has got, and the finished file equals the one made in the request.
Here the task runs at once (tests/conftest.py); tests/league/test_worker.py runs a real worker."""

from __future__ import annotations

import datetime
import io

import pytest
from django.utils import timezone
from openpyxl import load_workbook

from league.excel import tasks as export_tasks
from league.models import ExportFile
from tests.conftest import make_user
from tests.league.test_exports import DATE, download, play_day, players, url, values  # noqa: F401


@pytest.fixture
def history(club, players):
    play_day(club, players)
    play_day(club, players, DATE - datetime.timedelta(days=7))


def test_a_long_game_log_is_offered_as_a_file_made_in_the_background(
    member_client, club, history, settings, django_capture_on_commit_callbacks
):
    _response, direct = download(member_client, url("export_game_log", club))
    settings.EXPORT_INLINE_ROWS = 4
    offer = member_client.get(url("export_game_log", club))
    assert offer.status_code == 200
    assert offer["Content-Type"].startswith("text/html")
    page = offer.content.decode()
    assert "24" in page  # 2 days × 3 games × 4 players
    assert url("export_game_log_start", club) in page

    with django_capture_on_commit_callbacks(execute=True):
        started = member_client.post(url("export_game_log_start", club))
    export = ExportFile.objects.get()
    assert started.status_code == 302
    assert started.url == url("export_status", club, export.pk)
    assert export.status == ExportFile.DONE and export.rows_total == export.rows_done == 24

    status = member_client.get(started.url)
    assert url("export_download", club, export.pk) in status.content.decode()
    file = member_client.get(url("export_download", club, export.pk))
    assert file.status_code == 200
    assert file["Content-Disposition"].startswith('attachment; filename="mame_all-time_game-log')
    background = load_workbook(io.BytesIO(file.getvalue()))
    assert values(background.active) == values(direct.active)
    # Kept as a file in the exports storage, not in the row: sent from disk.
    assert export.data is None and export_tasks.export_storage().exists(export.file_name)


def test_the_period_goes_with_the_file(
    member_client, club, history, settings, django_capture_on_commit_callbacks
):
    settings.EXPORT_INLINE_ROWS = 4
    query = f"?start={DATE.isoformat()}&end={DATE.isoformat()}"
    with django_capture_on_commit_callbacks(execute=True):
        member_client.post(url("export_game_log_start", club) + query)
    export = ExportFile.objects.get()
    assert export.params["start"] == export.params["end"] == DATE.isoformat()
    assert export.rows_total == 12
    workbook = load_workbook(
        io.BytesIO(member_client.get(url("export_download", club, export.pk)).getvalue())
    )
    assert len(values(workbook.active)) == 1 + 12


def test_a_file_is_its_makers_alone(
    member_client, client, club, other_club, history, settings, organiser
):
    settings.EXPORT_INLINE_ROWS = 4
    member_client.post(url("export_game_log_start", club))
    export = ExportFile.objects.get()
    client.force_login(organiser)  # another member of the same club
    assert client.get(url("export_status", club, export.pk)).status_code == 404
    assert client.get(url("export_download", club, export.pk)).status_code == 404
    stranger = make_user("someone-else", other_club)
    client.force_login(stranger)
    assert client.get(url("export_status", club, export.pk)).status_code == 404


def test_a_queued_or_running_file_says_how_far_it_has_got(member_client, club, history, settings):
    settings.EXPORT_INLINE_ROWS = 4
    member_client.post(url("export_game_log_start", club))  # on_commit never runs: still queued
    export = ExportFile.objects.get()
    assert export.status == ExportFile.QUEUED
    page = member_client.get(url("export_status", club, export.pk)).content.decode()
    assert 'http-equiv="refresh"' in page
    ExportFile.objects.update(status=ExportFile.RUNNING, rows_done=12, touched=timezone.now())
    page = member_client.get(url("export_status", club, export.pk)).content.decode()
    assert "12" in page and "24" in page and 'http-equiv="refresh"' in page
    download = member_client.get(url("export_download", club, export.pk))
    assert download.status_code == 302  # not ready: back to the status


def test_a_worker_stopped_mid_way_is_said_and_offers_a_new_try(
    member_client, member_user, club, history
):
    export = export_tasks.export_start(
        club=club, user=member_user, params={}, name="x.xlsx", fallback="x.xlsx"
    )
    ExportFile.objects.filter(pk=export.pk).update(
        status=ExportFile.RUNNING,
        touched=timezone.now() - ExportFile.STALLED_AFTER - datetime.timedelta(seconds=1),
    )
    page = member_client.get(url("export_status", club, export.pk)).content.decode()
    assert 'http-equiv="refresh"' not in page
    assert url("export_game_log", club) in page


def test_expired_files_are_cleared_by_a_task(
    member_client, club, history, settings, django_capture_on_commit_callbacks
):
    settings.EXPORT_INLINE_ROWS = 4
    with django_capture_on_commit_callbacks(execute=True):
        member_client.post(url("export_game_log_start", club))
    export = ExportFile.objects.get()
    ExportFile.objects.update(expires=timezone.now() - datetime.timedelta(seconds=1))
    assert member_client.get(url("export_status", club, export.pk)).status_code == 404
    assert export_tasks.export_storage().exists(export.file_name)
    assert export_tasks.clear_expired_exports.call() == 1
    assert not ExportFile.objects.exists()
    assert not export_tasks.export_storage().exists(export.file_name)  # the file went with it


def test_a_file_finished_before_files_were_kept_on_disk_is_still_sent(
    member_client, member_user, club, history
):
    """A row made before the change holds its file in `data` until it expires."""
    export = ExportFile.objects.create(
        club=club,
        user=member_user,
        kind="game-log",
        name="log.xlsx",
        fallback="log.xlsx",
        status=ExportFile.DONE,
        data=b"PK-old-file",
        expires=timezone.now() + datetime.timedelta(days=1),
    )
    file = member_client.get(url("export_download", club, export.pk))
    assert file.status_code == 200 and file.content == b"PK-old-file"


def test_a_kept_file_gone_from_the_disk_is_a_404(
    member_client, club, history, settings, django_capture_on_commit_callbacks
):
    settings.EXPORT_INLINE_ROWS = 4
    with django_capture_on_commit_callbacks(execute=True):
        member_client.post(url("export_game_log_start", club))
    export = ExportFile.objects.get()
    export_tasks.export_storage().delete(export.file_name)
    assert member_client.get(url("export_download", club, export.pk)).status_code == 404


def test_a_short_game_log_is_still_sent_at_once(member_client, club, history):
    response, _workbook = download(member_client, url("export_game_log", club))
    assert (
        response["Content-Type"]
        == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    assert not ExportFile.objects.exists()
