"""The phone's size, where screenshots go, logging in on a page, and whether a page fits the
phone's screen."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.clubs import PASSWORD

if TYPE_CHECKING:
    from playwright.sync_api import Page


SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"


PHONE = {"width": 390, "height": 844}


def log_in_on(page: Page, base_url: str, username: str, password: str = PASSWORD) -> None:
    """Log in on `page` through the real login page; lands wherever the login page sends the
    user."""
    response = page.goto(f"{base_url}/accounts/login/")
    assert response is not None and response.status == 200
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("main form[method=post] button[type=submit]")
    assert "/accounts/login/" not in page.url, "the login was refused"


def fits_the_screen(page: Page) -> bool:
    """No sideways scrolling of the whole page (a wide table may scroll inside its box).

    A phone's browser zooms out to show a page wider than the screen, widening innerWidth with
    it: the screen's own width is what the page must fit."""
    return page.evaluate(
        "Math.max(document.documentElement.scrollWidth, window.innerWidth) <= screen.width + 1"
    )


def preview_then_save(page: Page) -> None:
    """The record form's 確認 (the result shown), then 保存."""
    with page.expect_navigation():
        page.click("button[name=action][value=preview]:not(.default-action)")
    with page.expect_navigation():
        page.click("button[name=action][value=save]")
