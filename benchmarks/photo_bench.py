"""Scores from a photo: accuracy and time per image of each reader on the generated photos
(tests/support/photo_samples.py: printed sheets, seven-segment displays, result screens, and
score sheets of several games).

    .venv/bin/python benchmarks/photo_bench.py [--sheets 40 --displays 40 --screens 20]
        [--score-sheets 10] [--readers ssocr,rapidocr,tesseract] [--task]

A row is right when the checksum passed it and its points (and name, where the photo has names)
are the truth; a row that is wrong but passed is a false pass, the failure that matters. On a
score sheet of several games (each sheet has 6 games, one written wrong on purpose, so 5 that add
up), a game is right when it passed and is exactly the truth, and the one that does not add up
must be flagged.

--task measures what the issue asks (at most 15 s an image, as a background task): each photo is
uploaded as the pages do (league.recording.photos.photo_upload, or for a score sheet
league.excel.tasks.sheet_photo_upload), and a real worker (`manage.py db_worker`, started before,
its models not loaded) reads it; the time is from the upload's commit to the reading kept (for a
score sheet, to its import preview ready), one photo at a time. The first image a reader reads
includes loading its models in the worker (rapidocr: the first sheet); it is printed on its own
and in the mean/max."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from league.core import photo  # noqa: E402
from tests.support import photo_samples  # noqa: E402


def same_name(got: str | None, want: str | None) -> bool:
    if want is None:
        return True
    return (got or "").replace(" ", "") == want.replace(" ", "")


def score(sample, reading) -> tuple[int, int]:
    """(rows right, rows wrongly passed)."""
    right = false_pass = 0
    for i, want in enumerate(sample.points):
        row = reading.rows[i] if i < len(reading.rows) else None
        ok = (
            row is not None
            and row.points == want
            and same_name(row.name, sample.names[i])
            and len(reading.rows) == len(sample.points)
        )
        if row is not None and row.checksum and ok:
            right += 1
        elif row is not None and row.checksum:
            false_pass += 1
    false_pass += sum(1 for r in reading.rows[len(sample.points) :] if r.checksum)
    return right, false_pass


GAMES_PER_SHEET = 6
WRONG_GAME = 2  # the game written with 1,000 too many on every generated score sheet


def score_sheets(folder: Path, n: int) -> list:
    return [
        photo_samples.score_sheet(500 + i, folder, games=GAMES_PER_SHEET, wrong=(WRONG_GAME,))
        for i in range(n)
    ]


def score_games(sample, games) -> tuple[int, int, int]:
    """(games right, games wrongly passed, games that do not add up and were flagged)."""
    right = false_pass = flagged = 0
    for i, want in enumerate(sample.games):
        game = games[i] if i < len(games) else []
        passed = bool(game) and all(r.checksum for r in game)
        exact = [r.points for r in game] == want
        if not sample.sums[i]:
            flagged += not passed
            false_pass += passed
        elif passed and exact:
            right += 1
        elif passed:
            false_pass += 1
    return right, false_pass, flagged


def core(args, counts, readers) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        samples = photo_samples.make_set(Path(tmp), counts)
        print(
            f"{'kind':8} {'reader':10} {'rows':>5} {'right':>6} {'%':>6} {'false pass':>10} "
            f"{'s/image':>8} {'max s':>6}"
        )
        for kind in counts:
            for reader in readers:
                if reader in ("ssocr", "segments") and kind != "display":
                    continue
                mine = [s for s in samples if s.kind == kind]
                if not mine:
                    continue
                rows = right = false_pass = 0
                times = []
                for sample in mine:
                    started = time.monotonic()
                    reading = photo.read_scores(
                        sample.path, kind=kind, players=len(sample.points), reader=reader
                    )
                    times.append(time.monotonic() - started)
                    r, f = score(sample, reading)
                    rows += len(sample.points)
                    right += r
                    false_pass += f
                print(
                    f"{kind:8} {reader:10} {rows:5} {right:6} {100 * right / rows:6.1f} "
                    f"{false_pass:10} {sum(times) / len(times):8.2f} {max(times):6.2f}",
                    flush=True,
                )
        if args.score_sheets:
            sheets = score_sheets(Path(tmp), args.score_sheets)
            for reader in ("rapidocr", "tesseract"):
                if reader not in readers:
                    continue
                games = right = false_pass = flagged = 0
                times = []
                for sample in sheets:
                    started = time.monotonic()
                    reading = photo.read_score_sheet(sample.path, reader=reader)
                    times.append(time.monotonic() - started)
                    r, f, fl = score_games(sample, reading.games)
                    games += sum(sample.sums)
                    right, false_pass, flagged = right + r, false_pass + f, flagged + fl
                print(
                    f"{'games':8} {reader:10} {games:5} {right:6} {100 * right / games:6.1f} "
                    f"{false_pass:10} {sum(times) / len(times):8.2f} {max(times):6.2f}"
                    f"   (games that do not add up flagged: {flagged}/{len(sheets)})",
                    flush=True,
                )


def through_the_task(args, counts) -> None:
    """Each photo uploaded as the pages do, read by a real worker process (module docstring)."""
    tmp = Path(tempfile.mkdtemp(prefix="janchou-photo-bench-"))
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
        "DJANGO_SETTINGS_MODULE": "league.settings",
        "TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
    }
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    from league import jobs
    from league.excel import tasks as excel_tasks
    from league.models import ImportUpload, Membership, ScorePhoto
    from league.recording import photos
    from tests.support.clubs import make_club, make_user

    call_command("migrate", verbosity=0)
    club = make_club("bench", "mame-no-kai")
    user = make_user("bench-organiser", club, Membership.ORGANISER)
    log = open(tmp / "worker.log", "w")  # noqa: SIM115 (open while the worker runs)
    worker = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "db_worker",
            "--interval",
            "0.05",
            "--no-startup-delay",
            "--no-reload",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    print(f"the worker's log: {log.name}")
    try:
        time.sleep(4)  # the worker's Django is up; its reader models are not loaded yet

        def wait(done) -> float:
            started = time.monotonic()
            while not done():
                if time.monotonic() - started > 120:
                    raise SystemExit("the worker did not finish a photo in 120 s")
                time.sleep(0.02)
            return time.monotonic() - started

        with tempfile.TemporaryDirectory() as folder:
            samples = photo_samples.make_set(Path(folder), counts)
            print(f"{'kind':8} {'images':>6} {'first s':>8} {'mean s':>7} {'max s':>6}")
            for kind in counts:
                times = []
                for sample in (s for s in samples if s.kind == kind):
                    kept = photos.photo_upload(
                        club=club,
                        user=user,
                        data=sample.path.read_bytes(),
                        kind=kind,
                        players=len(sample.points),
                        total=sample.total,
                    )
                    times.append(
                        wait(
                            lambda pk=kept.pk: (
                                not photos.photo_state(
                                    ScorePhoto.objects.select_related("job").get(pk=pk)
                                ).busy
                            )
                        )
                    )
                if times:
                    print(
                        f"{kind:8} {len(times):6} {times[0]:8.2f} "
                        f"{sum(times) / len(times):7.2f} {max(times):6.2f}",
                        flush=True,
                    )
            times = []
            for sample in score_sheets(Path(folder), args.score_sheets):
                import datetime

                kept = excel_tasks.sheet_photo_upload(
                    club=club,
                    user=user,
                    data=sample.path.read_bytes(),
                    date=datetime.date(2026, 11, 25),
                    rate="",
                    language="ja",
                )
                times.append(
                    wait(
                        lambda: (
                            ImportUpload.objects.filter(club=club).exclude(preview=b"").exists()
                            or any(
                                photos.photo_state(p).status == jobs.FAILED
                                for p in ScorePhoto.objects.select_related("job")
                            )
                        )
                    )
                )
                ImportUpload.objects.filter(club=club).delete()
            if times:
                print(
                    f"{'games':8} {len(times):6} {times[0]:8.2f} "
                    f"{sum(times) / len(times):7.2f} {max(times):6.2f}"
                    "   (a score sheet of 6 games, to its import preview)",
                    flush=True,
                )
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sheets", type=int, default=40)
    parser.add_argument("--displays", type=int, default=40)
    parser.add_argument("--screens", type=int, default=20)
    parser.add_argument("--score-sheets", type=int, default=10)
    parser.add_argument("--readers", default="ssocr,segments,rapidocr,tesseract")
    parser.add_argument("--task", action="store_true", help="through the worker (docstring)")
    args = parser.parse_args()
    counts = {"sheet": args.sheets, "display": args.displays, "screen": args.screens}
    if args.task:
        through_the_task(args, counts)
        return
    core(args, counts, args.readers.split(","))


if __name__ == "__main__":
    main()
