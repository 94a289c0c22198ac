"""A form that sends itself after a while (a Legions step with nothing to decide goes on after
2.5 s) must not send once the page has moved on to the next decision: that order answered a
decision already made, and the phone read a refusal ("the board is still playing the last
round out") it had not earned. Real page, real server, real socket; the frames the phone
sends are read off the socket."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.kit import PHONE_SIZE, launch
from tests.browser.test_heirs_browser import host_room
from tests.conftest import ServerProcess

pytestmark = pytest.mark.browser

TIMED_FORM_JS = """([lang, delay]) => {
  // Swapped in by htmx as a frame's fragment is (htmx.swap: what the socket's extension runs).
  htmx.swap("#phone-socket",
    `<form ws-send data-send-after="${delay}" data-set-lang="${lang}">` +
    `<input type="hidden" name="action" value="lang">` +
    `<input type="hidden" name="lang" value="${lang}"></form>`,
    {swapStyle: "beforeend"});
  return true;
}"""


def test_a_form_that_left_the_page_does_not_send_itself(server: ServerProcess) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            _board, code = host_room(browser, server.base_url)
            context = browser.new_context(viewport=PHONE_SIZE, is_mobile=True, has_touch=True)
            phone = context.new_page()
            sent: list[str] = []

            def record(payload: str | bytes) -> None:
                sent.append(payload if isinstance(payload, str) else payload.decode())

            phone.on("websocket", lambda socket: socket.on("framesent", record))
            phone.goto(server.base_url + "/")
            phone.fill('input[name="code"]', code)
            phone.fill('input[name="name"]', "Ema")
            phone.locator("#join-form button[type=submit]").click()
            phone.wait_for_url(f"**/r/{code}")
            expect(phone.locator("#phone-view")).to_be_attached()

            # Its timer set, the first form leaves the page (the next decision's frame
            # replaced it); the second stays, and its later send marks the wait's end.
            phone.evaluate(TIMED_FORM_JS, ["cs", 300])
            phone.evaluate("document.querySelector('form[data-send-after]').remove()")
            phone.evaluate(TIMED_FORM_JS, ["hr", 900])
            expect(phone.locator("html")).to_have_attribute("lang", "hr", timeout=10_000)

            langs = [json.loads(frame).get("lang") for frame in sent if '"lang"' in frame]
            assert langs == ["hr"], langs
        finally:
            browser.close()
