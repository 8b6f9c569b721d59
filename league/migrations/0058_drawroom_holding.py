# The rooms holding results back (league.models.draw.with_held_round).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0057_result_standings_by_date"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="drawroom",
            index=models.Index(
                condition=models.Q(("hold_results", True)), fields=["day"], name="drawroom_holding"
            ),
        ),
    ]
