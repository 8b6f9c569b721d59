"""The game log of a long history is made by a worker (league.excel.tasks): the page offers to
make it, shows how far it has got, and the finished file equals the one made in the request.
Here the task runs at once (tests/conftest.py); tests/league/core/test_worker.py runs a real worker."""

from __future__ import annotations

import datetime
import io

import pytest
from django.utils import timezone
from openpyxl import load_workbook

from league import jobs
from league.core.errors import NON_FIELD, ServiceError
from league.excel import tasks as export_tasks
from league.jobs import job_state
from league.models import ExportFile, Job
from tests.support.clubs import make_user
from tests.support.exports import DATE, download, injected_players, play_day, url, values
from tests.support.jobs import running_task


@pytest.fixture
def players(club, members):
    return injected_players(club, members)


@pytest.fixture
def history(club, players):
    play_day(club, players)
    play_day(club, players, DATE - datetime.timedelta(days=7))


def _exported(member_client, club, settings, capture, query: str = "") -> ExportFile:
    """The game log exported as a file (over EXPORT_INLINE_ROWS = 4), its task run as the start
    commits: the member's file, its job with it."""
    settings.EXPORT_INLINE_ROWS = 4
    with capture(execute=True):
        member_client.post(url("excel:export_game_log_start", club) + query)
    return ExportFile.objects.select_related("job").get()


def test_a_long_game_log_is_offered_as_a_file_made_in_the_background(
    member_client, club, history, settings, django_capture_on_commit_callbacks
):
    _response, direct = download(member_client, url("excel:export_game_log", club))
    settings.EXPORT_INLINE_ROWS = 4
    offer = member_client.get(url("excel:export_game_log", club))
    assert offer.status_code == 200
    assert offer["Content-Type"].startswith("text/html")
    page = offer.content.decode()
    # 24 rows (2 days × 3 games × 4 players), told as more than the inline size: the request
    # counts no further (an exact count of 400,000 rows took 0.1 s)
    assert "4行を超えます" in page
    assert url("excel:export_game_log_start", club) in page

    with django_capture_on_commit_callbacks(execute=True):
        started = member_client.post(url("excel:export_game_log_start", club))
    export = ExportFile.objects.get()
    assert started.status_code == 302
    assert started.url == url("excel:export_status", club, export.pk)
    assert export.ready and export.job.total == export.job.done == 24
    assert job_state(export.job).status == "done"

    status = member_client.get(started.url)
    assert url("excel:export_download", club, export.pk) in status.content.decode()
    file = member_client.get(url("excel:export_download", club, export.pk))
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
        member_client.post(url("excel:export_game_log_start", club) + query)
    export = ExportFile.objects.get()
    assert export.params["start"] == export.params["end"] == DATE.isoformat()
    assert export.job.total == 12
    workbook = load_workbook(
        io.BytesIO(member_client.get(url("excel:export_download", club, export.pk)).getvalue())
    )
    assert len(values(workbook.active)) == 1 + 12


def test_a_file_is_its_makers_alone(
    member_client, client, club, other_club, history, settings, organiser
):
    settings.EXPORT_INLINE_ROWS = 4
    member_client.post(url("excel:export_game_log_start", club))
    export = ExportFile.objects.get()
    client.force_login(organiser)  # another member of the same club
    assert client.get(url("excel:export_status", club, export.pk)).status_code == 404
    assert client.get(url("excel:export_download", club, export.pk)).status_code == 404
    stranger = make_user("someone-else", other_club)
    client.force_login(stranger)
    assert client.get(url("excel:export_status", club, export.pk)).status_code == 404


def test_a_queued_or_running_file_says_how_far_it_has_got(
    member_client, member_user, club, history, settings
):
    settings.EXPORT_INLINE_ROWS = 4
    # A file waiting for a worker (export_start's action would run the task on its commit).
    export = _busy(club, member_user)
    Job.objects.update(total=24)
    assert job_state(export.job).status == "queued"
    page = member_client.get(url("excel:export_status", club, export.pk)).content.decode()
    assert 'http-equiv="refresh"' in page and "<progress></progress>" in page
    running_task(export.job)
    Job.objects.update(done=12, touched=timezone.now())
    page = member_client.get(url("excel:export_status", club, export.pk)).content.decode()
    assert '<progress max="24" value="12">' in page and 'http-equiv="refresh"' in page
    download = member_client.get(url("excel:export_download", club, export.pk))
    assert download.status_code == 302  # not ready: back to the status


def _stalled(job):
    """The job's task running, but its worker has said nothing for STALLED_AFTER."""
    job.created = job.touched = timezone.now() - jobs.STALLED_AFTER - datetime.timedelta(seconds=1)
    job.save(update_fields=["created", "touched"])
    running_task(job)


