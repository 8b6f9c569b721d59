"""Managing a club: members, seasons, rules versions, and re-settling games under new rules.

Everyone in the club sees the lists; only organisers change anything (league.access decides).
"""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.contrib import messages
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods

import scoring

from .. import money, services
from ..access import club_for
from ..forms_manage import (
    MemberForm,
    RulesForm,
    SeasonForm,
    kana_sort_key,
    rules_initial,
    rules_summary,
)
from ..models import Club, Member, Result, RulesVersion, Season


def _add_errors(form: forms.Form, error: services.ServiceError) -> None:
    """A service's field errors onto the form; fields the form lacks become non-field errors."""
    for field, field_messages in error.errors.items():
        for message in field_messages:
            form.add_error(field if field in form.fields else None, message)


def _next_or(request: HttpRequest, fallback: str) -> str:
    """Where to go after saving: a same-site `next` (e.g. back to the game form), else fallback."""
    target = request.GET.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback


# --- members ---------------------------------------------------------------------------------


@require_GET
def member_list(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    # 五十音 order in Python: readings typed in katakana sort with hiragana ones; no reading last.
    members = sorted(
        Member.objects.filter(club=club),
        key=lambda m: (not m.kana, kana_sort_key(m.kana), m.name),
    )
    return render(
        request,
        "league/member_list.html",
        {
            "club": club,
            "active": [m for m in members if m.is_active],
            "inactive": [m for m in members if not m.is_active],
            "has_money": money.club_has_money(club=club),
        },
    )


@require_http_methods(["GET", "POST"])
def member_new(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    if request.method == "POST" and "toggle" in request.GET:
        return _member_toggle(request, club, request.GET["toggle"])
    form = MemberForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            member = services.member_create(club=club, user=request.user, **form.cleaned_data)
        except services.ServiceError as e:
            _add_errors(form, e)
        else:
            messages.success(request, _("%(name)s was added.") % {"name": member.name})
            return redirect(_next_or(request, reverse("member_list", args=[club.slug])))
    return render(request, "league/member_form.html", {"club": club, "form": form})


def _member_toggle(request: HttpRequest, club: Club, member_id: str) -> HttpResponse:
    if not member_id.isdigit():
        raise Http404
    member = get_object_or_404(Member, pk=int(member_id), club=club)
    member = services.member_set_active(
        member=member, user=request.user, active=not member.is_active
    )
    if member.is_active:
        text = _("%(name)s is active again.")
    else:
        text = _("%(name)s is now inactive: kept in all results, left out of the pickers.")
    messages.success(request, text % {"name": member.name})
    return redirect("member_list", club.slug)


# --- seasons ---------------------------------------------------------------------------------


@require_GET
def season_list(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    seasons = Season.objects.filter(club=club).order_by("-start", "-pk")
    return render(request, "league/season_list.html", {"club": club, "seasons": seasons})


@require_http_methods(["GET", "POST"])
def season_new(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    form = SeasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            season = services.season_create(club=club, user=request.user, **form.cleaned_data)
        except services.ServiceError as e:
            _add_errors(form, e)
        else:
            messages.success(request, _("Season %(name)s was created.") % {"name": season.name})
            return redirect("season_list", club.slug)
    return render(request, "league/season_form.html", {"club": club, "form": form})


# --- rules versions --------------------------------------------------------------------------


@require_GET
def rules_list(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    versions = list(
        RulesVersion.objects.filter(club=club)
        .annotate(game_count=Count("games"))
        .order_by("-effective_from")
    )
    today = timezone.localdate()
    in_force = next((v for v in versions if v.effective_from <= today), None)
    rows = [(v, rules_summary(v.rules)) for v in versions]
    return render(
        request,
        "league/rules_list.html",
        {"club": club, "rows": rows, "in_force": in_force, "today": today},
    )


def _base_rules(club: Club, choice: str) -> tuple[str, dict[str, object], str]:
    """What a new version starts from: ("current" or a preset's name, its rules, its preset)."""
    if choice in scoring.PRESETS:
        return choice, scoring.PRESETS[choice].rules.to_json(), choice
    current = RulesVersion.in_force(club, timezone.localdate())
    current = current or RulesVersion.objects.filter(club=club).first()
    if current is None:  # a new club: its first rules come from a preset
        name = next(iter(scoring.PRESETS))
        return name, scoring.PRESETS[name].rules.to_json(), name
    return "current", current.rules_json, current.preset


@require_http_methods(["GET", "POST"])
def rules_new(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    base, base_json, preset = _base_rules(club, request.GET.get("from", ""))
    initial = {**rules_initial(base_json), "preset": preset, "effective_from": timezone.localdate()}
    form = RulesForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        assert form.rules is not None
        try:
            version = services.rules_version_create(
                club=club,
                user=request.user,
                effective_from=form.cleaned_data["effective_from"],
                rules_json=form.rules.to_json(),
                preset=form.cleaned_data["preset"],
                note=form.cleaned_data["note"],
            )
        except services.ServiceError as e:
            _add_errors(form, e)
        else:
            _rules_created_messages(request, club, version)
            return redirect("rules_list", club.slug)
    context = {
        "club": club,
        "form": form,
        "base": base,
        "presets": scoring.PRESETS.values(),
        "has_current": RulesVersion.objects.filter(club=club).exists(),
    }
    return render(request, "league/rules_form.html", context)


def _rules_created_messages(request: HttpRequest, club: Club, version: RulesVersion) -> None:
    messages.success(
        request,
        _("The rules taking effect on %(date)s were saved.")
        % {"date": f"{version.effective_from:%Y/%m/%d}"},
    )
    count = services.resettle_count(version=version)
    if count:
        text = ngettext(
            "%(n)s game from this date on is settled under other rules.",
            "%(n)s games from this date on are settled under other rules.",
            count,
        ) % {"n": count}
        url = reverse("rules_resettle", args=[club.slug, version.pk])
        messages.warning(
            request, format_html('{} <a href="{}">{}</a>', text, url, _("Re-settle them"))
        )


@dataclass(frozen=True)
class ResettleRow:
    """One game of the preview: each player's stored result beside the new settlement."""

    change: services.ResettleChange
    players: list[tuple[Result, scoring.PlayerResult | None]]


@require_http_methods(["GET", "POST"])
def rules_resettle(request: HttpRequest, slug: str, version_id: int) -> HttpResponse:
    # Everyone in the club may look at what would change; only organisers apply it.
    club = club_for(request, slug, organiser=request.method == "POST")
    version = get_object_or_404(RulesVersion, pk=version_id, club=club)
    if request.method == "POST":
        moved = services.resettle_apply(version=version, user=request.user)
        messages.success(
            request,
            ngettext("%(n)s game re-settled.", "%(n)s games re-settled.", moved) % {"n": moved},
        )
        return redirect("rules_list", club.slug)
    rows = [
        ResettleRow(
            c, [(r, c.after.players[i] if c.after else None) for i, r in enumerate(c.before)]
        )
        for c in services.resettle_preview(version=version)
    ]
    context = {
        "club": club,
        "version": version,
        "rows": rows,
        "changed_count": sum(row.change.changed for row in rows),
        "failed_count": sum(row.change.after is None for row in rows),
    }
    return render(request, "league/rules_resettle.html", context)
