"""One record of a job (league.models.jobs.Job, league.jobs): the task framework's result
keeps a job's status, this row its progress. An export keeps its file and its job, an upload its plan and
its two jobs (its preview's and its import's), a re-settle's run its version and its job; its status, counts, error and times move to the job (a run's job is marked as finished or
stopped before jobs were kept: league.jobs.MIGRATED, MIGRATED_STOPPED; one running then is
stopped, as its worker was).

After 0050_post_the_book, which runs the app's code: that code reads none of these tables."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

MIGRATED = "before-0052"  # league.jobs.MIGRATED: finished
MIGRATED_STOPPED = "stopped-before-0052"  # league.jobs.MIGRATED_STOPPED: stopped (or stopping)


def runs_to_jobs(apps, schema_editor):
    Job = apps.get_model("league", "Job")
    ResettleRun = apps.get_model("league", "ResettleRun")
    for run in ResettleRun.objects.order_by("pk").iterator():
        job = Job.objects.create(
            club_id=run.club_id,
            user_id=run.user_id,
            kind="resettle",
            task_id=MIGRATED if run.status == "done" else MIGRATED_STOPPED,
            done=run.games_done,
            total=max(run.games_total, run.games_done),
            message={"moved": run.games_moved, "failed": run.games_failed},
            created=run.created,
            touched=run.touched,
        )
        ResettleRun.objects.filter(pk=run.pk).update(job=job)


def exports_ready(apps, schema_editor):
    """A file finished before files were kept in storage holds its bytes in `data`: its size
    says it is ready (ExportFile.ready), now that no status does. One not finished has no job:
    it shows as not made, to be asked for again."""
    ExportFile = apps.get_model("league", "ExportFile")
    done = ExportFile.objects.filter(status="done", file_name="", size=0, data__isnull=False)
    for export in done.only("pk", "data").iterator():
        ExportFile.objects.filter(pk=export.pk).update(size=max(len(bytes(export.data)), 1))


def uploads_to_jobs(apps, schema_editor):
    """An upload confirmed before jobs were kept gets a job saying how it ended (done or
    stopped); one not confirmed, none (its preview is made or it is uploaded again)."""
    Job = apps.get_model("league", "Job")
    ImportUpload = apps.get_model("league", "ImportUpload")
    for upload in ImportUpload.objects.exclude(status="waiting").order_by("pk").iterator():
        job = Job.objects.create(
            club_id=upload.club_id,
            user_id=upload.user_id,
            kind="import",
            task_id=MIGRATED if upload.status in ("done", "failed") else MIGRATED_STOPPED,
            done=upload.progress_done,
            total=upload.progress_total,
            created=upload.created,
            touched=upload.touched,
        )
        ImportUpload.objects.filter(pk=upload.pk).update(job=job)


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0051_season_kind"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Job",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("export", "export"),
                            ("import-preview", "import-preview"),
                            ("import", "import"),
                            ("resettle", "resettle"),
                        ],
                        max_length=20,
                    ),
                ),
                ("task_id", models.CharField(blank=True, default="", max_length=64)),
                ("done", models.PositiveIntegerField(default=0)),
                ("total", models.PositiveIntegerField(default=0)),
                ("message", models.JSONField(blank=True, default=dict)),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                ("touched", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "club",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="league.club",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["club", "kind", "-touched"], name="job_club_kind")
                ],
            },
        ),
        migrations.AddField(
            model_name="resettlerun",
            name="job",
            field=models.OneToOneField(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="league.job",
            ),
        ),
        migrations.RunPython(runs_to_jobs, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="resettlerun",
            name="job",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="league.job"
            ),
        ),
        migrations.RemoveField(model_name="resettlerun", name="status"),
        migrations.AddField(
            model_name="exportfile",
            name="job",
            field=models.OneToOneField(
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="league.job",
            ),
        ),
        migrations.RunPython(exports_ready, migrations.RunPython.noop),
        migrations.AddField(
            model_name="importupload",
            name="job",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="league.job",
            ),
        ),
        migrations.AddField(
            model_name="importupload",
            name="preview_job",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="league.job",
            ),
        ),
        migrations.RunPython(uploads_to_jobs, migrations.RunPython.noop),
        migrations.RemoveField(model_name="importupload", name="status"),
        migrations.RemoveField(model_name="importupload", name="progress_done"),
        migrations.RemoveField(model_name="importupload", name="progress_total"),
        migrations.RemoveField(model_name="importupload", name="touched"),
        migrations.RemoveField(model_name="exportfile", name="status"),
        migrations.RemoveField(model_name="exportfile", name="rows_done"),
        migrations.RemoveField(model_name="exportfile", name="rows_total"),
        migrations.RemoveField(model_name="exportfile", name="touched"),
        migrations.RemoveField(model_name="exportfile", name="finished"),
        migrations.RemoveField(model_name="resettlerun", name="games_total"),
        migrations.RemoveField(model_name="resettlerun", name="games_done"),
        migrations.RemoveField(model_name="resettlerun", name="games_moved"),
        migrations.RemoveField(model_name="resettlerun", name="games_failed"),
        migrations.RemoveField(model_name="resettlerun", name="error"),
        migrations.RemoveField(model_name="resettlerun", name="touched"),
        migrations.RemoveField(model_name="resettlerun", name="finished"),
    ]
