"""The TV's lobby while players sit down: each seat line pops in once, when its player
joins; the lines already there stay put while the next player joins."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Browser, Locator, expect

from tests.browser.test_heirs_browser import host_room
from tests.conftest import ServerProcess

pytestmark = pytest.mark.browser


def animation(line: Locator) -> str:
    """The CSS animation the browser runs on a seat line (``none``: it just stands there)."""
    name: str = line.evaluate("el => getComputedStyle(el).animationName")
    return name


def test_only_the_new_seat_line_pops_in(server: ServerProcess, browser: Browser) -> None:
    board, code = host_room(browser, server.base_url)
    try:
        lines = board.locator("[data-testid=seat-line]")
        with httpx.Client(base_url=server.base_url) as http:
            for joined, name in enumerate(("Ann", "Ben", "Cyril"), start=1):
                seat = http.post(f"/api/rooms/{code}/seats", json={"name": name})
                assert seat.status_code == 201, seat.text
                expect(lines).to_have_count(joined)
                expect(lines.nth(joined - 1)).to_contain_text(name)
                assert animation(lines.nth(joined - 1)) == "pop", f"{name} sits down"
                for earlier in range(joined - 1):
                    assert animation(lines.nth(earlier)) == "none", (
                        f"line {earlier + 1} played its entrance again when {name} joined"
                    )
    finally:
        board.context.close()