def test_a_worker_stopped_mid_way_is_said_and_offers_a_new_try(
    member_client, member_user, club, history
):
    export = export_tasks.export_start(
        club=club, user=member_user, params={}, name="x.xlsx", fallback="x.xlsx"
    ).export
    ExportFile.objects.filter(pk=export.pk).update(file_name="", size=0)  # never finished
    _stalled(export.job)
    page = member_client.get(url("excel:export_status", club, export.pk)).content.decode()
    assert 'http-equiv="refresh"' not in page
    assert url("excel:export_game_log", club) in page


def test_expired_files_are_cleared_by_a_task(
    member_client, club, history, settings, django_capture_on_commit_callbacks
):
    export = _exported(member_client, club, settings, django_capture_on_commit_callbacks)
    ExportFile.objects.update(expires=timezone.now() - datetime.timedelta(seconds=1))
    assert member_client.get(url("excel:export_status", club, export.pk)).status_code == 404
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
        data=b"PK-old-file",
        size=len(b"PK-old-file"),  # the migration to jobs (0052) wrote it
        expires=timezone.now() + datetime.timedelta(days=1),
    )
    file = member_client.get(url("excel:export_download", club, export.pk))
    assert file.status_code == 200 and file.content == b"PK-old-file"


def test_a_kept_file_gone_from_the_disk_is_a_404(
    member_client, club, history, settings, django_capture_on_commit_callbacks
):
    export = _exported(member_client, club, settings, django_capture_on_commit_callbacks)
    export_tasks.export_storage().delete(export.file_name)
    assert member_client.get(url("excel:export_download", club, export.pk)).status_code == 404


