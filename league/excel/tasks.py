"""Spreadsheets too long to make or read inside a request, by a worker (`manage.py db_worker`).

`export_game_log` writes a club's game log to a file, counting rows as it goes so that any app
server can show how far it has got: the write-only workbook is saved to a temporary file and
copied a chunk at a time into the "exports" storage (settings.STORAGES), so that memory does not
grow with the log. The finished file is kept for EXPORT_KEEP and then cleared, file and row, by
`clear_expired_exports`, enqueued to run when the file expires.
`import_preview` settles an uploaded workbook's games once for its preview page, and `import_run`
imports a workbook its organiser confirmed (league.excel.imports.import_stored)."""

from __future__ import annotations

import dataclasses
import datetime
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

from django.conf import settings
from django.core.files import File
from django.core.files.storage import Storage, storages
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from league import jobs
from league.books import selectors as book_selectors
from league.core import clock, photo
from league.core.actions import action
from league.core.errors import NON_FIELD, ServiceError
from league.core.locks import lock_club
from league.core.tasks import default_task_backend, enqueue_on_commit, task
from league.excel import exports, imports
from league.excel import services as excel_services
from league.jobs import job_progress
from league.models import (
    Club,
    ExportFile,
    ImportBatch,
    ImportUpload,
    Job,
    Member,
    RulesVersion,
    ScorePhoto,
    Season,
)
from league.models.audit import audit
from league.recording import photos
from league.standings import stats

EXPORT_KEEP = datetime.timedelta(days=7)
PROGRESS_EVERY = 2_000  # rows between two progress writes


def _period(params: dict[str, Any]) -> dict[str, Any]:
    def date(value: str | None) -> datetime.date | None:
        return datetime.date.fromisoformat(value) if value else None

    return {
        "start": date(params.get("start")),
        "end": date(params.get("end")),
        "rate": params.get("rate") or None,
    }


def export_rows(*, club: Club, params: dict[str, Any], most: int | None = None) -> int:
    """How many rows (one per player per counted game) the game log of this period has; with
    `most`, counted no further than most + 1 (a request asks only whether the log is longer
    than it: an exact count of 400,000 rows took 0.1 s)."""
    rows = stats.counted_results(club=club, fill_ins=True, **_period(params))  # as the log
    rows = rows.order_by()  # no sort: only how many
    return rows[: most + 1].count() if most is not None else rows.count()


def statement_lines(*, member_id: int, most: int | None = None) -> int:
    """How many lines a member's statement has (one per line of the kept books); `most` as
    export_rows's."""
    lines = book_selectors.statement_lines(member_id=member_id)
    return lines[: most + 1].count() if most is not None else lines.count()


def _counted(rows: Iterator[tuple[Any, ...]], export: ExportFile) -> Iterator[tuple[Any, ...]]:
    total = export.job.total if export.job else 0
    for done, row in enumerate(rows, start=1):
        yield row
        if done % PROGRESS_EVERY == 0 and export.job_id:
            job_progress(export.job_id, done, total)


def export_storage() -> Storage:
    """Where finished game logs are kept (settings.STORAGES["exports"]: a private directory)."""
    return storages["exports"]


def _write_file(export: ExportFile, workbook: Any) -> str:
    """The workbook saved to an anonymous temporary file, then copied into the storage in
    chunks (File.chunks): the file is never held in memory whole. Returns its stored name."""
    with tempfile.TemporaryFile() as file:
        workbook.save(file)
        file.seek(0)
        return export_storage().save(f"{export.kind}/{export.club_id}/{export.pk}.xlsx", File(file))


def _make(
    export_id: int,
    count: Callable[[ExportFile], int],
    build: Callable[[ExportFile], Any],
) -> int:
    """A worker's file: the rows counted (here, not in the request that queued it) onto its job,
    the workbook built in the maker's language and stored, the row given the file. Whether it is
    running, finished or failed is the task's result (league.jobs). Returns the rows."""
    export = ExportFile.objects.select_related("club", "job").filter(pk=export_id).first()
    if export is None or export.ready:
        return 0
    total = count(export)
    if export.job is not None:
        export.job.total = total
        job_progress(export.job.pk, 0, total)
    with translation.override(export.params.get("language") or settings.LANGUAGE_CODE):
        name = _write_file(export, build(export))
    return _finished(export, name, total)


