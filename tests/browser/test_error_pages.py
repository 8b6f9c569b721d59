"""The error pages on a phone (DEBUG off): the site's look, Japanese, and no wider than the screen."""

from __future__ import annotations

import pytest

from tests.support.browser import fits_the_screen
from tests.support.clubs import make_club, make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("name", "path", "status", "heading"),
    [
        ("404", "/c/no-such-club/", 404, "ページが見つかりません"),
        ("403", "/c/mame/rules/new/", 403, "権限がありません"),
        ("500", "/boom/", 500, "エラーが発生しました"),
    ],
)
def test_error_page_on_a_phone(
    phone, live_server, log_in, js_errors, settings, screenshot, name, path, status, heading
):
    settings.DEBUG = False
    settings.ROOT_URLCONF = "tests.support.error_urls"
    make_user("member", make_club("mame"))
    log_in("member")
    response = phone.goto(live_server.url + path)
    assert response is not None and response.status == status
    assert phone.locator("main h1").inner_text() == heading
    assert phone.locator("header.site .brand").is_visible()
    assert phone.evaluate("getComputedStyle(document.body).fontFamily") != "Times New Roman"
    assert fits_the_screen(phone)
    screenshot(f"page-error-{name}")
    # The browser reports the page's own error status on the console; anything else counts.
    own = f"{live_server.url}{path}: console: Failed to load resource"
    js_errors[:] = [e for e in js_errors if not e.startswith(own)]
