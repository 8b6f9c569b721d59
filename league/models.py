"""雀帳's data: clubs, members, versioned rules, seasons, days, games and their settled results.

Games are settled when they are written and the settlement is stored on `Result` rows, so that
rankings are database aggregates. Nothing is deleted: an edit adds a new revision of a game's
rows, a void marks the game, and both are in the append-only `AuditLog`.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import F, Q
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _

import scoring
from league.names import name_key


class Club(models.Model):
    name = models.CharField(_("club name"), max_length=100)
    slug = models.SlugField(_("short name"), max_length=50, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The public share link (league.public): empty while it is off. A random
    # token, shown to organisers so they can pass the link on; rotating it makes the old link 404.
    share_token = models.CharField(max_length=64, blank=True, default="", editable=False)
    share_money = models.BooleanField(_("show money on the share link"), default=False)

    class Meta:
        verbose_name = _("club")
        verbose_name_plural = _("clubs")
        constraints = [
            models.UniqueConstraint(
                fields=["share_token"],
                condition=~Q(share_token=""),
                name="club_share_token_unique",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class MembershipQuerySet(models.QuerySet["Membership"]):
    """Bulk changes go row by row through save() and delete(), so that each is audited."""

    def update(self, **kwargs: Any) -> int:
        with transaction.atomic(using=self.db):
            rows = list(self.select_for_update())
            for row in rows:
                for name, value in kwargs.items():
                    setattr(row, name, value)
                row.save()
        return len(rows)

    def delete(self) -> tuple[int, dict[str, int]]:  # type: ignore[override]
        with transaction.atomic(using=self.db):
            rows = list(self.select_for_update())
            for row in rows:
                row.delete()
        return len(rows), {Membership._meta.label: len(rows)}

    def bulk_create(self, objs: Any, *args: Any, **kwargs: Any) -> list[Membership]:  # type: ignore[override]
        rows = list(objs)
        with transaction.atomic(using=self.db):
            for row in rows:
                row.save()
        return rows


class Membership(models.Model):
    """Who may log in to a club, and whether they organise it. Every change is audited
    (league.memberships): pass `actor=` to save() and delete() when the one who acts is known."""

    ORGANISER = "organiser"
    MEMBER = "member"
    ROLES = [(ORGANISER, _("organiser")), (MEMBER, _("member"))]

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="memberships")
    role = models.CharField(_("role"), max_length=20, choices=ROLES, default=MEMBER)

    objects = MembershipQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "club"], name="membership_once_per_club"),
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.club} ({self.role})"

    def save(self, *args: Any, actor: Any = None, **kwargs: Any) -> None:
        from league.memberships import membership_audited

        with transaction.atomic():
            before = (
                Membership.objects.filter(pk=self.pk).values("user_id", "club_id", "role").first()
                if self.pk is not None
                else None
            )
            super().save(*args, **kwargs)
            membership_audited(before=before, after=self, pk=self.pk, actor=actor)

    def delete(self, *args: Any, actor: Any = None, **kwargs: Any) -> tuple[int, dict[str, int]]:
        from league.memberships import membership_audited

        with transaction.atomic():
            pk = self.pk
            before = Membership.objects.filter(pk=pk).values("user_id", "club_id", "role").first()
            deleted = super().delete(*args, **kwargs)
            if before is not None:
                membership_audited(before=before, after=None, pk=pk, actor=actor)
        return deleted


class Member(models.Model):
    """A player of the club (a login is optional: most players never log in)."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="members")
    name = models.CharField(_("name"), max_length=50)
    # league.names.name_key(name), kept by save(): one member per key in a club, so that ｱｵｷ and
    # アオキ, or 阿部誠 and 阿部 誠, can never be two members.
    name_key = models.CharField(max_length=60, editable=False, default="")
    kana = models.CharField(_("reading (kana)"), max_length=100, blank=True)
    is_guest = models.BooleanField(_("guest"), default=False)
    is_active = models.BooleanField(_("active"), default=True)
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


