"""What every browser test shares: Debian's Chromium, the two screen sizes, screenshots."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, ViewportSize
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-gpu",
]
BOARD_SIZE: ViewportSize = {"width": 1920, "height": 1080}
PHONE_SIZE: ViewportSize = {"width": 390, "height": 844}
SCREENSHOT_TIMEOUT_MS = 60_000
"""Screenshots are artifacts for people, not checks; on two busy cores with four renderers a
full-page capture can wait far longer than a click should, so it gets its own generous limit."""
SCREENSHOT_ATTEMPTS = 3
"""Chromium refuses a capture ("Unable to capture screenshot") while a page is between two
documents; the next attempt, once the new document has loaded, succeeds."""


def launch(playwright: Playwright) -> Browser:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (`make` installs it); "
            "the browser tests never download a browser."
        )
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def keep_screenshot(page: Page, path: Path, *, full_page: bool = False) -> None:
    for attempt in range(1, SCREENSHOT_ATTEMPTS + 1):
        page.wait_for_load_state("load")
        try:
            page.screenshot(path=str(path), full_page=full_page, timeout=SCREENSHOT_TIMEOUT_MS)
            return
        except PlaywrightError as refused:
            if isinstance(refused, PlaywrightTimeout) or attempt == SCREENSHOT_ATTEMPTS:
                raise
            page.wait_for_timeout(500)
