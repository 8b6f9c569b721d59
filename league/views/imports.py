"""Importing historical score sheets: upload a workbook, check the preview, confirm.

Organisers only. Nothing is stored in the club's data before the confirmation: the uploaded file
waits in a temporary file named by a token in the session (league.imports), and the preview is
worked out from it again on every request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from league import imports
from league.access import club_for
from league.models import Club, Member

NEW = "new"
SHOWN_GAMES = 1_000  # a page of tens of thousands of games helps nobody; all of them are checked
SHOWN_PROBLEMS = 500
UPLOAD_AGAIN = gettext_lazy("Upload the workbook again: the previous upload is no longer here.")


class UploadForm(forms.Form):
    workbook = forms.FileField(
        label=gettext_lazy("Score sheet workbook (.xlsx)"),
        widget=forms.ClearableFileInput(attrs={"accept": ".xlsx"}),
        error_messages={"empty": imports.EMPTY_FILE},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def clean_workbook(self) -> bytes:
        upload = self.cleaned_data["workbook"]
        if upload.size > imports.MAX_BYTES:  # before reading it into memory
            raise forms.ValidationError(
                str(imports.TOO_BIG) % {"mb": imports.MAX_BYTES // (1024 * 1024)}
            )
        data = upload.read()
        try:
            imports.workbook_check(data)
        except imports.WorkbookError as e:
            raise forms.ValidationError(e.message) from None
        return data


class NamesForm(forms.Form):
    """Per unknown name: a new member (with an optional reading) or an existing member."""

    def __init__(
        self,
        *args: Any,
        unknown: Sequence[imports.UnknownName],
        members: Sequence[Member],
        **kw: Any,
    ) -> None:
        kw.setdefault("label_suffix", "")
        super().__init__(*args, **kw)
        self.unknown = unknown
        self.members = {str(m.pk): m for m in members}
        choices = [(NEW, _("Add as a new member")), *((k, m.name) for k, m in self.members.items())]
        for name in unknown:
            # Not required: a name left without a choice is added as a new member.
            self.fields[f"map_{name.key}"] = forms.ChoiceField(
                label=name.name, choices=choices, initial=NEW, required=False
            )
            self.fields[f"kana_{name.key}"] = forms.CharField(
                label=_("Reading (kana)"), max_length=100, required=False
            )

    def mapping(self) -> dict[str, Member]:
        chosen = ((u.key, self.cleaned_data[f"map_{u.key}"]) for u in self.unknown)
        return {key: self.members[pk] for key, pk in chosen if pk not in (NEW, "")}

    def kana(self) -> dict[str, str]:
        return {u.key: self.cleaned_data[f"kana_{u.key}"].strip() for u in self.unknown}

    def rows(self) -> list[tuple[imports.UnknownName, forms.BoundField, forms.BoundField]]:
        return [(u, self[f"map_{u.key}"], self[f"kana_{u.key}"]) for u in self.unknown]


@dataclass(frozen=True)
class Upload:
    token: str
    filename: str


def _session_key(club: Club) -> str:
    return f"league.import.{club.pk}"


def _upload(request: HttpRequest, club: Club) -> Upload | None:
    stored = request.session.get(_session_key(club))
    return Upload(**stored) if isinstance(stored, dict) else None


def _forget(request: HttpRequest, club: Club, upload: Upload) -> None:
    imports.upload_discard(upload.token)
    request.session.pop(_session_key(club), None)


@require_http_methods(["GET", "POST"])
def import_upload(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    form = UploadForm(request.POST, request.FILES) if request.method == "POST" else UploadForm()
    if form.is_bound and form.is_valid():
        previous = _upload(request, club)
        if previous is not None:
            imports.upload_discard(previous.token)
        token = imports.upload_store(form.cleaned_data["workbook"])
        name = request.FILES["workbook"].name or ""
        request.session[_session_key(club)] = {"token": token, "filename": name[:200]}
        return redirect("import_preview", club.slug)
    return render(
        request,
        "league/import_upload.html",
        {
            "club": club,
            "form": form,
            "max_mb": imports.MAX_BYTES // (1024 * 1024),
            "players": imports.club_players(club),
        },
    )


def _render_preview(
    request: HttpRequest, upload: Upload, plan: imports.Plan, form: NamesForm
) -> HttpResponse:
    return render(
        request,
        "league/import_preview.html",
        {
            "club": plan.club,
            "upload": upload,
            "plan": plan,
            "form": form,
            "games": plan.games[:SHOWN_GAMES],
            "hidden_games": max(len(plan.games) - SHOWN_GAMES, 0),
            "problems": plan.problems[:SHOWN_PROBLEMS],
            "hidden_problems": max(len(plan.problems) - SHOWN_PROBLEMS, 0),
            "has_yen": any(g.data.rate for g in plan.games),
            "players": range(max((len(g.data.seats) for g in plan.games), default=0)),
        },
    )


def _start_over(request: HttpRequest, club: Club, message: str) -> HttpResponse:
    messages.error(request, message)
    return redirect("import_upload", club.slug)


def _planned(request: HttpRequest, club: Club, *, claim: bool) -> tuple[Any, Any] | HttpResponse:
    """The session's upload and its plan, or a redirect to start over with the reason."""
    upload = _upload(request, club)
    load = imports.upload_claim if claim else imports.upload_load
    data = load(upload.token) if upload else None
    if upload is None or data is None:
        return _start_over(request, club, str(UPLOAD_AGAIN))
    try:
        return upload, imports.plan_build(club=club, data=data)
    except imports.WorkbookError as e:
        _forget(request, club, upload)
        return _start_over(request, club, e.message)


@require_GET
def import_preview(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    loaded = _planned(request, club, claim=False)
    if isinstance(loaded, HttpResponse):
        return loaded
    upload, plan = loaded
    form = NamesForm(unknown=plan.unknown, members=plan.members)
    return _render_preview(request, upload, plan, form)


@require_POST
def import_confirm(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    # Claiming the file makes a double tap on "import" import once, not twice.
    loaded = _planned(request, club, claim=True)
    if isinstance(loaded, HttpResponse):
        return loaded
    upload, plan = loaded
    form = NamesForm(request.POST, unknown=plan.unknown, members=plan.members)
    if form.is_valid():
        plan = plan.remap(form.mapping())
        try:
            games = imports.plan_apply(plan=plan, user=request.user, kana=form.kana())
        except imports.ImportFailed as e:
            plan.problems = e.problems
        else:
            _forget(request, club, upload)
            messages.success(request, _imported(len(games), len(plan.new_names)))
            return redirect("club_home", club.slug)
    imports.upload_release(upload.token)
    return _render_preview(request, upload, plan, form)


def _imported(games: int, members: int) -> str:
    text = ngettext("Imported %(n)s game.", "Imported %(n)s games.", games) % {"n": games}
    if members:
        text += " " + ngettext("Added %(n)s new member.", "Added %(n)s new members.", members) % {
            "n": members
        }
    return text
