"""Browser tests: Playwright driving Debian's Chromium (/usr/bin/chromium) against live_server.

Downloading a browser does not work on our machines, so Playwright is pointed at the system one.
Without it these tests skip, unless JANCHO_REQUIRE_BROWSER=1 (CI sets it), where they fail.
Screenshots go to test-artifacts/screenshots/, made by the tests, for people to look at.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support.browser import PHONE, SCREENSHOTS
from tests.support.browser_pages import every_club_page

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Page

CHROMIUM = Path(os.environ.get("JANCHO_CHROMIUM", "/usr/bin/chromium"))

# Playwright's sync API runs an event loop in the test thread; the ORM calls the tests make
# around it are ordinary synchronous ones.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if CHROMIUM.exists() or os.environ.get("JANCHO_REQUIRE_BROWSER") == "1":
        return
    skip = pytest.mark.skip(reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    for item in items:
        if "tests/browser" in str(item.path):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"JANCHO_REQUIRE_BROWSER=1 but there is no Chromium at {CHROMIUM}")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


def _is_favicon(url: str) -> bool:
    return url.rsplit("?", 1)[0].endswith("/favicon.ico")


@pytest.fixture
def js_errors() -> list[str]:
    """The page's JavaScript errors and console errors, filled in by `phone`."""
    return []


@pytest.fixture
def phone(browser: Browser, js_errors: list[str]) -> Iterator[Page]:
    """A page in a phone-sized, touch, Japanese-language browser context.

    Every test using it also checks that the pages logged no JavaScript error (an uncaught
    exception or a console error; a missing favicon does not count).
    """
    context = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, locale="ja-JP", device_scale_factor=2
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("pageerror", lambda error: js_errors.append(f"{page.url}: {error}"))

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" and not _is_favicon(message.location.get("url", "")):
            js_errors.append(f"{page.url}: console: {message.text}")

    page.on("console", on_console)
    yield page
    context.close()
    assert js_errors == [], "the pages logged JavaScript errors"


@pytest.fixture
def log_in(phone: Page, live_server: Any) -> Callable[..., None]:
    """Log in through the real login page; lands wherever the login page sends the user."""
    from tests.support.browser import log_in_on
    from tests.support.clubs import PASSWORD

    def go(username: str, password: str = PASSWORD) -> None:
        log_in_on(phone, live_server.url, username, password)

    return go


@pytest.fixture
def screenshot(phone: Page) -> Callable[[str], Path]:
    def take(name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        # From the top: scrolled down, the sticky header would be drawn over the middle.
        phone.evaluate("window.scrollTo(0, 0)")
        phone.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture
def club_pages() -> list[tuple[str, str]]:
    """(URL name, address) of every page of マメの会, which has something on each."""
    return every_club_page()
