"""One write path: a view, an API or a table-mode module writes nothing itself. It opens no
transaction, takes no lock, enqueues no task, saves, creates, updates or deletes no row, and
parses no JSON body by hand: it calls a domain's action, which owns all of that. Row locks are
taken through league.core.locks only, and tasks are enqueued through
league.core.tasks.enqueue_on_commit only.

The checker reads the code (its syntax tree, so comments and strings do not count) and is tried
here on planted violations too, so that it cannot pass by reading nothing."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LEAGUE = ROOT / "league"

# Calls that write or lock, whatever they are called on.
ALWAYS = {
    "atomic": "transaction",
    "select_for_update": "lock",
    "for_update": "lock",
    "lock_club": "lock",
    "enqueue": "enqueue",
    "enqueue_on_commit": "enqueue",
    "save": "write",
    "bulk_create": "write",
    "bulk_update": "write",
    "get_or_create": "write",
    "update_or_create": "write",
}
# Calls that write when made on a model's manager or a queryset (not on a dict or a set).
ON_ROWS = {"create": "write", "update": "write", "delete": "write"}
QUERYSET_METHODS = {"objects", "filter", "exclude", "all", "select_related", "only", "order_by"}


def adapter_modules() -> list[Path]:
    """Every view module, the API's modules and table mode's views."""
    found = set(LEAGUE.glob("**/views*.py")) | set(LEAGUE.glob("**/views/*.py"))
    found |= set((LEAGUE / "api").glob("*.py"))
    return sorted(found)


def _chain(node: ast.AST) -> Iterator[str]:
    """The names of an attribute chain from its end: a.b.c(...).d → d, c, b, a."""
    while True:
        if isinstance(node, ast.Attribute):
            yield node.attr
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Name):
            yield node.id
            return
        else:
            return


def writes_in(source: str) -> list[tuple[int, str, str]]:
    """(line, kind, call) for each write, lock, enqueue or hand-parsed body in `source`."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "save" and not isinstance(func, ast.Attribute):
            continue  # a function named save (a service passed in), not a model's save()
        if name in ALWAYS:
            hits.append((node.lineno, ALWAYS[name], name))
        elif name in ON_ROWS and isinstance(func, ast.Attribute):
            receiver = set(_chain(func.value))
            if receiver & QUERYSET_METHODS or "user" in receiver:
                hits.append((node.lineno, ON_ROWS[name], name))
        elif name == "loads" and any(
            isinstance(a, ast.Attribute) and a.attr == "body" for a in node.args
        ):
            hits.append((node.lineno, "json body", "json.loads(request.body)"))
    return hits


