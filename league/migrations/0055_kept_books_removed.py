"""The kept rows the money pages read before the book could give them (DayAccount, BookLine,
DebtAccount) removed: each day's open amounts, each statement line and its parts, and each debt
are now sums over the book's legs and its accounts' kept balances (migrations 0053, 0054). They
were caches posted from the records, not records: nothing of the money goes with them."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0054_post_the_book_in_parts"),
    ]

    operations = [
        migrations.DeleteModel(name="BookLine"),
        migrations.DeleteModel(name="DayAccount"),
        migrations.DeleteModel(name="DebtAccount"),
    ]
