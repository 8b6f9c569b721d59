"""Migration 0052 moves the three status machines (ExportFile, ImportUpload, ResettleRun) onto
jobs (league.jobs): what each row said before is what its page says after."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from league.excel.selectors import upload_state
from league.jobs import job_state
from league.models import ExportFile, ImportUpload, ResettleRun
from tests.support.migrations import migrated_back, old_club_and_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_row_says_after_the_migration_what_it_said_before():
    with migrated_back("0051_season_kind") as apps:
        club, user = old_club_and_user(apps)
        version = apps.get_model("league", "RulesVersion").objects.create(
            club=club, effective_from=datetime.date(2020, 1, 1), rules_json={}, preset="x"
        )
        runs = apps.get_model("league", "ResettleRun").objects
        done_run = runs.create(
            club=club, version=version, status="done", games_total=5, games_done=5,
            games_moved=4, games_failed=1,
        )  # fmt: skip
        stopped_run = runs.create(
            club=club, version=version, status="failed", games_total=5, games_done=2,
            games_moved=2,
        )  # fmt: skip
        later = timezone.now() + datetime.timedelta(days=1)
        exports = apps.get_model("league", "ExportFile").objects
        old_file = exports.create(
            club=club, user=user, kind="game-log", name="a", fallback="a", status="done",
            data=b"PK..", expires=later,
        )  # fmt: skip
        unmade = exports.create(
            club=club, user=user, kind="game-log", name="b", fallback="b", status="running",
            expires=later,
        )  # fmt: skip
        uploads = apps.get_model("league", "ImportUpload").objects
        imported = uploads.create(
            club=club, user=user, parsed=b"", status="done", outcome={"games": 3}, expires=later
        )
        failed = uploads.create(
            club=club, user=user, parsed=b"", status="failed", expires=later,
            outcome={"problems": [["s", 2, "", "x"]], "count": 1},
        )  # fmt: skip
        stalled = uploads.create(
            club=club, user=user, parsed=b"", status="running", progress_done=1,
            progress_total=3, expires=later,
        )  # fmt: skip
        waiting = uploads.create(
            club=club, user=user, parsed=b"", preview=b"x", status="waiting", expires=later
        )

    def run(pk):
        return ResettleRun.objects.select_related("job").get(pk=pk)

    assert job_state(run(done_run.pk).job).status == "done"
    assert run(done_run.pk).job.message == {"moved": 4, "failed": 1}
    assert job_state(run(stopped_run.pk).job).status == "stalled"
    assert (run(stopped_run.pk).job.done, run(stopped_run.pk).job.total) == (2, 5)
    assert ExportFile.objects.get(pk=old_file.pk).ready
    assert not ExportFile.objects.get(pk=unmade.pk).ready
    assert ExportFile.objects.get(pk=unmade.pk).job is None  # shown as not made: asked again

    def upload(pk):
        return ImportUpload.objects.select_related("job", "preview_job").get(pk=pk)

    assert upload_state(upload(imported.pk)).status == "done"
    assert upload_state(upload(failed.pk)).status == "failed"
    assert upload_state(upload(stalled.pk)).status == "stalled"
    assert (upload(stalled.pk).job.done, upload(stalled.pk).job.total) == (1, 3)
    assert upload_state(upload(waiting.pk)).status == "waiting"