class RulesVersion(models.Model):
    """A club's rules (settlement.md's full rules object) from a date on.

    A game settles under the version in force on its date; a new version never rewrites old games
    by itself (re-settling is an explicit action, see services.resettle_*).
    """

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="rules_versions")
    effective_from = models.DateField(_("takes effect on"))
    rules_json = models.JSONField(_("rules"))
    preset = models.CharField(_("based on preset"), max_length=50, blank=True)
    note = models.CharField(_("note"), max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("rules version")
        verbose_name_plural = _("rules versions")
        ordering = ["-effective_from"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "effective_from"], name="rules_one_version_per_date"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club} {self.effective_from:%Y-%m-%d}"

    @cached_property
    def rules(self) -> scoring.Rules:
        return scoring.rules_from_json(self.rules_json)

    @classmethod
    def in_force(cls, club: Club, date: datetime.date) -> RulesVersion | None:
        return (
            cls.objects.filter(club=club, effective_from__lte=date)
            .order_by("-effective_from")
            .first()
        )


class Season(models.Model):
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="seasons")
    name = models.CharField(_("name"), max_length=100)
    start = models.DateField(_("first day"))
    end = models.DateField(_("last day"))
    min_games = models.PositiveIntegerField(_("minimum games to qualify"), default=0)
    # Closing freezes the standings as the record of who won (`final_standings`: the rows as
    # shown when it closed); games in its dates stay correctable, with a warning.
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    final_standings = models.JSONField(null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        ordering = ["-start"]
        constraints = [
            models.CheckConstraint(condition=Q(end__gte=F("start")), name="season_end_after_start"),
        ]

    def __str__(self) -> str:
        return self.name


class Day(models.Model):
    """開催日: one session of the club on a date."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="days")
    date = models.DateField(_("date"))
    venue = models.CharField(_("venue"), max_length=100, blank=True)
    attendees = models.ManyToManyField(
        Member, blank=True, related_name="days_attended", verbose_name=_("attendees")
    )
    # The rules version the day's money (fees, shūgi, yen unit, surcharge) is settled under, once
    # a re-settle has fixed it; until then the version of the day's games (league.money.day_rules).
    rules_version = models.ForeignKey(
        RulesVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # 締め: every transfer open at closing was marked paid or deferred (league.money.day_close).
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        verbose_name = _("day")
        verbose_name_plural = _("days")
        ordering = ["-date"]
        constraints = [
            models.UniqueConstraint(fields=["club", "date"], name="day_once_per_date"),
        ]

    def __str__(self) -> str:
        return f"{self.date:%Y/%m/%d}"


class Game(models.Model):
    """One hanchan. Its current settlement is the `Result` rows of its current `revision`."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="games")
    day = models.ForeignKey(Day, on_delete=models.PROTECT, related_name="games")
    date = models.DateField()  # the day's date, kept here so that date-range queries need no join
    table = models.CharField(_("table"), max_length=20, blank=True)
    number = models.PositiveIntegerField(_("game number"))
    rate = models.CharField(_("rate"), max_length=20, blank=True)
    deposits = models.IntegerField(_("deposits"), default=0)
    rules_version = models.ForeignKey(RulesVersion, on_delete=models.PROTECT, related_name="games")
    revision = models.PositiveIntegerField(default=1)
    submission_key = models.UUIDField(null=True, blank=True, editable=False)
    # The API's SHA-256 of the body sent with an Idempotency-Key: the key with another body is a 422.
    submission_hash = models.CharField(max_length=64, blank=True, editable=False)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    recorded_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    voided = models.BooleanField(default=False)
    void_reason = models.CharField(_("reason"), max_length=200, blank=True)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["date", "number"]
        constraints = [
            models.UniqueConstraint(fields=["day", "number"], name="game_number_unique_in_day"),
            # A double tap on "save" (or a retried API call) records one game, not two.
            models.UniqueConstraint(fields=["club", "submission_key"], name="game_submission_once"),
            models.CheckConstraint(condition=Q(deposits__gte=0), name="game_deposits_not_negative"),
        ]
        indexes = [
            # Club home and day lists: a club's recent games.
            models.Index(fields=["club", "-date", "-number"], name="game_club_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.date:%Y/%m/%d} #{self.number}"


class Result(models.Model):
    """One player's line of one revision of a game, with its stored settlement.

    `counted` is true only for the current revision of a game that is not voided: rankings sum
    these rows and nothing else.
    """

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="results")
    revision = models.PositiveIntegerField()
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="results")
    seat = models.PositiveSmallIntegerField(_("seat"))  # 0 = 起家 (East)
    points = models.IntegerField(_("final points"))
    chombo = models.PositiveSmallIntegerField(_("chombo"), default=0)
    rank = models.PositiveSmallIntegerField(_("rank"))
    score = models.IntegerField(_("score"))  # tenths of 1,000 points
    chips = models.IntegerField(_("chips"), default=0)
    yen = models.IntegerField(_("yen"), null=True, blank=True)
    last = models.BooleanField(default=False)  # ラス: the game's lowest rank (shared under split)
    # 飛び賞 and 焼き鳥, where the club's rules have them: the seat of whoever busted this player
    # (None: not busted, or the rules do not ask), how many players this one busted in the game
    # (kept for the 飛ばした回数 statistic), and whether this player won no hand all game.
    busted_by_seat = models.PositiveSmallIntegerField(_("busted by"), null=True, blank=True)
    busts_caused = models.PositiveSmallIntegerField(_("players busted"), default=0)
    yakitori = models.BooleanField(_("yakitori"), default=False)
    # Copies of the game's, so that rankings are one scan of this table.
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    date = models.DateField()
    rate = models.CharField(max_length=20, blank=True)
    counted = models.BooleanField(default=True)

    class Meta:
        ordering = ["game", "revision", "seat"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "revision", "seat"], name="result_one_player_per_seat"
            ),
            models.UniqueConstraint(
                fields=["game", "revision", "member"], name="result_player_once_per_game"
            ),
            # Rankings sum counted rows: one current revision per game, whatever a service does.
            models.UniqueConstraint(
                fields=["game", "seat"],
                condition=Q(counted=True),
                name="result_one_counted_row_per_seat",
            ),
            models.CheckConstraint(condition=Q(seat__lte=3), name="result_seat_0_to_3"),
            models.CheckConstraint(
                condition=Q(rank__gte=1, rank__lte=4), name="result_rank_1_to_4"
            ),
        ]
        indexes = [
            # Standings (league.stats.standings): a club's counted rows grouped by member, then
            # by date for the range. Partial (counted only) and covering every column the
            # aggregate reads, so the GROUP BY streams in member order from the index alone.
            models.Index(
                fields=[
                    "club",
                    "member",
                    "date",
                    "score",
                    "rank",
                    "points",
                    "chombo",
                    "chips",
                    "yen",
                    "last",
                    "counted",
                ],
                condition=Q(counted=True),
                name="result_standings",
            ),
            # Player pages: one member's counted rows by date.
            models.Index(fields=["member", "counted", "date"], name="result_member_history"),
        ]

    def __str__(self) -> str:
        return f"{self.game} r{self.revision} seat {self.seat}"


