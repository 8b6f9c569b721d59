import secrets

from django.db import migrations, models


def first_token(apps, schema_editor):
    """The one row league.pagecache reads and every committed write gives a new token."""
    apps.get_model("league", "PageVersion").objects.create(pk=1, token=secrets.token_hex(8))


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0037_hstat7"),
    ]

    operations = [
        migrations.CreateModel(
            name="PageVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("token", models.CharField(max_length=32)),
            ],
        ),
        migrations.RunPython(first_token, migrations.RunPython.noop),
    ]
