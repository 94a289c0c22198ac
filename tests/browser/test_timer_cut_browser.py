"""The host shortens the sealing timer mid-round (the deadline becomes at most the new timer
from now): the phone's countdown jumps down, and the phone says why, where a paused clock is
told. Turning a timer on, or a later deadline, says nothing of the kind."""

from __future__ import annotations

from datetime import datetime

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_keyboard_browser import TIMEOUT_MS, quiet, start_against_bots
from tests.conftest import ServerProcess

pytestmark = pytest.mark.browser


def set_timer(board: Page, base: str, code: str, seconds: int) -> None:
    """The host's timer during the game, as the TV's host panel sends it."""
    answer = board.request.post(
        f"{base}/b/{code}/timer", form={"timer": str(seconds)}, headers={"HX-Request": "true"}
    )
    assert answer.status == 204, answer.text()


def phone_deadline(phone: Page) -> datetime:
    deadline = phone.locator("#phone-view .countdown").first.get_attribute("data-deadline")
    assert deadline, "the phone shows no deadline"
    return datetime.fromisoformat(deadline)


def test_a_shortened_timer_is_told_on_the_phone(browser: Browser, server: ServerProcess) -> None:
    board, phone, code = start_against_bots(browser, server.base_url, "heirs", 1)
    try:
        expect(phone.locator("[data-testid=setup-form]")).to_be_visible(timeout=TIMEOUT_MS)
        quiet(phone, code, 0)
        note = phone.locator("[data-testid=timer-cut]")

        set_timer(board, server.base_url, code, 300)
        expect(phone.locator("#phone-view .countdown[data-deadline]").first).to_be_visible()
        expect(note).to_be_hidden()  # a timer turned on is the countdown itself
        first = phone_deadline(phone)

        set_timer(board, server.base_url, code, 30)
        expect(note).to_be_visible()
        expect(note).to_have_attribute("role", "status")
        expect(note).to_contain_text("shortened")
        assert (first - phone_deadline(phone)).total_seconds() > 200

        # In Czech, as the phone's player reads it.
        phone.locator("[data-testid=phone-languages] > summary").click()
        phone.locator("button[lang=cs]").click()
        expect(phone.locator("html")).to_have_attribute("lang", "cs")
        set_timer(board, server.base_url, code, 10)
        expect(note).to_be_visible()
        expect(note).not_to_contain_text("shortened")
    finally:
        board.context.close()
        phone.context.close()
