#!/usr/bin/env python3
"""Run Janchō locally with nothing but Python 3.11+ installed (standard library only).

    python3 dev.py start [addr:port]        set up .venv, migrate, load demo data, run the server
                                            and the background worker beside it
    python3 dev.py test [pytest args]       set up .venv with the dev tools, run pytest
    python3 dev.py messages                 refresh locale/*/django.po from the code, sorted and
                                            without line numbers (needs GNU gettext), and compile

JANCHO_VENV picks another virtualenv directory (default .venv); JANCHO_PYTHON picks the
interpreter that creates it (default: the one running this script).
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / os.environ.get("JANCHO_VENV", ".venv")  # an absolute path replaces ROOT
PYTHON = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
PYTEST_NO_TESTS = 5
VERSIONS = (
    "import sys, django; print(f'Python {sys.version.split()[0]}, Django {django.__version__}')"
)


STARTED = time.monotonic()


def say(message: str) -> None:
    """A step, with the seconds since dev.py started (the first start's steps can be slow)."""
    print(f"dev [{time.monotonic() - STARTED:.0f} s]: {message}", flush=True)


def run(*args: str | Path) -> None:
    """Run a command from the project root; stop dev.py with its exit code if it fails."""
    code = subprocess.run([str(a) for a in args], cwd=ROOT).returncode
    if code != 0:
        say(f"failed ({code}): {' '.join(str(a) for a in args)}")
        sys.exit(code)


def ensure_venv() -> None:
    if PYTHON.exists():
        return
    base = os.environ.get("JANCHO_PYTHON", sys.executable)
    say(f"creating {VENV.name} with {base}")
    run(base, "-m", "venv", VENV)


def install(requirements: str) -> None:
    """pip install a requirements file, skipped while it and requirements.txt are unchanged."""
    digest = hashlib.sha256()
    for name in sorted({"requirements.txt", requirements}):
        digest.update((ROOT / name).read_bytes())
    stamp = VENV / f".installed-{requirements}.sha256"
    if stamp.exists() and stamp.read_text() == digest.hexdigest():
        say(f"{requirements} unchanged since the last install")
        return
    say(f"installing {requirements} into {VENV.name}")
    # --no-compile: pip would compile every installed module to bytecode (line-bot-sdk alone is
    # thousands of files), a third of the install; Python compiles what is imported when it is.
    run(
        PYTHON,
        "-m",
        "pip",
        "install",
        "-q",
        "--disable-pip-version-check",
        "--no-compile",
        "-r",
        requirements,
    )
    stamp.write_text(digest.hexdigest())


def start(args: list[str]) -> None:
    ensure_venv()
    install("requirements.txt")
    # The system checks run once, when the server starts, rather than before each command too
    # (a few seconds each on a small machine); migrate and the demo data in one process.
    if (ROOT / "league/management/commands/loaddemo.py").exists():
        say("migrating the database and loading demo data")
        addrport = ["--addrport", args[0]] if args else []
        run(PYTHON, "manage.py", "loaddemo", "--migrate", "--skip-checks", *addrport)
    else:
        say("migrating the database")
        run(PYTHON, "manage.py", "migrate", "--no-input", "--skip-checks")
    addrport = args or ["127.0.0.1:8000"]
    # The background worker (long exports and other tasks) runs beside the server and stops
    # with it.
    # --no-reload: under DEBUG db_worker reloads on code changes by default, and its reloader's
    # child outlives a stopped parent (a second worker left running after dev.py stops). Restart
    # dev.py to give the worker changed code.
    say("starting the background worker: manage.py db_worker --no-reload")
    worker = subprocess.Popen([str(PYTHON), "manage.py", "db_worker", "--no-reload"], cwd=ROOT)
    # Stopped by a signal (not Ctrl-C, which reaches every process of the terminal): unwind
    # through `finally` below, so that the worker and the server stop too.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(143))
    say(f"starting the server: runserver {' '.join(addrport)} (Ctrl-C stops both)")
    # The server in a process group of its own: its autoreloader runs the server as a child,
    # which would outlive a stopped parent; the whole group is stopped below.
    group = {"process_group": 0} if os.name == "posix" else {}
    server = subprocess.Popen([str(PYTHON), "manage.py", "runserver", *addrport], cwd=ROOT, **group)
    try:
        code = server.wait()
    except KeyboardInterrupt:
        code = 0
    finally:
        stop(server, group=bool(group))
        stop(worker)
    sys.exit(code)


def stop(process: subprocess.Popen, *, group: bool = False) -> None:
    """Terminate a child (with `group`, every process of its process group), and kill it when it
    has not stopped after 10 seconds."""

    def send(sig: int) -> None:
        try:
            if group:
                os.killpg(process.pid, sig)
            else:
                process.send_signal(sig)
        except ProcessLookupError:
            pass

    send(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        send(getattr(signal, "SIGKILL", signal.SIGTERM))
        process.wait(timeout=5)


def test(args: list[str]) -> None:
    ensure_venv()
    install("requirements-dev.txt")
    if os.environ.get("JANCHO_PHOTO_EXTRA"):  # .ci/run: the photo extra and its tests
        install("requirements-photo.txt")
    versions = subprocess.check_output([PYTHON, "-c", VERSIONS], text=True).strip()
    # The suite runs in one process per core (pytest-xdist), each with its own test database;
    # JANCHO_TEST_WORKERS=0 (or -n given here) runs it otherwise.
    workers = os.environ.get("JANCHO_TEST_WORKERS", "auto")
    everything = not any(not a.startswith("-") for a in args) and "-m" not in args
    if not any(a == "-n" or a.startswith(("-n", "--numprocesses")) for a in args):
        args = ["-n", workers, "--dist", "worksteal", *args] if workers != "0" else args
    say(f"running pytest with {versions}")
    jobs = [("", args)]  # paths or a marker: as asked
    if everything:  # every test: the fast job first, then the slow one (browser, worker, PDF)
        jobs = [("fast job", [*args, "-m", "not slow"]), ("slow job", [*args, "-m", "slow"])]
    ran = False
    for name, job in jobs:
        if name:
            say(f"{name}: pytest {' '.join(job)}")
        code = subprocess.run([str(PYTHON), "-m", "pytest", *job], cwd=ROOT).returncode
        if code not in (0, PYTEST_NO_TESTS):
            sys.exit(code)
        ran = ran or code == 0
    if not ran:
        say("no tests ran")
        sys.exit(1)
    sys.exit(0)


def messages(args: list[str]) -> None:
    """Refresh both catalogs from the code and compile them.

    Entries carry no source locations and are sorted by msgid, so that two branches adding
    messages rarely touch the same lines; a conflict is resolved by taking both sides' entries
    (msgcat --use-first OURS THEIRS) and running this again.
    """
    ensure_venv()
    install("requirements.txt")
    ignore = ["tests/*", ".venv*", "benchmarks/*", "staticfiles/*"]
    flags = [x for pattern in ignore for x in ("-i", pattern)]
    run(
        PYTHON,
        "manage.py",
        "makemessages",
        "-l",
        "ja",
        "-l",
        "en",
        "--no-location",
        "--no-obsolete",
        *flags,
        *args,
    )
    for po in sorted(ROOT.glob("locale/*/LC_MESSAGES/django.po")):
        # msgmerge guesses a translation for a new message from a similar one and marks it
        # fuzzy; a guess is usually wrong, so it is dropped and the message shows as untranslated.
        run(
            "msgattrib",
            "--clear-fuzzy",
            "--empty",
            "--clear-previous",
            "--no-location",
            "-o",
            po,
            po,
        )
        run("msgcat", "--sort-output", "--no-location", "-o", po, po)
    run(PYTHON, "manage.py", "compilemessages", "-i", ".venv*")


def main() -> None:
    commands = {"start": start, "test": test, "messages": messages}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
