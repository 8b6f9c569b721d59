"""「写真から」: upload a photo of a game's scores, wait while a worker reads it, then the record
form opens filled in from it (league.recording.photos; the form itself is views.game_new)."""

from __future__ import annotations

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from league.access import club_for
from league.core.clock import today
from league.jobs import DONE
from league.recording import photos
from league.recording.forms import PhotoField
from league.recording.views.record import _rules_version


class PhotoForm(forms.Form):
    kind = forms.ChoiceField(
        label=_("What the photo shows"),
        choices=[
            ("display", _("The automatic table's display")),
            ("sheet", _("A score sheet")),
            ("screen", _("An online game's result screen")),
        ],
        initial="display",
        widget=forms.RadioSelect,
    )
    image = PhotoField(label=_("Photo"))


def _need_photos() -> None:
    if not photos.available():
        raise Http404("reading photos is not installed here")


@require_http_methods(["GET", "POST"])
def photo_new(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    _need_photos()
    form = PhotoForm(request.POST or None, request.FILES or None)
    version = _rules_version(club, today())
    if version is None:
        return redirect("rules:rules_list", club.slug)
    if request.method == "POST" and form.is_valid():
        rules = version.rules
        kept = photos.photo_upload(
            club=club,
            user=request.user,
            data=form.cleaned_data["image"],
            kind=form.cleaned_data["kind"],
            players=rules.players,
            total=rules.start * rules.players,
        )
        return redirect("recording:photo_status", club.slug, kept.pk)
    return render(request, "league/recording/photo_new.html", {"club": club, "form": form})


@require_http_methods(["GET"])
def photo_status(request: HttpRequest, slug: str, photo_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    _need_photos()
    kept = photos.photo_for(club=club, user=request.user, photo_id=photo_id)
    if kept is None:
        raise Http404("no such photo")
    state = photos.photo_state(kept)
    if state is not None and state.status == DONE:
        return redirect(f"{reverse('recording:game_new', args=[club.slug])}?photo={kept.pk}")
    return render(
        request,
        "league/recording/photo_status.html",
        {"club": club, "photo": kept, "state": state},
    )
