"""A tournament night in Chromium: the host sets it up on the board, a phone plays against a
bot, and the TV shows the standings between games and the podium at the end."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.browser.ergonomics import SETTLE_JS
from tests.browser.kit import BOARD_SIZE, PHONE_SIZE, keep_screenshot, launch
from tests.browser.test_hidden_leaders_browser import TIMEOUT_MS, play_turn
from tests.conftest import ServerProcess
from tests.live import wait_for

pytestmark = pytest.mark.browser

STANDINGS_TIMEOUT_MS = 30_000  # the table fades in once the board has played the scoring out


PLACE_AND_RESULT_JS = """() => {
  const standing = document.querySelector('[data-testid=my-standing]');
  const result = document.getElementById('phone-result');
  if (!standing || !result) return null;
  return [standing.getBoundingClientRect().top, result.getBoundingClientRect().top];
}"""
"""Where the phone draws the night's place and the last game's result, read at one moment."""


def play_my_game(phone: Page) -> None:
    """Play every turn of this phone's seat until its game is over."""
    deadline = time.monotonic() + 60
    turn = 0
    while time.monotonic() < deadline:
        if phone.locator("[data-testid=ready]").count() or phone.locator("#phone-result").count():
            return
        if phone.locator("form.take-form").count():
            try:
                play_turn(phone, turn)
            except PlaywrightTimeoutError:
                continue  # a fresh view replaced the form mid-turn: read it again
            turn += 1
        else:
            time.sleep(0.05)
    raise AssertionError("the game did not end")


def show_standings(board: Page) -> None:
    """The host's "Show standings" once the result is on the board (the board's own timer,
    RESULT_SECONDS later, is the mixed night's test in test_reclaim_browser)."""
    standings = board.locator("[data-testid=standings]")
    button = board.locator("[data-testid=show-standings]")
    either = board.locator("[data-testid=standings]:visible, [data-testid=show-standings]:visible")
    expect(either.first).to_be_visible(timeout=STANDINGS_TIMEOUT_MS)
    if not standings.is_visible():
        button.click()
    expect(standings).to_be_visible()
    board.evaluate(SETTLE_JS)  # the table has faded in


def test_standings_between_games_and_the_final_podium(
    server: ServerProcess, artifacts: Path
) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board = browser.new_context(viewport=BOARD_SIZE).new_page()
            board.set_default_timeout(TIMEOUT_MS)
            board.goto(server.base_url + "/")
            board.locator('button[name="game"][value="hidden_leaders"]').click()
            board.wait_for_url("**/b/*")
            code = board.locator("[data-testid=room-code]").inner_text().strip()

            form = board.locator("[data-testid=tournament-form]")
            form.locator("summary").click()
            form.locator('input[name="rounds"]').fill("2")
            form.locator('input[name="final_double"]').check()
            form.locator("[data-testid=make-tournament]").click()
            expect(form.locator("summary")).to_contain_text("2")
            expect(form.locator("summary")).to_contain_text("×2")

            phone = browser.new_context(
                viewport=PHONE_SIZE, is_mobile=True, has_touch=True, device_scale_factor=2
            ).new_page()
            phone.set_default_timeout(TIMEOUT_MS)
            phone.goto(f"{server.base_url}/j/{code}")
            phone.fill('input[name="name"]', "Jana")
            phone.locator("#join-form button[type=submit]").click()
            phone.wait_for_url(f"**/r/{code}")
            board.locator('form[action$="/bots"] button').first.click()
            expect(board.locator("[data-testid=seats]")).to_contain_text("Bot 1")
            # Counted once two sit (a duel's round robin grows with the players).
            expect(phone.locator("[data-testid=my-standing] h2")).to_contain_text("2 games")
            keep_screenshot(board, artifacts / "tournament-board-lobby.png")
            board.locator("[data-testid=start]").click()

            play_my_game(phone)
            standings = board.locator("[data-testid=standings]")
            show_standings(board)
            expect(standings).to_contain_text("Jana")
            expect(standings).to_contain_text("Bot 1")
            expect(standings.locator(".standings-next")).to_contain_text("2")
            expect(phone.locator("[data-testid=my-standing]")).to_contain_text("1")
            keep_screenshot(board, artifacts / "tournament-board-standings.png")
            keep_screenshot(phone, artifacts / "tournament-phone-standing.png", full_page=True)

            board_final = board.locator("[data-testid=standings].final")
            for _game in range(5):  # game 2, and rematches after drawn games (L7.3)
                # Scrolled down the result to the end; the next game opens at its top, where
                # the decision starts (it opened where the result had been scrolled to).
                phone.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
                assert phone.evaluate("() => scrollY") > 0
                standings.locator("[data-testid=next-game]").click()
                # Jana has not tapped Ready: the host is asked first.
                expect(board.locator("[data-testid=confirm]")).to_contain_text(
                    "Not ready yet: Jana."
                )
                board.locator("[data-testid=confirm-yes]").click()
                expect(standings).to_have_count(0)
                expect(phone.locator("[data-testid=turn-banner]")).to_be_visible()
                phone.wait_for_function("() => scrollY === 0")
                play_my_game(phone)
                show_standings(board)
                if board_final.count():
                    break
            expect(board_final).to_be_visible()
            expect(board_final.locator(".podium")).to_contain_text("1")
            expect(phone.locator("[data-testid=my-standing]")).to_contain_text("Final place")
            # The night's final place leads the phone, on its first screen, above the last
            # game's own result.
            # (Read in one go in the page: a frame may redraw it between two reads.)
            standing, result = wait_for(
                lambda: phone.evaluate(PLACE_AND_RESULT_JS), "the final place and the result"
            )
            assert standing < PHONE_SIZE["height"] and standing < result, (standing, result)
            board.evaluate(SETTLE_JS)
            keep_screenshot(board, artifacts / "tournament-board-podium.png")
            keep_screenshot(phone, artifacts / "tournament-phone-final.png", full_page=True)
        finally:
            browser.close()