@task()
def export_game_log(export_id: int) -> int:
    """Make the game log of an ExportFile's period; returns the rows written."""
    return _make(
        export_id,
        lambda export: export_rows(club=export.club, params=export.params),
        lambda export: exports.game_log_workbook(
            club=export.club,
            rows_filter=lambda rows: _counted(rows, export),
            **_period(export.params),
        ),
    )


def _finished(export: ExportFile, name: str, total: int) -> int:
    """The file is in the storage: the row says so (unless it was cleared meanwhile, when the
    file goes too), and its clearing is queued for when it expires."""
    now = timezone.now()
    written = ExportFile.objects.filter(pk=export.pk).update(
        file_name=name, size=export_storage().size(name), expires=now + EXPORT_KEEP
    )
    if export.job_id:
        job_progress(export.job_id, total, total)
    if not written:  # the row was cleared meanwhile: nobody will ask for the file
        export_storage().delete(name)
    elif default_task_backend.supports_defer:
        enqueue_on_commit(clear_expired_exports.using(run_after=now + EXPORT_KEEP))
    return total


@task()
def export_statement(export_id: int) -> int:
    """Make a member's statement (every line of the kept books) as a file; returns its lines."""
    from league.money.views.statements import describe_entry  # the page's own words for a line

    def build(export: ExportFile) -> Any:
        member = Member.objects.get(pk=export.params["member"], club=export.club)
        member.club = export.club
        return exports.statement_workbook(
            club=export.club,
            statement=book_selectors.full_statement(member=member),  # type: ignore[arg-type]
            describe=describe_entry,
            today=clock.today(),
        )

    return _make(
        export_id, lambda export: statement_lines(member_id=export.params["member"]), build
    )


STATISTICS_PROGRESS_EVERY = 200  # rows of the statistics between two progress writes


@task()
def export_statistics(export_id: int) -> int:
    """Make the statistics workbook (rating, by seat, every pair's head-to-head) of all time or
    the season in an ExportFile's params; returns its rows. Its rows are written to the sheet
    as the job's progress."""

    def season(export: ExportFile) -> Season | None:
        pk = export.params.get("season")
        return Season.objects.get(pk=pk, club=export.club) if pk else None

    def build(export: ExportFile) -> Any:
        total = export.job.total if export.job else 0

        def written(done: int) -> None:
            if done % STATISTICS_PROGRESS_EVERY == 0 and export.job_id:
                job_progress(export.job_id, done, total)

        period = season(export)
        return exports.statistics_workbook(
            club=export.club,
            season=period,
            period=period.name if period is not None else _("all time"),
            written=written,
        )

    return _make(
        export_id,
        lambda export: exports.statistics_rows(club=export.club, season=season(export)),
        build,
    )


MAKERS = {"statement": export_statement, "statistics": export_statistics}


def _clear_expired() -> int:
    """Delete the expired files, their rows and their jobs; how many rows. A file is removed
    before its row, so that no row is left pointing at nothing; a file already gone is no
    error."""
    expired = ExportFile.objects.filter(expires__lte=timezone.now())  # one moment for all
    rows = list(expired.values_list("pk", "file_name", "job_id"))
    storage = export_storage()
    for _pk, name, _job in rows:
        if name:
            storage.delete(name)  # FileSystemStorage: a missing file is ignored
    deleted, _kinds = ExportFile.objects.filter(pk__in=[pk for pk, _n, _j in rows]).delete()
    Job.objects.filter(pk__in=[job for _pk, _n, job in rows if job]).delete()
    return deleted


@task()
def clear_expired_exports() -> int:
    """Remove the files whose time is up; returns how many."""
    return _clear_expired()


@dataclasses.dataclass(frozen=True)
class Started:
    """What export_start did: `export` is the new file, or the user's own one of the same kind
    being made already (`repeat`: of the same period or member; `other`: of another, which must
    finish first: one file of a kind a user at a time)."""

    export: ExportFile
    repeat: bool = False
    other: bool = False


