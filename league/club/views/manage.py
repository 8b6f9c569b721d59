"""Managing a club: members, seasons, rules versions, and re-settling games under new rules.

Everyone in the club sees the lists; only organisers change anything (league.access decides).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext
from django.views.decorators.http import require_GET, require_http_methods

from league import limits
from league.access import club_for
from league.club import services as club_services
from league.club.forms_manage import (
    MEMBER_ROWS,
    MEMBER_ROWS_MAX,
    MembersAddForm,
    SeasonForm,
    kana_sort_key,
    member_rows,
)
from league.core import errors as core_errors
from league.models import Club, Member, Season
from league.models.rules import club_has_money
from league.web import add_errors


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
        Member.objects.filter(club=club).select_related("merged_into"),
        key=lambda m: (not m.kana, kana_sort_key(m.kana), m.name),
    )
    return render(
        request,
        "league/club/member_list.html",
        {
            "club": club,
            "active": [m for m in members if m.is_active],
            "inactive": [m for m in members if not m.is_active],
            "has_money": club_has_money(club=club),
        },
    )


@require_http_methods(["GET", "POST"])
def member_new(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    if request.method == "POST" and "toggle" in request.GET:
        return _member_toggle(request, club, request.GET["toggle"])
    rows = member_rows(request.POST.get("rows") or MEMBER_ROWS)
    more = request.method == "POST" and "more" in request.POST
    if more:  # more rows, keeping what was typed; nothing is checked or saved yet
        rows = member_rows(request.POST["more"])
    form = MembersAddForm(request.POST if request.method == "POST" else None, rows=rows)
    if request.method == "POST" and not more and form.is_valid():
        try:
            added = club_services.members_create(club=club, user=request.user, people=form.people())
        except core_errors.ServiceError as e:
            add_errors(form, e)
        else:
            # A list as the reader writes one: 青木、馬場 / Aoki, Baba.
            names = pgettext("list separator", ", ").join(m.name for m in added)
            text = ngettext("%(names)s was added.", "%(names)s were added.", len(added))
            messages.success(request, text % {"names": names})
            return redirect(_next_or(request, reverse("club:member_list", args=[club.slug])))
    context = {
        "club": club,
        "form": form,
        "more_rows": rows + MEMBER_ROWS if rows < MEMBER_ROWS_MAX else None,
    }
    return render(request, "league/club/member_form.html", context)


def _member_toggle(request: HttpRequest, club: Club, member_id: str) -> HttpResponse:
    pk = limits.row_id(member_id)
    if pk is None:
        raise Http404
    member = get_object_or_404(Member, pk=pk, club=club)
    try:
        member = club_services.member_set_active(
            member=member, user=request.user, active=not member.is_active
        )
    except core_errors.ServiceError as e:
        messages.error(request, " ".join(m for ms in e.errors.values() for m in ms))
        return redirect("club:member_list", club.slug)
    if member.is_active:
        text = _("%(name)s is active again.")
    else:
        text = _("%(name)s is now inactive: kept in all results, left out of the pickers.")
    messages.success(request, text % {"name": member.name})
    return redirect("club:member_list", club.slug)


# --- seasons ---------------------------------------------------------------------------------


@require_GET
def season_list(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    seasons = Season.objects.filter(club=club).order_by("-start", "-pk")
    return render(request, "league/club/season_list.html", {"club": club, "seasons": seasons})


@require_http_methods(["GET", "POST"])
def season_new(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    form = SeasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            season = club_services.season_create(club=club, user=request.user, **form.cleaned_data)
        except core_errors.ServiceError as e:
            add_errors(form, e)
        else:
            messages.success(request, _("Season %(name)s was created.") % {"name": season.name})
            return redirect("club:season_list", club.slug)
    return render(request, "league/club/season_form.html", {"club": club, "form": form})


# --- rules versions --------------------------------------------------------------------------
