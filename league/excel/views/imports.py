"""Importing historical score sheets: upload a workbook, check the preview, confirm.

Organisers only. Nothing is stored in the club's data before the confirmation. The workbook is
read once, on upload; what was read waits in the database for its organiser
(league.models.imports.ImportUpload), so that any app server shows the preview and confirms it.
A worker settles the read games for the preview once (league.excel.tasks.import_preview) while
the preview page shows how far it has got; the file is never parsed again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from league.access import club_for
from league.club.directory import AmbiguousMember, MemberDirectory
from league.club.forms_manage import kana_clean
from league.core.clock import BAD_DATE, parse_date, today
from league.core.errors import ServiceError
from league.excel import imports
from league.excel import services as excel_services
from league.excel import tasks as import_tasks
from league.excel.progress import progress_of
from league.excel.selectors import UploadState, upload_latest, upload_state, upload_waiting
from league.jobs import DONE, FAILED, STALLED
from league.models import Club, ImportBatch, ImportUpload, Member, RulesVersion
from league.recording import photos
from league.recording.forms import PhotoField
from league.web import add_errors, show_errors

NEW = "new"
SHOWN_GAMES = imports.SHOWN  # a page of tens of thousands of games helps nobody; all are checked
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


class SheetPhotoForm(forms.Form):
    """A photo of the club's paper score sheet of several games (成績表): read by a worker into
    an upload (league.excel.tasks.read_sheet_photo), then the same preview as a workbook's."""

    date = forms.CharField(
        label=gettext_lazy("Date of the games"),
        max_length=30,
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "placeholder": "2026/11/21", "data-date": ""}
        ),
    )
    rate = forms.ChoiceField(label=gettext_lazy("Rate"), required=False)
    image = PhotoField(label=gettext_lazy("Photo of the score sheet"))

    def __init__(self, *args: Any, rates: Sequence[str], **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.fields["rate"].choices = [("", _("No rate (points only)")), *((r, r) for r in rates)]

    def clean_date(self) -> Any:
        try:
            return parse_date(str(self.cleaned_data["date"]))
        except ValueError:
            raise forms.ValidationError(BAD_DATE, code="invalid") from None


def _rates(club: Club) -> list[str]:
    version = RulesVersion.in_force(club, today())
    return list(version.rules.rates) if version else []


def _sheet_photo_form(request: HttpRequest, club: Club) -> SheetPhotoForm | None:
    """The form for a score sheet's photo, when photos can be read here (else None: no form)."""
    if not photos.available():
        return None
    if request.method == "POST" and "image" in request.FILES:
        return SheetPhotoForm(request.POST, request.FILES, rates=_rates(club))
    return SheetPhotoForm(rates=_rates(club), initial={"date": f"{today():%Y/%m/%d}"})


def _likely(directory: MemberDirectory, name: imports.UnknownName) -> str:
    """The member the record form would take the name for (a surname or given name, or a part of
    a reading, only one member has: 吉田 for 吉田 健一), chosen to start with; else a new member.
    The import itself matches only whole names and readings: the organiser sees this choice."""
    try:
        found = directory.find(name.name)
    except AmbiguousMember:  # several members share it
        return NEW
    return NEW if found is None else str(found.pk)


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
        directory = MemberDirectory(members)
        for name in unknown:
            # Not required: a name left without a choice is added as a new member.
            self.fields[f"map_{name.key}"] = forms.ChoiceField(
                label=name.name, choices=choices, initial=_likely(directory, name), required=False
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
        # Settled once, by a worker (thousands of games take longer than a request should): the
        # preview page shows its progress, then what was kept, however often it is seen.
        try:
            import_tasks.import_preview_start(
                club=club,
                user=request.user,
                filename=request.FILES["workbook"].name or "",
                parsed=imports.parsed_dump(parsed),
                games=len(parsed.games),
                language=translation.get_language(),
            )
        except ServiceError as e:  # too much of the club's work queued already
            add_errors(form, e)
        else:
            return redirect("excel:import_preview", club.slug)
    return _upload_page(request, club, form, players, _sheet_photo_form(request, club))


def _upload_page(
    request: HttpRequest,
    club: Club,
    form: UploadForm,
    players: int,
    photo_form: SheetPhotoForm | None,
) -> HttpResponse:
    return render(
        request,
        "league/excel/import_upload.html",
        {
            "club": club,
            "form": form,
            "photo_form": photo_form,
            "max_mb": imports.MAX_BYTES // (1024 * 1024),
            "players": players,
        },
    )


@require_POST
def import_photo(request: HttpRequest, slug: str) -> HttpResponse:
    """A photo of a score sheet of several games: kept and read by a worker, whose games become
    an upload with the same preview as a workbook's (nothing is stored in the club's data before
    the organiser confirms it there)."""
    club = club_for(request, slug, organiser=True)
    photo_form = _sheet_photo_form(request, club)
    if photo_form is None:
        raise Http404("reading photos is not installed here")
    if photo_form.is_valid():
        kept = import_tasks.sheet_photo_upload(
            club=club,
            user=request.user,
            data=photo_form.cleaned_data["image"],
            date=photo_form.cleaned_data["date"],
            rate=photo_form.cleaned_data["rate"] or "",
            language=translation.get_language(),
        )
        return redirect("excel:import_photo_status", club.slug, kept.pk)
    players = imports.club_players(club)
    return _upload_page(request, club, UploadForm(players=players), players, photo_form)


@require_GET
def import_photo_status(request: HttpRequest, slug: str, photo_id: int) -> HttpResponse:
    """While the worker reads the sheet's photo; then the import's preview."""
    club = club_for(request, slug, organiser=True)
    if not photos.available():
        raise Http404("reading photos is not installed here")
    kept = photos.photo_for(club=club, user=request.user, photo_id=photo_id)
    if kept is None:
        raise Http404("no such photo")
    state = photos.photo_state(kept)
    if state is not None and state.status == DONE:
        return redirect("excel:import_preview", club.slug)
    again = reverse("excel:import_upload", args=[club.slug])
    return render(
        request,
        "league/recording/photo_status.html",
        {"club": club, "photo": kept, "state": state, "again": again, "cancel": again},
    )


def _render_preview(
    request: HttpRequest, upload: ImportUpload, plan: imports.KeptPlan, form: NamesForm
) -> HttpResponse:
    return render(
        request,
        "league/excel/import_preview.html",
        {
            "club": upload.club,
            "upload": upload,
            "from_photo": imports.from_photo(upload.filename),
            "plan": plan,
            "form": form,
            "games": plan.games[:SHOWN_GAMES],
            "hidden_games": max(plan.total - min(len(plan.games), SHOWN_GAMES), 0),
            "problems": plan.problems[:SHOWN_PROBLEMS],
            "hidden_problems": max(plan.problem_total - SHOWN_PROBLEMS, 0),
            "has_yen": any(g.data.rate for g in plan.games),
            "players": range(max((len(g.seats) for g in plan.games), default=0)),
            "failure": _failure(upload),
        },
    )


def _failure(upload: ImportUpload) -> dict[str, Any] | None:
    """Why the last confirmation of this upload stored nothing, for the preview shown again."""
    state = getattr(upload, "state", None) or upload_state(upload)
    if state.again:
        return _outcome(upload, state)
    return None


def _start_over(request: HttpRequest, club: Club, message: str) -> HttpResponse:
    messages.error(request, message)
    return redirect("excel:import_upload", club.slug)


def _kept(request: HttpRequest, club: Club) -> tuple[ImportUpload, imports.KeptPlan] | HttpResponse:
    """The organiser's waiting upload and its preview as settled on upload, or a redirect to
    start over."""
    upload = upload_waiting(club=club, user=request.user)
    if upload is None or upload.state.preview_failed:  # type: ignore[attr-defined]
        return _start_over(request, club, str(UPLOAD_AGAIN))
    upload.club = club
    if not upload.preview:  # a worker is settling it: the page waits and shows how far
        return _preview_wait(request, upload)
    return upload, imports.preview_load(upload.preview)


def _preview_wait(request: HttpRequest, upload: ImportUpload) -> HttpResponse:
    if request.method != "GET":
        return redirect("excel:import_preview", upload.club.slug)
    return render(
        request,
        "league/excel/import_preview_wait.html",
        {"club": upload.club, "upload": upload, "state": upload.state.preview},  # type: ignore[attr-defined]
    )


def _members(club: Club) -> list[Member]:
    return list(Member.objects.filter(club=club, merged_into__isnull=True).order_by("kana", "name"))


@require_GET
def import_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """The preview settled on upload (never settled again here), with the names to decide."""
    club = club_for(request, slug, organiser=True)
    loaded = _kept(request, club)
    if isinstance(loaded, HttpResponse):
        return loaded
    upload, plan = loaded
    form = NamesForm(unknown=plan.unknown, members=_members(club))
    return _render_preview(request, upload, plan, form)


@require_POST
def import_confirm(request: HttpRequest, slug: str) -> HttpResponse:
    """The organiser's choices for the names, kept on the upload; a worker imports it
    (league.excel.tasks.import_run) while the status page shows how far it has got."""
    club = club_for(request, slug, organiser=True)
    loaded = _kept(request, club)
    if isinstance(loaded, HttpResponse):
        return loaded
    upload, plan = loaded
    # Claiming the upload makes a double tap on "import" import once, not twice.
    if not excel_services.upload_claim(upload=upload):
        return _start_over(request, club, str(UPLOAD_AGAIN))
    form = NamesForm(request.POST, unknown=plan.unknown, members=_members(club))
    if not plan.ready or not form.is_valid():
        excel_services.upload_release(upload=upload)
        return _render_preview(request, upload, plan, form)
    choices = {
        "mapping": {key: member.pk for key, member in form.mapping().items()},
        "kana": {k: v for k, v in form.kana().items() if v},
        "duplicates": bool(form.cleaned_data["duplicates"]),
        "previewed_duplicates": plan.duplicate_indexes,
        "language": translation.get_language(),
    }
    import_tasks.import_start(upload=upload, choices=choices)
    return redirect("excel:import_status", club.slug)


def _outcome(upload: ImportUpload, state: UploadState) -> dict[str, Any]:
    """What the worker did with the upload, as the status page says it."""
    outcome = upload.outcome or {}
    problems = [
        imports.Problem(sheet, row, column, message)
        for sheet, row, column, message in outcome.get("problems", [])
    ]
    return {
        "problems": problems,
        "hidden_problems": max(outcome.get("count", 0) - len(problems), 0),
        "error": bool(outcome.get("error"))
        or state.status == STALLED
        or (state.status == FAILED and not problems),
    }


@require_GET
def import_status(request: HttpRequest, slug: str) -> HttpResponse:
    """How the organiser's latest confirmed import stands, from any app server: waiting for a
    worker, how far it has got, what it imported, or why nothing was stored."""
    club = club_for(request, slug, organiser=True)
    upload = upload_latest(club=club, user=request.user)
    state = upload_state(upload) if upload is not None else None
    if upload is None or state is None or state.status == "waiting":
        return redirect("excel:import_upload", club.slug)
    text = ""
    if state.status == DONE:
        done = upload.outcome
        skipped = done.get("skipped", 0) - done.get("recorded_meanwhile", 0)
        text = _imported(done.get("games", 0), done.get("members", 0), skipped)
        if meanwhile := done.get("recorded_meanwhile", 0):
            text += " " + ngettext(
                "%(n)s game was recorded meanwhile by someone else and was not imported again.",
                "%(n)s games were recorded meanwhile by someone else and were not imported again.",
                meanwhile,
            ) % {"n": meanwhile}
    batch = upload.batch  # what the import wrote, if anything, as one thing to void
    return render(
        request,
        "league/excel/import_status.html",
        {
            "club": club,
            "upload": upload,
            "state": state,
            "batch": batch,
            "voidable": batch is not None
            and not batch.voided
            and batch.games > 0
            and batch.status != ImportBatch.RUNNING,
            "progress": progress_of(upload, state),
            "text": text,
            **_outcome(upload, state),
        },
    )


@require_POST
def import_void(request: HttpRequest, slug: str) -> HttpResponse:
    """Undo the organiser's latest import: its batch voided as a whole (imports.batch_void)."""
    club = club_for(request, slug, organiser=True)
    upload = upload_latest(club=club, user=request.user)
    if upload is None or upload.batch_id is None:
        return redirect("excel:import_upload", club.slug)
    try:
        batch = imports.batch_void(club=club, batch_id=upload.batch_id, user=request.user)
    except ServiceError as e:
        show_errors(request, e)
    else:
        messages.success(
            request,
            ngettext(
                "The import was voided: %(n)s game no longer counts.",
                "The import was voided: %(n)s games no longer count.",
                batch.games,
            )
            % {"n": batch.games},
        )
    return redirect("excel:import_status", club.slug)


@require_GET
def import_progress(request: HttpRequest, slug: str) -> JsonResponse:
    """How far this organiser's import in this club has got (league.excel.progress), as JSON;
    any app server answers it."""
    club = club_for(request, slug, organiser=True)
    return JsonResponse(progress_of(upload_latest(club=club, user=request.user)))


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
