"""Importing historical score sheets: upload a workbook, check the preview, confirm.

Organisers only. Nothing is stored in the club's data before the confirmation. The workbook is
read once, on upload; what was read waits in the database for its organiser
(league.models.imports.ImportUpload), so that any app server shows the preview and confirms it.
The preview settles the read games again (names may have been mapped, members added meanwhile),
but never parses the file again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from league.access import club_for
from league.club.forms_manage import kana_clean
from league.excel import imports
from league.excel import services as excel_services
from league.excel.progress import ProgressWriter, progress_of
from league.excel.selectors import upload_waiting
from league.models import Club, Game, ImportUpload, Member

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

    def __init__(self, *args: Any, players: int, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.players = players

    def clean_workbook(self) -> imports.Parsed:
        """The workbook read (the only time it is read), or the reason it cannot be."""
        upload = self.cleaned_data["workbook"]
        if upload.size > imports.MAX_BYTES:  # before reading it into memory
            raise forms.ValidationError(
                str(imports.TOO_BIG) % {"mb": imports.MAX_BYTES // (1024 * 1024)}
            )
        try:
            return imports.workbook_read(upload.read(), players=self.players)
        except imports.WorkbookError as e:
            raise forms.ValidationError(e.message) from None


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
        self.fields["duplicates"] = forms.BooleanField(
            label=_("Import the games already recorded as well (they will be there twice)"),
            required=False,
        )
        choices = [(NEW, _("Add as a new member")), *((k, m.name) for k, m in self.members.items())]
        for name in unknown:
            # Not required: a name left without a choice is added as a new member.
            self.fields[f"map_{name.key}"] = forms.ChoiceField(
                label=name.name, choices=choices, initial=NEW, required=False
            )
            self.fields[f"kana_{name.key}"] = forms.CharField(
                label=_("Reading (kana)"), max_length=100, required=False
            )

    def clean(self) -> dict[str, Any]:
        """Readings are checked like the member form's (kana only, normalised), for the names
        that become new members."""
        cleaned = super().clean()
        for name in self.unknown:
            field_name = f"kana_{name.key}"
            if cleaned.get(f"map_{name.key}") not in (NEW, "", None) or field_name not in cleaned:
                continue
            try:
                cleaned[field_name] = kana_clean(cleaned[field_name])
            except forms.ValidationError as e:
                self.add_error(field_name, e)
        return cleaned

    def mapping(self) -> dict[str, Member]:
        chosen = ((u.key, self.cleaned_data[f"map_{u.key}"]) for u in self.unknown)
        return {key: self.members[pk] for key, pk in chosen if pk not in (NEW, "")}

    def kana(self) -> dict[str, str]:
        return {u.key: self.cleaned_data.get(f"kana_{u.key}", "") for u in self.unknown}

    def rows(self) -> list[tuple[imports.UnknownName, forms.BoundField, forms.BoundField]]:
        return [(u, self[f"map_{u.key}"], self[f"kana_{u.key}"]) for u in self.unknown]


@require_http_methods(["GET", "POST"])
def import_upload(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    players = imports.club_players(club)
    if request.method == "POST":
        form = UploadForm(request.POST, request.FILES, players=players)
    else:
        form = UploadForm(players=players)
    if form.is_bound and form.is_valid():
        parsed = form.cleaned_data["workbook"]
        excel_services.upload_keep(
            club=club,
            user=request.user,
            filename=request.FILES["workbook"].name or "",
            parsed=imports.parsed_dump(parsed),
            games=len(parsed.games),
        )
        return redirect("import_preview", club.slug)
    return render(
        request,
        "league/excel/import_upload.html",
        {
            "club": club,
            "form": form,
            "max_mb": imports.MAX_BYTES // (1024 * 1024),
            "players": players,
        },
    )


def _render_preview(
    request: HttpRequest, upload: ImportUpload, plan: imports.Plan, form: NamesForm
) -> HttpResponse:
    return render(
        request,
        "league/excel/import_preview.html",
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


def _planned(request: HttpRequest, club: Club) -> tuple[ImportUpload, imports.Plan] | HttpResponse:
    """The organiser's waiting upload and its plan, or a redirect to start over."""
    upload = upload_waiting(club=club, user=request.user)
    if upload is None:
        return _start_over(request, club, str(UPLOAD_AGAIN))
    return upload, imports.plan_settle(club=club, parsed=imports.parsed_load(upload.parsed))


