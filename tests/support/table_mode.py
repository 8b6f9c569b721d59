"""Table mode on the phone: picking in a panel, recording a hand, a win."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playwright.sync_api import expect

from league.models import Club, Member

if TYPE_CHECKING:
    from playwright.sync_api import Page


def panel_pick(page: Page, part: str, name: str) -> None:
    page.locator(f"[data-panel] .part.{part} button", has_text=name).click()


def winner_box(page: Page, name: str):
    """The panel's box of the winner `name`: han, fu, yakuman, the tiles."""
    return page.locator(f"[data-panel] .win:has(.win-title:text-is('{name}'))")


def win(page: Page, name: str, *, han: int | None = None, fu: int | None = None, yakuman=False):
    box = winner_box(page, name)
    if yakuman:
        box.locator("[data-yakuman]").click()
        return
    box.locator(f".han [data-han='{han}'], .limits [data-han='{han}']").first.click()
    if fu is not None:
        box.locator(f"[data-fu='{fu}']").click()


def record(page: Page) -> None:
    page.locator("[data-record]").click()


def points(page: Page) -> list[str]:
    """The scoreboard's points, seat by seat from the first dealer."""
    return [page.locator(f"[data-seat='{i}'] [data-points]").inner_text() for i in range(4)]


def assert_points(page: Page, expected: list[str]) -> None:
    """Each seat's points as expected, waiting for the scoreboard's script to write them (read
    at once, the first seat was sometimes still empty)."""
    for i, value in enumerate(expected):
        expect(page.locator(f"[data-seat='{i}'] [data-points]")).to_have_text(value)
    assert points(page) == expected


def table_ready(page: Page) -> None:
    """The scoreboard drawn and its buttons wired: the markup alone comes first, and a tap on it
    before the script has run is lost (under CI's load, 「ロン」 then opened no panel)."""
    page.wait_for_selector("[data-scoreboard][data-ready]")


def synced(page: Page) -> None:
    page.wait_for_selector("[data-sync].ok")


def start_table(page: Page, base_url: str, club: Club, members: list[Member]) -> None:
    """Table mode started from its own page with `members` in seat order: the scoreboard."""
    query = "&".join(f"member_{i}={m.pk}" for i, m in enumerate(members))
    page.goto(f"{base_url}/c/{club.slug}/table/new/?{query}")
    page.locator("[data-start]").click()
    table_ready(page)