# A file still waiting for a worker after this long (no worker running, or one stuck) no longer
# holds its user's or club's place in the queue.
QUEUED_STALE_AFTER = jobs.QUEUED_STALE_AFTER


def _busy(rows: Any) -> list[ExportFile]:
    """Of these files, those being made, by their jobs (league.jobs.busy_jobs): a stalled one
    (its worker stopped) or one that has waited for a worker past QUEUED_STALE_AFTER no longer
    counts. Two queries: the recent jobs, their task results."""
    busy = jobs.busy_jobs(Job.objects.filter(pk__in=rows.values("job")))
    ids = [state.job.pk for state in busy]
    return list(rows.filter(job__in=ids).order_by("-pk")) if ids else []


def _make_room(club: Club) -> None:
    """Keep the club's finished files within settings.EXPORT_CLUB_QUOTA_BYTES: its oldest
    files are removed (file first, then row) until the rest fit. They can be made again."""
    quota = settings.EXPORT_CLUB_QUOTA_BYTES
    done = (
        ExportFile.objects.filter(club=club)
        .exclude(file_name="", size=0)
        .order_by("-expires", "-pk")
    )
    kept = 0
    removed: list[ExportFile] = []
    for export in done.only("pk", "size", "file_name", "job"):
        kept += export.size
        if kept > quota:
            removed.append(export)
    for export in removed:
        if export.file_name:
            export_storage().delete(export.file_name)
    ExportFile.objects.filter(pk__in=[e.pk for e in removed]).delete()
    Job.objects.filter(pk__in=[e.job_id for e in removed if e.job_id]).delete()


def export_start(
    *,
    club: Club,
    user: Any,
    params: dict[str, Any],
    name: str,
    fallback: str,
    kind: str = "game-log",
) -> Started:
    """An ExportFile for the game log of `params`' period (or, by `kind`, a member's statement
    or the statistics of all time or a season), queued for a worker on commit.

    Bounded (issue 39): a user has one game log being made at a time (asking again for the same
    period is given the one being made; another period waits for it); a club has at most
    settings.EXPORT_QUEUE_PER_CLUB being made (else a ServiceError); its finished files stay
    within its quota (_make_room)."""
    _clear_expired()
    with action():
        lock_club(club.pk)  # the counts below hold until the new row is in
        own = list(_busy(ExportFile.objects.filter(club=club, user=user, kind=kind)))
        for export in own:
            if export.params == params:
                return Started(export, repeat=True)
        if own:
            return Started(own[0], other=True)
        if len(_busy(ExportFile.objects.filter(club=club))) >= settings.EXPORT_QUEUE_PER_CLUB:
            raise ServiceError.one(
                NON_FIELD,
                _(
                    "%(n)s files of the club are being made. Try again in a few minutes, when one "
                    "of them is ready."
                )
                % {"n": settings.EXPORT_QUEUE_PER_CLUB},
            )
        _make_room(club)
        make = MAKERS.get(kind, export_game_log)
        job = Job.objects.create(club=club, user=user, kind=Job.EXPORT)  # rows counted later
        export = ExportFile.objects.create(
            club=club,
            user=user,
            kind=kind,
            params=params,
            name=name,
            fallback=fallback,
            job=job,
            expires=timezone.now() + EXPORT_KEEP,
        )
        jobs.job_enqueue_on_commit(job, make, export.pk)
    return Started(export)


# --- imports ---------------------------------------------------------------------------------


PREVIEW_PROGRESS_EVERY = 0.5  # seconds between two progress writes of a preview


@task()
def import_preview(upload_id: int, language: str) -> int:
    """Settle an uploaded workbook's games for its preview, once, and keep the preview on the
    upload (ImportUpload.preview); returns the games checked. Nothing is written to the club:
    no transaction is held, so the progress is written on the preview's job as it goes, on
    either database, for the preview page that waits for it."""
    upload = (
        ImportUpload.objects.select_related("club")
        .filter(pk=upload_id, job__isnull=True, preview=b"")
        .first()
    )
    if upload is None:  # replaced, confirmed, or previewed already
        return 0
    return _preview(upload, language)