@require_GET
def import_preview(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    loaded = _planned(request, club)
    if isinstance(loaded, HttpResponse):
        return loaded
    upload, plan = loaded
    form = NamesForm(unknown=plan.unknown, members=plan.members)
    return _render_preview(request, upload, plan, form)


@require_POST
def import_confirm(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    # Claiming the upload makes a double tap on "import" import once, not twice.
    upload = upload_waiting(club=club, user=request.user)
    if upload is None or not excel_services.upload_claim(upload=upload):
        return _start_over(request, club, str(UPLOAD_AGAIN))
    try:
        return _confirm_claimed(request, club, upload)
    except BaseException:  # an unexpected failure stored nothing: the upload waits again
        excel_services.upload_release(upload=upload)
        raise


def _confirm_claimed(request: HttpRequest, club: Club, upload: ImportUpload) -> HttpResponse:
    # Progress over the passes: every game checked, then (with names mapped) checked again,
    # then written; any server can read it (import_progress) while this request runs.
    tick = ProgressWriter(upload.pk, total=2 * upload.games)
    try:
        plan = imports.plan_settle(
            club=club, parsed=imports.parsed_load(upload.parsed), progress=tick.step
        )
        form = NamesForm(request.POST, unknown=plan.unknown, members=plan.members)
        if form.is_valid():
            mapping = form.mapping()
            if mapping:  # with no name mapped, the plan is the one just settled
                tick.total += upload.games
                plan = plan.remap(mapping, progress=tick.step)
            duplicates = form.cleaned_data["duplicates"]
            try:
                games = imports.plan_apply(
                    plan=plan,
                    user=request.user,
                    kana=form.kana(),
                    duplicates=duplicates,
                    progress=tick.step,
                )
            except imports.ImportFailed as e:
                plan.problems = e.problems
            else:
                tick.finish()
                return _confirmed(request, club, upload, plan, games)
    finally:
        tick.close()
    excel_services.upload_release(upload=upload)
    return _render_preview(request, upload, plan, form)


def _confirmed(
    request: HttpRequest,
    club: Club,
    upload: ImportUpload,
    plan: imports.Plan,
    games: list[Game],
) -> HttpResponse:
    excel_services.upload_discard(upload=upload)
    skipped = plan.skipped - plan.recorded_meanwhile
    text = _imported(len(games), len(plan.new_names), skipped)
    if plan.recorded_meanwhile:  # another organiser's import, or the record form, came first
        text += " " + ngettext(
            "%(n)s game was recorded meanwhile by someone else and was not imported again.",
            "%(n)s games were recorded meanwhile by someone else and were not imported again.",
            plan.recorded_meanwhile,
        ) % {"n": plan.recorded_meanwhile}
    messages.success(request, text)
    return redirect("club_home", club.slug)


@require_GET
def import_progress(request: HttpRequest, slug: str) -> JsonResponse:
    """How far this organiser's confirmation in this club has got (league.excel.progress), as
    JSON for the preview page's script; any app server answers it."""
    club = club_for(request, slug, organiser=True)
    upload = ImportUpload.objects.filter(club=club, user=request.user).order_by("-pk").first()
    return JsonResponse(progress_of(upload))


def _imported(games: int, members: int, skipped: int) -> str:
    text = ngettext("Imported %(n)s game.", "Imported %(n)s games.", games) % {"n": games}
    if skipped:
        text += " " + ngettext(
            "Skipped %(n)s game already recorded.", "Skipped %(n)s games already recorded.", skipped
        ) % {"n": skipped}
    if members:
        text += " " + ngettext("Added %(n)s new member.", "Added %(n)s new members.", members) % {
            "n": members
        }
    return text
