"""The start page where it is opened: a host on the TV or a laptop finds every game to host on
the first screen beside the join form; a phone finds the join form first."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.browser.ergonomics import in_view
from tests.browser.kit import BOARD_SIZE, PHONE_SIZE, keep_screenshot, launch
from tests.conftest import ServerProcess

pytestmark = pytest.mark.browser


def test_the_tv_shows_every_game_to_host_and_the_phone_the_join_form_first(
    server: ServerProcess, artifacts: Path
) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            for size, lang in ((BOARD_SIZE, "en"), (BOARD_SIZE, "cs"), (PHONE_SIZE, "en")):
                page = browser.new_context(viewport=size).new_page()
                page.goto(f"{server.base_url}/lang/{lang}?next=/")
                shot = "tv" if size == BOARD_SIZE else "phone"
                keep_screenshot(page, artifacts / f"start-{shot}-{lang}.png")
                join = in_view(page, "#join-form button[type=submit]")
                assert join and join["inside"], f"{shot}/{lang}: the join button {join}"
                games = page.locator("button.game-choice")
                assert games.count() == 3
                for index in range(games.count()):
                    box = games.nth(index).bounding_box()
                    assert box is not None
                    on_screen = box["y"] + box["height"] <= size["height"]
                    # A phone scrolls to the games; a TV has them all on its first screen.
                    assert on_screen or size == PHONE_SIZE, f"{shot}/{lang}: game {index} {box}"
                if size == PHONE_SIZE:
                    first = games.first.bounding_box()
                    assert first is not None and first["y"] > join["bottom"], "join comes first"
                page.context.close()
        finally:
            browser.close()
