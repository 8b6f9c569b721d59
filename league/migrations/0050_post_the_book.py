"""The money stored before the book (migration 0049) posted into it, exactly: every club's days
re-settled and its ledger entries, by the one posting function (league.books.services.post_book,
the derivation check_books compares with). Each entry's transaction comes after the one it
reverses, in id order, so that a reversal's `reverses` is set.

It ran the app's own code, not the historical models: the derivation is ~200 lines that must
stay one. Migration 0053 changed the book's tables (a member's money in parts: each day, each
debt), so the app's code no longer posts to the tables as they are here: 0054 posts the book
instead, and this migration does nothing.
"""

from django.db import migrations


def post_the_book(apps, schema_editor):
    """Replaced by 0054_post_the_book_in_parts."""


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0049_book"),
    ]

    operations = [
        migrations.RunPython(post_the_book, migrations.RunPython.noop),
    ]
