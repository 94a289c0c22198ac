"""What every browser test shares: Debian's Chromium, the two screen sizes, screenshots."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-gpu",
]
BOARD_SIZE = {"width": 1920, "height": 1080}
PHONE_SIZE = {"width": 390, "height": 844}
SCREENSHOT_TIMEOUT_MS = 60_000
"""Screenshots are artifacts for people, not checks; on two busy cores with four renderers a
full-page capture can wait far longer than a click should, so it gets its own generous limit."""


def launch(playwright: Playwright) -> Browser:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (`make` installs it); "
            "the browser tests never download a browser."
        )
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def keep_screenshot(page: Page, path: Path, *, full_page: bool = False) -> None:
    page.screenshot(path=str(path), full_page=full_page, timeout=SCREENSHOT_TIMEOUT_MS)
