"""Pages for keeping members and seasons tidy (organisers only): edit a member, merge two
records of one player (preview, then confirm), edit, close and reopen a season."""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from league.access import club_for
from league.club import services
from league.club.forms import (
    ClubNameForm,
    MemberEditForm,
    MergeForm,
    RatingMinGamesForm,
    SeasonEditForm,
)
from league.core.clock import today
from league.core.errors import ServiceError
from league.models import Club, Member, Season
from league.web import add_errors, show_errors


@require_http_methods(["GET", "POST"])
def member_edit(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    member = get_object_or_404(Member, pk=member_id, club=club)
    if member.merged_into_id is not None:
        messages.error(request, _("A merged record cannot be edited."))
        return redirect("club:member_list", club.slug)
    return _edit(
        request,
        club,
        member,
        fields=("name", "kana", "is_guest", "is_active"),
        form_class=MemberEditForm,
        save=lambda **data: services.member_edit(member=member, **data),
        saved=_("%(name)s was saved."),
        back="club:member_list",
        template="league/club/member_edit.html",
    )


def _edit(
    request: HttpRequest,
    club: Club,
    obj: Member | Season,
    *,
    fields: tuple[str, ...],
    form_class: type[forms.Form],
    save: Callable[..., Member | Season],
    saved: str,
    back: str,
    template: str,
) -> HttpResponse:
    """An edit page: the form filled from `obj`, saved through `save` (a service), then back to
    the list with `saved` said; the form again with the service's errors otherwise."""
    form = form_class(request.POST or None, initial={f: getattr(obj, f) for f in fields})
    if request.method == "POST" and form.is_valid():
        try:
            obj = save(user=request.user, **form.cleaned_data)
        except ServiceError as e:
            add_errors(form, e)
        else:
            messages.success(request, saved % {"name": obj.name})
            return redirect(back, club.slug)
    key = "member" if isinstance(obj, Member) else "season"
    return render(request, template, {"club": club, key: obj, "form": form})


@require_http_methods(["GET", "POST"])
def member_merge(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    """GET without a choice: the form; GET with one: the preview of what moves; POST: the merge,
    refused when the rows changed since the preview (its key)."""
    club = club_for(request, slug, organiser=True)
    member = get_object_or_404(Member, pk=member_id, club=club)
    candidates = services.merge_candidates(member)
    posted = request.method == "POST"
    data = request.POST if posted else (request.GET if "other" in request.GET else None)
    form = MergeForm(data, member=member, candidates=candidates)
    preview = None
    if data is not None and form.is_valid():
        keep, gone = form.pair()
        try:
            if posted:
                key = form.cleaned_data["key"] or "-"
                services.member_merge(keep=keep, gone=gone, user=request.user, key=key)
            else:
                preview = services.merge_preview(keep=keep, gone=gone)
        except ServiceError as e:
            add_errors(form, e)
        else:
            if posted:
                messages.success(
                    request,
                    _("%(gone)s was merged into %(keep)s.")
                    % {"gone": gone.name, "keep": keep.name},
                )
                return redirect("club:member_list", club.slug)
    return render(
        request,
        "league/club/member_merge.html",
        {"club": club, "member": member, "form": form, "preview": preview},
    )


@require_http_methods(["GET", "POST"])
def season_edit(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    season = get_object_or_404(Season, pk=season_id, club=club)
    return _edit(
        request,
        club,
        season,
        fields=("name", "start", "end", "min_games", "kind", "in_club_season"),
        form_class=SeasonEditForm,
        save=lambda **data: services.season_edit(season=season, **data),
        saved=_("Season %(name)s was saved."),
        back="club:season_list",
        template="league/club/season_edit.html",
    )


@require_http_methods(["GET", "POST"])
def season_close(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    """GET: the confirmation page (close, or reopen a closed season); POST: do it."""
    club = club_for(request, slug, organiser=True)
    season = get_object_or_404(Season, pk=season_id, club=club)
    if request.method == "POST":
        try:
            if request.POST.get("action") == "reopen":
                season = services.season_reopen(season=season, user=request.user)
                text = _("Season %(name)s was reopened: its standings are live again.")
            else:
                season = services.season_close(season=season, user=request.user)
                text = _("Season %(name)s was closed: its final standings are kept.")
        except ServiceError as e:
            show_errors(request, e)
        else:
            messages.success(request, text % {"name": season.name})
            return redirect("standings:season_standings", club.slug, season.pk)
    context = {"club": club, "season": season}
    if season.closed_at is None:  # what closing would keep, and whether the season is still on
        context["top"] = services.final_rows(season)[:5]
        context["still_on"] = season.end >= today()
    return render(request, "league/club/season_close.html", context)


@require_http_methods(["GET", "POST"])
def club_settings(request: HttpRequest, slug: str) -> HttpResponse:
    """The club's name (organisers only)."""
    club = club_for(request, slug, organiser=True)
    form = ClubNameForm(request.POST or None, initial={"name": club.name})
    if request.method == "POST" and form.is_valid():
        try:
            renamed = services.club_rename(
                club=club, user=request.user, name=form.cleaned_data["name"]
            )
        except ServiceError as e:
            add_errors(form, e)
        else:
            messages.success(
                request, _("The club is now called %(name)s.") % {"name": renamed.name}
            )
            return redirect("recording:club_home", club.slug)
    return render(request, "league/club/club_settings.html", {"club": club, "form": form})


@require_http_methods(["GET", "POST"])
def club_rating_settings(request: HttpRequest, slug: str) -> HttpResponse:
    """The rating ranking's minimum games (organisers only)."""
    club = club_for(request, slug, organiser=True)
    form = RatingMinGamesForm(request.POST or None, initial={"games": club.rating_min_games})
    if request.method == "POST" and form.is_valid():
        try:
            services.club_set_rating_min_games(
                club=club, user=request.user, games=form.cleaned_data["games"]
            )
        except ServiceError as e:
            add_errors(form, e)
        else:
            messages.success(request, _("Saved."))
            return redirect("standings:rating_list", club.slug)
    return render(request, "league/club/rating_settings.html", {"club": club, "form": form})
