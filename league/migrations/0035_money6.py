"""Members with adjustments in a season are listed in its standings of every rate too: their zero
kept rows (league.models.totals.list_adjusted) written for the adjustments booked before."""

from django.db import migrations


def list_adjusted(apps, schema_editor):
    Adjustment = apps.get_model("league", "Adjustment")
    MemberTotal = apps.get_model("league", "MemberTotal")
    MemberRateTotal = apps.get_model("league", "MemberRateTotal")
    booked = sorted(
        Adjustment.objects.filter(member__isnull=False)
        .order_by()
        .values_list("club_id", "season_id", "member_id")
        .distinct()
    )
    for model, extra in ((MemberTotal, {}), (MemberRateTotal, {"rate": ""})):
        model.objects.bulk_create(
            (model(club_id=c, season_id=s, member_id=m, **extra) for c, s, m in booked),
            batch_size=1000,
            ignore_conflicts=True,
        )


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0034_final6"),
    ]

    operations = [
        migrations.RunPython(list_adjusted, migrations.RunPython.noop),
    ]
