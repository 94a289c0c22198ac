"""Choices survive a redraw (forms with ``data-keep-choices``, static/pecet.js).

A phone half-way through a choice of several (Hidden Leaders' TAKE 2) gets a new frame when the
host pauses the game, and the frame draws the same form again: the tick the player made is
still there, and the second completes the choice. On the board's lobby the host picks a bot
style, a phone joins (a frame), and the style picked is still the one "Add a bot" adds."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.browser.kit import PHONE_SIZE, launch, watch_frames
from tests.browser.test_heirs_browser import host_room, join
from tests.browser.test_hidden_leaders_browser import TIMEOUT_MS, whose_turn
from tests.conftest import ServerProcess
from tests.live import wait_for

pytestmark = pytest.mark.browser

FRAMES_JS = "() => window.__pecetFrames.filter(f => f[1] === 'AfterMessage').length"


def frames(page: Page) -> int:
    counted: int = page.evaluate(FRAMES_JS)
    return counted


def test_a_redraw_keeps_the_ticks_of_a_take(server: ServerProcess, artifacts: Path) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board, code = host_room(browser, server.base_url, "hidden_leaders")
            phones: dict[str, Page] = {}
            for name in ("Alice", "Bob"):
                phone = browser.new_context(viewport=PHONE_SIZE, is_mobile=True).new_page()
                phone.set_default_timeout(TIMEOUT_MS)
                watch_frames(phone)
                phone.goto(f"{server.base_url}/j/{code}")
                phone.fill('input[name="name"]', name)
                phone.locator("#join-form button[type=submit]").click()
                phone.wait_for_url(f"**/r/{code}")
                phones[name] = phone
            board.locator("[data-testid=start]").click()
            _name, phone = whose_turn(phones)
            take = phone.locator("form.take-form")
            picks = take.locator("label.pick")
            submit = take.locator('button[type="submit"]')
            picks.nth(0).click()
            expect(take.locator("input:checked")).to_have_count(1)
            expect(submit).to_be_disabled()

            before = frames(phone)
            drawn = take.element_handle()
            paused = board.request.post(
                f"{server.base_url}/b/{code}/pause",
                form={"paused": "1"},
                headers={"HX-Request": "true"},
            )
            assert paused.ok, paused.text()
            wait_for(lambda: frames(phone) > before, "a frame to the phone after the pause")
            drawn.wait_for_element_state("hidden")  # the form was drawn anew
            expect(take.locator("input:checked")).to_have_count(1)
            assert picks.nth(0).locator("input").is_checked(), "the same tick, not another"

            board.request.post(
                f"{server.base_url}/b/{code}/pause",
                form={"paused": "0"},
                headers={"HX-Request": "true"},
            )
            picks.nth(1).click()
            expect(submit).to_be_enabled()
            submit.click()
            expect(phone.locator("form.place-form")).to_be_visible()
        finally:
            browser.close()


def test_a_redraw_keeps_the_hosts_bot_style(server: ServerProcess) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board, code = host_room(browser, server.base_url)
            watch_frames(board)
            board.reload()
            style = board.locator("[data-testid=bot-style]")
            style.select_option("raider")
            before = frames(board)
            drawn = style.element_handle()
            join(browser, server.base_url, code, "Jana")
            wait_for(lambda: frames(board) > before, "a frame to the board after the join")
            drawn.wait_for_element_state("hidden")  # the lobby was drawn anew
            expect(board.locator("[data-testid=seats]")).to_contain_text("Jana")
            expect(style).to_have_value("raider")
            board.locator("[data-testid=add-styled-bot]").click()
            bot = board.locator("[data-testid=seats] [data-testid=seat-label][data-seat='1']")
            expect(bot.locator("[data-testid=bot-tag]")).to_have_text("bot · Raider")
        finally:
            browser.close()