def _preview(upload: ImportUpload, language: str) -> int:
    upload_id, job_id = upload.pk, upload.preview_job_id
    parsed = imports.parsed_load(upload.parsed)
    total = len(parsed.games)
    done, last = 0, time.monotonic()

    def step() -> None:
        nonlocal done, last
        done += 1
        now = time.monotonic()
        if now - last >= PREVIEW_PROGRESS_EVERY and job_id:
            last = now
            job_progress(job_id, done, total)

    settled = imports.Settled()
    with translation.override(language or settings.LANGUAGE_CODE):  # a failure: the task's
        kept = imports.plan_kept(club=upload.club, parsed=parsed, progress=step, settled=settled)
    ImportUpload.objects.filter(pk=upload_id, job__isnull=True).update(
        preview=imports.preview_dump(kept), plan=imports.settled_dump(settled)
    )
    if job_id:
        job_progress(job_id, total, total)
    return total


def _settled(upload: ImportUpload) -> imports.Settled:
    """The games its preview settled, kept on the upload; settled now for an upload kept without
    them (one waiting since before migration 0048, which began keeping them)."""
    if upload.plan:
        return imports.settled_load(upload.plan)
    settled = imports.Settled()
    imports.plan_kept(club=upload.club, parsed=imports.parsed_load(upload.parsed), settled=settled)
    return settled


@task()
def import_run(upload_id: int, job_id: int | None = None) -> int:
    """Import a confirmed upload as its preview settled it (league.excel.imports.import_stored:
    a transaction a day, under an import batch); returns the games imported. Each day's
    transaction also moves the job's progress (days done of the days planned), so that any
    server reads it. What happened waits on the upload's row for the status page: the counts,
    or the problems (then it waits to be confirmed again). A task of a job the upload has
    left (confirmed again since) does nothing."""
    upload = ImportUpload.objects.select_related("club", "user").filter(pk=upload_id).first()
    if upload is None or upload.job_id is None or upload.job_id != (job_id or upload.job_id):
        return 0
    job = upload.job_id
    choices = upload.choices

    def begun(batch: ImportBatch) -> None:  # inside the action that begins the batch
        ImportUpload.objects.filter(pk=upload_id).update(batch=batch)

    def progress(done: int, total: int) -> None:  # inside each day's action
        job_progress(job, done, total)

    try:
        with translation.override(choices.get("language") or settings.LANGUAGE_CODE):
            try:
                done = imports.import_stored(
                    club=upload.club,
                    settled=_settled(upload),
                    user=upload.user,
                    mapping={k: int(v) for k, v in choices.get("mapping", {}).items()},
                    kana=choices.get("kana", {}),
                    duplicates=bool(choices.get("duplicates")),
                    previewed_duplicates=choices.get("previewed_duplicates", []),
                    filename=upload.filename,
                    begun=begun,
                    progress=progress,
                )
            except imports.ImportFailed as e:
                problems = [[p.sheet, p.row, p.column, p.message] for p in e.problems]
                ImportUpload.objects.filter(pk=upload_id).update(
                    claimed=False,
                    outcome={
                        "problems": problems[: imports.SHOWN_PROBLEMS],
                        "count": len(problems),
                    },
                )
                return 0
    except BaseException:
        ImportUpload.objects.filter(pk=upload_id).update(claimed=False, outcome={"error": True})
        raise
    ImportUpload.objects.filter(pk=upload_id).update(
        parsed=b"",  # imported: the workbook's data is not needed again
        preview=b"",
        plan=b"",
        outcome=dataclasses.asdict(done),  # its "games" say it is imported (ImportUpload.imported)
    )
    return done.games


def import_preview_start(
    *, club: Club, user: Any, filename: str, parsed: bytes, games: int, language: str
) -> ImportUpload:
    """The action behind an upload: the parsed workbook kept for its organiser
    (excel_services.upload_keep), and its preview settled by a worker once that is committed."""
    with action():
        upload = excel_services.upload_keep(
            club=club, user=user, filename=filename, parsed=parsed, games=games
        )
        assert upload.preview_job is not None
        jobs.job_enqueue_on_commit(upload.preview_job, import_preview, upload.pk, language)
    return upload


