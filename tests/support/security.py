"""The Content-Security-Policy and logging in, for the security tests."""

from __future__ import annotations

from html.parser import HTMLParser

from django.http import HttpResponse
from django.test import Client

from league.models import LoginAttempt

LOGIN = "/accounts/login/"


POLICY = {
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}


def login(client: Client, username: str, password: str, address: str):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=address)


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def fail(username: str, address: str, times: int) -> None:
    """`times` failures stored as the login view stores them (faster than posting each)."""
    LoginAttempt.objects.bulk_create(
        LoginAttempt(username=username, address=address) for _ in range(times)
    )


class InlineCode(HTMLParser):
    """Collects what style-src/script-src 'self' would block: inline scripts, event handlers,
    style attributes and <style> elements, javascript: links."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self._script_with_src = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "script":
            self._script_with_src = "src" in found
            if not self._script_with_src and found.get("type") != "application/json":
                self.problems.append(f"inline <script> {found}")
        if tag == "style":
            self.problems.append("<style> element")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...>")
            if name == "style":
                self.problems.append(f'<{tag} style="{value}">')
            if name in ("href", "src", "action") and (value or "").strip().startswith(
                "javascript:"
            ):
                self.problems.append(f"<{tag} {name}={value}>")

    def handle_data(self, data: str) -> None:
        if self._script_with_src and data.strip():
            self.problems.append("code inside a <script src>")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script_with_src = False


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    parser.close()
    return parser.problems


def policy(response: HttpResponse) -> dict[str, list[str]]:
    header = response.headers["Content-Security-Policy"]
    directives = [part.split() for part in header.split(";")]
    return {d[0]: d[1:] for d in directives}
