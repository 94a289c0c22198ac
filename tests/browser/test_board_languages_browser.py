"""Every board has a language switch once its game is under way (issue 16: the in-game TV had
none for Heirs of the Axis, nor for Hidden Leaders while a round played out).

A game whose board draws its own language bar keeps it; any other board shows the languages
beside "How to play" in the corner every game leaves free. Switching turns the board itself
into that language, and the board still has one switch, not two."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from app import i18n
from tests.browser.kit import keep_screenshot, launch
from tests.browser.test_heirs_browser import host_room, join
from tests.conftest import ServerProcess, paced_server

pytestmark = pytest.mark.browser

server = paced_server(per_module=True)
"""Each test plays rooms of its own."""

HOW_TO_PLAY = {"en": "How to play", "cs": "Jak se hraje"}


@pytest.mark.parametrize("game", ["heirs", "hidden_leaders", "legions"])
def test_a_board_in_play_switches_language(
    server: ServerProcess, artifacts: Path, game: str
) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board, _code = host_room(browser, server.base_url, game)
            for seated in (1, 2):
                board.locator("[data-testid=bot-form] button").click()
                expect(board.locator("[data-testid=seats] li:not(.empty)")).to_have_count(seated)
            board.locator("[data-testid=start]").click()
            expect(board.locator(".board-view")).not_to_have_attribute("data-status", "lobby")

            switch = board.locator(".lang-links:visible")
            expect(switch).to_have_count(1)
            codes = [link.get_attribute("lang") for link in switch.locator("a[lang]").all()]
            assert codes == list(i18n.LANGUAGES)
            keep_screenshot(board, artifacts / f"board-languages-{game}-en.png")

            # The bots play on while the board is watched: a board re-renders its bar with every
            # step, so the click is made in the page at once, not after waiting for a still
            # element (Playwright's click found Legions' bar detached again and again).
            board.evaluate(
                """() => [...document.querySelectorAll('.lang-links a[lang="cs"]')]
                    .find(link => link.offsetParent !== null).click()"""
            )
            expect(board.locator("html")).to_have_attribute("lang", "cs")
            expect(board.locator(".lang-links:visible")).to_have_count(1)
            expect(board.locator(".lang-links:visible a.current")).to_have_attribute("lang", "cs")
            howto = board.locator("[data-testid=howto-link]:visible")
            expect(howto).to_have_count(1)
            assert howto.get_attribute("href") == f"/howto/{game}?lang=cs"
            keep_screenshot(board, artifacts / f"board-languages-{game}-cs.png")
        finally:
            browser.close()


def test_a_phones_language_menu_stays_open_while_the_room_changes(server: ServerProcess) -> None:
    """The phone's languages sit behind one button; a frame that redraws the phone (here a
    bot sits down) leaves the menu open under the player's finger, and a choice closes it."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board, code = host_room(browser, server.base_url, "heirs")
            phone = join(browser, server.base_url, code, "Alice")
            menu = phone.locator("[data-testid=phone-languages]")
            menu.locator("> summary").click()
            expect(menu).to_have_attribute("open", "")
            phone.evaluate("() => { window.menuBefore = document.querySelector('.ph-lang'); }")
            board.locator("[data-testid=bot-form] button").click()
            phone.wait_for_function("() => !document.contains(window.menuBefore)")  # redrawn
            expect(menu).to_have_attribute("open", "")
            phone.locator('form[data-set-lang="hr"] button').click()
            expect(phone.locator("html")).to_have_attribute("lang", "hr")
            expect(menu).not_to_have_attribute("open", "")
        finally:
            browser.close()
