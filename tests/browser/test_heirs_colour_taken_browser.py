"""H3.1 in Chromium: colours are first come, first served. When another heir seals the colour
a phone had chosen, that phone is told, and no other colour is ticked in its place: a tap on
"Keep this character" must never seal a colour its player did not choose."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, Route, expect, sync_playwright

from tests.browser.kit import keep_screenshot, launch
from tests.browser.test_heirs_browser import setup_of_two
from tests.conftest import ServerProcess

pytestmark = pytest.mark.browser


def colour(phone: Page, value: str) -> None:
    phone.locator(f'.hx-colour:has(input[value="{value}"])').click()


def test_a_colour_taken_meanwhile_is_told_and_never_replaced(
    server: ServerProcess, artifacts: Path
) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board, code, ema, ota = setup_of_two(browser, server.base_url)

            colour(ota, "green")
            expect(ota.locator('input[name="colour"][value="green"]')).to_be_checked()
            taken = ota.locator("[data-testid=colour-taken]")
            expect(taken).to_be_hidden()

            colour(ema, "green")
            ema.locator("[data-testid=seal-setup]").click()
            expect(ema.locator("[data-testid=setup-form]")).to_have_count(0)

            # Ota's sheet is drawn again without green: told so, and nothing ticked instead.
            expect(ota.locator('input[name="colour"][value="green"]')).to_have_count(0)
            expect(taken).to_be_visible()
            expect(ota.locator('input[name="colour"]:checked')).to_have_count(0)
            keep_screenshot(ota, artifacts / "heirs-colour-taken-phone.png", full_page=True)

            # A tap on "Keep" seals nothing until a colour is chosen.
            ota.locator("[data-testid=seal-setup]").click()
            expect(ota.locator("[data-testid=setup-form]")).to_be_visible()
            expect(taken).to_be_visible()

            colour(ota, "blue")
            expect(taken).to_be_hidden()
            ota.locator("[data-testid=seal-setup]").click()
            expect(ota.locator("[data-testid=setup-form]")).to_have_count(0)
            expect(board.locator("[data-testid=heirs-board]")).to_be_visible()
            view = httpx.get(f"{server.base_url}/api/rooms/{code}", timeout=10).json()["view"]
            assert {h["seat"]: h["colour"] for h in view["heirs"]} == {0: "green", 1: "blue"}
        finally:
            browser.close()


def test_a_ticked_colour_taken_meanwhile_is_told_where_the_next_one_is_ticked(
    server: ServerProcess, artifacts: Path
) -> None:
    """Neither phone chose a colour: each shows the first free one ticked. Ema keeps hers;
    Ota's sheet is drawn again with the next free colour ticked in its place, and Ota is
    told so (the colour changed under Ota's eyes), until Ota taps a choice."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board, code, ema, ota = setup_of_two(browser, server.base_url)
            first = ota.locator('input[name="colour"]:checked').get_attribute("value")
            assert first == ema.locator('input[name="colour"]:checked').get_attribute("value")
            moved = ota.locator("[data-testid=colour-moved]")
            expect(moved).to_be_hidden()

            ema.locator("[data-testid=seal-setup]").click()
            expect(ema.locator("[data-testid=setup-form]")).to_have_count(0)

            expect(ota.locator(f'input[name="colour"][value="{first}"]')).to_have_count(0)
            expect(moved).to_be_visible()
            expect(ota.locator("[data-testid=colour-taken]")).to_be_hidden()
            ticked = ota.locator('input[name="colour"]:checked')
            expect(ticked).to_have_count(1)
            now = ticked.get_attribute("value")
            keep_screenshot(ota, artifacts / "heirs-colour-moved-phone.png", full_page=True)

            # A reload draws the sheet again: still told, as nothing was chosen meanwhile.
            ota.reload()
            expect(moved).to_be_visible()
            ota.locator(".hx-char").nth(1).click()
            expect(moved).to_be_hidden()
            ota.locator("[data-testid=seal-setup]").click()
            expect(ota.locator("[data-testid=setup-form]")).to_have_count(0)
            expect(board.locator("[data-testid=heirs-board]")).to_be_visible()
            view = httpx.get(f"{server.base_url}/api/rooms/{code}", timeout=10).json()["view"]
            assert {h["seat"]: h["colour"] for h in view["heirs"]} == {0: first, 1: now}
        finally:
            browser.close()


def test_a_colour_tapped_before_the_page_set_its_sheet_up_is_the_players_choice(
    server: ServerProcess,
) -> None:
    """A tap on a colour that comes before the page's script has set the sheet up (a slow
    phone; or a frame that has just swapped the sheet in, set up a moment later): the choice
    was not kept, and when another heir sealed that colour the sheet said "the colour that was
    ticked" went and ticked the next free one, as if the player had chosen none. CI met it
    once."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            _board, _code, ema, ota = setup_of_two(browser, server.base_url)
            held: list[Route] = []

            def hold(route: Route) -> None:
                held.append(route)

            ota.route("**/static/heirs.js*", hold)
            ota.reload(wait_until="commit")  # its deferred script holds DOMContentLoaded back
            expect(ota.locator("[data-testid=setup-form]")).to_be_visible()
            assert ota.evaluate("() => window.HeirsTable === undefined"), "the script came"
            colour(ota, "green")
            expect(ota.locator('input[name="colour"][value="green"]')).to_be_checked()
            assert held, "the sheet's script was held back"
            held[0].continue_()
            ota.wait_for_function("() => window.HeirsTable !== undefined")

            colour(ema, "green")
            ema.locator("[data-testid=seal-setup]").click()
            expect(ema.locator("[data-testid=setup-form]")).to_have_count(0)
            expect(ota.locator('input[name="colour"][value="green"]')).to_have_count(0)
            expect(ota.locator("[data-testid=colour-taken]")).to_be_visible()
            expect(ota.locator("[data-testid=colour-moved]")).to_be_hidden()
            expect(ota.locator('input[name="colour"]:checked')).to_have_count(0)
        finally:
            browser.close()
