"""The host's seat PINs, one at a time (``<details name>``, static/pecet.js). Between the games
of a night a board may draw the PIN panel twice (the game's host menu and the standings): the
copies are one panel, so a tap on a name in one must not forget the open PIN it has just
shown, which then stood on the TV until the next frame instead of 15 s."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Route

from app.config import PROJECT_DIR
from tests.browser.kit import RENDERED_ORIGIN

pytestmark = pytest.mark.browser

PANEL = """
<details class="pins" open><summary>Seat PINs</summary><ul class="pin-list">
  <li><details class="pin-of" name="pin-of-ABCD" data-open-for="15" data-open-key="pin-ABCD-0">
    <summary>Ann</summary> <code class="pin">1234</code></details></li>
  <li><details class="pin-of" name="pin-of-ABCD" data-open-for="15" data-open-key="pin-ABCD-1">
    <summary>Ben</summary> <code class="pin">5678</code></details></li>
</ul></details>"""
PAGE = f"""<!doctype html><html><head><script src="/static/pecet.js" defer></script></head>
<body><div id="board-view"><div class="menu">{PANEL}</div><div class="standings">{PANEL}</div>
</div></body></html>"""


def test_a_pin_shown_from_one_copy_of_the_panel_stays_timed(browser: Browser) -> None:
    page = browser.new_page()

    def serve(route: Route) -> None:
        path = route.request.url.removeprefix(RENDERED_ORIGIN).split("?")[0]
        if path.startswith("/static/"):
            route.fulfill(path=str(PROJECT_DIR / path.lstrip("/")))
        else:
            route.fulfill(body=PAGE, content_type="text/html; charset=utf-8")

    page.route(f"{RENDERED_ORIGIN}/**", serve)
    page.goto(f"{RENDERED_ORIGIN}/b/ABCD")
    page.wait_for_function("() => document.readyState === 'complete'")
    ben = page.locator(".standings [data-open-key='pin-ABCD-1'] > summary")
    ann = page.locator(".standings [data-open-key='pin-ABCD-0'] > summary")
    ben.click()
    ann.click()
    until = page.evaluate("() => sessionStorage.getItem('pecet_open_until_pin-ABCD-0')")
    assert until is not None, "Ann's PIN lost its 15 s: it would stand until the next frame"
    assert page.evaluate("() => sessionStorage.getItem('pecet_open_until_pin-ABCD-1')") is None
    assert page.locator(".standings [data-open-key='pin-ABCD-1']").get_attribute("open") is None
    page.close()
