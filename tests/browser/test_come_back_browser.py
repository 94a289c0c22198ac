"""Coming back to a seat on a small phone (360×740), in Chromium: the form opens in sight,
and a wrong PIN's error is read whole above the PIN field it focuses."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, ViewportSize, expect, sync_playwright

from tests.browser.kit import keep_screenshot, launch
from tests.conftest import ServerProcess

pytestmark = pytest.mark.browser

SMALL_PHONE: ViewportSize = {"width": 360, "height": 740}


IN_SIGHT_JS = """el => {
  const box = el.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight;
}"""


def in_sight(element: Locator) -> bool:
    return bool(element.evaluate(IN_SIGHT_JS))


def wait_in_sight(page: Page, element: Locator) -> None:
    """Until the element is wholly on the screen (a scroll may still be under way)."""
    page.wait_for_function(IN_SIGHT_JS, arg=element.element_handle(), timeout=5_000)


def test_the_come_back_form_opens_in_sight_and_a_wrong_pins_error_is_read_whole(
    server: ServerProcess, artifacts: Path
) -> None:
    api = httpx.Client(base_url=server.base_url, timeout=10)
    room = api.post("/api/rooms", json={"game": "hidden_leaders"}).json()
    seat = api.post(f"/api/rooms/{room['code']}/seats", json={"name": "Ann"}).json()
    wrong = "0000" if seat["pin"] != "0000" else "1111"
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            context = browser.new_context(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
            page = context.new_page()
            page.goto(server.base_url + "/")
            # Folded at the page's foot; a tap opens it, and its button comes into sight
            # (it opened below the screen's edge, and the tap seemed to do nothing).
            page.locator("[data-testid=come-back] > summary").click()
            submit = page.locator("[data-testid=come-back-submit]")
            expect(submit).to_be_visible()
            wait_in_sight(page, submit)
            page.locator("#back-code").fill(room["code"])
            page.locator("#back-name").fill("Ann")
            page.locator("#back-pin").fill(wrong)
            submit.click()
            error = page.locator("[data-testid=reclaim-error]")
            expect(error).to_be_visible()
            keep_screenshot(page, artifacts / "come-back-wrong-pin-360.png")
            # The error is read whole, and the PIN field it sends the player to is focused
            # and in sight below it (the field was, the error's first words were above).
            wait_in_sight(page, error)
            pin = page.locator("#back-pin")
            expect(pin).to_be_focused()
            assert in_sight(pin)
            # The address is the come-back form's own page, not its POST: a reload shows
            # the form again (it sent the wrong PIN again, after the browser's "resend?").
            assert page.url == f"{server.base_url}/j/{room['code']}?back=1&name=Ann"
            methods: list[str] = []
            page.on("request", lambda request: methods.append(request.method))
            page.reload()
            expect(page.locator("#back-name")).to_have_value("Ann")
            assert methods[0] == "GET", methods
        finally:
            browser.close()


def test_a_refused_join_leaves_the_address_of_its_form_not_of_its_post(
    server: ServerProcess,
) -> None:
    """A reload of a refused join sent the form again (after the browser's "resend?")."""
    api = httpx.Client(base_url=server.base_url, timeout=10)
    room = api.post("/api/rooms", json={"game": "hidden_leaders"}).json()
    api.post(f"/api/rooms/{room['code']}/seats", json={"name": "Ann"})
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_context(viewport=SMALL_PHONE, is_mobile=True).new_page()
            page.goto(server.base_url + "/")
            page.locator("#code").fill(room["code"])
            page.locator("#join-form input[name=name]").fill("Ann")
            page.locator("#join-form button[type=submit]").click()
            expect(page.locator("[data-testid=join-error]")).to_be_visible()
            assert page.url == f"{server.base_url}/j/{room['code']}"
        finally:
            browser.close()


LONG_NAME = "Alexandrina Konstantinovna Přemyslovna"  # 38 letters, a name may hold 24


def test_a_name_cut_to_the_most_a_name_holds_says_so(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """A name longer than a name may be, pasted into the join form (or the come-back form),
    is cut to 24 letters by the field: a line below it says names hold 24 at most (it was
    cut without a word). A shorter name shows no such line; in Czech, it reads in Czech."""
    context = browser.new_context(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(server.base_url + "/")
    name, hint = page.locator("#name"), page.locator("[data-testid=name-max]")
    expect(hint).to_be_hidden()
    name.fill("Jana")
    expect(hint).to_be_hidden()
    name.focus()
    name.press("Control+a")
    page.keyboard.insert_text(LONG_NAME)  # as a paste puts it in
    expect(name).to_have_value(LONG_NAME[:24])
    expect(hint).to_be_visible()
    expect(hint).to_have_text("Names are at most 24 characters.")
    keep_screenshot(page, artifacts / "join-name-cut-360.png")
    name.press("Backspace")
    expect(hint).to_be_hidden()
    page.locator("[data-testid=come-back] > summary").click()
    back_name = page.locator("#back-name")
    back_name.focus()
    page.keyboard.insert_text(LONG_NAME)
    expect(back_name).to_have_value(LONG_NAME[:24])
    expect(page.locator("[data-testid=back-name-max]")).to_be_visible()
    page.goto(server.base_url + "/lang/cs?next=/")
    page.locator("#name").focus()
    page.keyboard.insert_text(LONG_NAME)
    czech = page.locator("[data-testid=name-max]")
    expect(czech).to_be_visible()
    expect(czech).not_to_have_text("Names are at most 24 characters.")
    expect(czech).to_contain_text("24")
    context.close()
