"""What every browser test shares: Debian's Chromium, the two screen sizes, screenshots."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, Playwright, Route, ViewportSize
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.config import PROJECT_DIR

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


RENDERED_ORIGIN = "http://pecet.test"
"""Where a page rendered by a TestClient is shown, with no server and no socket behind it."""


def open_rendered_phone(
    page: Page, client: TestClient, code: str, token: str, lang: str = "en"
) -> None:
    """The seat's page as the server renders it now, static files from disk (no socket)."""
    client.cookies.set(f"pecet_seat_{code}", token)
    client.cookies.set("pecet_lang", lang)
    html = client.get(f"/r/{code}").text

    def serve(route: Route) -> None:
        path = route.request.url.removeprefix(RENDERED_ORIGIN).split("?")[0]
        if path == f"/r/{code}":
            route.fulfill(body=html, content_type="text/html; charset=utf-8")
        elif path.startswith("/static/"):
            route.fulfill(path=str(PROJECT_DIR / path.lstrip("/")))
        else:
            route.abort()

    page.unroute(f"{RENDERED_ORIGIN}/**")
    page.route(f"{RENDERED_ORIGIN}/**", serve)
    page.goto(f"{RENDERED_ORIGIN}/r/{code}")
