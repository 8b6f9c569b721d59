"""Table mode on the phone: picking in a panel, recording a hand, a win."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page


def panel_pick(page: Page, part: str, name: str) -> None:
    page.locator(f"[data-panel] .part.{part} button", has_text=name).click()


def win(page: Page, name: str, *, han: int | None = None, fu: int | None = None, yakuman=False):
    box = page.locator(f"[data-panel] .win:has(.win-title:text-is('{name}'))")
    if yakuman:
        box.locator("[data-yakuman]").click()
        return
    box.locator(f".han [data-han='{han}'], .limits [data-han='{han}']").first.click()
    if fu is not None:
        box.locator(f"[data-fu='{fu}']").click()


def record(page: Page) -> None:
    page.locator("[data-record]").click()
