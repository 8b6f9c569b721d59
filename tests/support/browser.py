"""The phone's size, where screenshots go, and whether a page fits the phone's screen."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page


SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"


PHONE = {"width": 390, "height": 844}


def fits_the_screen(page: Page) -> bool:
    """No sideways scrolling of the whole page (a wide table may scroll inside its box).

    A phone's browser zooms out to show a page wider than the screen, widening innerWidth with
    it: the screen's own width is what the page must fit."""
    return page.evaluate(
        "Math.max(document.documentElement.scrollWidth, window.innerWidth) <= screen.width + 1"
    )
