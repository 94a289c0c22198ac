"""A phone's header names its player whole: "Maximilián Novotný" read "Maximili…" (in Russian
"Maximi…"), as the room code, the PIN, "?" and the language share its row. A name of two words
takes two lines now; the controls stay one row, beside the name or under it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.kit import keep_screenshot
from tests.browser.test_heirs_browser import host_room, join
from tests.conftest import ServerProcess

pytestmark = pytest.mark.browser

LONG_NAME = "Maximilián Novotný"
CLAMPED_JS = "e => e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1"
BROKEN_WORDS_JS = """e => {
  // Words of the name that break across two lines ("Maximiliá / n"): none may.
  const text = e.firstChild, broken = [];
  for (const word of text.textContent.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(text, word.index);
    range.setEnd(text, word.index + word[0].length);
    const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    if (tops.size > 1) broken.push(word[0]);
  }
  return broken;
}"""


def test_a_long_name_reads_whole_in_the_phone_header(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    board, code = host_room(browser, server.base_url)
    phone = join(browser, server.base_url, code, LONG_NAME)
    try:
        name = phone.locator(".ph-head .ph-name")
        for lang in ("en", "cs", "hr", "ru"):
            if lang != "en":
                phone.locator("[data-testid=phone-languages] > summary").click()
                phone.locator(f'[data-testid=phone-languages] button[lang="{lang}"]').click()
                expect(phone.locator("html")).to_have_attribute("lang", lang)
            expect(name).to_have_text(LONG_NAME)
            keep_screenshot(phone, artifacts / f"phone-header-long-name-{lang}.png")
            assert not name.evaluate(CLAMPED_JS), f"{lang}: the name is cut"
            assert name.evaluate(BROKEN_WORDS_JS) == [], f"{lang}: a word breaks"
            # The room and the buttons stay one row: beside the name, or, when its longest
            # word does not fit beside them (a wide room code, "RUMG", leaves it less room),
            # all together on a second line; never broken up.
            tops = phone.locator(".ph-tools > *").evaluate_all(
                "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
            )
            assert max(tops) - min(tops) <= 12, f"{lang}: the controls broke up: {tops}"
            head = phone.locator(".ph-head").bounding_box()
            assert head is not None and head["height"] <= 112, head
    finally:
        phone.context.close()
        board.context.close()
