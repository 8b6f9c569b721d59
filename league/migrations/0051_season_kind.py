"""A season's kind (individual season, team league, event in stages) and whether a team league's
or event's own games also count in the club's individual seasons (league.standings.competitions).

Existing seasons: one with stages is an event, one with teams a team league, any other an
individual season. A team league or event that existed before keeps counting in the individual
seasons (`in_club_season`), so that no standings move by migrating; its organiser can turn it
off on the season's edit page. Historical models only: no kept total changes here.
"""

from django.db import migrations, models


def kinds(apps, schema_editor):
    Season = apps.get_model("league", "Season")
    Stage = apps.get_model("league", "Stage")
    Team = apps.get_model("league", "Team")
    events = set(Stage.objects.values_list("season_id", flat=True))
    teams = set(Team.objects.values_list("season_id", flat=True)) - events
    Season.objects.filter(pk__in=events).update(kind="event", in_club_season=True)
    Season.objects.filter(pk__in=teams).update(kind="team", in_club_season=True)


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0050_post_the_book"),
    ]

    operations = [
        migrations.AddField(
            model_name="season",
            name="in_club_season",
            field=models.BooleanField(
                default=False, verbose_name="also counts in the individual season"
            ),
        ),
        migrations.AddField(
            model_name="season",
            name="kind",
            field=models.CharField(
                choices=[
                    ("individual", "individual season"),
                    ("team", "team league"),
                    ("event", "event in stages"),
                ],
                default="individual",
                max_length=12,
                verbose_name="kind",
            ),
        ),
        migrations.RunPython(kinds, migrations.RunPython.noop),
    ]
