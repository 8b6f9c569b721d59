"""The import's confirmation reports how far it has got (league.excel.progress): the days written
of the days planned, committed with their games (the import writes whole days a transaction), so
that any server reads it through the ordinary connection, on either database; read by
import/progress/."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from league.core.errors import ServiceError
from league.excel import imports
from league.excel.selectors import upload_state
from league.models import AuditLog, Game, ImportBatch, ImportUpload, Job
from tests.support.clubs import make_user
from tests.support.imports import STANDARD, english, game, simple, upload
from tests.support.jobs import running_task


def _nth(i: int) -> tuple[tuple[str, int], ...]:
    """STANDARD with 1,000 points moved from the top to the fourth `i` times: a different game
    (the same points again would be a duplicate, league.recording.services.duplicate_of)."""
    (a, pa), b, c, (d, pd) = STANDARD
    return ((a, pa - 1000 * i), b, c, (d, pd + 1000 * i))


def progress_url(club) -> str:
    return reverse("excel:import_progress", args=[club.slug])


def test_progress_is_the_organisers_own_and_404_elsewhere(
    club, members, organiser_client, member_client, stranger_client, client
):
    assert client.get(progress_url(club)).status_code == 404  # logged out
    assert stranger_client.get(progress_url(club)).status_code == 404  # another club's
    assert member_client.get(progress_url(club)).status_code == 403  # not an organiser
    assert organiser_client.get(progress_url(club)).json() == {
        "known": False,
        "done": 0,
        "total": 0,
        "games": 0,
        "running": False,
        "status": "",
    }
    upload(organiser_client, club, simple(game(*STANDARD), game(*_nth(1), table="B")))
    state = organiser_client.get(progress_url(club)).json()
    assert (state["games"], state["running"], state["known"]) == (2, False, False)


def test_every_pass_reports_each_game(club, members, organiser):
    data = simple(*(game(*_nth(i), table=t) for i, t in enumerate("ABC")))
    steps: list[str] = []
    plan = imports.plan_settle(
        club=club,
        parsed=imports.workbook_read(data, players=4),
        progress=lambda: steps.append("check"),
    )
    assert steps == ["check"] * 3
    imports.plan_apply(plan=plan, user=organiser, progress=lambda: steps.append("write"))
    assert steps == ["check"] * 3 + ["write"] * 3
    assert Game.objects.filter(club=club).count() == 3


def test_the_confirmation_counts_every_step_and_imports_once(club, members, organiser_client):
    upload(organiser_client, club, simple(game(*STANDARD), game(*_nth(1), table="B")))
    confirm = reverse("excel:import_confirm", args=[club.slug])
    assert organiser_client.post(confirm, {}).status_code == 302
    assert organiser_client.post(confirm, {}).status_code == 302  # nothing left to confirm
    assert Game.objects.filter(club=club).count() == 2
    done = ImportUpload.objects.get(club=club)  # kept for the status page, its data dropped
    assert done.imported and not done.parsed and not done.preview
    assert upload_state(done).status == "done"
    assert organiser_client.get(progress_url(club)).json()["status"] == "done"


def test_each_day_commits_its_games_and_the_progress(club, members, organiser_client, monkeypatch):
    """Three days, a transaction each, the second fails: the first day's games and the count
    (1 of 3 days) are
    committed and read back through the ordinary connection; the batch is marked failed at the
    second day and the status page names that day."""
    from league.recording import services

    days = [datetime.date(2024, 5, d) for d in (1, 2, 3)]
    data = simple(*[game(*_nth(i), date=d, table="A") for i, d in enumerate(days)])
    client = english(organiser_client)
    assert upload(client, club, data).status_code == 302
    real = services.games_record_bulk
    seen: list[tuple[int, int]] = []

    def failing_on_the_second_day(**kwargs):
        row = ImportUpload.objects.select_related("job").get(club=club)
        seen.append((row.job.done, row.job.total))
        if kwargs["games"][0][0].date == days[1]:
            raise ServiceError.one("date", "broken")
        return real(**kwargs)

    monkeypatch.setattr(services, "games_record_bulk", failing_on_the_second_day)
    monkeypatch.setattr(imports, "STEP_GAMES", 1)  # a transaction a day
    assert client.post(reverse("excel:import_confirm", args=[club.slug]), {}).status_code == 302
    assert seen == [(0, 0), (1, 3)]  # the first day's count was committed with its games
    assert list(Game.objects.filter(club=club).values_list("date", flat=True)) == days[:1]
    batch = ImportBatch.objects.get(club=club)
    assert (batch.status, batch.failed_day, batch.days_done, batch.games) == (
        ImportBatch.FAILED,
        days[1],
        1,
        1,
    )
    assert AuditLog.objects.filter(action="import.stop", target=f"import:{batch.pk}").exists()
    row = ImportUpload.objects.select_related("job").get(club=club)
    assert (upload_state(row).status, row.job.done, row.job.total, row.batch_id) == (
        "failed",
        1,
        3,
        batch.pk,
    )
    page = client.get(reverse("excel:import_status", args=[club.slug])).content.decode()
    assert "The import stopped at the games of 2024/05/02" in page
    assert reverse("excel:import_void", args=[club.slug]) in page


# --- the preview is settled by a worker, not in the upload's request ---------------------------


def _run_queued() -> None:
    from django_tasks_db.models import DBTaskResult

    for queued in DBTaskResult.objects.order_by("enqueued_at"):
        queued.task.call(*queued.task_result.args, **queued.task_result.kwargs)
        queued.delete()


@pytest.mark.database_tasks
def test_the_upload_only_reads_the_workbook_and_a_worker_settles_its_preview(
    club, members, organiser_client
):
    from tests.support.imports import english

    client = english(organiser_client)
    rows = [game(*_nth(i), table=f"T{i}") for i in range(6)]
    assert upload(client, club, simple(*rows)).status_code == 302
    kept = ImportUpload.objects.get(club=club)
    assert (kept.games, kept.preview) == (6, b"")  # read, not settled, in the request
    preview = reverse("excel:import_preview", args=[club.slug])
    waiting = client.get(preview).content.decode()
    assert "Checking 6 games…" in waiting and "<progress></progress>" in waiting
    assert 'http-equiv="refresh"' in waiting and "import/confirm/" not in waiting
    confirm = reverse("excel:import_confirm", args=[club.slug])
    assert client.post(confirm, {}).url == preview  # nothing to confirm yet: back to wait
    from django_tasks_db.models import DBTaskResult

    DBTaskResult.objects.update(status="RUNNING", started_at=timezone.now())  # a worker took it
    Job.objects.filter(pk=kept.preview_job_id).update(done=2, total=6, touched=timezone.now())
    assert "Checking the games: 2 of 6." in client.get(preview).content.decode()

    _run_queued()  # the worker
    kept.refresh_from_db()
    assert kept.preview and (kept.preview_job.done, kept.preview_job.total) == (6, 6)
    shown = client.get(preview)
    assert shown.context["plan"].total == 6 and "import/confirm/" in shown.content.decode()
    assert client.post(confirm, {}).status_code == 302
    _run_queued()
    assert Game.objects.filter(club=club).count() == 6


def test_the_preview_task_writes_its_progress_as_it_goes(club, members, organiser, monkeypatch):
    from league.excel import services as excel_services
    from league.excel import tasks as excel_tasks

    parsed = imports.workbook_read(
        simple(*[game(*_nth(i), table=f"T{i}") for i in range(4)]), players=4
    )
    kept = excel_services.upload_keep(
        club=club, user=organiser, filename="a.xlsx", parsed=imports.parsed_dump(parsed), games=4
    )
    seen: list[tuple[int, int]] = []
    real_step = imports._settle

    def watching(*args, **kwargs):
        progress = args[5]

        def step() -> None:
            progress()
            row = Job.objects.get(pk=kept.preview_job_id)
            seen.append((row.done, row.total))

        return real_step(*args[:5], step, **kwargs)

    monkeypatch.setattr(imports, "_settle", watching)
    monkeypatch.setattr(excel_tasks, "PREVIEW_PROGRESS_EVERY", 0)
    assert excel_tasks.import_preview.call(kept.pk, "en") == 4
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    kept.refresh_from_db()
    assert imports.preview_load(kept.preview).total == 4


def test_a_preview_the_worker_could_not_make_sends_back_to_upload(
    club, organiser, organiser_client
):
    from league.excel import services as excel_services

    kept = excel_services.upload_keep(
        club=club, user=organiser, filename="a.xlsx", parsed=b"", games=4
    )
    running_task(kept.preview_job, "FAILED", errors=("ValueError",))  # the worker failed on it
    response = organiser_client.get(reverse("excel:import_preview", args=[club.slug]))
    assert response.status_code == 302 and response.url == reverse(
        "excel:import_upload", args=[club.slug]
    )


# --- bounded: one upload an organiser at a time, a few a club (issue 39) -------------------------


def _waiting_preview(club, user) -> ImportUpload:
    """An upload whose preview a worker is still making (preview empty, its job running)."""
    job = running_task(Job.objects.create(club=club, user=user, kind=Job.IMPORT_PREVIEW))
    return ImportUpload.objects.create(
        club=club,
        user=user,
        filename="a.xlsx",
        parsed=b"",
        preview_job=job,
        expires=timezone.now() + datetime.timedelta(hours=1),
    )


def test_an_organiser_uploads_again_only_when_the_last_is_done(
    club, members, organiser, organiser_client
):
    earlier = _waiting_preview(club, organiser)
    response = upload(organiser_client, club, simple(game(*STANDARD)))
    assert response.status_code == 200
    assert "workbook" in response.context["form"].errors
    assert list(ImportUpload.objects.all()) == [earlier]  # kept: its worker still needs it
    # Once its worker has said nothing for STALLED_AFTER, it no longer holds the next one up.
    long_ago = timezone.now() - ImportUpload.STALLED_AFTER * 2
    Job.objects.update(created=long_ago, touched=long_ago)
    running_task(Job.objects.get(pk=earlier.preview_job_id))
    assert upload(organiser_client, club, simple(game(*STANDARD))).status_code == 302


def test_a_club_has_a_few_workbooks_in_the_queue(club, members, organiser_client, settings):
    settings.IMPORT_QUEUE_PER_CLUB = 2
    for name in ("o1", "o2"):
        _waiting_preview(club, make_user(name, club, "organiser"))
    response = upload(organiser_client, club, simple(game(*STANDARD)))
    assert response.status_code == 200
    assert "2" in response.context["form"].errors["workbook"][0]
    assert ImportUpload.objects.count() == 2
