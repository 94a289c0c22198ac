"""The host's panels on the Heirs TV (hand a seat to a bot, the timers, the PINs): opened,
one floats above the host's row instead of pushing the board's log out of the column."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.browser.kit import BOARD_SIZE
from tests.browser.test_heirs_browser import host_room
from tests.conftest import ServerProcess

pytestmark = pytest.mark.browser


def test_an_opened_host_panel_leaves_the_log_its_room(
    server: ServerProcess, browser: Browser
) -> None:
    board, code = host_room(browser, server.base_url)
    try:
        with httpx.Client(base_url=server.base_url) as http:
            for name in ("Ann", "Ben", "Cyril"):
                seat = http.post(f"/api/rooms/{code}/seats", json={"name": name})
                assert seat.status_code == 201, seat.text
        expect(board.locator("[data-testid=seat-line]")).to_have_count(3)
        board.locator("[data-testid=start]").click()
        log = board.locator("[data-testid=history]")
        expect(log).to_be_visible()
        before = log.bounding_box()
        assert before is not None and before["height"] > 100, before
        for panel in (".hx-more-time", ".hx-hand-over", "[data-testid=pins]"):
            details = board.locator(f".hx-host > details{panel}")
            details.locator("> summary").click()
            expect(details).to_have_attribute("open", "")
            box = details.bounding_box()
            assert box is not None
            assert box["y"] >= 0 and box["y"] + box["height"] <= BOARD_SIZE["height"], box
            now = log.bounding_box()
            assert now is not None and now["y"] == before["y"], f"{panel} opened: the log moved"
            assert now["height"] >= before["height"], f"{panel} opened: the log shrank"
            details.locator("> summary").click()
            expect(details).not_to_have_attribute("open", "")
        timer = board.locator(".hx-more-time select").first
        board.locator(".hx-more-time summary").click()
        expect(timer).to_be_visible()
        expect(timer).to_be_enabled()
    finally:
        board.context.close()
