"""What every game shares, in Debian's Chromium against a real server: the join page's error
goes once the code is corrected, one seat label on the board and the phone, one bot control
with the style on the seat, the timer's icon, a seat handed to a bot, How to play."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.browser.kit import BOARD_SIZE, PHONE_SIZE, keep_screenshot, launch
from tests.conftest import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.server]
TIMEOUT_MS = 30_000

PICTURES_LOADED = """() => {
  const images = [...document.querySelectorAll('[data-testid=howto-picture]')];
  return images.length >= 4 && images.every(i => i.complete && i.naturalWidth > 0);
}"""


def seat_labels(page: Page, where: str) -> list[str]:
    return [
        " ".join(t.split())
        for t in page.locator(f"{where} [data-testid=seat-label]").all_inner_texts()
    ]


def test_seats_bots_join_error_timer_and_how_to_play(
    server: ServerProcess, artifacts: Path
) -> None:
    shots = artifacts / "everywhere"
    shots.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board = browser.new_context(viewport=BOARD_SIZE).new_page()
            board.set_default_timeout(TIMEOUT_MS)
            board.goto(server.base_url + "/")
            board.locator('button[name="game"][value="heirs"]').click()
            board.wait_for_url("**/b/*")
            code = board.locator("[data-testid=room-code]").inner_text().strip()

            phone_context = browser.new_context(viewport=PHONE_SIZE, is_mobile=True, has_touch=True)
            phone = phone_context.new_page()
            phone.set_default_timeout(TIMEOUT_MS)

            # A wrong code is refused; correcting it clears the refusal before the next try.
            phone.goto(server.base_url + "/")
            phone.fill('input[name="code"]', "ZZZZ")
            phone.fill('input[name="name"]', "Jana")
            phone.locator("#join-form button[type=submit]").click()
            error = phone.locator("[data-testid=join-error]")
            expect(error).to_be_visible()
            keep_screenshot(phone, shots / "join-error.png")
            phone.fill('input[name="code"]', code)
            expect(error).to_be_hidden()
            keep_screenshot(phone, shots / "join-corrected.png")
            phone.locator("#join-form button[type=submit]").click()
            phone.wait_for_url(f"**/r/{code}")

            # One bot control: the style picker and one button; the style shows on the seat.
            assert board.locator('form[action$="/bots"]').count() == 1
            board.locator("[data-testid=bot-style]").select_option("raider")
            board.locator("[data-testid=add-styled-bot]").click()
            bot = board.locator("[data-testid=seats] [data-testid=seat-label][data-seat='1']")
            expect(bot).to_contain_text("Bot 1")
            expect(bot.locator("[data-testid=bot-tag]")).to_have_text("bot · Raider")
            expected = ["1 Jana", "2 Bot 1 bot · Raider"]
            assert seat_labels(board, "[data-testid=seats]") == expected
            expect(phone.locator(".ph-seats [data-testid=seat-label]")).to_have_count(2)
            assert seat_labels(phone, ".ph-seats") == expected
            board.locator("[data-testid=opt-timer]").select_option("60")
            keep_screenshot(board, shots / "lobby-host-with-bots.png")
            keep_screenshot(phone, shots / "phone-lobby.png")

            # How to play from the board and from the phone, in the screen's language.
            for page in (board, phone):
                link = page.locator("[data-testid=howto-link]:visible")
                expect(link).to_have_count(1)
                assert link.get_attribute("href") == "/howto/heirs?lang=en"

            # The timer is an SVG icon, not the ⏱ glyph some Chromium builds cannot draw.
            board.locator("[data-testid=start]").click()
            phone.locator("[data-testid=seal-setup]").click()
            countdown = phone.locator("[data-testid=countdown]").first
            icon = countdown.locator("img.icon-timer")
            expect(icon).to_be_visible()
            # Loaded and drawn: waited for, as a picture loads after its element shows.
            phone.wait_for_function(
                """() => [...document.querySelectorAll("[data-testid=countdown] img.icon-timer")]
                    .some(i => i.complete && i.naturalWidth > 0)"""
            )
            expect(countdown).to_contain_text(re.compile(r"\d+:\d\d"))
            assert "⏱" not in countdown.inner_text()
            keep_screenshot(phone, shots / "phone-timer.png")

            # The host hands Jana's seat to a bot: the seat is a bot's, with its style.
            host_cookies = {c["name"]: c["value"] for c in board.context.cookies()}
            kicked = httpx.post(
                f"{server.base_url}/b/{code}/seats/0/kick", cookies=host_cookies, timeout=10
            )
            assert kicked.status_code < 400
            seats = httpx.get(f"{server.base_url}/api/rooms/{code}", timeout=10).json()["seats"]
            assert seats[0]["bot"] is True and seats[0]["bot_style"] == "expander"
            expect(phone.locator("[data-testid=handed]")).to_be_visible()  # it watches on
            expect(board.locator("[data-testid=howto-link]:visible")).to_have_count(1)
            keep_screenshot(board, shots / "board-seat-handed-to-bot.png")

            # How to play, on the phone in Czech and on the TV in English, pictures loaded.
            phone.goto(server.base_url + "/howto/heirs?lang=cs")
            expect(phone.locator("h1")).to_have_text("Dědicové Osy")
            phone.wait_for_function(PICTURES_LOADED)
            keep_screenshot(phone, shots / "howto-heirs-phone-cs.png", full_page=True)
            board.goto(server.base_url + "/howto/legions?lang=en")
            expect(board.locator("h1")).to_have_text("Legions")
            board.wait_for_function(PICTURES_LOADED)
            keep_screenshot(board, shots / "howto-legions-tv-en.png", full_page=True)
        finally:
            browser.close()
