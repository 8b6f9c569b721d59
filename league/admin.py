"""The Django admin, for superusers: set up clubs and who may log in to them, and look at the rest.

Nothing is deleted in 雀帳, and everything a club records (members, rules, seasons, games) is
written through league.recording.services so that it is settled and audited; here those are read-only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from league.models import (
    AuditLog,
    ChipEvent,
    Club,
    Day,
    Game,
    LedgerEntry,
    Member,
    Membership,
    Result,
    RulesVersion,
    Season,
)


class NoDeleteAdmin(admin.ModelAdmin):
    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(NoDeleteAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Club)
class ClubAdmin(NoDeleteAdmin):
    list_display = ["name", "slug", "created_at"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Membership)
class MembershipAdmin(NoDeleteAdmin):
    list_display = ["user", "club", "role"]
    list_filter = ["role", "club"]
    list_select_related = ["user", "club"]
    search_fields = ["user__username", "club__name"]
    autocomplete_fields = ["user", "club"]

    # Memberships audit themselves (league.models.memberships); the admin says who acted.
    def save_model(self, request: HttpRequest, obj: Membership, form: Any, change: bool) -> None:
        obj.save(actor=request.user)

    def delete_model(self, request: HttpRequest, obj: Membership) -> None:
        obj.delete(actor=request.user)


@admin.register(Member)
class MemberAdmin(ReadOnlyAdmin):
    list_display = ["name", "kana", "club", "is_guest", "is_active"]
    list_filter = ["club", "is_guest", "is_active"]
    list_select_related = ["club"]
    search_fields = ["name", "kana"]


@admin.register(RulesVersion)
class RulesVersionAdmin(ReadOnlyAdmin):
    list_display = ["club", "effective_from", "preset", "note", "created_by"]
    list_filter = ["club"]
    list_select_related = ["club", "created_by"]


@admin.register(Season)
class SeasonAdmin(ReadOnlyAdmin):
    list_display = ["name", "club", "start", "end", "min_games"]
    list_filter = ["club"]
    list_select_related = ["club"]


@admin.register(Day)
class DayAdmin(ReadOnlyAdmin):
    list_display = ["date", "club", "venue"]
    list_filter = ["club"]
    list_select_related = ["club"]
    date_hierarchy = "date"


class ResultInline(admin.TabularInline):
    model = Result
    fields = ["revision", "seat", "member", "points", "chombo", "rank", "score", "chips", "yen"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).select_related("member")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    list_display = ["date", "number", "club", "table", "rate", "revision", "voided"]
    list_filter = ["club", "voided"]
    list_select_related = ["club"]
    date_hierarchy = "date"
    inlines = [ResultInline]


@admin.register(Result)
class ResultAdmin(ReadOnlyAdmin):
    list_display = ["game", "revision", "seat", "member", "points", "rank", "score", "counted"]
    list_filter = ["club", "counted"]
    list_select_related = ["game", "member"]


@admin.register(ChipEvent)
class ChipEventAdmin(ReadOnlyAdmin):
    list_display = ["game", "revision", "kind", "winner", "discarder", "multiplier"]
    list_select_related = ["game", "winner", "discarder"]


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdmin):
    """The audit log is append-only: the model refuses edits, and the admin offers none."""

    list_display = ["at", "club", "actor", "action", "target", "reason"]
    list_filter = ["club", "action"]
    list_select_related = ["club", "actor"]
    search_fields = ["target", "reason"]
    date_hierarchy = "at"


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    """Money entries are immutable: corrections are reversals made in the app."""

    list_display = ["created_at", "club", "kind", "payer", "payee", "borrower", "amount", "note"]
    list_filter = ["kind"]
