"""A refusal on a phone never covers the decision's confirm. Two heirs keep the same colour at
the same moment (H3.1: first come, first served): the one refused read "Another player
already took that colour." in a box stuck over its "Keep this character" button, which it had
to close before choosing again. The refusal shows at the top of the screen now."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.kit import keep_screenshot, launch
from tests.browser.test_heirs_browser import setup_of_two
from tests.conftest import ServerProcess

pytestmark = pytest.mark.browser

# The loser's own sheet, drawn before the winner's seal reached it: sent as its form sends.
SETUP_FORM_JS = """([colour, character]) => {
  htmx.swap("#phone-socket",
    `<form ws-send id="late-pick"><input type="hidden" name="action" value="heirs_setup">` +
    `<input type="hidden" name="colour" value="${colour}">` +
    `<input type="hidden" name="character" value="${character}"></form>`,
    {swapStyle: "beforeend"});
  htmx.trigger(document.getElementById("late-pick"), "submit");
  return true;
}"""


def test_a_refused_pick_leaves_the_keep_button_free(server: ServerProcess, artifacts: Path) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            _board, _code, ema, ota = setup_of_two(browser, server.base_url)
            taken = ema.locator(".hx-colour input").nth(1).get_attribute("value")
            for phone in (ota, ema):  # both choose it; Ema keeps it first
                phone.locator(f'.hx-colour:has(input[value="{taken}"])').click()
            ema.locator("[data-testid=seal-setup]").click()
            expect(ota.locator("[data-testid=colour-taken]")).to_be_visible()
            character = ota.locator('input[name="character"]').first.get_attribute("value")

            ota.evaluate(SETUP_FORM_JS, [taken, character])
            error = ota.locator("#phone-error.show")
            expect(error).to_contain_text("Another player already took that colour.")
            keep = ota.locator("[data-testid=seal-setup]")
            expect(keep).to_be_visible()
            keep_screenshot(ota, artifacts / "heirs-phone-colour-refused.png")
            box, button = error.bounding_box(), keep.bounding_box()
            assert box is not None and button is not None
            apart = (
                box["y"] + box["height"] <= button["y"]
                or button["y"] + button["height"] <= box["y"]
            )
            assert apart, f"the refusal {box} covers Keep {button}"
            keep.click()  # still free to choose again: nothing to close first
        finally:
            browser.close()
