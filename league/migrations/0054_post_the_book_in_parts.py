"""The book posted again in its parts (migration 0053): every member's money as their part of
each day and of each debt, every leg with its line's date and order and its part of the day.

The book as 0050 posted it held each member's money on one account, which could not say what is
open of a day or what remains of a debt. It is a posting of the records (the games, attendance,
shūgi and the immutable ledger entries, which stay as they are): its transactions and accounts
are emptied and posted from those records again by the one posting function
(league.books.services.club_post_book), which check_books compares with the same records
re-settled from scratch. Every balance, open day and debt is the same before and after
(tests/league/books/test_book_migration.py). What the emptied book held besides (the corrections
posted after an edit, and when) is in the audit log.

It runs the app's own code, as 0050 did; 0050 now leaves the posting to this migration.
"""

from django.db import migrations


def empty_the_book(apps, schema_editor):
    """The book emptied (backwards too: 0053's tables, unmade, cannot hold its parts)."""
    for table in ("league_leg", "league_transaction", "league_account"):
        schema_editor.execute(f"DELETE FROM {table}")  # noqa: S608 (fixed names)


def post_the_book(apps, schema_editor):
    from league.books import services
    from league.models import Club

    empty_the_book(apps, schema_editor)
    for club_id in Club.objects.order_by("pk").values_list("pk", flat=True):
        services.club_post_book(club_id)


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0053_book_parts"),
    ]

    operations = [
        migrations.RunPython(post_the_book, empty_the_book),
    ]
