"""What the database can hold, checked before anything is stored: dates, texts and rules JSON.

Every write path (forms, the API, the import, the services under them) asks these functions, so
that bad input is a message naming its field and never a database error (a 500):

- Dates are from `EARLIEST` (2000-01-01) to one year after today (Japan's today, core.clock.today);
  a season's last day may be up to `SEASON_AHEAD_YEARS` after today, so that next year's season can be
  set up in December. Nothing older than 2000 or further ahead is a plausible game.
- Texts fit their column (`max_length`) and hold no NUL (PostgreSQL cannot store one) and no lone
  surrogate (no database can encode one). One-line texts (every CharField: a table label, a note)
  and rate names and chip kinds hold no control character and no bidirectional control either.
- Rules JSON: at most `MAX_RULES_JSON` characters and `MAX_JSON_DEPTH` levels of nesting (checked
  by scanning the brackets, before the JSON parser recurses), no `null` document, no NUL or lone
  surrogate in any key or value, and rate names and chip kinds that fit the columns that store
  them on every game (`Game.rate`, `ChipEvent.kind`).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator, Mapping
from typing import Any

from django.db import models
from django.utils.translation import gettext_lazy

import scoring
from league.core import clock, names
from league.models import ChipEvent, Game

EARLIEST = datetime.date(2000, 1, 1)
AHEAD_YEARS = 1
SEASON_AHEAD_YEARS = 2
MAX_RULES_JSON = 50_000  # characters; a rules object with dozens of chips and rates is ~5,000
MAX_JSON_DEPTH = 20  # a rules object nests 3 levels deep ("chips" → kind → "tsumo")
MAX_PAGE = 100_000  # a page number in an address; past it, its offset could overflow: a 404

RATE_NAME_LENGTH = Game._meta.get_field("rate").max_length or 20
CHIP_KIND_LENGTH = ChipEvent._meta.get_field("kind").max_length or 30

DATE_TOO_EARLY = gettext_lazy("Enter a date on or after %(date)s.")
DATE_TOO_LATE = gettext_lazy("Enter a date on or before %(date)s (a year from today at most).")
SEASON_END_TOO_LATE = gettext_lazy(
    "Enter a date on or before %(date)s (two years from today at most)."
)
TEXT_NUL = gettext_lazy("Remove the NUL character (\\0) from this text.")
TEXT_SURROGATE = gettext_lazy("This text holds characters that are not valid Unicode.")
TEXT_CONTROL = gettext_lazy(
    "Remove the line breaks, control or direction characters (%(chars)s) from this text."
)
TEXT_TOO_LONG = gettext_lazy("Enter at most %(n)s characters (it has %(length)s).")
JSON_TOO_LONG = gettext_lazy("The rules JSON may have at most %(n)s characters.")
JSON_TOO_DEEP = gettext_lazy("The rules JSON is nested more than %(n)s levels deep.")
JSON_NULL = gettext_lazy("Enter a rules object or a preset's name, not null.")
RATE_NAME_TOO_LONG = gettext_lazy("A rate's name may have at most %(n)s characters.")
CHIP_KIND_TOO_LONG = gettext_lazy("A chip kind may have at most %(n)s characters.")


def row_id(text: str | None) -> int | None:
    """An id from a query string (?remove=12), or None for anything that is not one: "²" and
    "١٢" are digits to str.isdigit but not to int(), and 30 digits overflow the database's key."""
    if not text or not text.isascii() or not text.isdigit() or len(text) > 18:
        return None
    return int(text)


def _years_after(date: datetime.date, years: int) -> datetime.date:
    try:
        return date.replace(year=date.year + years)
    except ValueError:  # 29 February
        return date.replace(year=date.year + years, day=28)


def latest_date(*, season_end: bool = False, today: datetime.date | None = None) -> datetime.date:
    base = today or clock.today()
    return _years_after(base, SEASON_AHEAD_YEARS if season_end else AHEAD_YEARS)


def date_problem(value: datetime.date, *, season_end: bool = False) -> str | None:
    """Why a date cannot be stored, or None."""
    if value < EARLIEST:
        return DATE_TOO_EARLY % {"date": f"{EARLIEST:%Y/%m/%d}"}
    latest = latest_date(season_end=season_end)
    if value > latest:
        message = SEASON_END_TOO_LATE if season_end else DATE_TOO_LATE
        return message % {"date": f"{latest:%Y/%m/%d}"}
    return None


def unstorable(value: str) -> str | None:
    """Why a text cannot be stored at all (NUL, lone surrogates), or None."""
    if "\x00" in value:
        return str(TEXT_NUL)
    try:
        value.encode()
    except UnicodeEncodeError:
        return str(TEXT_SURROGATE)
    return None


