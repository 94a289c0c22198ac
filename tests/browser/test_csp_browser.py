"""The strict Content-Security-Policy (issue 13.10) breaks nothing in Chromium.

A TV hosts Hidden Leaders, two phones join and the game starts; every page listens for
``securitypolicyviolation`` from its first script on. The phones get their first decision
over the websocket (so scripts, styles, the socket and the icons all loaded), and no page
reports a violation.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.browser.kit import BOARD_SIZE, PHONE_SIZE, launch
from tests.conftest import ServerProcess
from tests.live import wait_for

pytestmark = pytest.mark.browser

TIMEOUT_MS = 20_000
LISTEN = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', e => {
  window.__violations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline'));
});
"""


def violations(page: Page) -> list[str]:
    found: list[str] = page.evaluate("window.__violations")
    return found


def test_the_pages_run_under_the_policy(server: ServerProcess) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            pages: list[Page] = []

            def new_page(size: Any) -> Page:
                context = browser.new_context(viewport=size)
                context.add_init_script(LISTEN)
                page = context.new_page()
                page.set_default_timeout(TIMEOUT_MS)
                pages.append(page)
                return page

            board = new_page(BOARD_SIZE)
            board.goto(server.base_url + "/")
            board.locator('button[name="game"][value="hidden_leaders"]').click()
            board.wait_for_url("**/b/*")
            code = board.locator("[data-testid=room-code]").inner_text().strip()
            expect(board.locator("img.qr")).to_have_js_property("complete", True)
            for name in ("Ann", "Ben"):
                phone = new_page(PHONE_SIZE)
                phone.goto(f"{server.base_url}/j/{code}")
                phone.fill("#join-form input[name=name]", name)
                phone.locator("#join-form button[type=submit]").click()
                phone.wait_for_url(f"**/r/{code}")
            expect(board.locator("[data-testid=seat-line]")).to_have_count(2)
            board.locator("[data-testid=start]").click()
            expect(board.locator(".table")).to_be_visible()
            wait_for(
                lambda: any(p.locator("form.take-form").count() for p in pages[1:]),
                "a phone's first decision over the socket",
            )
            for page in pages:
                assert violations(page) == [], (page.url, violations(page))
            # The policy is live and the listener hears it: an injected inline script is
            # refused and reported.
            board.evaluate(
                "() => { const s = document.createElement('script');"
                " s.textContent = 'window.__ran = 1'; document.head.appendChild(s); }"
            )
            wait_for(lambda: violations(board), "the refused inline script's report")
            assert board.evaluate("window.__ran") is None
            assert violations(board)[0].startswith("script-src"), violations(board)
        finally:
            browser.close()