class ChipEvent(models.Model):
    """一発・役満 etc.: who won it, from whom (none: tsumo), how many times over."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="chip_events")
    revision = models.PositiveIntegerField()
    kind = models.CharField(_("kind"), max_length=30)
    winner = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    discarder = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    multiplier = models.PositiveSmallIntegerField(default=1)

    class Meta:
        ordering = ["game", "revision", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(multiplier__gte=1), name="chip_multiplier_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.game} {self.kind}"


class AuditLogQuerySet(models.QuerySet["AuditLog"]):
    def update(self, **kwargs: Any) -> int:
        raise PermissionError("the audit log is append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise PermissionError("the audit log is append-only")


class AuditLog(models.Model):
    """Every create, edit, void and re-settle: who, when, what, before and after. Append-only."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)
    action = models.CharField(max_length=50)  # namespaced: "game.create", "rules.create", ...
    game = models.ForeignKey(Game, null=True, on_delete=models.PROTECT, related_name="history")
    target = models.CharField(max_length=100)  # e.g. "game:12", "member:3"
    before = models.JSONField(null=True)
    after = models.JSONField(null=True)
    reason = models.CharField(max_length=200, blank=True)

    objects = AuditLogQuerySet.as_manager()

    class Meta:
        ordering = ["at", "id"]
        indexes = [
            # A club's log, newest first.
            models.Index(fields=["club", "-at"], name="audit_club_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.target}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise PermissionError("the audit log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise PermissionError("the audit log is append-only")


class DayShugi(models.Model):
    """Session-wide shūgi (花月杯: a yakuman pays 2,000 yen × multiplier from every attendee)."""

    day = models.ForeignKey(Day, on_delete=models.PROTECT, related_name="shugi")
    winner = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    multiplier = models.PositiveSmallIntegerField(_("multiplier"), default=1)
    voided = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["day", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(multiplier__gte=1), name="shugi_multiplier_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.winner} ×{self.multiplier}"


class LedgerEntryQuerySet(models.QuerySet["LedgerEntry"]):
    def update(self, **kwargs: Any) -> int:
        raise PermissionError("ledger entries are immutable: add a reversing entry")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise PermissionError("ledger entries are immutable: add a reversing entry")


class LedgerEntry(models.Model):
    """Money that changed hands, or a promise to pay: immutable, corrected by a reversal.

    A party that is `None` is the club. See league.ledger for what each kind does to the day's
    outstanding transfers and to the parties' balances.
    """

    PAYMENT = "payment"  # payer paid payee, settling the day (or, with `debt`, paying a debt)
    LOAN = "loan"  # payer (lender) paid payee for `borrower`, who now owes the lender
    DEFERRAL = "deferral"  # `borrower` will pay payee later, with `surcharge` added
    EXPENSE = "expense"  # the club paid someone outside it (the venue) from its pot
    PRIZE = "prize"  # the club paid a champion from its pot
    REVERSAL = "reversal"  # undoes `reverses`
    KINDS = [
        (PAYMENT, _("payment")),
        (LOAN, _("loan")),
        (DEFERRAL, _("deferred")),
        (EXPENSE, _("expense")),
        (PRIZE, _("prize")),
        (REVERSAL, _("reversal")),
    ]

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="ledger")
    day = models.ForeignKey(
        Day, null=True, blank=True, on_delete=models.PROTECT, related_name="ledger"
    )
    kind = models.CharField(max_length=20, choices=KINDS)
    payer = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    payee = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    borrower = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    amount = models.PositiveIntegerField(_("amount"))
    surcharge = models.PositiveIntegerField(_("surcharge"), default=0)
    debt = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="repayments"
    )
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by"
    )
    note = models.CharField(_("note"), max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = LedgerEntryQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="ledger_amount_positive"),
        ]
        indexes = [
            # A day's ledger page: the entries of one day.
            models.Index(fields=["day", "id"], name="ledger_day"),
            # Open debts and statements: a club's entries in order.
            models.Index(fields=["club", "kind", "id"], name="ledger_club_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.amount}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise PermissionError("ledger entries are immutable: add a reversing entry")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise PermissionError("ledger entries are immutable: add a reversing entry")


class ApiToken(models.Model):
    """An organiser's token for the JSON API. Only a SHA-256 of the secret is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="api_tokens")
    name = models.CharField(_("name"), max_length=100)
    prefix = models.CharField(max_length=12)  # shown to tell tokens apart; not secret enough alone
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class LoginAttempt(models.Model):
    """Failed logins, to throttle guessing per user name and per address (see league.throttle)."""

    # What is counted: failed logins, or sign-ups and reset mails (league.accounts), each kept
    # apart so that no one of them can be made to block another.
    kind = models.CharField(max_length=10, default="login")
    username = models.CharField(max_length=150)  # lower-cased
    address = models.GenericIPAddressField()
    device = models.CharField(max_length=64, blank=True, default="")  # a trusted device's id
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            # Throttle checks: recent failures for a user name, and for an address.
            models.Index(fields=["username", "at"], name="login_attempt_user"),
            models.Index(fields=["address", "at"], name="login_attempt_address"),
            models.Index(fields=["device", "at"], name="login_attempt_device"),
        ]

    def __str__(self) -> str:
        return f"{self.username} @ {self.address}"


from league.accounts.models import Invitation  # noqa: E402, F401
from league.aggregates.models import MemberDay, MemberTotal  # noqa: E402, F401  (Django finds them here)
from league.draw.models import Attendance, DrawRound, DrawSeat, DrawTable  # noqa: E402, F401
from league.excel.models import ImportUpload  # noqa: E402, F401  (league.excel: uploads awaiting confirmation)
