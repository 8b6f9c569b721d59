"""What a web page makes of a domain's ServiceError: errors next to a form's fields, or messages
at the top of the next page. The one adapter: core and the domains' actions never import
django.http, django.contrib.messages or django.forms (.importlinter)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest

from league.core.errors import ServiceError, form_field


def messages_of(error: ServiceError) -> list[str]:
    """Every message of the error, in order, once."""
    out: list[str] = []
    for field_messages in error.errors.values():
        out.extend(m for m in field_messages if m not in out)
    return out


def add_errors(form: Any, error: ServiceError) -> None:
    """A service's errors onto the form, each at the field its path names (form_field:
    "players[2].name" is member_2); paths the form has no field for become non-field errors."""
    for path, field_messages in error.errors.items():
        field = form_field(path)
        for message in field_messages:
            form.add_error(field if field in form.fields else None, message)


def show_errors(request: HttpRequest, error: ServiceError) -> None:
    """A service's errors as messages at the top of the next page (a form-less POST)."""
    for message in messages_of(error):
        messages.error(request, message)
