# One identity for a member's name: a key per member, unique in its club.

import sys
import unicodedata

from django.conf import settings
from django.db import migrations, models

# league.names.name_key as it was when this migration was written, frozen here so that moving or
# changing the live code never changes what `migrate` does on an old database.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def name_key(text: str) -> str:
    normal = unicodedata.normalize("NFKC", text)
    kept = (
        ch
        for ch in normal
        if not ch.isspace()
        and ch not in _BLANK_LETTERS
        and unicodedata.category(ch) not in _REFUSED_CATEGORIES
    )
    return "".join(kept).casefold()


def fill_keys(apps, schema_editor):
    """Each member's name key. Twins (two members of a club whose names are one name: ｱｵｷ and
    アオキ) are never merged here: the first keeps the key, each later one gets its key marked
    with its id ("アオキ#12", which nobody can type) and is listed on stderr; an organiser merges
    them or renames one. `manage.py name_twins` lists them again at any time."""
    Member = apps.get_model("league", "Member")
    seen: dict[tuple[int, str], int] = {}
    for member in Member.objects.order_by("club_id", "pk").iterator():
        key = name_key(member.name)
        first = seen.setdefault((member.club_id, key), member.pk)
        if first != member.pk:
            key = f"{key}#{member.pk}"
            print(
                f"name twins in club {member.club_id}: member {member.pk} {member.name!r} is "
                f"the same name as member {first}; not merged (manage.py name_twins)",
                file=sys.stderr,
            )
        Member.objects.filter(pk=member.pk).update(name_key=key)


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0006_standings_covering_index"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="member",
            name="name_key",
            field=models.CharField(default="", editable=False, max_length=60),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="member",
            constraint=models.UniqueConstraint(
                fields=("club", "name_key"), name="member_key_unique_in_club"
            ),
        ),
    ]
