"""Reading JSON input field by field, shared by `settle` (parse.py) and `hands` (hands_json.py).

Every helper adds its problem to a Collector under the field's dotted path, so one call reports
every bad field at once."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import errors
from .errors import Collector

Merge = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def unknown(c: Collector, obj: dict[str, Any], allowed: tuple[str, ...], path: str) -> None:
    for key in obj:
        if key not in allowed:
            c.add(join(path, key), errors.UNKNOWN_FIELD, "unknown field")


def required(c: Collector, obj: dict[str, Any], keys: tuple[str, ...], path: str) -> None:
    for key in keys:
        if key not in obj:
            c.add(join(path, key), errors.REQUIRED, "is required")


def an_object(c: Collector, value: object, path: str) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return value
    c.add(path, errors.TYPE, "must be an object")
    return None


def _replace(full: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    return {**full, **changes}


def preset_or_fields(
    c: Collector,
    value: object,
    path: str,
    presets: Mapping[str, Any],
    *,
    name_in_detail: bool = False,
    merge: Merge = _replace,
) -> tuple[Any, dict[str, Any] | None]:
    """A rules value: a preset's name, `{"preset": name, ...changes}`, or a full rules object.

    Returns (the preset's rules, None) for a bare name, else (None, the fields to build from):
    with a preset, its fields merged with the changes by `merge`. An unknown preset is raised at
    once; `name_in_detail` adds the name to the problem (settle's contract does, hands' does not)."""
    known = ", ".join(presets)

    def refuse(where: str, name: object) -> None:
        extra = {"preset": name} if name_in_detail else {}
        c.add(where, errors.UNKNOWN_PRESET, f"unknown preset {name!r} (known: {known})", **extra)
        c.raise_if_any()

    if isinstance(value, str):
        preset = presets.get(value)
        if preset is None:
            refuse(path, value)
        return preset.rules, None
    obj = an_object(c, value, path)
    c.raise_if_any()
    assert obj is not None
    if "preset" in obj:
        name = obj["preset"]
        base = presets.get(name) if isinstance(name, str) else None
        if base is None:
            refuse(join(path, "preset"), name)
        obj = merge(base.rules.to_json(), {k: v for k, v in obj.items() if k != "preset"})
    return None, obj
