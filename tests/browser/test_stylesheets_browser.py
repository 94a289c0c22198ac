"""No frame of the board is drawn without its game's stylesheets.

Every frame the server sends replaces the board's screen, and with it the screen's own
``<link rel=stylesheet>`` elements; the browser takes a new link from its cache at once only
while it trusts its copy. Here the stylesheets are served slowly and never from the cache
(Playwright's routing turns the cache off), the worst a browser can meet: a Heirs board with
five bots plays its rounds out at half a second a step, and at every animation frame the page
records whether some stylesheet it names has no loaded copy, and the size of the playback
banner's small text (24 px by the board's stylesheet, 22 px without it). The pages ask for
each file at its current version, which the server lets the browser keep for a year
(tests/test_assets.py).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Route, expect, sync_playwright

from tests.browser.kit import launch
from tests.browser.test_heirs_browser import host_room, set_option
from tests.conftest import ServerProcess, running_server
from tests.live import wait_for

pytestmark = pytest.mark.browser

STYLESHEET_DELAY = 0.3
"""Seconds each stylesheet takes to arrive: a frame's own links are pending for many frames."""
FRAMES = 25
"""Board frames to watch: the setup, then the steps of the first rounds."""

SAMPLER_JS = """() => {
  const found = {frames: 0, unstyled: 0, banners: 0, small: [], missing: []};
  window.__styles = found;
  const check = () => {
    found.frames++;
    const links = [...document.querySelectorAll('link[rel=stylesheet]')];
    const applied = new Set(links.filter(l => l.sheet).map(l => l.getAttribute('href')));
    const missing = links.map(l => l.getAttribute('href')).filter(h => !applied.has(h));
    if (missing.length) {
      found.unstyled++;
      if (found.missing.length < 5) found.missing.push(missing.join(' '));
    }
    const small = document.querySelector('[data-testid=playback-banner] small');
    if (small) {
      found.banners++;
      const px = parseFloat(getComputedStyle(small).fontSize);
      if (px < 24 && found.small.length < 5) found.small.push(px);
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
  let messages = 0;
  document.addEventListener('htmx:wsAfterMessage', () => { window.__messages = ++messages; });
}"""


@pytest.fixture
def paced_server(tmp_path: Path) -> Any:
    with running_server(tmp_path, step_seconds=0.5) as process:
        yield process


def test_no_board_frame_is_drawn_without_its_stylesheets(paced_server: ServerProcess) -> None:
    base = paced_server.base_url
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board, _code = host_room(browser, base)

            def slow_stylesheet(route: Route) -> None:
                answer = route.fetch()
                time.sleep(STYLESHEET_DELAY)  # the page goes on drawing meanwhile
                # Not to be kept: each new link is fetched again, as after a cache eviction.
                headers = {**answer.headers, "cache-control": "no-store"}
                route.fulfill(response=answer, headers=headers)

            board.route("**/static/**/*.css*", slow_stylesheet)
            set_option(board, "opt-rounds", "6")
            for count in range(1, 6):
                board.locator("[data-testid=add-styled-bot]").click()
                expect(board.locator("[data-testid=seats] li:not(.empty)")).to_have_count(count)
            board.evaluate(SAMPLER_JS)
            board.locator("[data-testid=start]").click()
            expect(board.locator("[data-testid=heirs-board]")).to_be_visible()
            wait_for(
                lambda: (
                    board.evaluate("window.__messages || 0") >= FRAMES
                    and board.evaluate("window.__styles.banners") > 0
                ),
                f"{FRAMES} frames of the board, some mid-show",
                seconds=90,
            )
            found = board.evaluate("window.__styles")
        finally:
            browser.close()
    assert found["frames"] > FRAMES
    assert not found["small"], f"the banner drawn without the board's stylesheet: {found}"
    assert not found["unstyled"], f"frames drawn while a stylesheet had no loaded copy: {found}"
