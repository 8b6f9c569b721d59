"""A photo of scores (ScorePhoto) is read by a job like any other (league.jobs, issue 38): the
task framework's result says whether it is being read, read or could not be read, in place of
the photo's own status and error. Each kept photo gets a job saying what its status said: a
photo read is done (league.jobs.MIGRATED); one that could not be read, or was being read, is
stopped (MIGRATED_STOPPED): its organiser takes another (a photo is kept 24 hours at most).

Reads no app code."""

import django.db.models.deletion
from django.db import migrations, models

MIGRATED = "before-0052"  # league.jobs.MIGRATED: finished
MIGRATED_STOPPED = "stopped-before-0052"  # league.jobs.MIGRATED_STOPPED: stopped


def photos_to_jobs(apps, schema_editor):
    Job = apps.get_model("league", "Job")
    ScorePhoto = apps.get_model("league", "ScorePhoto")
    photos = ScorePhoto.objects.order_by("pk").only("pk", "club_id", "user_id", "status", "created")
    for kept in photos.iterator():
        job = Job.objects.create(
            club_id=kept.club_id,
            user_id=kept.user_id,
            kind="photo",
            task_id=MIGRATED if kept.status == "done" else MIGRATED_STOPPED,
            created=kept.created,
            touched=kept.created,
        )
        ScorePhoto.objects.filter(pk=kept.pk).update(job=job)


class Migration(migrations.Migration):
    dependencies = [("league", "0055_kept_books_removed")]

    operations = [
        migrations.AlterField(
            model_name="job",
            name="kind",
            field=models.CharField(
                choices=[
                    ("export", "export"),
                    ("import-preview", "import-preview"),
                    ("import", "import"),
                    ("resettle", "resettle"),
                    ("photo", "photo"),
                ],
                max_length=20,
            ),
        ),
        migrations.AddField(
            model_name="scorephoto",
            name="job",
            field=models.OneToOneField(
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="league.job",
            ),
        ),
        migrations.RunPython(photos_to_jobs, migrations.RunPython.noop),
        migrations.RemoveField(model_name="scorephoto", name="status"),
        migrations.RemoveField(model_name="scorephoto", name="error"),
    ]