def test_a_short_game_log_is_still_sent_at_once(member_client, club, history):
    response, _workbook = download(member_client, url("excel:export_game_log", club))
    assert (
        response["Content-Type"]
        == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    assert not ExportFile.objects.exists()


# --- bounded: one file a user at a time, a few a club, a quota of kept bytes (issue 39) ---------


def _busy(club, user, **params):
    """A file waiting for a worker: its job's task not enqueued yet."""
    return ExportFile.objects.create(
        club=club,
        user=user,
        kind="game-log",
        params=params,
        name="x.xlsx",
        fallback="x.xlsx",
        job=Job.objects.create(club=club, user=user, kind=Job.EXPORT),
        expires=timezone.now() + datetime.timedelta(days=7),
    )


def test_a_repeat_request_is_given_the_file_being_made(member_client, member_user, club, history):
    # Issue 39: a plain member queued 30 game logs in a row.
    busy = _busy(club, member_user, start=None, end=None, rate=None, language="ja")
    started = export_tasks.export_start(
        club=club, user=member_user, params=dict(busy.params), name="y", fallback="y"
    )
    assert started.export == busy and started.repeat
    # Another period waits for it: the same file is shown, nothing queued.
    other = export_tasks.export_start(
        club=club, user=member_user, params={"start": "2026-01-01"}, name="y", fallback="y"
    )
    assert other.export == busy and other.other
    assert ExportFile.objects.count() == 1
    # Through the page: thirty posts make no new file, and say why.
    for _ in range(30):
        response = member_client.post(
            url("excel:export_game_log_start", club) + "?start=2026-01-01"
        )
        assert response.status_code == 302
    assert ExportFile.objects.count() == 1
    page = member_client.get(response.url, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "一度に1つ" in page


def test_a_club_has_a_few_files_being_made_at_once(club, history, settings):
    settings.EXPORT_QUEUE_PER_CLUB = 2
    users = [make_user(f"u{i}", club) for i in range(3)]
    _busy(club, users[0])
    _busy(club, users[1])
    with pytest.raises(ServiceError) as caught:
        export_tasks.export_start(club=club, user=users[2], params={}, name="z", fallback="z")
    assert "2" in caught.value.errors[NON_FIELD][0]
    # A stalled one (its worker stopped) no longer counts.
    _stalled(ExportFile.objects.get(user=users[0]).job)
    assert export_tasks.export_start(club=club, user=users[2], params={}, name="z", fallback="z")


def test_finished_files_stay_within_the_clubs_quota(
    club, history, settings, django_capture_on_commit_callbacks
):
    users = [make_user(f"q{i}", club) for i in range(3)]
    made = []
    for user in users:
        with django_capture_on_commit_callbacks(execute=True):
            made.append(
                export_tasks.export_start(club=club, user=user, params={}, name="q", fallback="q")
            )
    files = ExportFile.objects.filter(club=club).order_by("pk")
    sizes = [f.size for f in files]
    assert all(s > 0 for s in sizes)
    # A quota for two of them: the next start removes the oldest, file and row.
    settings.EXPORT_CLUB_QUOTA_BYTES = sizes[1] + sizes[2]
    oldest = files[0]
    with django_capture_on_commit_callbacks(execute=True):
        export_tasks.export_start(club=club, user=users[0], params={"x": 1}, name="q", fallback="q")
    assert not ExportFile.objects.filter(pk=oldest.pk).exists()
    assert not export_tasks.export_storage().exists(oldest.file_name)
    assert ExportFile.objects.filter(club=club).count() == 3


def test_a_long_statement_is_made_in_the_background_and_equals_the_one_made_at_once(
    member_client, club, players, settings
):
    # Issue 39: a member's statement as Excel took 11 s of a request at 100,000 games.
    from league.models import Day
    from tests.support.exports import settle_some

    play_day(club, players)
    settle_some(Day.objects.get(club=club, date=DATE))
    member = players[0]
    _response, direct = download(member_client, url("excel:export_statement", club, member.pk))
    settings.EXPORT_INLINE_LINES = 1
    offer = member_client.get(url("excel:export_statement", club, member.pk))
    assert offer["Content-Type"].startswith("text/html")
    start = url("excel:export_statement_start", club, member.pk)
    assert start in offer.content.decode()
    started = member_client.post(start)
    export = ExportFile.objects.get(kind="statement")
    assert started.url == url("excel:export_status", club, export.pk)
    assert export.ready and export.size > 0
    status = member_client.get(started.url).content.decode()
    assert url("money:member_statement", club, member.pk) in status  # back to the statement
    file = member_client.get(url("excel:export_download", club, export.pk))
    background = load_workbook(io.BytesIO(b"".join(file.streaming_content)))
    assert values(background.active) == values(direct.active)
    # A second ask while it is being made is given the same file.
    ExportFile.objects.update(file_name="", size=0)
    running_task(export.job, "READY")
    assert member_client.post(start).url == started.url
    assert ExportFile.objects.count() == 1


def test_a_file_that_waited_an_hour_for_a_worker_no_longer_holds_the_queue(
    club, member_user, history
):
    busy = _busy(club, member_user)
    long_ago = timezone.now() - export_tasks.QUEUED_STALE_AFTER - datetime.timedelta(minutes=1)
    Job.objects.filter(pk=busy.job_id).update(created=long_ago, touched=long_ago)
    started = export_tasks.export_start(
        club=club, user=member_user, params={"start": "2026-01-01"}, name="n", fallback="n"
    )
    assert started.export != busy and not started.other


def test_a_file_whose_task_failed_says_so_from_the_task_result(
    member_client, club, history, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """No status of its own: the task framework's result says the task failed (its error
    named), and the page offers a new try."""
    from league.excel import exports

    def broken(**kwargs):
        raise ValueError("broken")

    monkeypatch.setattr(exports, "game_log_workbook", broken)
    export = _exported(member_client, club, settings, django_capture_on_commit_callbacks)
    state = job_state(export.job)
    assert (
        not export.ready and state.status == "failed" and state.errors == ("builtins.ValueError",)
    )
    page = member_client.get(url("excel:export_status", club, export.pk)).content.decode()
    assert 'http-equiv="refresh"' not in page and url("excel:export_game_log", club) in page
    assert "ファイルを作成できませんでした。" in page  # in Japanese, the default


@pytest.mark.database_tasks
def test_the_states_of_many_jobs_are_one_query_of_their_task_results(
    club, history, django_assert_num_queries, django_capture_on_commit_callbacks
):
    """With the database backend, the task results of any number of jobs are read at once."""
    users = [make_user(f"s{i}", club) for i in range(3)]
    for user in users:
        with django_capture_on_commit_callbacks(execute=True):
            export_tasks.export_start(club=club, user=user, params={}, name="s", fallback="s")
    listed = list(Job.objects.all())
    assert len(listed) == 3 and all(j.task_id for j in listed)
    with django_assert_num_queries(1):
        states = jobs.job_states(listed)
    assert {s.status for s in states.values()} == {"queued"}  # no worker has taken them


def test_the_statistics_are_made_in_the_same_queries_as_history_grows(
    club, member_user, players, django_assert_num_queries
):
    """The statistics workbook (issue 38: made by a worker) reads the rows kept at write time:
    its queries do not grow with the games behind them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def waiting() -> int:  # a file queued by export_start, not made yet
        job = Job.objects.create(club=club, user=member_user, kind=Job.EXPORT)
        export = ExportFile.objects.create(
            club=club,
            user=member_user,
            kind="statistics",
            params={"season": None, "language": "ja"},
            name="s",
            fallback="s",
            job=job,
            expires=timezone.now() + datetime.timedelta(hours=1),
        )
        return export.pk

    play_day(club, players)
    with CaptureQueriesContext(connection) as first:
        rows = export_tasks.export_statistics.call(waiting())
    assert rows > 0
    for weeks in range(1, 4):
        play_day(club, players, DATE - datetime.timedelta(days=7 * weeks))
    with django_assert_num_queries(len(first.captured_queries)):
        export_tasks.export_statistics.call(waiting())