def import_start(*, upload: ImportUpload, choices: dict[str, Any]) -> None:
    """The action behind an organiser's confirmation: the upload waits for a worker with these
    choices (excel_services.upload_queue), and the worker's job is queued once that commits."""
    with action():
        job = excel_services.upload_queue(upload=upload, choices=choices)
        jobs.job_enqueue_on_commit(job, import_run, upload.pk, job.pk)


# --- a score sheet's photo: read by a worker into an upload, then the import's own preview ----------


def sheet_photo_upload(
    *, club: Club, user: Any, data: bytes, date: datetime.date, rate: str, language: str
) -> ScorePhoto:
    """The action behind a photo of a score sheet of several games on the import page: kept as
    the record form's photos are (photos.photo_keep), and read by `read_sheet_photo` on commit
    into an upload whose preview the import's worker then settles as a workbook's."""
    version = (
        RulesVersion.in_force(club, date)
        or RulesVersion.objects.filter(club=club).order_by("effective_from").first()
    )
    rules = version.rules if version else None
    players = rules.players if rules else imports.club_players(club)
    start = rules.start if rules else 25000
    with action():
        kept = photos.photo_keep(
            club=club, user=user, data=data, kind="sheet", players=players, total=players * start
        )
        assert kept.job is not None
        jobs.job_enqueue_on_commit(
            kept.job, read_sheet_photo, kept.pk, date.isoformat(), rate, language
        )
    return kept


class SheetNotRead(Exception):
    """A score sheet's photo that gives no upload (no game read, or the organiser's earlier
    workbook still being imported): its task fails with it, and its job says so."""


def _photo_failed(photo_id: int, error: Exception) -> NoReturn:
    """The photo's image goes (its hash is all that is kept), and its task fails."""
    ScorePhoto.objects.filter(pk=photo_id).update(image=b"")
    raise error


@task()
def read_sheet_photo(photo_id: int, date: str, rate: str, language: str) -> int:
    """Read a kept photo of a score sheet (league.core.photo.read_score_sheet) and keep what it
    says as an upload for the import's preview (imports.photo_parsed: a game whose rows do not
    add up is a problem there, never a game). The photo's image goes once read; its hash is in
    the audit log (`import.photo`). Returns the games read."""
    kept = ScorePhoto.objects.select_related("club", "user").filter(pk=photo_id).first()
    if kept is None or not kept.image:  # replaced meanwhile, or read already
        return 0
    try:
        reading = photos.read_sheet(kept)
    except photo.Unreadable as e:
        _photo_failed(photo_id, e)
    with translation.override(language or settings.LANGUAGE_CODE):
        parsed = imports.photo_parsed(
            names=reading.names,
            games=[[row.to_json() for row in game] for game in reading.games],
            date=datetime.date.fromisoformat(date),
            rate=rate,
            total=kept.total,
        )
        if not parsed.rows:
            _photo_failed(photo_id, SheetNotRead(str(imports.NO_GAMES)))
        try:
            with action():
                upload = excel_services.upload_keep(
                    club=kept.club,
                    user=kept.user,
                    filename=imports.photo_filename(kept.sha256),
                    parsed=imports.parsed_dump(parsed),
                    games=len(parsed.games),
                )
                assert upload.preview_job is not None
                jobs.job_enqueue_on_commit(upload.preview_job, import_preview, upload.pk, language)
                ScorePhoto.objects.filter(pk=photo_id).update(image=b"")
                audit(
                    club=kept.club,
                    actor=kept.user,
                    action="import.photo",
                    target=f"import_upload:{upload.pk}",
                    after={
                        "photo_sha256": kept.sha256,
                        "games": len(parsed.games),
                        "not_summing": len(parsed.problems),
                        "reader": reading.reader,
                    },
                )
        except ServiceError as e:  # the organiser's earlier workbook is still being imported
            _photo_failed(photo_id, SheetNotRead(str(next(iter(e.errors.values()))[0])))
    return parsed.rows