def control_problem(value: str) -> str | None:
    """Why a one-line text (a CharField: a label, a rate's name, a note) cannot be stored: it
    holds a line break, another control or a bidirectional control (league.core.names), which
    could forge a line or reorder what follows it in the LINE text. None: it holds none."""
    found = names.control_characters(value)
    if found:
        return str(TEXT_CONTROL % {"chars": ", ".join(found)})
    return None


def text_problem(value: str, max_length: int | None, *, one_line: bool = False) -> str | None:
    """Why a text does not fit a column of `max_length` characters, or None; `one_line`: nor
    may it hold control characters (control_problem)."""
    problem = unstorable(value)
    if problem is None and one_line:
        problem = control_problem(value)
    if problem is None and max_length is not None and len(value) > max_length:
        problem = TEXT_TOO_LONG % {"n": max_length, "length": len(value)}
    return problem


def integer_range(field: models.Field) -> tuple[int, int] | None:
    """The smallest and largest value an integer column holds, on every database (PostgreSQL's,
    which SQLite does not enforce): (0, 2^31−1) for a PositiveIntegerField. None: not integers."""
    from django.db.backends.base.operations import BaseDatabaseOperations

    ranges = BaseDatabaseOperations.integer_field_ranges
    internal = field.get_internal_type()
    if internal == "ForeignKey":
        internal = field.target_field.get_internal_type()  # type: ignore[attr-defined]
    internal = {"AutoField": "IntegerField", "BigAutoField": "BigIntegerField"}.get(
        internal, internal
    )
    return ranges.get(internal)


NUMBER_TOO_LARGE = gettext_lazy("Enter a number from %(low)s to %(high)s.")


def number_problem(model: type[models.Model], name: str, value: int | None) -> str | None:
    """Why `value` does not fit `model`'s integer column `name` (before it reaches the database,
    where it would be "integer out of range"), else None."""
    bounds = integer_range(model._meta.get_field(name))
    if value is None or bounds is None or bounds[0] <= value <= bounds[1]:
        return None
    return str(NUMBER_TOO_LARGE) % {"low": f"{bounds[0]:,}", "high": f"{bounds[1]:,}"}


def column_problems(model: type[models.Model], **values: Any) -> dict[str, list[str]]:
    """field → [message] for each value that does not fit `model`'s column of that name: text
    too long or not one line, a number outside an integer column's range."""
    out: dict[str, list[str]] = {}
    for name, value in values.items():
        field = model._meta.get_field(name)
        if value is None or isinstance(value, int):
            if (problem := number_problem(model, name, value)) is not None:
                out[name] = [problem]
            continue
        one_line = isinstance(field, models.CharField)  # every short text (a TextField is not)
        problem = text_problem(value, getattr(field, "max_length", None), one_line=one_line)
        if problem is not None:
            out[name] = [problem]
    return out


# --- rules JSON -------------------------------------------------------------------------------

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def json_too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether `text` nests arrays and objects more than `limit` deep, without parsing it.

    Brackets inside strings do not count; the scan is linear and recursion-free, so a document of
    100,000 opening brackets costs a few milliseconds instead of a RecursionError in json.loads.
    """
    depth = 0
    for match in _BRACKET.finditer(_JSON_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, string) for every key and string value of parsed JSON, depth first."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            yield child, str(key)
            yield from _strings(item, child)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")


def printable(text: str) -> str:
    """A key as it can be shown in a message: NUL and lone surrogates escaped, cut at 40."""
    return text[:40].replace("\x00", "\\0").encode("utf-8", "backslashreplace").decode()


def json_text_problem(value: Any) -> str | None:
    """The first key or string of parsed rules JSON that no database can store, as a message."""
    if value is None:
        return str(JSON_NULL)
    for path, text in _strings(value):
        problem = unstorable(text)
        if problem is not None:
            return f"{printable(path) or 'rules'}: {problem}"
    return None


def rules_column_problems(rules: scoring.Rules) -> list[tuple[str, str, str]]:
    """(kind, name, message) for each rate name and chip kind too long for its column."""
    out: list[tuple[str, str, str]] = []
    for name in rules.rates:
        if len(name) > RATE_NAME_LENGTH:
            out.append(("rate", name, str(RATE_NAME_TOO_LONG % {"n": RATE_NAME_LENGTH})))
    for name in rules.chips:
        if len(name) > CHIP_KIND_LENGTH:
            out.append(("chip", name, str(CHIP_KIND_TOO_LONG % {"n": CHIP_KIND_LENGTH})))
    for kind, texts in (("rate", rules.rates), ("chip", rules.chips)):
        for name in texts:
            problem = unstorable(name) or control_problem(name)
            if problem is not None:
                out.append((kind, name, problem))
    return out


def rules_problem_messages(rules: scoring.Rules) -> list[str]:
    """rules_column_problems as messages naming the rate or chip kind ("rates.…: …")."""
    heads = {"rate": "rates", "chip": "chips"}
    return [
        f"{heads[kind]}.{printable(name)}: {message}"
        for kind, name, message in rules_column_problems(rules)
    ]