def calls_of(source: str, names: set[str]) -> list[int]:
    """Lines that call any of `names` (as a function or a method)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in names:
                lines.append(node.lineno)
    return lines


def test_no_view_or_api_module_writes_locks_or_enqueues():
    modules = adapter_modules()
    assert len(modules) > 20  # the glob found the view and API modules
    found = [
        f"{path.relative_to(ROOT)}:{line}: {kind}: {call}"
        for path in modules
        for line, kind, call in writes_in(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "views and the API call actions instead:\n" + "\n".join(found)


def test_row_locks_are_taken_through_core_locks_only():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted(LEAGUE.glob("**/*.py"))
        if "migrations" not in path.parts and path != LEAGUE / "core" / "locks.py"
        for line in calls_of(path.read_text(encoding="utf-8"), {"select_for_update"})
    ]
    assert found == [], "lock through league.core.locks:\n" + "\n".join(found)


def test_tasks_are_enqueued_on_commit_only():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted(LEAGUE.glob("**/*.py"))
        if path != LEAGUE / "core" / "tasks.py"
        for line in calls_of(path.read_text(encoding="utf-8"), {"enqueue"})
    ]
    assert found == [], "enqueue with league.core.tasks.enqueue_on_commit:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("planted", "kind"),
    [
        ("with transaction.atomic():\n    pass", "transaction"),
        ("Game.objects.select_for_update().get(pk=1)", "lock"),
        ("lock_club(club.pk)", "lock"),
        ("tasks.import_run.enqueue(upload.pk)", "enqueue"),
        ("request.user.save(update_fields=['email'])", "write"),
        ("Member.objects.create(name='x')", "write"),
        ("Member.objects.filter(club=club).update(is_active=False)", "write"),
        ("Game.objects.filter(pk=1).delete()", "write"),
        ("body = json.loads(request.body)", "json body"),
    ],
)
def test_the_checker_finds_a_planted_write(planted: str, kind: str):
    assert [hit[1] for hit in writes_in(planted)] == [kind]


def test_the_checker_leaves_dicts_and_reads_alone():
    source = "context.update(extra)\nnames.add('x')\nrows = Game.objects.filter(club=club)\n"
    assert writes_in(source) == []


def test_the_checker_reads_the_real_modules():
    """A planted write in a real view module is found there (the walk reads every module)."""
    path = LEAGUE / "recording" / "views" / "record.py"
    source = path.read_text(encoding="utf-8") + "\n\ndef bad(game):\n    game.save()\n"
    assert [kind for _line, kind, _call in writes_in(source)] == ["write"]
    assert path in adapter_modules()
    # A domain's page modules are its views.py or the modules of its views/ package.
    packaged = set(LEAGUE.glob("*/views/*.py"))
    assert len(packaged) > 20 and packaged <= set(adapter_modules())


WEB = ("django.http", "django.contrib.messages", "django.forms")


def web_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of each import of Django's request, response, message or form modules."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [(node.lineno, n) for n in names if n.startswith(WEB)]
    return found


def domain_modules() -> list[Path]:
    """Core, the models, and the domains' actions and reads (league.web adapts for the pages)."""
    found = set((LEAGUE / "core").glob("*.py")) | set((LEAGUE / "models").glob("*.py"))
    found |= set(LEAGUE.glob("*/services.py")) | set(LEAGUE.glob("*/selectors.py"))
    found |= {LEAGUE / "accounts" / "tokens.py", LEAGUE / "accounts" / "invitations.py"}
    return sorted(found)


def test_core_and_the_actions_speak_no_http():
    modules = domain_modules()
    assert len(modules) > 30
    found = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in modules
        for line, module in web_imports(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "adapt errors in league.web instead:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "planted",
    [
        "from django.http import HttpRequest",
        "from django.contrib import messages",
        "from django import forms",
        "import django.forms",
    ],
)
def test_the_http_check_finds_a_planted_import(planted: str):
    assert web_imports(planted) != []


# Where a plain atomic block may stand without saying why: the command-line tools (a command is
# its own top-level write), the login throttle (no club's data), league.core itself, and the
# models' membership bookkeeping (issue 36 item 2 moves it into the projections' registry).
PLAIN_ATOMIC_ALLOWED = ("core", "management", "throttle.py", "models/memberships.py")
SAVEPOINT = "# a savepoint"


def plain_atomics(source: str) -> list[int]:
    """Lines of a `transaction.atomic(` that does not say it is a savepoint inside the caller's
    action. A top-level write runs in league.core.actions.action() (durable: nothing can wrap it
    by accident); an inner block is a savepoint of the action that calls it, and says so."""
    lines = source.splitlines()
    return [
        n
        for n in calls_of(source, {"atomic"})
        if SAVEPOINT not in lines[n - 1] and "durable=True" not in lines[n - 1]
    ]


def test_every_top_level_write_is_a_durable_action():
    modules = [
        path
        for path in sorted(LEAGUE.glob("**/*.py"))
        if "migrations" not in path.parts
        and not any(str(path.relative_to(LEAGUE)).startswith(a) for a in PLAIN_ATOMIC_ALLOWED)
    ]
    assert len(modules) > 100
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in modules
        for line in plain_atomics(path.read_text(encoding="utf-8"))
    ]
    assert found == [], (
        "run a top-level write in `with action():`, or say `# a savepoint` inside an action:\n"
        + "\n".join(found)
    )


def test_the_atomic_checker_finds_a_plain_block_and_passes_a_savepoint():
    assert plain_atomics("with transaction.atomic():\n    pass\n") == [1]
    assert plain_atomics("with transaction.atomic():  # a savepoint inside x\n    pass\n") == []
    path = LEAGUE / "money" / "services.py"
    planted = (
        path.read_text(encoding="utf-8")
        + "\n\ndef bad():\n    with transaction.atomic():\n        pass\n"
    )
    assert len(plain_atomics(planted)) == 1
