"""The host's controls on a screen that lost them (a TV browser restarted, its cookies gone),
in Chromium: the host's menu shows the host's PIN; a board without the controls asks for it
from its corner and takes them; the screen that had them keeps the board only."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, ViewportSize, expect

from tests.browser.kit import keep_screenshot
from tests.conftest import ServerProcess
from tests.play import auth

pytestmark = pytest.mark.browser

TV: ViewportSize = {"width": 1280, "height": 720}


def test_a_tv_that_lost_its_cookies_takes_the_host_s_controls_back_with_the_pin(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    base = server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    room = api.post("/api/rooms", json={"game": "heirs"}).json()
    code, host = room["code"], room["host_token"]
    for name in ("Ann", "Ben"):
        assert api.post(f"/api/rooms/{code}/seats", json={"name": name}).status_code == 201

    old = browser.new_context(viewport=TV)
    old.add_cookies([{"name": f"pecet_host_{code}", "value": host, "url": base}])
    old_tv = old.new_page()
    old_tv.goto(f"{base}/b/{code}")
    expect(old_tv.locator("[data-testid=start]")).to_be_visible()
    expect(old_tv.locator("[data-testid=host-back-link]")).to_have_count(0)
    # The host reads the host's PIN behind a tap, as a seat's.
    old_tv.locator("[data-testid=pins] > summary").click()
    old_tv.locator("[data-testid=pin-of-host] > summary").click()
    pin = old_tv.locator("[data-testid=host-pin]").inner_text()
    assert pin.isdigit() and len(pin) == 4

    # The TV's browser starts again with nothing: the board, without the host's controls.
    new = browser.new_context(viewport=TV)
    tv = new.new_page()
    tv.goto(f"{base}/b/{code}")
    expect(tv.locator("[data-testid=start]")).to_have_count(0)
    tv.locator("[data-testid=host-back-link]").click()
    tv.locator("#host-pin").fill(pin)
    keep_screenshot(tv, artifacts / "host-back-form.png")
    tv.locator("[data-testid=host-back-submit]").click()
    expect(tv.locator("[data-testid=start]")).to_be_visible()
    tv.locator("[data-testid=pins] > summary").click()
    tv.locator("[data-testid=pin-of-host] > summary").click()
    expect(tv.locator("[data-testid=host-pin]")).not_to_have_text(pin)
    keep_screenshot(tv, artifacts / "host-back-board.png")

    # The old screen is told at once: its host's controls go, the board stays.
    expect(old_tv.locator("#board-flash")).to_contain_text(
        "The host's controls moved to another screen"
    )
    expect(old_tv.locator("[data-testid=start]")).to_have_count(0)
    expect(old_tv.locator("[data-testid=host-back-link]")).to_be_visible()
    assert api.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 403
    old.close()
    new.close()
