"""The TV's replay in Chromium: a step's buttons work the moment the step is on the screen."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.browser.kit import BOARD_SIZE
from tests.browser.test_board_fit_browser import finished_by_bots
from tests.conftest import ServerProcess

pytestmark = pytest.mark.browser


def test_a_steps_buttons_work_as_soon_as_it_is_drawn(
    server: ServerProcess, browser: Browser
) -> None:
    """htmx makes a swapped-in fragment's buttons work when it settles, 20 ms after the swap
    by default and later on a busy TV: a round picked just after a step came in did nothing
    (it failed the reveal test once under load). Here the pick comes at once after the swap,
    before a default settle."""
    base = server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    code, _host = finished_by_bots(api, "hidden_leaders", bots=2)
    page = browser.new_page(viewport=BOARD_SIZE)
    page.goto(f"{base}/b/{code}/replay/1")
    current = page.locator("[data-testid=replay-round].current")
    expect(current).to_have_attribute("data-round", "1")
    page.evaluate(
        """() => document.addEventListener("htmx:afterSwap", () => setTimeout(() =>
            document.querySelector('[data-testid=replay-round][data-round="5"]').click()
        ), {once: true})"""
    )
    page.locator("[data-testid=replay-forward]").click()
    expect(current).to_have_attribute("data-round", "5")
    page.close()
