from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0046_stage_cut_share"),
    ]

    operations = [
        migrations.AddField(
            model_name="drawroom",
            name="draw_asked_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="drawroom",
            name="draw_task",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
