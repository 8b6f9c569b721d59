"""The players of a club (most never log in), one per name key."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import connection, models
from django.db.models import OuterRef, Subquery
from django.utils.translation import gettext_lazy
from django.utils.translation import gettext_lazy as _

from league.core.errors import NON_FIELD, ServiceError
from league.core.locks import for_update
from league.core.names import name_key
from league.models.clubs import Club

NAME_LENGTH = 50
# A stored name is NFKC (league.core.names.clean_name), and no NFKC character folds to more than
# three (ΐ → ΐ, ß → ss: tests/league/security/test_name_key_sizes.py checks every code point), so a key
# has at most 150 characters; a twin's key marked by the 0007 migration adds "#" and its id.
NAME_KEY_LENGTH = NAME_LENGTH * 3 + len("#") + 20


class Member(models.Model):
    """A player of the club (a login is optional: most players never log in)."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="members")
    name = models.CharField(_("name"), max_length=NAME_LENGTH)
    # league.core.names.name_key(name), kept by save(): one member per key in a club, so that ｱｵｷ and
    # アオキ, or 阿部誠 and 阿部 誠, can never be two members.
    name_key = models.CharField(max_length=NAME_KEY_LENGTH, editable=False, default="")
    kana = models.CharField(_("reading (kana)"), max_length=100, blank=True)
    is_guest = models.BooleanField(_("guest"), default=False)
    is_active = models.BooleanField(_("active"), default=True)
    # 黒子: staff who fill an empty seat at an event (league.draw.services.fill_ins_add). Their
    # games count for nobody: they have no standings row, statistics, rating, money or export line
    # (league.models.members.counted_members is the one filter every such reader applies); only
    # the game pages show them, by their name 「黒子1」….
    fill_in = models.BooleanField(_("fill-in"), default=False, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    # Set when this record was merged into another (a guest who became a member, a name spelled
    # two ways): its results, chips and ledger entries moved there; the record stays, inactive,
    # so that the audit log and old links still resolve.
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_from"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("member")
        verbose_name_plural = _("members")
        ordering = ["kana", "name"]
        constraints = [
            models.UniqueConstraint(fields=["club", "name"], name="member_name_unique_in_club"),
            models.UniqueConstraint(fields=["club", "name_key"], name="member_key_unique_in_club"),
        ]
        indexes = [
            # The member pickers and lists: a club's members in 五十音 order.
            models.Index(fields=["club", "kana", "name"], name="member_club_kana"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        key = name_key(self.name)
        if self.name_key.partition("#")[0] != key:  # a twin's marked key (0007) stays marked
            self.name_key = key
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "name_key"}
        super().save(*args, **kwargs)


def lock_live_members(ids: Iterable[int | None], *, shared: bool = False) -> None:
    """Lock these members' rows (in id order, inside the caller's transaction) and refuse any
    merged into another record (ServiceError naming the survivor). league.club's merge locks
    the same rows FOR UPDATE, so a write racing a merge is either moved by it or refused here:
    no result and no money ever lands on a merged record.

    Every caller holds its club's row already (league.core.locks.lock_club), so members are
    always locked after the club, in id order. Game writers take FOR NO KEY UPDATE. `shared`:
    FOR KEY SHARE (PostgreSQL), for the money writers: it waits for a merge only."""
    wanted = sorted({i for i in ids if i is not None and i > 0})
    if not wanted:
        return
    if shared and connection.vendor == "postgresql":
        table = connection.ops.quote_name(Member._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT name, merged_into_id FROM {table} WHERE id = ANY(%s) "
                "ORDER BY id FOR KEY SHARE",
                [wanted],
            )
            locked = cursor.fetchall()
    else:
        locked = list(
            for_update(Member.objects, no_key=True)
            .filter(pk__in=wanted)
            .order_by("pk")
            .values_list("name", "merged_into")
        )
    for name, into_id in locked:
        if into_id is not None:
            into = Member.objects.filter(pk=into_id).values_list("name", flat=True).first()
            raise ServiceError.one(NON_FIELD, str(MERGED_MEMBER % {"name": name, "into": into}))


MERGED_MEMBER = gettext_lazy("%(name)s was merged into %(into)s: record the game under %(into)s.")


def club_member_name(*, user: str, club: str) -> Subquery:
    """As a subquery of an outer queryset (read in its query, no query more): the name of the
    member of the club in the outer field `club` whose login is the outer field `user`, or None
    when that login is linked to no member there. Who did something is shown this way."""
    return Subquery(
        Member.objects.filter(club_id=OuterRef(club), user_id=OuterRef(user), merged_into=None)
        .order_by("pk")
        .values("name")[:1]
    )
