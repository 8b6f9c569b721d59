"""The money stored before the book (migration 0049) posted into it, exactly: every club's days
re-settled and its ledger entries, by the one posting function (league.books.services.post_book,
the derivation check_books compares with). Each entry's transaction comes after the one it
reverses, in id order, so that a reversal's `reverses` is set.

It runs the app's own code, not the historical models: the derivation is ~200 lines that must
stay one. On a database with no clubs (a new install, the tests) it does nothing; a later
migration that changes the tables it reads must keep this one runnable or replace it.
"""

from django.db import migrations


def post_the_book(apps, schema_editor):
    from league.books import services
    from league.models import Club

    for club_id in Club.objects.order_by("pk").values_list("pk", flat=True):
        services.club_post_book(club_id)


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0049_book"),
    ]

    operations = [
        migrations.RunPython(post_the_book, migrations.RunPython.noop),
    ]
